"""The devices layer: /dev/nvidiactl, /dev/nvidiaN, /dev/nvidia-uvm present, char devices, usable.

Creating device nodes needs root (mknod); without it these tests skip and say
so.  Permission tests run gpudoctor as nobody (setpriv) against nodes that
only their owner may open.
"""
import json
import os
import shutil
import subprocess
import unittest

from gdtest import (GDTestCase, Root, check, assert_cause, assert_no_cause, layer, finding,
                    GPUDOCTOR, clean_env)
import fixtures
import fixtures_lower as fl

NOBODY = 65534


def lower_check(r):
    return check(r, "--no-load")


def nodes_root(gpus=1, **nodes):
    r = fixtures.healthy_root(gpus=gpus)
    if not fl.add_device_nodes(r, gpus=gpus, **nodes):
        raise unittest.SkipTest("cannot create device nodes (mknod needs root)")
    return r


def check_as_nobody(r):
    if os.geteuid() != 0 or not shutil.which("setpriv"):
        raise unittest.SkipTest("running as another user needs root and setpriv")
    os.chmod(r.path, 0o755)
    p = subprocess.run(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups",
                        GPUDOCTOR, "--root", r.path, "--json", "check", "--no-load"],
                       capture_output=True, text=True, env=clean_env(), timeout=60)
    doc = json.loads(p.stdout)
    doc["_rc"] = p.returncode
    return doc


class TestDevices(GDTestCase):
    def test_healthy(self):
        doc = lower_check(nodes_root())
        assert_no_cause(self, doc, "device-node-missing")
        assert_no_cause(self, doc, "device-node-permission")
        self.assertEqual(layer(doc, "devices")["status"], "ok")
        self.assertEqual(layer(doc, "devices")["summary"],
                         "nvidiactl, nvidia0, nvidia-uvm present and usable")
        nodes = {n["path"]: n for n in doc["inventory"]["devices"]["nodes"]}
        self.assertEqual(nodes["/dev/nvidia0"]["gpu"], "0000:18:00.0")
        self.assertEqual(nodes["/dev/nvidia0"]["major"], 195)
        self.assertTrue(nodes["/dev/nvidiactl"]["char_device"])
        self.assertTrue(nodes["/dev/nvidia-uvm"]["usable"])
        self.assertFalse(nodes["/dev/nvidia-uvm-tools"]["present"])
        self.assertIsNone(nodes["/dev/nvidia-uvm-tools"]["usable"])

    def test_healthy_as_nobody(self):
        doc = check_as_nobody(nodes_root())
        assert_no_cause(self, doc, "device-node-permission")
        self.assertEqual(doc["inventory"]["devices"]["uid"], NOBODY)

    def test_missing_gpu_node(self):
        doc = lower_check(nodes_root(gpus=2, skip=("nvidia1",)))
        f = assert_cause(self, doc, "device-node-missing", "fail")
        self.assertIn("/dev/nvidia1", f["title"])
        self.assertIn("0000:19:00.0", " ".join(f["evidence"]))
        self.assertIn("nvidia-modprobe", f["fix"])
        self.assertEqual(layer(doc, "devices")["status"], "fail")
        self.assertEqual(layer(doc, "driver")["status"], "blocked")

    def test_missing_uvm_node(self):
        doc = lower_check(nodes_root(skip=("nvidia-uvm",)))
        f = assert_cause(self, doc, "device-node-missing", "fail")
        self.assertIn("/dev/nvidia-uvm", f["title"])

    def test_missing_ctl_node_with_setuid_nvidia_modprobe_warns(self):
        r = nodes_root(skip=("nvidiactl",))
        fl.add_kernel(r, nvidia_modprobe="setuid")
        doc = lower_check(r)
        f = assert_cause(self, doc, "device-node-missing", "warn")
        self.assertIn("first use", " ".join(f["evidence"]))

    def test_container_fix_mentions_gpus_all(self):
        r = nodes_root(skip=("nvidiactl", "nvidia0", "nvidia-uvm"))
        r.write(".dockerenv", "")
        fl.add_kernel(r, nvidia_modprobe="setuid")
        doc = lower_check(r)
        f = assert_cause(self, doc, "device-node-missing", "fail")
        self.assertIn("--gpus all", f["fix"])
        self.assertTrue(doc["inventory"]["devices"]["container"])

    def test_container_given_one_of_two_gpus(self):
        r = nodes_root(gpus=2, skip=("nvidia1",))
        r.write("run/.containerenv", "")
        doc = lower_check(r)
        assert_no_cause(self, doc, "device-node-missing")
        self.assertIn("1 of the 2", " ".join(finding(doc, fid="devices.nodes")["evidence"]))

    def test_minor_from_proc_driver(self):
        r = nodes_root(gpus=1, skip=("nvidia0",))
        r.chardev("dev/nvidia3", 195, 3)
        r.write("proc/driver/nvidia/gpus/0000:18:00.0/information",
                "Model: \t\t NVIDIA H200\nIRQ:   \t\t 35\nDevice Minor: \t 3\n")
        doc = lower_check(r)
        assert_no_cause(self, doc, "device-node-missing")
        paths = [n["path"] for n in doc["inventory"]["devices"]["nodes"]]
        self.assertIn("/dev/nvidia3", paths)

    def test_not_a_char_device(self):
        r = nodes_root()
        r.remove("dev/nvidia-uvm")
        r.write("dev/nvidia-uvm", "")
        doc = lower_check(r)
        f = assert_cause(self, doc, "device-node-missing", "fail")
        self.assertIn("not a character device", f["title"])

    def test_permission(self):
        doc = check_as_nobody(nodes_root(mode=0o660, uid=0, gid=44))
        f = assert_cause(self, doc, "device-node-permission", "fail")
        self.assertIn("uid 65534", f["title"])
        self.assertIn("0660", " ".join(f["evidence"]))
        self.assertIn("chmod", f["fix"])
        self.assertIn("44", f["fix"])
        self.assertEqual(layer(doc, "devices")["status"], "fail")
        nodes = {n["path"]: n for n in doc["inventory"]["devices"]["nodes"]}
        self.assertIs(nodes["/dev/nvidiactl"]["usable"], False)

    def test_permission_owner_ok(self):
        doc = check_as_nobody(nodes_root(mode=0o600, uid=NOBODY, gid=0))
        assert_no_cause(self, doc, "device-node-permission")

    def real_root_nodes(self, mode, as_nobody):
        """gpudoctor on root "/" in a private mount namespace whose /dev is a
        tmpfs holding NVIDIA nodes of `mode` (owner root): the path where the
        probe asks access() as the real user, not the tree path of mode bits."""
        if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("setpriv"):
            self.skipTest("a private /dev needs root, unshare and setpriv")
        run = f"setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups " if as_nobody else ""
        script = ("set -e; mount -t tmpfs -o mode=0755 gd-dev /dev; mknod -m 0666 /dev/null c 1 3; "
                  "for n in nvidiactl:255 nvidia0:0; do mknod /dev/${n%:*} c 195 ${n#*:}; done; "
                  "mknod /dev/nvidia-uvm c 510 0; "
                  f"chmod {mode:o} /dev/nvidiactl /dev/nvidia0 /dev/nvidia-uvm; "
                  f'exec {run}"$0" --json check --no-load')
        p = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script, GPUDOCTOR],
                           capture_output=True, text=True, env=clean_env(), timeout=60)
        if not p.stdout.startswith("{"):
            self.skipTest("cannot mount a private /dev here: " + p.stderr[-200:])
        doc = json.loads(p.stdout)
        return {n["path"]: n for n in doc["inventory"]["devices"]["nodes"]}

    def test_permission_as_root_with_real_root(self):
        # As nobody, nodes only root may open: access() says EACCES, and the
        # reason names access(), the check CUDA's own open() will meet.
        nodes = self.real_root_nodes(0o600, as_nobody=True)
        for path in ("/dev/nvidiactl", "/dev/nvidia-uvm"):
            self.assertIs(nodes[path]["present"], True, path)
            self.assertIs(nodes[path]["char_device"], True, path)
            self.assertEqual(nodes[path]["mode"], "0600", path)
            self.assertIs(nodes[path]["usable"], False, path)
            self.assertTrue((nodes[path]["why"] or "").startswith("access(R_OK|W_OK): Permission denied"),
                            nodes[path]["why"])
        # near misses: the same nodes open to everyone, and root on root-only nodes
        for mode, nobody in ((0o666, True), (0o600, False)):
            nodes = self.real_root_nodes(mode, as_nobody=nobody)
            self.assertIs(nodes["/dev/nvidiactl"]["usable"], True, (oct(mode), nobody))
            self.assertIsNone(nodes["/dev/nvidiactl"]["why"])

if __name__ == "__main__":
    unittest.main()
