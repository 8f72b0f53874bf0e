"""MIG (A100, H100, H200, B200) through the fake NVML (FAKE_NVML_MIG, see
tests/fakelib/fake_nvml.c): MIG on without MIG devices, a pending mode change,
CUDA_VISIBLE_DEVICES naming the MIG-enabled GPU instead of a MIG device, and
the healthy counterparts.  Facts: NVIDIA's MIG user guide,
https://docs.nvidia.com/datacenter/tesla/mig-user-guide/"""
from gdtest import GDTestCase, check, clean_env, assert_cause, assert_no_cause, finding
import fixtures

MIG_CAUSES = ("mig-enabled-no-instances", "mig-mode-pending-reset", "mig-visible-devices-parent")
MIG0 = "MIG-7c2e9d10-4b3a-5f61-8e72-90a1b2c3d400"


def gpu0(doc):
    return doc["inventory"]["driver"]["nvml"]["gpus"][0]


class TestMig(GDTestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.root = fixtures.healthy_root()

    def test_mig_off_is_quiet_and_reported(self):
        doc = check(self.root, expect_rc=0)
        for c in MIG_CAUSES:
            assert_no_cause(self, doc, c)
        g = gpu0(doc)
        self.assertIs(g["mig_mode"], False)
        self.assertIs(g["mig_mode_pending"], False)
        self.assertIsNone(g["mig_devices"])

    def test_mig_on_without_instances_fails(self):
        doc = check(self.root, env=clean_env(FAKE_NVML_MIG="1:1:0"), expect_rc=1)
        f = assert_cause(self, doc, "mig-enabled-no-instances", "fail")
        self.assertIn("-cgi", f["fix"])
        self.assertEqual(gpu0(doc)["mig_devices"], 0)

    def test_mig_on_without_instances_next_to_a_usable_gpu_warns(self):
        doc = check(fixtures.healthy_root(gpus=2),
                    env=clean_env(FAKE_NVML_GPUS="2", FAKE_CUDA_DEVICES="2",
                                  FAKE_NVML_MIG="1:1:0,0:0:0"))
        assert_cause(self, doc, "mig-enabled-no-instances", "warn")

    def test_mig_with_instances_is_ok(self):
        doc = check(self.root, env=clean_env(FAKE_NVML_MIG="1:1:2"), expect_rc=0)
        for c in MIG_CAUSES:
            assert_no_cause(self, doc, c)
        g = gpu0(doc)
        self.assertEqual(g["mig_devices"], 2)
        self.assertIn(MIG0, g["mig_device_uuids"])
        self.assertEqual(finding(doc, fid="driver.mig")["status"], "ok")

    def test_pending_enable_warns(self):
        doc = check(self.root, env=clean_env(FAKE_NVML_MIG="0:1"))
        f = assert_cause(self, doc, "mig-mode-pending-reset", "warn")
        self.assertIn("nvidia-smi -i 0 -r", f["fix"])
        self.assertIs(gpu0(doc)["mig_mode_pending"], True)

    def test_pending_disable_warns(self):
        doc = check(self.root, env=clean_env(FAKE_NVML_MIG="1:0:1"))
        assert_cause(self, doc, "mig-mode-pending-reset", "warn")

    def test_visible_devices_parent_index(self):
        doc = check(self.root, env=clean_env(FAKE_NVML_MIG="1:1:2", CUDA_VISIBLE_DEVICES="0"))
        f = assert_cause(self, doc, "mig-visible-devices-parent", "warn")
        self.assertIn(MIG0, f["fix"])

    def test_visible_devices_parent_uuid(self):
        doc = check(self.root, env=clean_env(FAKE_NVML_MIG="1:1:2",
                                             CUDA_VISIBLE_DEVICES="GPU-3f1a2b4c"))
        assert_cause(self, doc, "mig-visible-devices-parent", "warn")

    def test_visible_devices_mig_uuid_is_right(self):
        doc = check(self.root, env=clean_env(FAKE_NVML_MIG="1:1:2", CUDA_VISIBLE_DEVICES=MIG0),
                    expect_rc=0)
        assert_no_cause(self, doc, "mig-visible-devices-parent")
        assert_no_cause(self, doc, "gpu-hidden-by-env")

    def test_visible_devices_unknown_mig_uuid_hides(self):
        doc = check(self.root, env=clean_env(FAKE_NVML_MIG="1:1:2",
                                             CUDA_VISIBLE_DEVICES="MIG-00000000-dead"))
        assert_cause(self, doc, "gpu-hidden-by-env")

    def test_visible_devices_index_without_mig_is_fine(self):
        doc = check(self.root, env=clean_env(CUDA_VISIBLE_DEVICES="0"), expect_rc=0)
        assert_no_cause(self, doc, "mig-visible-devices-parent")
