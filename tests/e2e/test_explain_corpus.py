"""gpudoctor explain on real logs it was not written from (issue 20).

tests/explain/corpus holds 100 logs from public threads, each with the cause
that fixed it (or "benign"), split by a hash of the thread's URL into dev/
(rules were written from these) and test/ (held out).  score.py is the
scorer; this test asserts the goal: at least 85 % of the real failures of
each set named right, and no stack cause named on any benign log.

It also triggers each cause added for issue 20 with a real text, beside a
near miss that must not name it.
"""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import GPUDOCTOR, REPO  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "tests", "explain", "corpus"))
import score  # noqa: E402


def causes_of(text):
    return score.named(GPUDOCTOR, text)[0]


class Corpus(unittest.TestCase):
    def check(self, split):
        r = score.score(GPUDOCTOR, [split])
        self.assertGreaterEqual(r["failures"], 30, f"{split}: too few real failures")
        self.assertGreaterEqual(r["benign"], 5, f"{split}: too few benign logs")
        misses = "\n".join(f"{f}: expected {e}, named {c}" for f, e, c, _ in r["misses"])
        self.assertGreaterEqual(r["right"] / r["failures"], 0.85,
                                f"{split}: {r['right']}/{r['failures']}\n{misses}")
        self.assertEqual(r["alarms"], [], f"{split}: a stack cause named on a benign log")

    def test_development_set(self):
        self.check("dev")

    def test_held_out_set(self):
        self.check("test")


# (cause id, a real text that names it, its source, a near miss that must not)
CASES = [
    ("ptxas-too-old",
     "A simple Lux+Reactant+Enzyme test complains 'ptxas too old'.\n",
     "https://github.com/EnzymeAD/Reactant.jl/issues/1280",
     "W asm_compiler.cc:111] *** WARNING *** You are using ptxas 9.2.148, which is older than "
     "11.1. ptxas before 11.1 is known to miscompile XLA code\n"),
    ("shm-permission",
     "node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied\n",
     "https://github.com/pytorch/pytorch/issues/37004",
     "g148:14937:69361 [0] misc/shmutils.cc:93 NCCL WARN Call to open failed: No such file or directory\n"),
    ("lib-mixed-builds",
     "[Bug]version libcudnn_ops_infer.so.8 not defined in file libcudnn_ops_infer.so.8\n",
     "https://github.com/davisking/dlib/issues/2719",
     "libstdc++.so.6: version `GLIBCXX_3.4.20' not found\n"),
    ("ctk-ldconfig-path",
     "nvidia-container-cli: ldcache error: process /sbin/ldconfig failed with error code: 127\n",
     "https://github.com/NVIDIA/nvidia-docker/issues/587",
     "I0711 07:13:39.545694 40071 nvc_ldcache.c:372] executing /usr/sbin/ldconfig from host\n"),
    ("nccl-ib-network-error",
     "NET/IBP:Got completion from peer 7.6.13.83<36315> with status=12 opcode=32698 len=32696 "
     "vendor err 129 (Send)\n",
     "https://github.com/NVIDIA/nccl/issues/1664",
     "hostname-test:986:1338 [6] NCCL INFO NCCL_IB_TIMEOUT set by environment to 18.\n"),
    ("slurm-gres-misconfigured",
     "sbatch: error: Invalid generic resource (gres) specification\n",
     "https://github.com/awslabs/awsome-distributed-ai/issues/196",
     "Name=gpu File=/dev/nvidia0 CPUs=48-63,176-191\n"),
    ("kernel-lockdown-blocks-module",
     "[  398.381052] Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7\n",
     "https://github.com/RinCat/RTL88x2BU-Linux-Driver/issues/114",
     "\tlockdown=\t[SECURITY]\n"),
]


class NewCauses(unittest.TestCase):
    def test_each_new_cause_is_named_and_not_on_its_near_miss(self):
        for cause, text, source, near in CASES:
            with self.subTest(cause=cause, source=source):
                self.assertIn(cause, causes_of(text))
                self.assertNotIn(cause, causes_of(near))

    def test_explain_documents_each_new_cause(self):
        for cause, _, _, _ in CASES:
            with self.subTest(cause=cause):
                p = subprocess.run([GPUDOCTOR, "explain", cause], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=30)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn(cause, p.stdout.decode())


if __name__ == "__main__":
    unittest.main()
