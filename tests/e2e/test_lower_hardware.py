"""The hardware layer: NVIDIA GPUs on the PCI bus, their driver, their PCIe link."""
import unittest

from gdtest import GDTestCase, Root, check, assert_cause, assert_no_cause, layer, finding
import fixtures
import fixtures_lower as fl


def lower_check(r):
    return check(r, "--no-load")


class TestHardware(GDTestCase):
    def test_healthy(self):
        doc = lower_check(fixtures.healthy_root())
        for c in ("no-nvidia-gpu", "gpu-bound-to-other-driver", "pcie-link-degraded"):
            assert_no_cause(self, doc, c)
        self.assertEqual(layer(doc, "hardware")["status"], "ok")
        self.assertIn("0000:18:00.0", layer(doc, "hardware")["summary"])
        self.assertIn("nvidia", layer(doc, "hardware")["summary"])
        gpus = doc["inventory"]["gpus"]
        self.assertEqual(len(gpus), 1, "the Intel host bridge is not a GPU")
        g = gpus[0]
        self.assertEqual(g["bdf"], "0000:18:00.0")
        self.assertEqual(g["vendor_id"], "0x10de")
        self.assertEqual(g["device_id"], "0x2335")
        self.assertEqual(g["class"], "0x030200")
        self.assertEqual(g["driver"], "nvidia")
        self.assertEqual(g["subsystem"], {"vendor_id": "0x10de", "device_id": "0x1234"})
        self.assertEqual(g["link"]["width"], 16)
        self.assertEqual(g["link"]["max_width"], 16)
        self.assertEqual(g["link"]["speed"], "32.0 GT/s PCIe")
        self.assertEqual(g["link"]["speed_gts"], 32.0)
        self.assertEqual(g["numa_node"], 0)
        self.assertEqual(doc["inventory"]["nvswitches"], [])

    def test_no_gpu(self):
        r = Root()
        fl.add_gpus(r, count=0)
        fl.add_kernel(r)
        doc = lower_check(r)
        f = assert_cause(self, doc, "no-nvidia-gpu", "fail")
        self.assertIn("1 PCI functions", " ".join(f["evidence"]))
        self.assertEqual(layer(doc, "hardware")["status"], "fail")
        for above in ("kernel", "devices", "driver", "cuda", "libraries", "frameworks"):
            self.assertEqual(layer(doc, above)["status"], "blocked", above)
        self.assertEqual(doc["_rc"], 1)
        self.assertEqual(doc["inventory"]["gpus"], [])

    def test_no_sysfs_at_all(self):
        doc = lower_check(Root())
        f = assert_cause(self, doc, "no-nvidia-gpu", "fail")
        self.assertIn("/sys/bus/pci/devices", " ".join(f["evidence"]))

    def test_audio_function_is_not_a_gpu(self):
        r = Root()
        fl._pci_fn(r, "0000:18:00.1", 0x10de, 0x22ba, 0x040300, driver="snd_hda_intel")
        doc = lower_check(r)
        assert_cause(self, doc, "no-nvidia-gpu", "fail")

    def test_vga_class_is_a_gpu(self):
        r = fixtures.healthy_root()
        fl.add_gpus(r, cls=0x030000, device_id=0x2684)
        doc = lower_check(r)
        assert_no_cause(self, doc, "no-nvidia-gpu")
        self.assertEqual(doc["inventory"]["gpus"][0]["class"], "0x030000")

    def test_vfio(self):
        r = fixtures.healthy_root()
        fl.add_gpus(r, driver="vfio-pci")
        doc = lower_check(r)
        f = assert_cause(self, doc, "gpu-bound-to-other-driver", "fail")
        self.assertIn("vfio-pci", f["title"])
        self.assertIn("0000:18:00.0", f["fix"])
        self.assertIn("/sys/bus/pci/drivers/vfio-pci/unbind", f["fix"])
        self.assertEqual(layer(doc, "hardware")["status"], "fail")
        self.assertEqual(layer(doc, "kernel")["status"], "blocked")
        self.assertEqual(doc["inventory"]["gpus"][0]["driver"], "vfio-pci")

    def test_one_of_two_on_vfio(self):
        r = fixtures.healthy_root(gpus=2)
        fl.add_gpus(r, count=2, driver=["nvidia", "vfio-pci"])
        doc = lower_check(r)
        f = assert_cause(self, doc, "gpu-bound-to-other-driver", "fail")
        self.assertIn("0000:19:00.0", f["title"])
        self.assertIn("mixed", layer(doc, "hardware")["summary"])

    def test_nouveau_binding_is_not_judged_here(self):
        r = fixtures.healthy_root()
        fl.add_gpus(r, driver="nouveau")
        doc = lower_check(r)
        assert_no_cause(self, doc, "gpu-bound-to-other-driver")

    def test_link_width_degraded(self):
        r = fixtures.healthy_root()
        fl.add_gpus(r, width=8, speed="16.0 GT/s PCIe")
        doc = lower_check(r)
        f = assert_cause(self, doc, "pcie-link-degraded", "warn")
        self.assertIn("x8 of x16", f["title"])
        ev = " ".join(f["evidence"])
        self.assertIn("current_link_width: 8", ev)
        self.assertIn("16.0 GT/s", ev)
        self.assertEqual(layer(doc, "hardware")["status"], "warn")
        self.assertNotEqual(layer(doc, "kernel")["status"], "blocked")

    def test_idle_link_speed_is_not_degraded(self):
        r = fixtures.healthy_root()
        fl.add_gpus(r, speed="2.5 GT/s PCIe")
        doc = lower_check(r)
        assert_no_cause(self, doc, "pcie-link-degraded")
        f = finding(doc, fid="hardware.pcie-link")
        self.assertEqual(f["status"], "ok")
        self.assertIn("power saving", " ".join(f["evidence"]))
        self.assertEqual(doc["inventory"]["gpus"][0]["link"]["speed_gts"], 2.5)

    def test_unknown_link_is_null(self):
        r = fixtures.healthy_root()
        fl.add_gpus(r, speed="Unknown", max_speed="Unknown")
        r.remove("sys/bus/pci/devices/0000:18:00.0/current_link_width")
        r.remove("sys/bus/pci/devices/0000:18:00.0/max_link_width")
        r.write("sys/bus/pci/devices/0000:18:00.0/numa_node", "-1\n")
        doc = lower_check(r)
        assert_no_cause(self, doc, "pcie-link-degraded")
        g = doc["inventory"]["gpus"][0]
        self.assertIsNone(g["link"]["speed_gts"])
        self.assertIsNone(g["link"]["width"])
        self.assertIsNone(g["numa_node"])

    def test_nvswitches(self):
        r = fixtures.healthy_root()
        fl.add_nvswitches(r, count=4)
        doc = lower_check(r)
        sw = doc["inventory"]["nvswitches"]
        self.assertEqual(len(sw), 4)
        self.assertEqual(sw[0]["class"], "0x068000")
        self.assertEqual(len(doc["inventory"]["gpus"]), 1)
        self.assertIn("4 NVSwitches", layer(doc, "hardware")["summary"])
        self.assertEqual(finding(doc, fid="hardware.nvswitch")["status"], "ok")

    def test_eight_gpus(self):
        r = fixtures.healthy_root(gpus=8)
        doc = lower_check(r)
        self.assertEqual(len(doc["inventory"]["gpus"]), 8)
        self.assertIn("8 NVIDIA GPUs bound to nvidia", layer(doc, "hardware")["summary"])


if __name__ == "__main__":
    unittest.main()
