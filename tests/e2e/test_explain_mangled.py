"""gpudoctor explain on real logs as collectors and web pages mangle them.

Each text is a real log of the open corpus (tests/explain/corpus/dev/,
its thread in its header), rewritten the way a tool prints it
(tests/explain/corpus/mangle.py: docker's json-file escaping, a German
glibc, colour whose ESC was lost, collectors' prefixes).  The normaliser
(src/explain/logunwrap.c, lognorm_prefix.c) must give back the message: the
cause named on the plain log is named on the mangled one, and a benign log
stays without a stack cause.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import GPUDOCTOR, REPO  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "tests", "explain", "corpus"))
import mangle  # noqa: E402
import score  # noqa: E402


def log(name):
    return [c for c in score.load("dev") if c["file"] == "dev/" + name][0]


class Mangled(unittest.TestCase):
    def named_right(self, name, mangling):
        c = log(name)
        causes = score.named(GPUDOCTOR, mangle.MANGLINGS[mangling](c["text"]))[0]
        self.assertTrue(set(causes) & set(c["expect"]),
                        f"{name} as {mangling}: expected {c['expect']}, named {causes}")

    def test_german_glibc(self):
        # "Kann die Shared-Object-Datei nicht öffnen: Datei oder Verzeichnis nicht gefunden"
        self.named_right("r4-A02.txt", "de")

    def test_docker_json_file(self):
        # the message escaped inside {"log":"...\n","stream":"stderr"}
        self.named_right("r5-C18.txt", "json")

    def test_collectors(self):
        for m in ("cri", "mpi", "compose", "ray", "srun", "ansi-lost", "crlf"):
            for name in ("r4-A02.txt", "r5-C18.txt", "r9-sys-11.txt", "r8-fleethw-10.txt"):
                with self.subTest(mangling=m, log=name):
                    self.named_right(name, m)

    def test_launchers(self):
        # launchers and loggers of distributed runs: every line behind
        # "[rank3]: ", "[default0]:", Python logging's "time - LEVEL - ",
        # vLLM's worker and logger prefixes, pdsh's "host: " (DeepSpeed),
        # DeepSpeed's logger behind it, kubectl --prefix, Horovod's
        # "[1]<stderr>:"; and two ranks' copies of the log interleaved
        for m in ("torchrun", "elastic", "pylog", "vllm", "vllm-old", "pdsh", "deepspeed",
                  "kubectl", "horovod", "interleave"):
            for name in ("r4-A02.txt", "r5-C18.txt", "r5-C15.txt", "r8-fleethw-01.txt", "r10F-17.txt",
                         "r11-norm-04.txt"):
                if m == "interleave" and name == "r5-C15.txt":
                    continue  # a wrapped message split between ranks: not joined yet
                with self.subTest(mangling=m, log=name):
                    self.named_right(name, m)

    def test_launchers_benign(self):
        # near miss: an OOM of a model too big for its GPU, behind the
        # launchers' prefixes, stays the job's own size (no stack cause)
        for m in ("torchrun", "pylog", "vllm", "pdsh", "deepspeed", "kubectl", "interleave"):
            for name in ("r8-oombenign-04.txt", "r11-norm-02.txt"):
                c = log(name)
                with self.subTest(mangling=m, log=name):
                    self.assertEqual(score.named(GPUDOCTOR, mangle.MANGLINGS[m](c["text"]))[0], [])

    def test_benign_stays_benign(self):
        # near misses: benign look-alikes, however mangled, name no stack cause
        for name in ("r4-B17.txt", "r4-B18.txt", "github-com-tensorflow-tensorflow-issues-53184.txt"):
            c = log(name)
            self.assertIsNone(c["expect"])
            for m in mangle.MANGLINGS:
                with self.subTest(mangling=m, log=name):
                    self.assertEqual(score.named(GPUDOCTOR, mangle.MANGLINGS[m](c["text"]))[0], [])


if __name__ == "__main__":
    unittest.main()
