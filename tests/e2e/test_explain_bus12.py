"""explain and the kernel's one-line "GPU lost" forms (issue 20, round 12): the open
driver's NV_DEV_PRINTF line "NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus."
(src/nvidia/arch/nvalloc/unix/src/osinit.c, prefix from kernel-open/common/inc/nv.h)
names gpu-lost, and a probe the driver refused after the GPU fell off the bus
(NVSentinel#155) names gpu-lost, never the module's flavour or release: a guess's
exception, "id?lits?!@gpu-lost-evidence" (src/explain/logrules.h)."""
import unittest

from gdtest import GDTestCase, explain_causes

NVSENTINEL_155 = (
    "[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
    "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
    "               NVRM: fallen off the bus and is not responding to commands.\n"
    "[ 1843.439662] NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
    "[ 1843.439669] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.158.01  Release Build"
    "  (dvs-builder@U22-I3-B10-02-5)  Mon Jun  2 13:13:04 UTC 2025\n")
# the same probe failure without the fall: the flavour words stand (kernel-module-flavor-wrong)
OPEN_REFUSED = (
    "[  160.877997] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:2331)\n"
    "               NVRM: installed in this system is not supported by open\n"
    "               NVRM: nvidia.ko because it does not include the required GPU\n"
    "               NVRM: System Processor (GSP).\n"
    "[  166.261422] nvidia: probe of 0000:01:00.0 failed with error -1\n"
    "[  166.261517] NVRM: The NVIDIA probe routine failed for 1 device(s).\n")
FLAVOUR_OR_RELEASE = {"kernel-module-flavor-wrong", "driver-too-old-for-gpu", "driver-too-new-for-gpu"}


class GpuLostOneLine(GDTestCase):
    def test_nv_dev_printf_form_is_gpu_lost(self):
        self.assertEqual(explain_causes("NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n"),
                         ["gpu-lost"])

    def test_old_forms_still_match(self):
        for line in ("[   49.261458] NVRM: GPU at 0000:01:00.0 has fallen off the bus.\n",
                     "NVRM: GPU at PCI:0000:65:00: GPU has fallen off the bus.\n"):
            self.assertIn("gpu-lost", explain_causes(line), line)

    def test_near_miss_other_nv_dev_printf_lines(self):
        for line in ("NVRM: GPU 0000:01:00.0: GPU serial number is 1321721012345.\n",
                     "NVRM: GPU 0000:3b:00.0: GPU has been found on the bus.\n"):
            self.assertNotIn("gpu-lost", explain_causes(line), line)

    def test_probe_failed_after_a_fall_is_no_flavour_problem(self):
        named = explain_causes(NVSENTINEL_155)
        self.assertIn("gpu-lost", named)
        self.assertEqual(sorted(FLAVOUR_OR_RELEASE & set(named)), [], named)

    def test_probe_failed_after_an_xid_79(self):
        named = explain_causes("NVRM: Xid (PCI:0000:b3:00): 79, pid='<unknown>', name=<unknown>, "
                               "GPU has fallen off the bus.\n" + NVSENTINEL_155.split("\n", 3)[3])
        self.assertEqual(sorted(FLAVOUR_OR_RELEASE & set(named)), [], named)

    def test_near_miss_probe_failed_without_a_fall_keeps_the_flavour(self):
        named = explain_causes(OPEN_REFUSED)
        self.assertIn("kernel-module-flavor-wrong", named)
        self.assertNotIn("gpu-lost", named)

    def test_rminit_failed_after_a_fall_is_no_flavour_problem(self):
        named = explain_causes("NVRM: GPU 0000:3b:00.0: GPU has fallen off the bus.\n"
                               "NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x22:0x56:884)\n"
                               "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.158.01\n")
        self.assertIn("gpu-lost", named)
        self.assertNotIn("kernel-module-flavor-wrong", named)

    def test_near_miss_rminit_failed_with_flavour_words_and_no_fall(self):
        named = explain_causes("NVRM: GPU 0000:3b:00.0: RmInitAdapter failed! (0x22:0x56:884)\n"
                               "NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  570.158.01\n")
        self.assertIn("kernel-module-flavor-wrong", named)

    def test_near_miss_bare_probe_failure_keeps_every_guess(self):
        named = explain_causes("NVRM: The NVIDIA probe routine failed for 1 device(s).\n")
        self.assertEqual(sorted(FLAVOUR_OR_RELEASE & set(named)), sorted(FLAVOUR_OR_RELEASE))
        self.assertNotIn("gpu-lost", named)


if __name__ == "__main__":
    unittest.main()
