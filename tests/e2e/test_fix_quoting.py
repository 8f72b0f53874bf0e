"""Every "fix:" is pasted into a shell: machine values in it are quoted.

Fixture machines whose directory names are shell code (a toolkit named
`cuda-12.4$(touch${IFS}pwned1)...`, a venv with quotes, spaces and a
newline, an LD_LIBRARY_PATH entry with backquotes) produce fixes that
name them.  Each fix is run by bash in a scratch directory with a PATH of
one directory: a fake `sudo` that only logs its arguments, the real
`touch` (what the hostile names call), and every other command caught by
command_not_found_handle and logged.  Nothing may create a marker file;
the fake sudo must receive each hostile path as one argument.
"""
import json
import os
import shlex
import shutil
import subprocess
import tempfile
import unittest

from gdtest import GDTestCase, check, clean_env, finding
import fixtures
import fixtures_libs as fl
import fixtures_lower as flow
import fixtures_fw as fw
import hostile

EVIL = "$(touch${IFS}pwned1)`touch pwned2`;touch pwned3"    # balanced: runs if unquoted
QUOTES = "'q\" &>pwned4 x"                                    # quotes and spaces
MARKERS = ("pwned1", "pwned2", "pwned3", "pwned4")


def run_fix(fix):
    """Run one fix as a person pasting it would; returns (scratch dir listing, sudo log)."""
    scratch = tempfile.mkdtemp(prefix="gd-fix-")
    try:
        bindir = os.path.join(scratch, "bin")
        os.mkdir(bindir)
        log = os.path.join(scratch, "sudo.log")
        with open(os.path.join(bindir, "sudo"), "w") as f:
            # one line per argument, NUL-terminated records: the arguments as received
            f.write(f"#!/bin/sh\nprintf '%s\\0' \"$@\" >> '{log}'\nprintf '\\n\\0' >> '{log}'\n")
        os.chmod(os.path.join(bindir, "sudo"), 0o755)
        os.symlink(shutil.which("touch"), os.path.join(bindir, "touch"))
        work = os.path.join(scratch, "work")
        os.mkdir(work)
        # a fix is a command, then maybe "  (prose)": paste the command
        cmd = fix.split("  (")[0]
        script = ("command_not_found_handle() { printf '%s\\n' \"$*\" >> ../notfound.log; return 127; }\n"
                  + cmd + "\n")
        subprocess.run(["/bin/bash", "-c", script], cwd=work, capture_output=True, timeout=20,
                       env={"PATH": bindir, "HOME": scratch, "LD_LIBRARY_PATH": "/a:/b"})
        made = sorted(os.listdir(work))
        calls = []
        if os.path.exists(log):
            with open(log, "rb") as f:
                cur = []
                for a in f.read().split(b"\0")[:-1]:
                    if a == b"\n":
                        calls.append(cur)
                        cur = []
                    else:
                        cur.append(a.decode("utf-8", "replace"))
        return made, calls
    finally:
        shutil.rmtree(scratch, True)


def hostile_fix_roots():
    """(name, root, env) tuples whose fixes name hostile directories."""
    out = []
    # a toolkit other than the one /usr/local/cuda names, first on PATH
    r = fl.healthy_libs_root()
    mm = "12.4" + EVIL
    fl.add_toolkit(r, mm=mm, full="12.4.1", cudart="12.4.127", cublas="12.4.5.8", link=False)
    os.chmod(r.p(f"usr/local/cuda-{mm}/lib64/libcublas.so.12.4.5.8"), 0o600)
    out.append(("toolkit", r, clean_env(PATH=f"/usr/local/cuda-{mm}/bin:/usr/bin:/bin")))
    # /usr/local/cuda dangling, the only toolkit hostile
    r = fl.healthy_libs_root()
    os.rename(r.p("usr/local/cuda-13.0"), r.p("usr/local/cuda-13.0" + EVIL))
    r.symlink("usr/local/cuda", "/usr/local/cuda-13.0-gone")
    out.append(("dangling", r, clean_env()))
    # a venv with a CPU torch and a TF whose CUDA libraries are missing
    r = fl.healthy_libs_root()
    prefix = "opt/v " + EVIL + QUOTES + "\nnext"
    site = fw.add_venv(r, prefix=prefix)
    fw.add_torch(r, site, version="2.5.1+cpu", cuda="None")
    fw.add_tensorflow(r, site)
    out.append(("venv", r, clean_env(VIRTUAL_ENV="/" + prefix)))
    # LD_LIBRARY_PATH entries with shell code, holding a cuDNN
    r = fl.healthy_libs_root()
    d = "opt/l" + EVIL + " " + QUOTES
    fl.add_cudnn(r, d, version="9.14.0")
    site = fw.add_venv(r)
    fw.add_torch(r, site, version="2.9.0+cu130", cuda="'13.0'")
    fw.add_cudnn_wheel(r, site, version="9.19.0.56", cu="13")
    out.append(("ld-library-path", r, clean_env(LD_LIBRARY_PATH="/" + d, VIRTUAL_ENV="/opt/venv")))
    return out


class FixQuoting(GDTestCase):
    def check_fixes(self, name, doc, expect_min=1):
        fixes = [f["fix"] for f in doc["findings"] if f.get("fix")]
        self.assertGreaterEqual(len(fixes), expect_min, f"{name}: no fix to run")
        for fix in fixes:
            made, calls = run_fix(fix)
            for m in MARKERS:
                self.assertNotIn(m, made, f"{name}: pasting this fix ran code from a name:\n{fix}")
            yield fix, calls

    def test_hostile_names_run_nothing(self):
        seen_evil_arg = 0
        for name, root, env in hostile_fix_roots():
            doc = check(root, "--no-load", env=env)
            for fix, calls in self.check_fixes(name, doc):
                for args in calls:
                    if any(EVIL in a for a in args):
                        seen_evil_arg += 1
        # the fake sudo received a hostile path as one argument (ln -sfn, chmod a+r)
        self.assertGreaterEqual(seen_evil_arg, 2)

    def test_the_ln_fix_keeps_the_name_whole(self):
        name, root, env = hostile_fix_roots()[0]
        doc = check(root, "--no-load", env=env)
        f = finding(doc, cause="cuda-symlink-broken")
        self.assertIsNotNone(f, json.dumps(doc["findings"], indent=1))
        made, calls = run_fix(f["fix"])
        self.assertIn(["ln", "-sfn", "/usr/local/cuda-12.4" + EVIL, "/usr/local/cuda"], calls, f["fix"])

    def test_word_list_fixes_keep_crafted_names_whole(self):
        # issue 22: rules_hardware printed a PCI directory name from sysfs into
        # `nvidia-smi ... -i NAME`, rules_libraries a cuDNN path, both unquoted.
        r = fixtures.healthy_root()
        bdf = "0000:1c:00.0" + EVIL
        flow._pci_fn(r, bdf, 0x10de, 0x2335, 0x030200, driver="nvidia", speed="16.0 GT/s PCIe",
                     max_speed="32.0 GT/s PCIe", width=8, max_width=16)
        doc = check(r, "--no-load")
        fs = [f for f in doc["findings"] if f.get("cause") == "pcie-link-degraded"]
        self.assertTrue(fs, json.dumps(doc["findings"], indent=1))
        fix = fs[0]["fix"]
        cmd, _, note = fix.partition("  (")
        self.assertEqual(shlex.split(cmd), ["nvidia-smi", "-q", "-d", "PCIE", "-i", bdf], fix)
        self.assertIn("reseating", note)
        for m in MARKERS:
            self.assertNotIn(m, run_fix(fix)[0], fix)

        r = fl.healthy_libs_root()
        d = "opt/c" + EVIL + " " + QUOTES
        fl.add_cudnn(r, d, version="9.19.0", sub_versions={"cnn": "9.14.0"})
        fl.register_dir(r, d)
        doc = check(r, "--no-load")
        f = finding(doc, cause="cudnn-incomplete")
        self.assertIsNotNone(f, json.dumps(doc["findings"], indent=1))
        cmd = f["fix"].partition("  (")[0]
        words = shlex.split(cmd)
        self.assertEqual(words[:2], ["dpkg", "-S"], f["fix"])
        self.assertEqual(len(words), 3, f["fix"])
        self.assertTrue(words[2].startswith("/" + d + "/libcudnn"), f["fix"])
        for m in MARKERS:
            self.assertNotIn(m, run_fix(f["fix"])[0], f["fix"])

    def assert_one_word(self, fix, value, want_sudo=None):
        """The command part of fix keeps value as one shell word, and pasting it runs nothing."""
        cmd = fix.partition("  (")[0]
        self.assertIn(value, shlex.split(cmd), fix)
        made, calls = run_fix(fix)
        for m in MARKERS:
            self.assertNotIn(m, made, f"pasting this fix ran code from a name:\n{fix}")
        if want_sudo is not None:
            self.assertIn(want_sudo, calls, fix)
        return calls

    def test_word_list_fix_keeps_a_crafted_pci_directory_whole(self):
        # issue 22: rules_hardware's rebind fix names the GPU's sysfs directory
        # twice and the other driver's unbind file; a crafted name with shell
        # code, a space and a newline stays one word each time.
        r = fixtures.healthy_root()
        bdf = "0000:1c:00.0" + EVIL + " x\ny"
        flow._pci_fn(r, "0000:00:00.0", 0x8086, 0x09a2, 0x060000, subsystem=None, numa_node=None)
        flow._pci_fn(r, bdf, 0x10de, 0x2335, 0x030200, driver="vfio-pci")
        doc = check(r, "--no-load")
        f = finding(doc, cause="gpu-bound-to-other-driver")
        self.assertIsNotNone(f, json.dumps(doc["findings"], indent=1))
        cmd = f["fix"].partition("  (")[0]
        self.assertEqual(shlex.split(cmd), ["echo", bdf, "|", "sudo", "tee", "/sys/bus/pci/drivers/vfio-pci/unbind",
                                            "&&", "echo", bdf, "|", "sudo", "tee",
                                            "/sys/bus/pci/drivers/nvidia/bind"], f["fix"])
        self.assert_one_word(f["fix"], bdf, ["tee", "/sys/bus/pci/drivers/nvidia/bind"])

    def test_word_list_fix_keeps_a_crafted_library_path_whole(self):
        # issue 22: rules_lib_files' chmod fix names the library's real path
        name, root, env = hostile_fix_roots()[0]
        doc = check(root, "--no-load", env=env)
        f = finding(doc, cause="lib-root-only")
        self.assertIsNotNone(f, json.dumps(doc["findings"], indent=1))
        path = "/usr/local/cuda-12.4" + EVIL + "/lib64/libcublas.so.12.4.5.8"
        self.assertEqual(shlex.split(f["fix"].partition("  (")[0]), ["sudo", "chmod", "a+r", path], f["fix"])
        self.assert_one_word(f["fix"], path, ["chmod", "a+r", path])

    def test_word_list_fix_keeps_a_crafted_environment_prefix_whole(self):
        # issue 22: the frameworks' pip fixes start with the environment's
        # interpreter; a venv prefix with shell code, quotes, a space and a
        # newline stays one word
        name, root, env = hostile_fix_roots()[2]
        self.assertEqual(name, "venv")
        doc = check(root, "--no-load", env=env)
        py = "/opt/v " + EVIL + QUOTES + "\nnext/bin/python3"
        f = finding(doc, cause="framework-cpu-only")
        self.assertIsNotNone(f, json.dumps(doc["findings"], indent=1))
        self.assertEqual(shlex.split(f["fix"].partition("  (")[0]),
                         [py, "-m", "pip", "install", "torch==2.5.*", "--force-reinstall"], f["fix"])
        self.assert_one_word(f["fix"], py)
        f = finding(doc, cause="nccl-missing")
        self.assertIsNotNone(f, json.dumps(doc["findings"], indent=1))
        self.assertEqual(shlex.split(f["fix"]), [py, "-m", "pip", "install", "nvidia-nccl-cu12"], f["fix"])

    def test_the_near_miss_plain_values_stay_unquoted(self):
        # the same fixes with ordinary names read as before: no quotes where none are needed
        r = fixtures.healthy_root()
        flow.add_gpus(r, driver="vfio-pci")
        f = finding(check(r, "--no-load"), cause="gpu-bound-to-other-driver")
        self.assertTrue(f["fix"].startswith("echo 0000:18:00.0 | sudo tee /sys/bus/pci/drivers/vfio-pci/unbind"
                                            " && echo 0000:18:00.0 | sudo tee /sys/bus/pci/drivers/nvidia/bind"),
                        f["fix"])

    def test_hostile_trees_fixes_run_nothing(self):
        plant = hostile.Plant()
        for name, build in hostile.CASES.items():
            doc = check(build(plant), "--no-load")
            for _ in self.check_fixes(name, doc, expect_min=0):
                pass


if __name__ == "__main__":
    unittest.main()
