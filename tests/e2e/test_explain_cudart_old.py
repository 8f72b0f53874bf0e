"""explain, issue 20 (x12err): cudaError_t was renumbered in CUDA 10.1, and a number
printed by a CUDA 10.0-or-older runtime means what the old numbering says (8 was
cudaErrorInvalidDeviceFunction, now cudaErrorProfilerAlreadyStopped; 38 cudaErrorNoDevice;
48 cudaErrorNoKernelImageForDevice; 30 cudaErrorUnknown).  The numbering comes from the
log's evidence (@cudart-old, @cudart-new), else from cudaGetErrorString's text beside the
number; with neither, a number the numberings disagree on names no cause."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import GPUDOCTOR, clean_env  # noqa: E402


def explain(text):
    p = subprocess.run([GPUDOCTOR, "explain", "--json", "--no-live", "-"], input=text.encode(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env(), timeout=60)
    doc = json.loads(p.stdout)
    rules = [m["rule"] for m in doc["matches"]]
    causes = [c["cause"] for m in doc["matches"] if m["class"] == "cause" for c in m["causes"]]
    decoded = [v for m in doc["matches"] for k, v in m.get("decoded", {}).items() if k == "cuda_error"]
    return rules, causes, decoded


# Real: Caffe's solver on a GPU its build has no code for, CUDA <= 10.0 era (2017-11),
# https://github.com/kevinlin311tw/caffe-cvprw15/issues/31
CAFFE_8 = """I1127 10:48:39.637908 18156 solver.cpp:160] Solving KevinNet_CIFAR10
I1127 10:48:39.637960 18156 solver.cpp:247] Iteration 0, Testing net (#0)
F1127 10:48:39.644999 18156 im2col.cu:59] Check failed: error == cudaSuccess (8 vs. 0)  invalid device function
*** Check failure stack trace: ***
    @           0x4d0a88  caffe::im2col_gpu<>()
    @           0x4bd4d7  caffe::ConvolutionLayer<>::Forward_gpu()
"""

# Real: Caffe (through channel-pruning's train.py) with CUDA 8.0 on a machine without a
# GPU it can see, https://github.com/ethanhe42/channel-pruning/issues/89
CAFFE_38 = """WARNING: Logging before InitGoogleLogging() is written to STDERR
F0303 09:50:12.085932 3744 common.cpp:152] Check failed: error == cudaSuccess (38 vs. 0) no CUDA-capable device is detected
CUDA version:  8.0
"""


class OldNumbering(unittest.TestCase):
    def test_real_caffe_invalid_device_function(self):
        rules, causes, _ = explain(CAFFE_8)
        self.assertIn("cuda-invalid-device-function", rules)
        self.assertEqual(causes, ["gpu-arch-unsupported"])

    def test_real_caffe_no_device(self):
        _, causes, _ = explain(CAFFE_38)
        self.assertIn("no-nvidia-gpu", causes)

    def test_old_runtime_library_selects_old_numbering(self):
        # Constructed: a number-only report beside the CUDA 9 runtime's soname
        _, causes, decoded = explain("I tensorflow/stream_executor/dso_loader.cc:139] successfully opened "
                                     "CUDA library libcudart.so.9.0 locally\nCUDA error 48 at conv.cu:112\n")
        self.assertEqual(causes, ["gpu-arch-unsupported"])
        self.assertTrue(any("cudaErrorNoKernelImageForDevice" in d for d in decoded), decoded)

    def test_text_beside_the_number_decides(self):
        # Constructed: no version evidence; cudaGetErrorString's text says which numbering:
        # the old 7 (cudaErrorLaunchOutOfResources, now cudaErrorProfilerAlreadyStarted) ...
        _, _, decoded = explain("cudaError_t 7 too many resources requested for launch\n")
        self.assertIn("cudaError_t 7 = cudaErrorLaunchOutOfResources (the numbering of CUDA 10.0 and older)",
                      decoded)
        # ... and the new 4 (cudaErrorCudartUnloading, was cudaErrorLaunchFailure)
        _, _, decoded = explain("CUDA error 4: driver shutting down\n")
        self.assertIn("cudaError_t 4 = cudaErrorCudartUnloading (the numbering of CUDA 10.1 and newer)", decoded)


class NearMiss(unittest.TestCase):
    def test_new_numbering_8_names_no_cause(self):
        # Constructed near miss (no real CUDA 12 log printing 8 was found): a CUDA 12 runtime's
        # 8 is cudaErrorProfilerAlreadyStopped, no stack cause
        _, causes, decoded = explain("I loaded libcudart.so.12\ncudaError_t 8\n")
        self.assertEqual(causes, [])
        self.assertTrue(any("cudaErrorProfilerAlreadyStopped" in d for d in decoded), decoded)
        self.assertFalse(any("InvalidDeviceFunction" in d for d in decoded), decoded)

    def test_no_evidence_no_text_names_no_cause(self):
        # Constructed: the two numberings disagree and the log cannot tell: both meanings, no cause
        _, causes, decoded = explain("CUDA error 8\n")
        self.assertEqual(causes, [])
        self.assertTrue(any("since CUDA 10.1" in d and "CUDA 10.0 and older" in d for d in decoded), decoded)

    def test_new_numbering_209_unchanged(self):
        # the new numbering's own numbers keep their causes where the log is of a new runtime
        _, causes, _ = explain("using /usr/local/cuda-11.8\nCUDA error 209\n")
        self.assertEqual(causes, ["gpu-arch-unsupported"])


if __name__ == "__main__":
    unittest.main()
