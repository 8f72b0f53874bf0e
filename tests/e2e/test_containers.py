"""The containers layer: a container's GPU as the NVIDIA Container Toolkit
injects it, and the host's engines, toolkit, configs and CDI specs.

Inside-container fixtures are --root trees with /.dockerenv (or
/run/.containerenv), /proc/self/mountinfo, /proc/self/mounts and
/proc/self/limits as a container started with docker run --gpus all shows
them; the toolkit's variables are gpudoctor's own environment.  Device
nodes need mknod (root); without it those tests skip and say so.
"""
import json
import os
import unittest

from gdtest import GDTestCase, Root, check, assert_cause, assert_no_cause, layer, finding
import fixtures
import fixtures_containers as fc

GIB = 1024 ** 3


def ctr_check(r, **envvars):
    return check(r, "--no-load", env=fc.env(**envvars))


def need_nodes(r):
    if not os.path.exists(r.p("dev/nvidiactl")):
        raise unittest.SkipTest("cannot create device nodes (mknod needs root)")
    return r


def inv(doc):
    return doc["inventory"]["containers"]


class TestInsideContainer(GDTestCase):
    def test_healthy_gpu_container(self):
        r = need_nodes(fc.container_root())
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="all", NVIDIA_DRIVER_CAPABILITIES="compute,utility")
        self.assertEqual(layer(doc, "containers")["status"], "ok", json.dumps(doc["findings"], indent=1))
        c = inv(doc)
        self.assertTrue(c["in_container"])
        self.assertEqual(c["engine"], "docker")
        self.assertEqual(c["toolkit_env"]["devices"], "all")
        self.assertEqual(c["toolkit_env"]["capabilities"], "compute,utility")
        libs = {os.path.basename(l["path"]): l for l in c["driver_libraries"]}
        self.assertTrue(libs["libcuda.so.580.95.05"]["bind_mounted"])
        self.assertEqual(c["shm_bytes"], 1024 * 1024 * 1024)
        self.assertEqual(c["memlock_soft"], "unlimited")
        self.assertTrue(c["cgroup_allows_nvidia"])
        f = finding(doc, fid="containers.detected")
        self.assertEqual(f["title"], "inside a docker container")

    def test_runtime_missing_cuda_image_without_nvidia_runtime(self):
        # a CUDA image (NVIDIA_VISIBLE_DEVICES=all baked in) started with plain runc
        r = fc.container_root(nodes=False, libs=())
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="all", NVIDIA_REQUIRE_CUDA="cuda>=12.8",
                        CUDA_VERSION="12.8.1")
        f = assert_cause(self, doc, "container-runtime-missing", "fail")
        self.assertIn("nvidia-ctk runtime configure --runtime=docker", f["fix"])
        # the first broken link is the container's: devices above are blocked, not failed
        self.assertEqual(layer(doc, "devices")["status"], "blocked")
        self.assertEqual(layer(doc, "devices")["blocked_by"], "containers")

    def test_gpu_not_requested(self):
        r = fc.container_root(nodes=False, libs=())
        doc = ctr_check(r)
        f = assert_cause(self, doc, "container-gpu-not-requested", "fail")
        self.assertIn("docker run --gpus all", f["fix"])
        self.assertIn("NVIDIA_VISIBLE_DEVICES=(unset) -> not a GPU container", f["evidence"][0])

    def test_gpu_not_requested_podman_fix(self):
        r = fc.container_root(nodes=False, libs=(), engine="podman")
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="void")
        f = assert_cause(self, doc, "container-gpu-not-requested", "fail")
        self.assertIn("podman run --device nvidia.com/gpu=all", f["fix"])
        self.assertEqual(inv(doc)["engine_detail"], "podman-4.3.1")

    def test_visible_none_injects_driver_without_gpu(self):
        r = need_nodes(fc.container_root())
        for n in os.listdir(r.p("dev")):
            if n.startswith("nvidia") and n[6:].isdigit():
                r.remove(f"dev/{n}")
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="none")
        self.assertEqual(inv(doc)["toolkit_env"]["devices"], "none")
        assert_cause(self, doc, "container-gpu-not-requested", "fail")

    def test_caps_missing_compute(self):
        r = need_nodes(fc.container_root(libs=("libnvidia-ml.so",)))
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="0", NVIDIA_DRIVER_CAPABILITIES="utility")
        f = assert_cause(self, doc, "container-caps-missing-compute", "fail")
        self.assertIn("-e NVIDIA_DRIVER_CAPABILITIES=compute,utility", f["fix"])
        self.assertTrue(any("nvidia-smi works, CUDA does not" in e for e in f["evidence"]))

    def test_caps_default_is_utility_compute(self):
        r = need_nodes(fc.container_root())
        for caps in (None, ""):
            envv = {"NVIDIA_VISIBLE_DEVICES": "all"}
            if caps is not None:
                envv["NVIDIA_DRIVER_CAPABILITIES"] = caps
            doc = ctr_check(r, **envv)
            self.assertEqual(inv(doc)["toolkit_env"]["capabilities"], "compute,utility")
            self.assertEqual(inv(doc)["toolkit_env"]["capabilities_from"], "default")
            assert_no_cause(self, doc, "container-caps-missing-compute")

    def test_legacy_image_rules(self):
        r = need_nodes(fc.container_root())
        # CUDA_VERSION without NVIDIA_REQUIRE_CUDA: legacy; unset variables mean all
        doc = ctr_check(r, CUDA_VERSION="9.0.176")
        te = inv(doc)["toolkit_env"]
        self.assertTrue(te["legacy_image"])
        self.assertEqual(te["devices"], "all")
        self.assertEqual(te["capabilities"], "all")
        self.assertEqual(te["capabilities_from"], "legacy image")
        # with NVIDIA_REQUIRE_CUDA it is a modern image: unset means no GPU, default caps
        doc = ctr_check(r, CUDA_VERSION="12.8.1", NVIDIA_REQUIRE_CUDA="cuda>=12.8")
        te = inv(doc)["toolkit_env"]
        self.assertFalse(te["legacy_image"])
        self.assertEqual(te["devices"], "void")
        self.assertEqual(te["capabilities"], "compute,utility")
        # void anywhere wins; the first of all/none decides
        self.assertEqual(inv(ctr_check(r, NVIDIA_VISIBLE_DEVICES="0,void"))["toolkit_env"]["devices"], "void")
        self.assertEqual(inv(ctr_check(r, NVIDIA_VISIBLE_DEVICES="none,all"))["toolkit_env"]["devices"], "none")
        self.assertEqual(inv(ctr_check(r, NVIDIA_VISIBLE_DEVICES=" , "))["toolkit_env"]["devices"], "void")

    def test_requirement_unsatisfied(self):
        # the driver 580.95.05 supports CUDA 13.0; the image wants 13.1
        r = need_nodes(fc.container_root())
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="all", NVIDIA_DISABLE_REQUIRE="true",
                        NVIDIA_REQUIRE_CUDA="cuda>=13.1 brand=tesla,driver>=535,driver<536")
        f = assert_cause(self, doc, "container-requirement-unsatisfied", "fail")
        self.assertEqual(f["title"], "the image requires cuda>=13.1; this host does not meet it")
        ev = " ".join(f["evidence"])
        self.assertIn("driver 580.95.05, CUDA 13.0, compute capability 9.0", ev)
        self.assertIn("NVIDIA_DISABLE_REQUIRE is set", ev)
        # met, or not decidable (the brand is not known): no finding
        for req in ("cuda>=12.8", "cuda>=13.1 brand=tesla,driver>=580,driver<581"):
            doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="all", NVIDIA_REQUIRE_CUDA=req)
            assert_no_cause(self, doc, "container-requirement-unsatisfied")
        # a legacy image: CUDA_VERSION alone means cuda>=major.minor
        doc = ctr_check(r, CUDA_VERSION="13.2.0")
        f = assert_cause(self, doc, "container-requirement-unsatisfied", "fail")
        self.assertIn("legacy image", f["evidence"][0])

    def test_device_revoked_cgroup_v1(self):
        # after systemctl daemon-reload on the host: the unit's rules lack c 195:*
        r = need_nodes(fc.container_root(devices_list="c 1:3 rwm\nc 1:5 rwm\nc 136:* rwm\n"))
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="all")
        f = assert_cause(self, doc, "container-device-revoked", "fail")
        self.assertIn("create-dev-char-symlinks", f["fix"])
        self.assertIn("native.cgroupdriver=cgroupfs", f["fix"])
        self.assertTrue(any("Failed to initialize NVML: Unknown Error" in e for e in f["evidence"]))
        # nodes absent is another cause (the devices layer's), never "revoked"
        r2 = fc.container_root(nodes=False, devices_list="c 1:3 rwm\n")
        assert_no_cause(self, ctr_check(r2, NVIDIA_VISIBLE_DEVICES="all"), "container-device-revoked")

    def test_injected_libs_of_another_driver(self):
        r = need_nodes(fc.container_root(lib_version="570.86.10"))
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="all")
        f = assert_cause(self, doc, "container-driver-libs-mismatch", "fail")
        self.assertTrue(any("570.86.10" in e and "bind-mounted" in e for e in f["evidence"]))
        assert_no_cause(self, doc, "image-ships-libcuda")

    def test_image_ships_libcuda(self):
        # libcuda is a file of the image (not in mountinfo) of the same version: a warning
        r = need_nodes(fc.container_root())
        with open(r.p("proc/self/mountinfo")) as fh:
            mi = fh.read()
        r.write("proc/self/mountinfo", "".join(l for l in mi.splitlines(True) if "libcuda" not in l))
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="all")
        f = assert_cause(self, doc, "image-ships-libcuda", "warn")
        self.assertTrue(any("not a bind mount" in e for e in f["evidence"]))
        # of another version than the module: a failure
        r = need_nodes(fc.container_root(lib_version="535.104.05", libs=("libcuda.so",), injected=False))
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="all")
        f = assert_cause(self, doc, "image-ships-libcuda", "fail")
        self.assertIn("purge the libnvidia-compute package", f["fix"])

    def test_unpacked_image_with_libcuda(self):
        r = Root()
        r.write("etc/os-release", "ID=ubuntu\n")
        r.write(f"{fc.LIBDIR}/libcuda.so.535.104.05", "\x7fELF\n")
        r.symlink(f"{fc.LIBDIR}/libcuda.so.1", "libcuda.so.535.104.05")
        doc = check(r, "--no-load", env=fc.env())
        self.assertTrue(inv(doc)["unpacked_image"])
        f = assert_cause(self, doc, "image-ships-libcuda", "warn")
        self.assertIn("535.104.05", f["evidence"][0])
        assert_no_cause(self, doc, "container-gpu-not-requested")
        assert_no_cause(self, doc, "shm-too-small")

    def test_shm_64m_vs_2g(self):
        r = need_nodes(fc.container_root(shm="size=65536k"))
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="all")
        f = assert_cause(self, doc, "shm-too-small", "warn")
        self.assertEqual(f["title"], "/dev/shm is 64 MiB: too small for DataLoader workers and NCCL")
        self.assertIn("docker run --shm-size=1g (or --ipc=host)", f["fix"])
        r = need_nodes(fc.container_root(shm="size=2g"))
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="all")
        assert_no_cause(self, doc, "shm-too-small")
        self.assertEqual(inv(doc)["shm_bytes"], 2 * GIB)

    def test_memlock(self):
        r = need_nodes(fc.container_root(memlock="8388608"))
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="all")
        f = assert_cause(self, doc, "memlock-limited", "warn")
        self.assertIn("--ulimit memlock=-1", f["fix"])
        self.assertEqual(inv(doc)["memlock_soft"], 8388608)
        doc = ctr_check(need_nodes(fc.container_root(memlock="unlimited")), NVIDIA_VISIBLE_DEVICES="all")
        assert_no_cause(self, doc, "memlock-limited")

    def test_kubernetes_fixes(self):
        r = need_nodes(fc.container_root(shm="size=65536k", memlock="65536", engine=None))
        r.write("proc/1/cgroup", "12:devices:/kubepods/besteffort/pod1234/abcdef\n0::/\n")
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="GPU-3a7c9b2e-0000-1111-2222-333344445555")
        self.assertEqual(inv(doc)["engine"], "kubernetes")
        self.assertIn("emptyDir", assert_cause(self, doc, "shm-too-small")["fix"])
        self.assertIn("LimitMEMLOCK=infinity", assert_cause(self, doc, "memlock-limited")["fix"])


class TestDevopenChild(GDTestCase):
    def test_devopen_reports_errno(self):
        import subprocess
        from gdtest import GPUDOCTOR
        p = subprocess.run([GPUDOCTOR, "__probe", "devopen", "/dev/null", "/dev/gd-no-such-node",
                            "/etc/passwd"], capture_output=True, text=True, timeout=30)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(p.stdout, "/dev/null=0\n/dev/gd-no-such-node=2\nend\n")


class TestCudaCompat(GDTestCase):
    def compat_root(self, device_id, on_path=True):
        r = need_nodes(fc.container_root(device_id=device_id))
        d = "usr/local/cuda-12.8/compat"
        r.write(f"{d}/libcuda.so.570.124.06", "\x7fELF\n")
        r.symlink(f"{d}/libcuda.so.1", "libcuda.so.570.124.06")
        if on_path:
            r.write("etc/ld.so.conf.d/000_cuda-compat.conf", "/usr/local/cuda-12.8/compat\n")
        return r

    def test_compat_on_geforce(self):
        doc = ctr_check(self.compat_root(0x2684), NVIDIA_VISIBLE_DEVICES="all")
        f = assert_cause(self, doc, "cuda-compat-unusable", "fail")
        self.assertIn("GeForce RTX 4090", f["title"])
        self.assertTrue(any("CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804)" in e for e in f["evidence"]))
        # not on the path, but newer than the host's driver 570.x: latent
        r = self.compat_root(0x2684, on_path=False)
        fc.add_kernel_version(r, "570.86.10")
        doc = ctr_check(r, NVIDIA_VISIBLE_DEVICES="all")
        assert_cause(self, doc, "cuda-compat-unusable", "warn")
        # not on the path and older than the host's 580.95.05 driver: never used
        doc = ctr_check(self.compat_root(0x2684, on_path=False), NVIDIA_VISIBLE_DEVICES="all")
        assert_no_cause(self, doc, "cuda-compat-unusable")
        self.assertIn("never used", finding(doc, fid="containers.cuda-compat")["title"])

    def test_compat_on_datacenter_gpu(self):
        doc = ctr_check(self.compat_root(fixtures.H200_PCI_ID), NVIDIA_VISIBLE_DEVICES="all")
        assert_no_cause(self, doc, "cuda-compat-unusable")
        self.assertIn("usable", finding(doc, fid="containers.cuda-compat")["title"])


class TestHost(GDTestCase):
    def test_no_container_runtime(self):
        doc = ctr_check(fixtures.healthy_root())
        self.assertEqual(layer(doc, "containers")["status"], "ok")
        f = finding(doc, fid="containers.host")
        self.assertEqual(f["title"], "not in a container, and no container runtime on this host")
        self.assertEqual(layer(doc, "containers")["summary"],
                         "not in a container, and no container runtime on this host")
        self.assertFalse(inv(doc)["in_container"])
        self.assertIsNone(inv(doc)["engine"])

    def test_dockerenv_in_a_vm_made_from_an_image(self):
        # this project's own machines: a Firecracker VM whose root came from a
        # docker image keeps /.dockerenv, but / is ext4 and nothing is bind-mounted
        r = fixtures.healthy_root()
        r.write(".dockerenv", "")
        r.write("proc/self/mountinfo",
                "22 27 0:21 / /proc rw,relatime - proc proc rw\n"
                "25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684084k\n"
                "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n")
        doc = ctr_check(r)
        c = inv(doc)
        self.assertFalse(c["in_container"])
        self.assertIn("a machine made from a container image", c["markers_ignored"])
        f = finding(doc, fid="containers.host")
        self.assertEqual(f["title"], "not in a container, and no container runtime on this host")
        # the same with the engine's bind mounts is a container
        r.write("proc/self/mountinfo",
                "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw\n"
                "612 600 254:0 /var/lib/docker/containers/abc/hostname /etc/hostname rw - ext4 /dev/vda rw\n")
        c = inv(ctr_check(r))
        self.assertTrue(c["in_container"])
        self.assertEqual(c["markers"], "/proc/self/mountinfo: /etc/hostname is a bind mount; /.dockerenv exists")

    def test_toolkit_missing(self):
        doc = ctr_check(fc.host_root(docker=True))
        f = assert_cause(self, doc, "container-toolkit-missing", "warn")
        self.assertIn("could not select device driver", " ".join(f["evidence"]))
        self.assertIn("apt-get install nvidia-container-toolkit", f["fix"])
        self.assertIn("--runtime=docker", f["fix"])
        # host problems never block the host's own GPU work
        self.assertEqual(layer(doc, "devices")["status"], "ok")

    def test_docker_without_hook(self):
        r = fc.host_root(docker=True, toolkit=True, hook=False)
        r.write("etc/docker/daemon.json", fc.DOCKER_DAEMON)
        doc = ctr_check(r)
        f = assert_cause(self, doc, "container-runtime-missing", "warn")
        self.assertIn("nvidia-container-runtime-hook", f["title"])
        c = inv(doc)["host"]
        self.assertTrue(c["docker"]["nvidia_runtime"])
        self.assertEqual(c["toolkit_config"]["mode"], "auto")
        self.assertEqual(c["toolkit_config"]["cdi_spec_dirs"], ["/etc/cdi", "/var/run/cdi"])

    def test_docker_ok(self):
        r = fc.host_root(docker=True, toolkit=True)
        r.write("etc/docker/daemon.json", fc.DOCKER_DAEMON)
        doc = ctr_check(r)
        self.assertEqual(layer(doc, "containers")["status"], "ok", json.dumps(doc["findings"], indent=1))
        self.assertIn("docker: --gpus through /usr/bin/nvidia-container-runtime-hook",
                      finding(doc, fid="containers.host")["title"])

    def test_containerd_for_kubernetes(self):
        r = fc.host_root(kubelet=True, toolkit=True)
        r.write("etc/containerd/config.toml", fc.CONTAINERD_V2.format(default="runc", nvidia=""))
        doc = ctr_check(r)
        f = assert_cause(self, doc, "container-runtime-missing", "warn")
        self.assertIn("--runtime=containerd --set-as-default", f["fix"])
        r.write("etc/containerd/config.toml",
                fc.CONTAINERD_V2.format(default="nvidia", nvidia=fc.CONTAINERD_NVIDIA_RUNTIME))
        doc = ctr_check(r)
        assert_no_cause(self, doc, "container-runtime-missing")
        self.assertEqual(inv(doc)["host"]["containerd"]["default_runtime"], "nvidia")

    def test_podman_without_cdi(self):
        doc = ctr_check(fc.host_root(podman=True, toolkit=True))
        f = assert_cause(self, doc, "container-runtime-missing", "warn")
        self.assertIn("nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml", f["fix"])

    def test_cdi_mode_without_spec(self):
        r = fc.host_root(docker=True, toolkit=True)
        r.write("etc/nvidia-container-runtime/config.toml",
                fc.TOOLKIT_CONFIG.replace('mode = "auto"', 'mode = "cdi"'))
        doc = ctr_check(r)
        f = assert_cause(self, doc, "container-runtime-missing", "warn")
        self.assertEqual(f["title"], "nvidia-container-runtime is in cdi mode but there is no CDI spec")
        self.assertEqual(inv(doc)["host"]["toolkit_config"]["mode"], "cdi")

    def test_config_invalid(self):
        r = fc.host_root(docker=True, toolkit=True)
        r.write("etc/docker/daemon.json", '{"runtimes": {"nvidia": {"path": "nvidia-container-runtime",}}\n')
        doc = ctr_check(r)
        f = assert_cause(self, doc, "container-config-invalid", "warn")
        self.assertIn("/etc/docker/daemon.json", f["evidence"][0])

    def test_dev_char_links_missing(self):
        r = need_nodes(fc.host_root(docker=True, toolkit=True, char_links=False))
        doc = ctr_check(r)
        f = assert_cause(self, doc, "dev-char-links-missing", "warn")
        self.assertEqual(f["fix"], "sudo nvidia-ctk system create-dev-char-symlinks --create-all")
        self.assertTrue(any("/dev/char/195:255 -> /dev/nvidiactl" in e for e in f["evidence"]))
        # without any container engine the links do not matter
        doc = ctr_check(need_nodes(fc.host_root(char_links=False)))
        assert_no_cause(self, doc, "dev-char-links-missing")


class TestCDI(GDTestCase):
    def test_current_spec(self):
        r = fc.host_root(podman=True, toolkit=True)
        fc.add_host_libs_at_lib(r)
        add_cdi_hook(r)
        r.write("etc/cdi/nvidia.yaml", fc.cdi_spec())
        doc = ctr_check(r)
        assert_no_cause(self, doc, "cdi-spec-stale")
        spec = inv(doc)["host"]["cdi_specs"][0]
        self.assertEqual(spec["kind"], "nvidia.com/gpu")
        self.assertEqual(spec["devices"], ["0", "all"])
        self.assertEqual(spec["driver_versions"], [fixtures.DRIVER_VERSION])
        self.assertEqual(spec["host_driver_version"], fixtures.DRIVER_VERSION)
        self.assertEqual(spec["missing_paths"], [])

    def test_stale_spec_after_driver_upgrade(self):
        r = fc.host_root(podman=True, toolkit=True)
        fc.add_host_libs_at_lib(r)
        add_cdi_hook(r)
        r.write("etc/cdi/nvidia.yaml", fc.cdi_spec("570.86.10"))
        doc = ctr_check(r)
        f = assert_cause(self, doc, "cdi-spec-stale", "warn")
        ev = " ".join(f["evidence"])
        self.assertIn("mount /lib/x86_64-linux-gnu/libcuda.so.570.86.10 does not exist", ev)
        self.assertIn("version 570.86.10; the loaded module is 580.95.05", ev)
        self.assertEqual(f["fix"], "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml")

    def test_stale_json_spec_missing_node(self):
        r = fc.host_root(podman=True, toolkit=True, gpus=1)
        spec = {"cdiVersion": "0.5.0", "kind": "nvidia.com/gpu",
                "devices": [{"name": "1", "containerEdits": {"deviceNodes": [
                    {"path": "/dev/nvidia1", "hostPath": "/dev/nvidia1"}]}}],
                "containerEdits": {"deviceNodes": [{"path": "/dev/nvidiactl"}]}}
        r.write("var/run/cdi/nvidia.json", json.dumps(spec))
        doc = ctr_check(r)
        f = assert_cause(self, doc, "cdi-spec-stale", "warn")
        self.assertIn("device node /dev/nvidia1 of device 1 does not exist", f["evidence"][0])

    def test_duplicate_device(self):
        r = fc.host_root(podman=True, toolkit=True)
        fc.add_host_libs_at_lib(r)
        add_cdi_hook(r)
        r.write("etc/cdi/nvidia.yaml", fc.cdi_spec())
        r.write("var/run/cdi/nvidia-refresh.yaml", fc.cdi_spec())
        doc = ctr_check(r)
        f = assert_cause(self, doc, "cdi-spec-duplicate-device", "warn")
        self.assertEqual(f["title"], "CDI device nvidia.com/gpu=0 is defined twice")
        self.assertIn("sudo rm /var/run/cdi/nvidia-refresh.yaml", f["fix"])

    def test_unparsable_spec_and_quoted_fix(self):
        r = fc.host_root(podman=True, toolkit=True)
        r.write("etc/cdi/nv idia$(x).yaml", "kind: [unclosed\n")
        doc = ctr_check(r)
        f = assert_cause(self, doc, "container-config-invalid", "warn")
        self.assertEqual(f["fix"], "sudo nvidia-ctk cdi generate --output='/etc/cdi/nv idia$(x).yaml'")


def add_cdi_hook(r):
    fc.add_tool(r, "nvidia-cdi-hook")
    # the CDI spec mounts /lib/x86_64-linux-gnu/lib*.so.VERSION: the healthy root has them
    for base in ("libcuda.so", "libnvidia-ml.so"):
        p = r.p(f"{fc.LIBDIR}/{base}.{fixtures.DRIVER_VERSION}")
        if not os.path.exists(p):
            r.write(f"{fc.LIBDIR}/{base}.{fixtures.DRIVER_VERSION}", "\x7fELF\n")


if __name__ == "__main__":
    unittest.main()
