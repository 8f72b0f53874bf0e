"""Sibling causes written once (issue 20): '#@beside' lines of src/knowledge/data/explain.tsv.

A context-specific sibling of a cause (the container form of a host failure, a Slurm
job's of a bare node's, an ECC XID's of any XID) is named on its evidence by every row
that names the cause, not only by the rows that happen to write it (logrules.h).  Each
test takes a real message whose row does NOT write the sibling (checked against the
table, so the test fails if the sibling is only there because a row wrote it), adds the
context, and expects the sibling; the near miss is the same message without the context.
The messages are the rows' fixtures (tests/explain/fixtures/*.txt), with their sources.
"""
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import REPO, explain_causes, run  # noqa: E402

RULES = os.path.join(REPO, "src", "knowledge", "data", "explain.tsv")

# DCGM's health message, DCGM_FR_XID_ERROR_MSG (https://github.com/NVIDIA/DCGM/blob/master/dcgmlib/dcgm_errors.h)
DCGM_XID48 = "Health Monitor Report: Detected XID 48 for GPU 0\n"
DCGM_XID79 = "Detected XID 79 for GPU 3\n"
# TensorFlow's diagnostic, https://github.com/tensorflow/tensorflow/issues/9377
TF_DSO = ("2017-04-20 16:19:03.123456: E tensorflow/stream_executor/cuda/cuda_diagnostics.cc:303] kernel "
          "version 375.39.0 does not match DSO version 375.51.0 -- cannot find working devices in this "
          "configuration\n")
# TensorFlow's cuInit failure, https://github.com/tensorflow/tensorflow/issues/62494
TF_CUINIT = ("2024-03-01 12:00:00.000000: E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:282] "
             "failed call to cuInit: CUDA_ERROR_NOT_INITIALIZED: initialization error\n")
# PyTorch's no-driver error (torch/cuda/__init__.py)
TORCH = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
         "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n")
# the container toolkit's hook on the host (NVIDIA/libnvidia-container)
CTK_MISMATCH = ("docker: Error response from daemon: OCI runtime create failed: container_linux.go:380: "
                "starting container process caused: process_linux.go:545: container init caused: Running hook "
                "#0:: error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization "
                "error: nvml error: driver/library version mismatch: unknown.\n")

DOCKER = "$ docker run --rm -it tensorflow/tensorflow:latest-gpu python train.py\n"
DOCKER_GPUS = "$ docker run --rm --gpus all -it tensorflow/tensorflow:latest-gpu python train.py\n"
SRUN = "$ srun --gres=gpu:1 --partition=gpu python train.py\n"


def row_causes(rule):
    """The cause ids a row of the table writes itself (without its #@beside siblings)."""
    with open(RULES, encoding="utf-8") as f:
        for line in f:
            c = line.rstrip("\n").split("\t")
            if not line.startswith("#") and len(c) == 11 and c[0] == rule:
                return [x.split("?")[0] for x in c[7].split(";")]
    raise KeyError(rule)


class Siblings(unittest.TestCase):
    def sibling(self, rule, sibling, context, message, also=()):
        self.assertNotIn(sibling, row_causes(rule), f"{rule} writes {sibling} itself: no test of #@beside")
        got = explain_causes(context + message)
        self.assertIn(sibling, got, context)
        for c in also:
            self.assertIn(c, got)
        near = explain_causes(message)
        self.assertNotIn(sibling, near, "named without its context")
        return got, near

    def test_ecc_xid_named_beside_dcgm_xid(self):
        # the evidence is the XID's own number; the near miss is another XID on the same row
        self.assertNotIn("ecc-errors", row_causes("fleethw-dcgm-xid"))
        got = explain_causes(DCGM_XID48)
        self.assertIn("ecc-errors", got)
        self.assertIn("gpu-xid-error", got)
        near = explain_causes(DCGM_XID79)
        self.assertNotIn("ecc-errors", near)
        self.assertIn("gpu-xid-error", near)

    def test_driver_mismatch_in_a_container(self):
        self.sibling("tf-kernel-dso-mismatch", "container-driver-libs-mismatch", DOCKER, TF_DSO,
                     also=("driver-library-mismatch",))

    def test_the_toolkit_hook_mismatch_is_the_host_s(self):
        # nvidia-container-cli meets the mismatch on the host, before any container: the exception
        got = explain_causes(DOCKER_GPUS + CTK_MISMATCH)
        self.assertIn("driver-library-mismatch", got)
        self.assertNotIn("container-driver-libs-mismatch", got)

    def test_cuinit_in_a_container_and_the_chained_runtime(self):
        self.sibling("cuinit-failed", "container-gpu-not-requested", DOCKER, TF_CUINIT, also=("cuda-init-failed",))
        self.assertNotIn("container-runtime-missing", explain_causes(DOCKER + TF_CUINIT))
        # asked for its GPUs: the runtime, a sibling of container-gpu-not-requested (chained)
        self.assertNotIn("container-runtime-missing", row_causes("cuinit-failed"))
        self.assertIn("container-runtime-missing", explain_causes(DOCKER_GPUS + TF_CUINIT))

    def test_an_error_code_s_cause_gets_its_sibling(self):
        # an "@errcode" row names the code's causes (explain/errcodes.h): the siblings follow them
        # at match time; CUDA_ERROR_NOT_INITIALIZED is CUresult 3 (cuda.h)
        code = "RuntimeError: CUDA driver error: CUDA_ERROR_NOT_INITIALIZED\n"
        got = explain_causes(DOCKER + code)
        self.assertIn("cuda-init-failed", got)
        self.assertIn("container-gpu-not-requested", got)
        self.assertNotIn("container-gpu-not-requested", explain_causes(code))

    def test_no_driver_in_a_slurm_job(self):
        self.sibling("torch-no-driver", "slurm-gres-misconfigured", SRUN, TORCH,
                     also=("nvidia-module-not-loaded",))


class KbTable(unittest.TestCase):
    """The directive from a --kb table: the row's own condition wins, a malformed line is refused."""
    HEAD = "id\tprio\tclass\tmatch\tpattern\tanchor\tcaptures\tcauses\tlayer\tsays\tsource\n"

    def kb(self, top, causes, log):
        d = tempfile.mkdtemp(prefix="gd-beside-")
        self.addCleanup(shutil.rmtree, d)
        with open(os.path.join(d, "explain.tsv"), "w", encoding="utf-8") as f:
            f.write(top + self.HEAD + "r\t1\tcause\tlit\tFound no NVIDIA driver\t-\t-\t" + causes +
                    "\t-\tsays\tsrc\n")
        path = os.path.join(d, "log.txt")
        with open(path, "w") as f:
            f.write(log)
        return run(["--kb", d, "explain", "--no-live", "--json", path])

    def test_sibling_from_a_kb_table(self):
        top = "#@beside\tnvidia-module-not-loaded\tcontainer-gpu-not-requested?+docker run\twhy\n"
        rc, out, err = self.kb(top, "nvidia-module-not-loaded", DOCKER + TORCH)
        self.assertEqual(rc, 0, err)
        self.assertIn('"container-gpu-not-requested"', out)
        rc, out, err = self.kb(top, "nvidia-module-not-loaded", TORCH)
        self.assertNotIn('"container-gpu-not-requested"', out)

    def test_the_row_s_own_condition_wins(self):
        top = "#@beside\tnvidia-module-not-loaded\tcontainer-gpu-not-requested?+docker run\twhy\n"
        rc, out, err = self.kb(top, "nvidia-module-not-loaded;container-gpu-not-requested?+podman run",
                               DOCKER + TORCH)
        self.assertEqual(rc, 0, err)
        self.assertNotIn('"container-gpu-not-requested"', out)

    def test_malformed_line_is_a_load_error_with_its_line(self):
        rc, out, err = self.kb("# a comment\n#@beside\tnvidia-module-not-loaded\tno-such-cause?+x\twhy\n",
                               "nvidia-module-not-loaded", TORCH)
        self.assertEqual(rc, 2, out + err)
        self.assertIn(":2:", err)
        self.assertIn("no-such-cause", err)
        rc, out, err = self.kb("#@beside\tnvidia-module-not-loaded\tcontainer-gpu-not-requested\twhy\n",
                               "nvidia-module-not-loaded", TORCH)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("needs a condition", err)


if __name__ == "__main__":
    unittest.main()
