"""WSL2 and WSL1 as platforms (issue 19): what each layer means there.

Under WSL2 the GPU is /dev/dxg and the driver is the Windows driver's files in
/usr/lib/wsl/lib (NVIDIA's CUDA on WSL user guide); no NVIDIA PCI function, no
nvidia module and no /dev/nvidia* are normal, and no fix may name modprobe,
DKMS or a Linux driver to install.
"""
import json
import re
import unittest

import fixtures_env as env_fx
from gdtest import GDTestCase, assert_cause, assert_no_cause, check, clean_env, layer, run

# What a fix must never say under WSL (the CUDA on WSL guide: do not install a Linux
# display driver inside WSL; there is no Linux module to load or build).
FORBIDDEN = re.compile(r"modprobe|dkms|linux-headers|nvidia-modprobe|mokutil|"
                       r"apt(-get)? install[^;&|]*(nvidia-driver|cuda-drivers)|"
                       r"install[^;&|]*\.run\b|rmmod", re.I)

WSL_CAUSES = ("wsl-linux-driver-in-wsl", "wsl-lib-not-on-loader-path", "wsl1-no-gpu",
              "wsl-windows-driver-too-old")


def env(**kw):
    e = clean_env(PATH="/usr/bin:/bin", HOME="/nonexistent")
    e.update({k: str(v) for k, v in kw.items()})
    return e


def fixtures_all():
    """Every WSL fixture of this file, by name."""
    r_llp = env_fx.wsl2_root()
    llp = env_fx.add_linux_driver(r_llp, in_cache=False)
    r_cache = env_fx.wsl2_root(ld_conf=False)
    env_fx.add_linux_driver(r_cache)
    return {
        "healthy": (env_fx.wsl2_root(), env()),
        "no-ld-conf": (env_fx.wsl2_root(ld_conf=False), env()),
        "linux-driver-llp": (r_llp, env(LD_LIBRARY_PATH=llp)),
        "linux-driver-cache": (r_cache, env()),
        "no-dxg": (env_fx.wsl2_root(dxg=False), env()),
        "no-windows-libs": (env_fx.wsl2_root(wsl_libs=False), env()),
        "wsl1": (env_fx.wsl1_root(), env()),
    }


class WSL2(GDTestCase):
    def test_healthy_wsl2_is_green(self):
        doc = check(env_fx.wsl2_root(), env=env())
        bad = [f for f in doc["findings"] if f["status"] in ("fail", "warn")]
        self.assertEqual(bad, [], json.dumps(bad, indent=1))
        self.assertEqual(doc["_rc"], 0)
        inv = doc["inventory"]["platform"]
        self.assertEqual(inv["wsl"], "wsl2")
        self.assertTrue(inv["dxg"])
        self.assertFalse(inv["wsl_libcuda_is_link"])
        for c in WSL_CAUSES + ("no-nvidia-gpu", "nvidia-module-not-loaded", "libcuda-missing",
                               "device-node-missing"):
            assert_no_cause(self, doc, c)
        # the driver version is the Windows driver's, from NVML in the child
        self.assertEqual(doc["inventory"]["driver"]["version"], env_fx.WSL_DRIVER)
        self.assertEqual(layer(doc, "hardware")["status"], "ok")

    def test_docker_desktop_backend_is_named(self):
        r = env_fx.wsl2_root()
        # Docker Desktop's WSL 2 integration mounts its distribution here
        r.mkdir("mnt/wsl/docker-desktop/cli-tools/usr/bin")
        doc = check(r, env=env())
        self.assertTrue(doc["inventory"]["platform"]["docker_desktop"])
        f = [x for x in doc["findings"] if x["id"] == "hardware.wsl"][0]
        self.assertIn("Docker Desktop", " ".join(f["evidence"]))
        self.assertEqual(doc["_rc"], 0)
        self.assertFalse(check(env_fx.wsl2_root(), env=env())["inventory"]["platform"]["docker_desktop"])

    def test_wsl_lib_not_on_loader_path(self):
        doc = check(env_fx.wsl2_root(ld_conf=False), env=env())
        f = assert_cause(self, doc, "wsl-lib-not-on-loader-path", "fail")
        self.assertIn("ld.wsl.conf", f["fix"])
        assert_no_cause(self, doc, "libcuda-missing")
        assert_no_cause(self, check(env_fx.wsl2_root(), env=env()), "wsl-lib-not-on-loader-path")

    def test_linux_driver_on_ld_library_path(self):
        # microsoft/WSL#9099: LD_LIBRARY_PATH with /usr/lib/x86_64-linux-gnu broke nvidia-smi
        r = env_fx.wsl2_root()
        llp = env_fx.add_linux_driver(r, in_cache=False)
        doc = check(r, env=env(LD_LIBRARY_PATH=llp))
        f = assert_cause(self, doc, "wsl-linux-driver-in-wsl", "fail")
        self.assertIn("LD_LIBRARY_PATH", f["fix"])
        self.assertIn("/usr/lib/x86_64-linux-gnu/libcuda.so.1", " ".join(f["evidence"]))
        # near miss: the same files, not on the search path: the Windows copy wins
        assert_no_cause(self, check(r, env=env()), "wsl-linux-driver-in-wsl")

    def test_linux_driver_in_the_cache(self):
        r = env_fx.wsl2_root(ld_conf=False)
        env_fx.add_linux_driver(r)
        doc = check(r, env=env())
        f = assert_cause(self, doc, "wsl-linux-driver-in-wsl", "fail")
        self.assertIn("apt-get remove --purge", f["fix"])

    def test_bare_metal_linux_driver_is_not_wsl(self):
        # near miss: the same Linux driver on a machine that is not WSL
        import fixtures
        doc = check(fixtures.healthy_root(), env=env())
        for c in WSL_CAUSES:
            assert_no_cause(self, doc, c)
        self.assertIsNone(doc["inventory"]["platform"]["wsl"])

    def test_wsl2_without_dxg(self):
        doc = check(env_fx.wsl2_root(dxg=False), env=env())
        f = assert_cause(self, doc, "no-nvidia-gpu", "fail")
        self.assertIn("wsl --update", f["fix"])

    def test_windows_driver_too_old(self):
        import fixtures_fw as fw
        r = env_fx.wsl2_root(driver="470.76")
        site = fw.add_venv(r)
        fw.add_tensorflow(r, site)
        fw.add_cuda12_wheels(r, site)
        doc = check(r, env=env(VIRTUAL_ENV="/opt/venv"))
        f = assert_cause(self, doc, "wsl-windows-driver-too-old", "fail")
        self.assertIn("Windows", f["fix"])
        assert_no_cause(self, doc, "framework-driver-too-old")
        # every driver upgrade the report asks for is one on Windows
        ups = [x["fix"] for x in doc["findings"] if "upgrade the NVIDIA driver" in (x.get("fix") or "")]
        self.assertTrue(ups)
        for fix in ups:
            self.assertIn("on Windows", fix)
        # near miss: a current Windows driver
        r2 = env_fx.wsl2_root()
        site2 = fw.add_venv(r2)
        fw.add_tensorflow(r2, site2)
        fw.add_cuda12_wheels(r2, site2)
        assert_no_cause(self, check(r2, env=env(VIRTUAL_ENV="/opt/venv")), "wsl-windows-driver-too-old")


class WSL1(GDTestCase):
    def test_wsl1_has_no_gpu(self):
        doc = check(env_fx.wsl1_root(), env=env())
        f = assert_cause(self, doc, "wsl1-no-gpu", "fail")
        self.assertIn("wsl --set-version", f["fix"])
        self.assertEqual(doc["inventory"]["platform"]["wsl"], "wsl1")
        assert_no_cause(self, doc, "no-nvidia-gpu")
        # near miss: WSL2
        assert_no_cause(self, check(env_fx.wsl2_root(), env=env()), "wsl1-no-gpu")


class NoLinuxDriverAdvice(GDTestCase):
    def test_no_fix_names_modprobe_dkms_or_a_linux_driver(self):
        """Every finding of every WSL fixture: no fix suggests modprobe, DKMS or a Linux driver."""
        for name, (r, e) in fixtures_all().items():
            for args in ((), ("--no-load",)):
                doc = check(r, *args, env=e)
                for f in doc["findings"]:
                    with self.subTest(fixture=name, args=args, finding=f["id"]):
                        self.assertIsNone(FORBIDDEN.search(f.get("fix") or ""),
                                          f"{name}: {f['id']}: {f.get('fix')}")
            # and the text report
            rc, out, err = run(["check"], env=e, root=r.path)
            self.assertIsNone(FORBIDDEN.search(out), f"{name}: text report:\n{out}")

    def test_the_forbidden_pattern_catches_bare_metal_advice(self):
        # the walk above can fail: the same fixture without WSL gets modprobe advice
        import fixtures
        r = fixtures.healthy_root()
        fixtures.fixtures_lower.add_kernel(r, modules=())
        doc = check(r, env=env())
        self.assertTrue(any(FORBIDDEN.search(f.get("fix") or "") for f in doc["findings"]))


if __name__ == "__main__":
    unittest.main()
