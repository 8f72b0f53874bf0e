"""Kubernetes nodes under the NVIDIA GPU Operator (issue 19).

The driver runs in a container whose root the host sees at /run/nvidia/driver;
the validator marks each step in /run/nvidia/validations (GPU Operator docs,
https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/ ;
NVIDIA/gpu-operator validator/main.go).  Such a node used to report
libcuda-missing and nvml-missing and exit 1.
"""
import json
import os
import shutil
import tempfile
import unittest

import fixtures
import fixtures_env as env_fx
from gdtest import GDTestCase, assert_cause, assert_no_cause, check, clean_env, finding


def env(**kw):
    e = clean_env(PATH="/usr/bin:/bin", HOME="/nonexistent")
    e.update({k: str(v) for k, v in kw.items()})
    return e


class Operator(GDTestCase):
    def test_healthy_operator_node_is_green(self):
        doc = check(env_fx.operator_root(), env=env())
        bad = [f for f in doc["findings"] if f["status"] in ("fail", "warn")]
        self.assertEqual(bad, [], json.dumps(bad, indent=1))
        self.assertEqual(doc["_rc"], 0)
        for c in ("libcuda-missing", "nvml-missing", "gpu-operator-not-ready",
                  "driver-library-mismatch", "module-missing-for-kernel"):
            assert_no_cause(self, doc, c)
        op = doc["inventory"]["platform"]["gpu_operator"]
        self.assertEqual(op["driver_root"], "/run/nvidia/driver")
        self.assertEqual(op["libcuda_version"], fixtures.DRIVER_VERSION)
        self.assertEqual(op["os"], "Ubuntu 22.04.5 LTS")
        self.assertEqual(op["toolkit_driver_root"], "/run/nvidia/driver")
        self.assertTrue(all(op["validations"].values()), op)
        lib = doc["inventory"]["driver"]["libraries"]["cuda"]
        self.assertTrue(lib["operator_root"])
        self.assertTrue(lib["path"].startswith("/run/nvidia/driver/"))
        # the live probes loaded the container's libraries
        self.assertEqual(doc["inventory"]["driver"]["nvml"]["driver_version"], fixtures.DRIVER_VERSION)
        f = finding(doc, fid="driver.gpu-operator")
        self.assertEqual(f["status"], "ok")

    def test_container_libraries_of_another_version(self):
        # the driver container was upgraded, the node still runs the old module
        doc = check(env_fx.operator_root(container_version="580.105.08"), env=env())
        f = assert_cause(self, doc, "driver-library-mismatch", "fail")
        self.assertIn("gpu-operator", f["fix"])
        self.assertIn("580.105.08", " ".join(f["evidence"]))
        assert_no_cause(self, doc, "libcuda-missing")

    def test_driver_validation_not_ready(self):
        doc = check(env_fx.operator_root(markers=()), env=env())
        f = assert_cause(self, doc, "gpu-operator-not-ready", "fail")
        self.assertIn("driver-ready", " ".join(f["evidence"]))
        self.assertIn("driver-validation", f["fix"])
        # near miss: all four markers
        assert_no_cause(self, check(env_fx.operator_root(), env=env()), "gpu-operator-not-ready")

    def test_later_steps_not_ready_is_a_warning(self):
        doc = check(env_fx.operator_root(markers=("driver-ready", "toolkit-ready")), env=env())
        f = assert_cause(self, doc, "gpu-operator-not-ready", "warn")
        self.assertIn("cuda-ready, plugin-ready", " ".join(f["evidence"]))

    def test_inside_gpudoctors_own_daemonset(self):
        # the DaemonSet mounts the host's / at /host and runs gpudoctor --root /host:
        # the same node seen one level down reads the same
        r = env_fx.operator_root()
        top = tempfile.mkdtemp(prefix="gd-ds-")
        try:
            os.symlink(r.path, os.path.join(top, "host"))
            doc = check(os.path.join(top, "host"), env=env())
            self.assertEqual(doc["_rc"], 0)
            assert_no_cause(self, doc, "libcuda-missing")
            self.assertEqual(doc["inventory"]["platform"]["gpu_operator"]["driver_root"],
                             "/run/nvidia/driver")
        finally:
            shutil.rmtree(top, True)

    def test_empty_driver_mount_is_no_operator_node(self):
        # near miss: /run/nvidia/driver exists but is empty (the container has not started)
        r = fixtures.Root()
        fixtures.fixtures_lower.add_gpus(r)
        fixtures.fixtures_lower.add_kernel(r)
        fixtures.fixtures_lower.add_device_nodes(r)
        r.mkdir("run/nvidia/driver")
        doc = check(r, env=env())
        self.assertIsNone(doc["inventory"]["platform"]["gpu_operator"]["driver_root"])
        assert_cause(self, doc, "libcuda-missing")


if __name__ == "__main__":
    unittest.main()


class HostilePlatformFiles(GDTestCase):
    def test_hostile_operator_and_wsl_files(self):
        r = env_fx.operator_root()
        # a PRETTY_NAME with terminal escapes and a huge line; a marker that is a directory
        r.write("run/nvidia/driver/etc/os-release",
                'PRETTY_NAME="\x1b[2J\x1b]0;owned\x07Ubuntu"\n' + "X=" + "a" * 100000 + "\n")
        r.remove("run/nvidia/validations/cuda-ready")
        r.mkdir("run/nvidia/validations/cuda-ready")
        r.write("proc/version", "\x1b[31mmicrosoft\n" * 3 + "x" * 70000)
        doc = check(r, env=env())
        op = doc["inventory"]["platform"]["gpu_operator"]
        self.assertIn("Ubuntu", op["os"])
        from gdtest import run
        rc, out, err = run(["check"], env=env(), root=r.path)
        self.assertNotIn("\x1b", out)
        self.assertIn(rc, (0, 1))

    def test_driver_root_link_loop_and_escape(self):
        r = fixtures.healthy_root()
        r.mkdir("run/nvidia")
        r.symlink("run/nvidia/driver", "/run/nvidia/driver")     # a loop
        doc = check(r, env=env())
        self.assertIsNone(doc["inventory"]["platform"]["gpu_operator"]["driver_root"])
        r.symlink("run/nvidia/driver", "/../../../../")          # re-rooted: the tree itself
        doc = check(r, env=env())
        self.assertEqual(doc["_rc"], 0, [f["id"] for f in doc["findings"] if f["status"] == "fail"])
