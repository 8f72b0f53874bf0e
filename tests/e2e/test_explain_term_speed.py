"""gpudoctor explain on lines crafted against the vocabulary tier (rows
"term-*": a domain word and an error word within 80 bytes, issue 20): every
domain word repeated hundreds of times beside error words that do not
complete ('erro', 'fai', 'unabl'), beside complete error words that a word
boundary or a slash keeps from counting ('gresx error', '/dkms fail'), and
beside complete ones just out of the gap's reach.  glibc's regexec ran each
row's "DOMAIN.{0,80}ERROR" from every start position: 7-18 CPU s per 100 MB
for one row's words, 45 s with every row's word on the line.  The rows now
run on src/explain/termre.h's matcher, linear in the line.

Times are CPU seconds of the gpudoctor process (user + system, from wait4),
so that a loaded CI machine does not fail them; under AddressSanitizer the
bounds are ten times wider.  The bound is 3 s per 100 MB, prorated: the
crafted log is 25 MB.  Each log ends with a real term line (or a near miss
of one), so the test fails when the tier stops answering, not only when it
is slow.
"""
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import GPUDOCTOR, explain_cpu, matched_rules  # noqa: E402

MB = 1 << 20
with open(GPUDOCTOR, "rb") as _f:
    SLOW = 10 if b"__asan_init" in _f.read() else 1

# Per row's domain words: what a crafted line repeats.
UNITS = [
    "gres erro ", "gres fai gres unabl ", "dkms erro ", "nouveau fai ", "mig unabl ", "sm_80 unsupporte ",
    "fabric manager erro ", "cgroup v2 fai ", "p2p han ", "/dev/shm erro shm fai ", "nvidia-uvm erro ",
    "infiniband erro net/ib fai ", "nccl han nccl stuc ", "capability 8.6 requir ",
    # complete error words the row's own boundaries keep from counting
    "gresx error ", "/dkms/ fail ", "migx unable ", "nouveaux error ", "p2px hangs ",
    # complete error words beyond the gap's 80 bytes
    "gres " * 12 + "x" * 90 + " error " + "y" * 90 + " ",
]
ALL = "gres dkms nouveau mig sm_80 fabric manager cgroup v2 p2p shm nvidia-uvm infiniband nccl capability erro fai unabl "


def crafted(size, tail, units=UNITS):
    """size bytes of distinct crafted lines (a counter first: repeated lines are answered from a memo), then tail."""
    out, n, i = [], 0, 0
    while n < size:
        unit = units[i % len(units)]
        width = 1500 if i % 11 == 0 else 200
        body = (unit * (width // len(unit) + 1))[:width]
        line = ("%d " % i + body + "\n").encode()
        out.append(line)
        n += len(line)
        i += 1
    return b"".join(out) + tail


class TermTierSpeed(unittest.TestCase):
    def explain(self, data):
        rc, out, cpu = explain_cpu(data, timeout=120 * SLOW)
        return rc, json.loads(out), cpu

    def test_crafted_lines_stay_linear_and_a_real_line_still_counts(self):
        tail = b"slurmstepd: error: gres/gpu: could not find the GPU of the job's GRES\n"
        rc, doc, cpu = self.explain(crafted(25 * MB, tail))
        self.assertIn("term-slurm-gres", matched_rules(doc))
        hit = [m for m in doc["matches"] if m["rule"] == "term-slurm-gres"][0]
        self.assertEqual(hit["count"], 1, "only the real line is an error about GRES")
        self.assertLessEqual(cpu, 0.75 * SLOW, "25 MB of crafted lines took %.2f CPU s" % cpu)

    def test_every_rows_words_on_one_line(self):
        # Every row's word on each line: every row looks at the line.  The
        # exact rows anchored on those words cost most of it (5-6.5 CPU s per
        # 100 MB with no term row at all; 45 s before termre, 7-10 s now, on
        # the loaded machine this was written on): the bound guards against
        # the tier's own regression, 15 s per 100 MB.
        tail = b"slurmstepd: error: gres/gpu: could not find the GPU of the job's GRES\n"
        rc, doc, cpu = self.explain(crafted(10 * MB, tail, [ALL]))
        self.assertIn("term-slurm-gres", matched_rules(doc))
        self.assertLessEqual(cpu, 1.5 * SLOW, "10 MB of lines with every row's word took %.2f CPU s" % cpu)

    def test_crafted_lines_alone_name_no_term_row(self):
        rc, doc, cpu = self.explain(crafted(2 * MB, b"gresx error: nothing here\n"))
        self.assertEqual([r for r in matched_rules(doc) if r.startswith("term-")], [])
        self.assertLessEqual(cpu, 0.2 * SLOW, "2 MB of crafted lines took %.2f CPU s" % cpu)


if __name__ == "__main__":
    unittest.main()
