"""gpudoctor plan on fixture machines (issue 9), asserted step by step, and
check --upto / --layer.  Every emitted script must pass `sh -n` and shellcheck
(Debian's package; the test skips with a reason when it is missing)."""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

from gdtest import GDTestCase, Root, clean_env, run
from fixtures_lower import add_gpus, add_kernel, set_secure_boot
from fixtures_libs import add_cudnn, add_toolkit


def os_release(r, id_, version, like=None, pretty=None):
    text = f'ID={id_}\nVERSION_ID="{version}"\nPRETTY_NAME="{pretty or id_ + " " + version}"\n'
    if like:
        text += f'ID_LIKE="{like}"\n'
    r.write("etc/os-release", text)


def system_python(r, version="3.10"):
    r.write("usr/bin/python3", "", mode=0o755)
    r.mkdir(f"usr/lib/python{version}")
    r.mkdir("usr/lib/python3/dist-packages")


def base(device, modules, driver=None, secure_boot=False, os_id="ubuntu", os_version="22.04",
         bound="nvidia", like=None):
    r = Root()
    os_release(r, os_id, os_version, like=like)
    add_gpus(r, 1, device_id=device, driver=bound)
    add_kernel(r, driver_version=driver or "580.95.05", modules=modules, secure_boot=secure_boot)
    system_python(r)
    return r


def plan(r, *args, fmt="json", extra_env=None):
    env = clean_env()
    env.update(extra_env or {})
    rc, out, err = run(["plan", "--format", fmt] + list(args), root=r.path, env=env)
    return rc, (json.loads(out) if fmt == "json" and out.strip() else out), err


def steps(doc):
    return {s["id"]: s for s in doc["steps"]}


def cmds(step):
    return "\n".join(step["commands"])


class TestPlanFixtures(GDTestCase):
    def assert_script_ok(self, r, *args, extra_env=None):
        """The sh script: sh -n, shellcheck, set -eu and a verification per step."""
        rc, script, _ = plan(r, *args, fmt="sh", extra_env=extra_env)
        self.assertTrue(script.startswith("#!/bin/sh\n"), script[:80])
        self.assertIn("\nset -eu\n", script)
        d = tempfile.mkdtemp(prefix="gd-plan-")
        self.addCleanup(shutil.rmtree, d, True)
        path = os.path.join(d, "install.sh")
        with open(path, "w") as f:
            f.write(script)
        p = subprocess.run(["sh", "-n", path], capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stderr)
        if shutil.which("shellcheck"):
            p = subprocess.run(["shellcheck", "-s", "sh", path], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout + script)
        return rc, script

    def test_fresh_ubuntu_2204_with_nouveau(self):
        r = base(0x2204, ["nouveau", "drm"], bound="nouveau")
        rc, doc, _ = plan(r)
        self.assertEqual(rc, 0, doc)
        s = steps(doc)
        self.assertEqual([x["id"] for x in doc["steps"]],
                         ["interference", "gpu", "secure-boot", "driver", "cuda", "python", "framework"])
        self.assertEqual(s["interference"]["state"], "done")
        self.assertEqual(s["gpu"]["state"], "done")
        self.assertIn("GeForce RTX 3090", s["gpu"]["why"])
        self.assertEqual(s["secure-boot"]["state"], "done")
        drv = s["driver"]
        self.assertEqual(drv["state"], "todo")
        self.assertIn("blacklist nouveau", cmds(drv))
        self.assertIn("update-initramfs -u", cmds(drv))
        self.assertIn("repos/ubuntu2204/x86_64/cuda-keyring", cmds(drv))
        self.assertIn("apt-get install -y cuda-drivers-580", cmds(drv))
        self.assertTrue(drv["reboot"])
        self.assertEqual(drv["verify"], "gpudoctor check --upto driver")
        self.assertEqual(s["cuda"]["state"], "done")          # pip wheels
        self.assertIn("pip wheels", s["cuda"]["title"])
        # torch 2.15 needs Python 3.11+; the system has 3.10
        self.assertEqual(s["python"]["state"], "todo")
        self.assertIn("apt-get install -y python3.11 python3.11-venv", cmds(s["python"]))
        fw = s["framework"]
        self.assertEqual(doc["framework"], "torch")
        self.assertIn('-m pip install "torch==2.15.*"', cmds(fw))
        self.assertIn("check --upto frameworks --python", fw["verify"])
        self.assert_script_ok(r)

    def test_driver_present_but_too_old(self):
        r = base(0x2330, ["nvidia", "nvidia_uvm"], driver="515.65.01")
        rc, doc, _ = plan(r)
        self.assertEqual(rc, 0, doc)
        drv = steps(doc)["driver"]
        self.assertEqual(drv["state"], "todo")
        self.assertIn("515.65.01", drv["why"])
        # the H100 SXM (2330) first appears at 525.47.07 (open-gpu-kernel-modules)
        self.assertIn("525.47.07", drv["why"])
        self.assertIn("cuda-drivers-580", cmds(drv))
        self.assertNotIn("nouveau", cmds(drv))
        self.assert_script_ok(r)

    def test_working_driver_stale_cuda_link_and_conda_cudnn(self):
        r = base(0x2684, ["nvidia", "nvidia_uvm"], driver="580.95.05", os_version="24.04")
        add_toolkit(r, mm="11.8", full="11.8.0", cudart="11.8.89", cublas="11.11.3.6")
        r.mkdir("opt/conda/conda-meta")
        r.mkdir("opt/conda/lib/python3.11/site-packages")
        r.write("opt/conda/bin/python3", "", mode=0o755)
        add_cudnn(r, "opt/conda/lib", version="9.1.0")
        llp = {"LD_LIBRARY_PATH": "/opt/conda/lib"}
        rc, doc, _ = plan(r, "--torch", "2.15", extra_env=dict(llp, CONDA_PREFIX="/opt/conda"))
        self.assertEqual(rc, 0, doc)
        self.assertTrue(any("conda deactivate" in n for n in doc["notes"]), doc["notes"])
        s = steps(doc)
        inter = s["interference"]
        self.assertEqual(inter["state"], "todo")
        self.assertIn("grep -vxF /opt/conda/lib |", cmds(inter))   # a plain path needs no quotes (shq)
        self.assertIn("/usr/local/cuda points to CUDA 11.8", inter["why"])
        self.assertIn("sudo rm /usr/local/cuda", cmds(inter))
        self.assertIn("grep -qxF /opt/conda/lib", inter["verify"])
        self.assertEqual(s["driver"]["state"], "done")
        self.assertIn("580.95.05", s["driver"]["why"])
        self.assert_script_ok(r, "--torch", "2.15", extra_env=llp)

    def test_pascal(self):
        r = base(0x1b80, ["nvidia", "nvidia_uvm"], driver="535.104.05")
        rc, doc, _ = plan(r)
        self.assertEqual(rc, 0, doc)
        # the newest PyTorch with code for CC 6.1 is a cu126 build (cu128+/cu13x start at sm_70/75)
        self.assertEqual(doc["release"], "2.14+cu126")
        s = steps(doc)
        self.assertEqual(s["driver"]["state"], "done")
        self.assertIn("download.pytorch.org/whl/cu126", cmds(s["framework"]))
        # TF 2.21 on Pascal: pip would bring cuDNN 9.28 (no pre-Turing code): the plan pins 9.10.2.21
        rc, doc, _ = plan(r, "--tf", "2.21")
        self.assertEqual(rc, 0, doc)
        fw = steps(doc)["framework"]
        self.assertIn('"nvidia-cudnn-cu12==9.10.2.21"', cmds(fw))
        self.assertIn('"tensorflow[and-cuda]==2.21.*"', cmds(fw))
        # JAX 0.12.0 needs Python >= 3.12 (PyPI data-requires-python): the system's 3.10 does not do,
        # and Ubuntu 22.04 packages no python3.12 (only 3.10 and 3.11): a standalone CPython from uv
        rc, doc, _ = plan(r, "--jax", "0.12.0")
        py = steps(doc)["python"]
        self.assertNotIn("python3.12-venv", cmds(py))
        self.assertIn("uv python install 3.13", cmds(py))
        self.assertIn("nvidia-cudnn-cu12==9.10.2.21", cmds(steps(doc)["framework"]))
        # R535 runs CUDA 12.5 only under minor-version compatibility; TF 2.21 has sm_60 SASS: fine
        self.assertEqual(steps(doc)["driver"]["state"], "done")
        self.assert_script_ok(r, "--tf", "2.21")

    def test_gpu_too_old_for_any_release(self):
        r = base(0x102d, ["nvidia"], driver="470.256.02")
        rc, doc, _ = plan(r, "--jax", "0.12.0")
        self.assertEqual(rc, 1, doc)
        self.assertTrue(doc["stopped"])
        gpu = steps(doc)["gpu"]
        self.assertEqual(gpu["state"], "stop")
        self.assertIn("compute capability 3.7", gpu["why"])
        self.assertNotIn("framework", steps(doc))
        rc, script = self.assert_script_ok(r, "--jax", "0.12.0")
        self.assertEqual(rc, 1)
        self.assertIn("exit 1", script)

    def test_no_gpu(self):
        r = Root()
        os_release(r, "debian", "12")
        add_kernel(r, modules=["ext4"], secure_boot=None)
        rc, doc, _ = plan(r)
        self.assertEqual(rc, 1)
        gpu = steps(doc)["gpu"]
        self.assertEqual(gpu["state"], "stop")
        self.assertIn("no NVIDIA GPU", gpu["why"])
        self.assertEqual(len(doc["steps"]), 2)
        rc, out, _ = plan(r, fmt="text")
        self.assertIn("[stop] gpu", out)
        self.assertNotIn("[todo]", out)
        rc, script = self.assert_script_ok(r)
        self.assertIn("stopped at step 2 (gpu)", script)

    def test_rhel_family_secure_boot(self):
        r = base(0x20b0, ["xfs"], secure_boot=True, os_id="rocky", os_version="9.4",
                 like="rhel centos fedora")
        r.write("var/lib/dkms/mok.pub", b"\x30\x82")
        rc, doc, _ = plan(r, "--torch", "2.14")
        self.assertEqual(rc, 0, doc)
        self.assertEqual(doc["family"], "rhel")
        self.assertEqual(doc["repository"], "rhel9")
        s = steps(doc)
        sb = s["secure-boot"]
        self.assertEqual(sb["state"], "todo")
        self.assertIn("mokutil --import /var/lib/dkms/mok.pub", cmds(sb))
        self.assertTrue(sb["reboot"])
        drv = s["driver"]
        self.assertIn("dnf config-manager --add-repo https://developer.download.nvidia.com/compute/cuda/"
                      "repos/rhel9/x86_64/cuda-rhel9.repo", cmds(drv))
        self.assertIn("dnf -y module install nvidia-driver:580-open", cmds(drv))
        self.assertNotIn("apt-get", cmds(drv))
        self.assert_script_ok(r, "--torch", "2.14")
        # Secure Boot on and no signing key: the plan stops and says why
        r.remove("var/lib/dkms/mok.pub")
        rc, doc, _ = plan(r, "--torch", "2.14")
        self.assertEqual(rc, 1)
        sb = steps(doc)["secure-boot"]
        self.assertEqual(sb["state"], "stop")
        self.assertIn("no signing key", sb["why"])
        self.assertNotIn("driver", steps(doc))

    def test_installed_framework_is_done(self):
        from fixtures_fw import add_torch, add_torch_cu12_wheels, add_venv
        r = base(0x2335, ["nvidia", "nvidia_uvm"], driver="580.95.05", os_version="24.04")
        site = add_venv(r, "opt/venv", py="3.11")
        add_torch(r, site, version="2.9.0+cu128", cuda="'12.8'", archs=("sm_90",))
        add_torch_cu12_wheels(r, site, cudnn="9.10.2.21")
        rc, doc, _ = plan(r, "--torch", "2.9", extra_env={"VIRTUAL_ENV": "/opt/venv"})
        self.assertEqual(rc, 0, doc)
        fw = steps(doc)["framework"]
        # done only when gpudoctor predicts the GPU is used; else it is to do
        self.assertIn(fw["state"], ("done", "todo"))
        if fw["state"] == "done":
            self.assertIn("/opt/venv has it", fw["why"])

    def test_hostile_os_release_and_paths_are_quoted(self):
        r = base(0x2204, ["nvidia"], driver="580.95.05")
        r.write("etc/os-release", 'ID="ubuntu;rm -rf /"\nVERSION_ID="22.04"\n')
        rc, doc, _ = plan(r)
        # not a known repository name: the driver step is already done here anyway
        self.assertEqual(doc["repository"], None)
        rc, doc, _ = plan(r, "--venv", "/tmp/it's here")
        fw = steps(doc)["framework"]
        self.assertIn("'/tmp/it'\\''s here'/bin/python", cmds(fw))
        self.assert_script_ok(r, "--venv", "/tmp/it's here")
        # on the terminal, control bytes are shown escaped (core/termesc)
        rc, text, _ = plan(r, "--venv", "/tmp/a\x1b]0;pwned\x07b", fmt="text")
        self.assertIn("/tmp/a\\x1b]0;pwned\\x07b", text)
        self.assertNotIn("\x1b", text)
        # a long path is carried whole, never cut inside its quotes (test_plan_hostile.py)
        rc, doc, err = plan(r, "--venv", "/tmp/it's " + "x" * 1000)
        self.assertEqual(rc, 0, err)
        self.assertIn("'/tmp/it'\\''s " + "x" * 1000 + "'/bin/python", cmds(steps(doc)["framework"]))

    def test_container_driver_is_the_hosts(self):
        r = base(0x2330, ["nvidia"], driver="580.95.05")
        r.write(".dockerenv", "")
        rc, doc, _ = plan(r, "--torch", "2.14")
        self.assertEqual(rc, 0, doc)
        s = steps(doc)
        self.assertNotIn("secure-boot", s)
        self.assertEqual(s["driver"]["state"], "done")
        self.assertIn("container", s["driver"]["why"])
        # no driver visible in the container: the plan stops, nothing is installed here
        r = base(0x2330, ["ext4"])
        r.write(".dockerenv", "")
        rc, doc, _ = plan(r, "--torch", "2.14")
        self.assertEqual(rc, 1)
        drv = steps(doc)["driver"]
        self.assertEqual(drv["state"], "stop")
        self.assertIn("--gpus all", drv["why"])
        self.assertEqual(drv["commands"], [])

    def test_usage(self):
        r = Root()
        for args in (["--tf", "9.9"], ["--jax", "0.4.99"], ["--tf", "2.15", "--torch", "2.7"],
                     ["--format", "xml"], ["extra"]):
            rc, _, err = run(["plan"] + args, root=r.path, env=clean_env())
            self.assertEqual(rc, 2, args)
            # option errors in git's style (test_cli_conventions.py), the others named by command
            self.assertRegex(err, r"^(error: |gpudoctor plan: )")


class TestPlanShellcheck(GDTestCase):
    def test_every_fixture_script_passes_shellcheck(self):
        if not shutil.which("shellcheck"):
            self.skipTest("shellcheck is not installed (apt-get install shellcheck; tests/ci.sh does)")
        machines = [
            (base(0x2204, ["nouveau"], bound="nouveau"), []),
            (base(0x2330, ["nvidia"], driver="515.65.01"), []),
            (base(0x1b80, ["nvidia"], driver="535.104.05"), ["--tf", "2.21"]),
            (base(0x102d, ["nvidia"], driver="470.256.02"), ["--jax", "0.12.0"]),
            (base(0x20b0, ["xfs"], secure_boot=True, os_id="rocky", os_version="9.4"), ["--torch", "2.14"]),
            (base(0x2684, ["nvidia"], driver="580.95.05"), ["--tf", "2.13", "--venv", "/opt/my env"]),
        ]
        d = tempfile.mkdtemp(prefix="gd-plan-sc-")
        self.addCleanup(shutil.rmtree, d, True)
        for i, (r, args) in enumerate(machines):
            rc, script, _ = plan(r, *args, fmt="sh")
            path = os.path.join(d, "plan%d.sh" % i)
            with open(path, "w") as f:
                f.write(script)
            p = subprocess.run(["shellcheck", "-s", "sh", path], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stdout)


class TestCheckUpto(GDTestCase):
    def test_upto_and_layer(self):
        r = base(0x2204, ["nouveau"], bound="nouveau")
        rc, out, _ = run(["--json", "check", "--no-load", "--upto", "kernel"], root=r.path, env=clean_env())
        doc = json.loads(out)
        layers = {l["id"]: l for l in doc["layers"]}
        for lid in ("devices", "driver", "cuda", "libraries", "frameworks"):
            self.assertEqual(layers[lid]["status"], "skipped", lid)
        self.assertEqual(layers["kernel"]["status"], "fail")
        self.assertEqual(rc, 1)
        rc, out, _ = run(["--json", "check", "--no-load", "--layer", "hardware"], root=r.path, env=clean_env())
        doc = json.loads(out)
        shown = {f["layer"] for f in doc["findings"] if f["id"] != "check.not-shown"}
        self.assertEqual(shown, {"hardware"})
        self.assertTrue(all(f["status"] == "skipped" for f in doc["findings"] if f["layer"] != "hardware"))
        rc, _, err = run(["check", "--upto", "bogus"], root=r.path, env=clean_env())
        self.assertEqual(rc, 2)
        self.assertIn("--upto", err)


if __name__ == "__main__":
    unittest.main()
