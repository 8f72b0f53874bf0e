"""The vocabulary tier of gpudoctor explain (issue 20).

Rows "term-*" of src/knowledge/data/explain.tsv name a cause from the domain
word of an error line (GRES, DKMS, nouveau, NET/IB, /dev/shm, nvidia-uvm,
NCCL + hang) when no exact message shape matched.  src/explain/explain.c
treats them as a last resort: an exact row that names a cause anywhere in
the log silences them, and a line NCCL logged at level INFO is never theirs.
The per-row fixtures are tests/explain/fixtures/terms.txt (test_explain.py).
"""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import GPUDOCTOR  # noqa: E402


def explain(text):
    p = subprocess.run([GPUDOCTOR, "explain", "--json", "--no-live", "-"], input=text.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return json.loads(p.stdout)


def rules(doc):
    return [m["rule"] for m in doc["matches"]]


# https://github.com/skypilot-org/skypilot/pull/10522
GRES = "srun: error: Step requested GRES (gpu:(null)) not found in the job\n"
# https://github.com/NVIDIA/gpu-driver-container/issues/44 (an exact row, modprobe-key-rejected)
KEY = "modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n"


class Terms(unittest.TestCase):
    def test_a_term_line_alone_names_its_cause(self):
        doc = explain(GRES)
        self.assertEqual(rules(doc), ["term-slurm-gres"])
        self.assertEqual(doc["result"]["most_specific_cause"], "slurm-gres-misconfigured")

    def test_an_exact_row_silences_the_tier(self):
        doc = explain(GRES + KEY)
        self.assertEqual(rules(doc), ["modprobe-key-rejected"])
        self.assertEqual(doc["result"]["most_specific_cause"], "secure-boot-blocks-module")
        self.assertEqual(doc["result"]["stack_matches"], 1)

    def test_nccl_info_lines_are_not_errors(self):
        # the same words at level WARN are the tier's; at level INFO they are not
        warn = "n1:1:1 [0] transport/net_ib.cc:149 NCCL WARN NET/IB : Unable to open device mlx5_59\n"
        info = "n1:1:1 [0] NCCL INFO NET/IB : Unable to open device mlx5_59\n"
        self.assertEqual(rules(explain(warn)), ["term-nccl-ib"])
        doc = explain(info)
        self.assertEqual(rules(doc), [])
        self.assertEqual(doc["result"]["exit"], 3)

    def test_a_term_row_joins_no_lines(self):
        # an INFO line ending in a word, then a WARN line of the same rank
        # (https://github.com/NVIDIA/nccl/issues/380): logjoin must not glue
        # the two for a term row, or the WARN line is lost with the INFO one
        log = ("spark01:2683:2780 [0] NCCL INFO Using network IB\n"
               "spark01:2683:2826 [0] misc/ibvwrap.cc:268 NCCL WARN Call to ibv_create_cq failed\n")
        self.assertEqual(rules(explain(log)), ["term-nccl-ib"])

    def test_the_term_needs_an_error_word_on_its_line(self):
        self.assertEqual(rules(explain("Removing old nvidia-470.57.02 DKMS files...\n")), [])
        self.assertEqual(rules(explain("DKMS: build failed for nvidia/470\n")), ["term-dkms"])

    def test_an_out_of_memory_judged_the_jobs_own_size_silences_the_tier(self):
        # PyTorch 2.x's message (c10/cuda/CUDACachingAllocator.cpp) with figures
        # that show the job's own use: explain.c makes the exact row scope.  The
        # other ranks then wait on the dead one; a line of that hang is a term
        # row's, and must not become the answer over the exact verdict.
        oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
               "capacity of 79.15 GiB of which 1.00 GiB is free. Including non-PyTorch memory, this process "
               "has 78.10 GiB memory in use. Of the allocated memory 77.00 GiB is allocated by PyTorch, and "
               "100.00 MiB is reserved by PyTorch but unallocated.\n")
        hang = "[rank1]: NCCL all_reduce appears stuck, error: rank 0 never arrived\n"
        doc = explain(oom + hang)
        self.assertEqual(rules(doc), ["torch-cuda-oom-v2"])
        self.assertEqual(doc["result"]["stack_matches"], 0)
        # near miss: the hang line alone is the tier's
        self.assertEqual(rules(explain(hang)), ["term-nccl-hang"])


if __name__ == "__main__":
    unittest.main()
