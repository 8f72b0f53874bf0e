"""The kernel layer: the nvidia module, nouveau, Secure Boot, the module file, nvidia_uvm."""
import unittest

from gdtest import GDTestCase, Root, check, assert_cause, assert_no_cause, layer, finding
import fixtures
import fixtures_lower as fl

KERNEL_CAUSES = ("nvidia-module-not-loaded", "secure-boot-blocks-module",
                 "module-missing-for-kernel", "uvm-module-not-loaded", "nouveau-loaded")


def lower_check(r):
    return check(r, "--no-load")


def broken_root(**kernel):
    """A healthy machine whose kernel part is replaced by add_kernel(**kernel)."""
    r = fixtures.healthy_root()
    fl.add_kernel(r, **kernel)
    return r


class TestKernel(GDTestCase):
    def test_healthy(self):
        doc = lower_check(fixtures.healthy_root())
        for c in KERNEL_CAUSES:
            assert_no_cause(self, doc, c)
        self.assertEqual(layer(doc, "kernel")["status"], "ok")
        self.assertEqual(layer(doc, "kernel")["summary"],
                         "nvidia 580.95.05 (open kernel module) loaded, nvidia_uvm loaded")
        f = finding(doc, fid="kernel.module-version")
        self.assertEqual(f["status"], "ok")
        self.assertIn("580.95.05", f["title"])
        k = doc["inventory"]["kernel"]
        self.assertEqual(k["module_version"], "580.95.05")
        self.assertEqual(k["flavour"], "open")
        self.assertEqual(k["release"], "6.8.0-49-generic")
        self.assertTrue(k["modules"]["nvidia"]["loaded"])
        self.assertEqual(k["modules"]["nvidia"]["refcount"], 2)
        self.assertFalse(k["modules"]["nouveau"]["loaded"])
        self.assertTrue(k["module_file_found"])
        self.assertTrue(k["module_file"].endswith("/updates/dkms/nvidia.ko.zst"))
        self.assertIs(k["secure_boot"], False)

    def test_proprietary_flavour(self):
        doc = lower_check(broken_root(open_module=False, driver_version="535.104.05"))
        k = doc["inventory"]["kernel"]
        self.assertEqual(k["flavour"], "proprietary")
        self.assertEqual(k["module_version"], "535.104.05")
        self.assertIn("proprietary", layer(doc, "kernel")["summary"])

    def test_secure_boot_on_with_module_loaded_is_fine(self):
        doc = lower_check(broken_root(secure_boot=True))
        assert_no_cause(self, doc, "secure-boot-blocks-module")
        self.assertIs(doc["inventory"]["kernel"]["secure_boot"], True)

    def test_not_loaded(self):
        doc = lower_check(broken_root(modules=("snd", "e1000e")))
        f = assert_cause(self, doc, "nvidia-module-not-loaded", "fail")
        self.assertIn("modprobe nvidia", f["fix"])
        self.assertIn("/proc/modules has no line for nvidia", f["evidence"])
        for c in ("secure-boot-blocks-module", "module-missing-for-kernel", "nouveau-loaded"):
            assert_no_cause(self, doc, c)
        self.assertEqual(layer(doc, "kernel")["status"], "fail")
        for above in ("devices", "driver", "cuda", "libraries", "frameworks"):
            self.assertEqual(layer(doc, above)["status"], "blocked", above)
        self.assertEqual(doc["_rc"], 1)
        self.assertIs(doc["inventory"]["kernel"]["modules"]["nvidia"]["loaded"], False)
        self.assertIsNone(doc["inventory"]["kernel"]["module_version"])

    def test_secure_boot_blocks(self):
        doc = lower_check(broken_root(modules=(), secure_boot=True))
        f = assert_cause(self, doc, "secure-boot-blocks-module", "fail")
        self.assertIn("mokutil", f["fix"])
        self.assertTrue(any("SecureBoot-8be4df61" in e for e in f["evidence"]), f["evidence"])
        assert_no_cause(self, doc, "nvidia-module-not-loaded")

    def test_module_missing_for_kernel(self):
        doc = lower_check(broken_root(modules=(), module_file=None, release="6.11.0-9-generic"))
        f = assert_cause(self, doc, "module-missing-for-kernel", "fail")
        self.assertIn("6.11.0-9-generic", f["title"])
        self.assertIn("dkms", f["fix"])
        assert_no_cause(self, doc, "nvidia-module-not-loaded")
        self.assertIs(doc["inventory"]["kernel"]["module_file_found"], False)

    def test_module_missing_with_secure_boot_mentions_signing(self):
        doc = lower_check(broken_root(modules=(), module_file=None, secure_boot=True))
        f = assert_cause(self, doc, "module-missing-for-kernel", "fail")
        self.assertIn("mokutil", f["fix"])

    def test_module_file_other_layouts(self):
        for path in ("kernel/drivers/video/nvidia.ko", "extra/nvidia.ko.xz",
                     "kernel/nvidia-580/nvidia.ko", "misc/deep/a/nvidia.ko.gz"):
            doc = lower_check(broken_root(modules=(), module_file=path))
            assert_no_cause(self, doc, "module-missing-for-kernel")
            assert_cause(self, doc, "nvidia-module-not-loaded", "fail")
            self.assertTrue(doc["inventory"]["kernel"]["module_file"].endswith(path), path)

    def test_loaded_but_file_gone_warns(self):
        doc = lower_check(broken_root(module_file=None))
        f = assert_cause(self, doc, "module-missing-for-kernel", "warn")
        self.assertIn("reboot", " ".join(f["evidence"]))

    def test_loaded_without_lib_modules_is_fine(self):
        # A VM given its kernel by the host (as the H200 test machine is) has no
        # /lib/modules/RELEASE at all: nothing to warn about.
        r = fixtures.healthy_root()
        r.remove("lib/modules")
        doc = lower_check(r)
        assert_no_cause(self, doc, "module-missing-for-kernel")
        f = finding(doc, fid="kernel.module-version")
        self.assertTrue(any("outside this filesystem" in e for e in f["evidence"]), f["evidence"])

    def test_uvm_not_loaded(self):
        doc = lower_check(broken_root(modules=("nvidia_drm", "nvidia_modeset", "nvidia")))
        f = assert_cause(self, doc, "uvm-module-not-loaded", "warn")
        self.assertIn("modprobe nvidia_uvm", f["fix"])
        self.assertIn("not loaded", layer(doc, "kernel")["summary"])

    def test_uvm_loaded_on_demand_by_setuid_nvidia_modprobe(self):
        doc = lower_check(broken_root(modules=("nvidia_drm", "nvidia_modeset", "nvidia"),
                                      nvidia_modprobe="setuid"))
        assert_no_cause(self, doc, "uvm-module-not-loaded")
        f = finding(doc, fid="kernel.uvm")
        self.assertEqual(f["status"], "ok")
        self.assertIn("first use", f["title"])

    def test_nouveau_loaded_and_bound(self):
        r = fixtures.healthy_root()
        fl.add_gpus(r, driver="nouveau")
        fl.add_kernel(r, modules=("nouveau",))
        doc = lower_check(r)
        f = assert_cause(self, doc, "nouveau-loaded", "fail")
        ev = " ".join(f["evidence"])
        self.assertIn("/proc/modules: nouveau", ev)
        self.assertIn("0000:18:00.0/driver -> .../nouveau", ev)
        self.assertIn("blacklist nouveau", f["fix"])
        assert_no_cause(self, doc, "nvidia-module-not-loaded")
        self.assertEqual(layer(doc, "hardware")["status"], "ok")
        self.assertEqual(layer(doc, "devices")["status"], "blocked")

    def test_nova_core_bound(self):
        r = fixtures.healthy_root()
        fl.add_gpus(r, driver="NovaCore")
        fl.add_kernel(r, modules=("nova_core",))
        doc = lower_check(r)
        f = assert_cause(self, doc, "nouveau-loaded", "fail")
        self.assertIn("nova_core", " ".join(f["evidence"]))

    def test_nouveau_loaded_but_idle_warns(self):
        doc = lower_check(broken_root(modules=fl.DEFAULT_MODULES + ("nouveau",)))
        assert_cause(self, doc, "nouveau-loaded", "warn")

    def test_gpu_unbound_while_nvidia_loaded(self):
        r = fixtures.healthy_root()
        fl.add_gpus(r, driver=None)
        doc = lower_check(r)
        f = assert_cause(self, doc, "gpu-bound-to-other-driver", "fail")
        self.assertEqual(f["layer"], "kernel")
        self.assertIn("no driver", f["title"])

    def test_no_proc_modules_uses_sys_module(self):
        r = fixtures.healthy_root()
        r.remove("proc/modules")
        doc = lower_check(r)
        for c in KERNEL_CAUSES:
            assert_no_cause(self, doc, c)
        self.assertIsNone(doc["inventory"]["kernel"]["modules"]["nvidia"]["loaded"])

    def test_garbage_version_file(self):
        r = fixtures.healthy_root()
        r.write("proc/driver/nvidia/version", "\x00\xff garbage\n")
        r.write("sys/module/nvidia/version", "")
        doc = lower_check(r)
        self.assertIsNone(doc["inventory"]["kernel"]["module_version"])
        self.assertIn("version unknown", layer(doc, "kernel")["summary"])


if __name__ == "__main__":
    unittest.main()
