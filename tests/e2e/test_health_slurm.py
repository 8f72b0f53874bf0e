"""health --slurm against a scripted scontrol: the exact argv gpudoctor runs,
the reboot-once record, deadlines on a hanging scontrol, node names.

The real Slurm runs in tests/fleet/test_slurm.py; this one is fast and needs
no daemon: --scontrol names a script that prints a canned `scontrol -o show
node` record and logs each call's arguments.
"""
import json
import os
import tempfile
import time
import unittest

from gdtest import GDTestCase, run, clean_env, watch_record
import fixtures

BOOT1 = "11111111-1111-4111-8111-111111111111"
BOOT2 = "22222222-2222-4222-8222-222222222222"
IDLE = "NodeName=n1 Arch=x86_64 CoresPerSocket=1 State=IDLE ThreadsPerCore=1 Partitions=gd"


class FakeScontrol:
    def __init__(self, record=IDLE, hang=False):
        self.dir = tempfile.mkdtemp(prefix="gd-scontrol-")
        self.log = os.path.join(self.dir, "calls")
        self.rec = os.path.join(self.dir, "record")
        self.path = os.path.join(self.dir, "scontrol")
        self.set(record)
        with open(self.path, "w") as f:
            f.write("#!/bin/sh\n"
                    f"for a in \"$@\"; do printf '%s\\037' \"$a\"; done >> {self.log}\n"
                    f"echo >> {self.log}\n"
                    + ("sleep 100\n" if hang else "") +
                    f"[ \"$1 $2\" = \"-o show\" ] && cat {self.rec}\n"
                    "exit 0\n")
        os.chmod(self.path, 0o755)

    def set(self, record):
        with open(self.rec, "w") as f:
            f.write(record + "\n")

    def calls(self):
        if not os.path.exists(self.log):
            return []
        with open(self.log) as f:
            return [line.rstrip("\n").split("\x1f")[:-1] for line in f if line.strip()]


def set_watch(r, boot, active=()):
    r.write("proc/sys/kernel/random/boot_id", boot + "\n")
    r.write("var/lib/gpudoctor/state",
            f"version=2\nupdated={int(time.time())}\nboot_id={boot}\n"
            f"status={'fail' if active else 'ok'}\n" + "".join(f"active={watch_record(a)}\n" for a in active))


def health_slurm(r, sc, *args, env_extra=None):
    env = clean_env(**(env_extra or {}))
    rc, out, err = run(["--no-load", "--json", "health", "--slurm", "--scontrol", sc.path] + list(args),
                       root=r.path, env=env)
    try:
        doc = json.loads(out)
    except ValueError:
        raise AssertionError(f"rc={rc}\n{out}\n{err}")
    doc["_rc"] = rc
    return doc


class TestHealthSlurmArgv(GDTestCase):
    def test_drain_argv_and_node_from_env(self):
        r = fixtures.healthy_root()
        set_watch(r, BOOT1, ["ecc-errors 1 fail uncorrectable ECC errors on GPU 1"])
        sc = FakeScontrol()
        doc = health_slurm(r, sc, env_extra={"SLURMD_NODENAME": "n1"})
        self.assertEqual(doc["_rc"], 1)
        self.assertEqual(sc.calls(), [
            ["-o", "show", "node", "--", "n1"],
            ["update", "NodeName=n1", "State=DRAIN",
             "Reason=gpudoctor: ecc-errors 1 uncorrectable ECC errors on GPU 1"]])
        self.assertEqual(doc["slurm"]["step"], "drain")
        self.assertTrue(doc["slurm"]["applied"])

    def test_resume_only_ours(self):
        r = fixtures.healthy_root()
        set_watch(r, BOOT1)
        sc = FakeScontrol("NodeName=n1 State=IDLE+DRAIN Reason=gpudoctor: gpu-lost 0 x [root@2026-11-30T08:00:00]")
        doc = health_slurm(r, sc, "--node", "n1")
        self.assertEqual(doc["slurm"]["step"], "resume")
        self.assertEqual(sc.calls()[-1], ["update", "NodeName=n1", "State=RESUME"])
        sc2 = FakeScontrol("NodeName=n1 State=IDLE+DRAIN Reason=gpudoctor2 is not us [ops@t]")
        doc = health_slurm(r, sc2, "--node", "n1")
        self.assertEqual(doc["slurm"]["step"], "nothing")
        self.assertEqual(len(sc2.calls()), 1)

    def test_reboot_once_then_drain(self):
        r = fixtures.healthy_root()
        sc = FakeScontrol()
        set_watch(r, BOOT1, ["gpu-lost 2 fail GPU 2 fell off the bus (XID 79)"])
        doc = health_slurm(r, sc, "--node", "n1", "--reboot")
        self.assertEqual(doc["slurm"]["step"], "reboot", doc["slurm"])
        self.assertEqual(sc.calls()[-1], ["reboot", "ASAP", "nextstate=RESUME",
                                          "reason=gpudoctor: gpu-lost 2 GPU 2 fell off the bus (XID 79)",
                                          "--", "n1"])
        with open(r.p("var/lib/gpudoctor/health-reboot")) as f:
            self.assertEqual(f.read(), f"boot_id={BOOT1}\ncause=gpu-lost\ngpu=2\n")
        # The node rebooted (new boot id) and watch sees the same GPU lost again.
        set_watch(r, BOOT2, ["gpu-lost 2 fail GPU 2 fell off the bus (XID 79)"])
        doc = health_slurm(r, sc, "--node", "n1", "--reboot")
        self.assertEqual(doc["slurm"]["step"], "drain", doc["slurm"])
        self.assertIn("reboot did not clear", doc["slurm"]["why"])
        self.assertEqual(sc.calls()[-1][:3], ["update", "NodeName=n1", "State=DRAIN"])
        # Another GPU is another cause: one reboot for it.
        set_watch(r, BOOT2, ["gpu-lost 5 fail GPU 5 fell off the bus (XID 79)"])
        self.assertEqual(health_slurm(r, sc, "--node", "n1", "--reboot")["slurm"]["step"], "reboot")
        # Healthy: the record is forgotten.
        set_watch(r, BOOT2)
        health_slurm(r, sc, "--node", "n1", "--reboot")
        self.assertFalse(os.path.exists(r.p("var/lib/gpudoctor/health-reboot")))

    def test_one_lost_gpu_named_two_ways_reboots_once(self):
        """Before (round 13's attacker): the record matched the GPU's name
        as a string, and one lost GPU is "2" (NVML's index) in a boot where
        the sampler mapped it before it fell off and "0000:1a:00.0" (its
        address alone) in a boot where it fell off first: each boot asked
        for another reboot, alternating for ever, killing the jobs Slurm
        placed after each RESUME.  After: names of different kinds count as
        the same GPU (drain); two indices or two addresses still differ."""
        r = fixtures.healthy_root()
        sc = FakeScontrol()
        set_watch(r, BOOT1, ["gpu-lost 2 fail GPU 2 fell off the bus (XID 79)"])
        self.assertEqual(health_slurm(r, sc, "--node", "n1", "--reboot")["slurm"]["step"], "reboot")
        set_watch(r, BOOT2, ["gpu-lost 0000:1a:00.0 fail XID 79 on GPU 0000:1a:00.0"])
        doc = health_slurm(r, sc, "--node", "n1", "--reboot")
        self.assertEqual(doc["slurm"]["step"], "drain", doc["slurm"])
        self.assertIn("reboot did not clear", doc["slurm"]["why"])
        # near miss: another address is another GPU, one reboot for it
        r2 = fixtures.healthy_root()
        set_watch(r2, BOOT1, ["gpu-lost 0000:1a:00.0 fail XID 79 on GPU 0000:1a:00.0"])
        self.assertEqual(health_slurm(r2, sc, "--node", "n1", "--reboot")["slurm"]["step"], "reboot")
        set_watch(r2, BOOT2, ["gpu-lost 0000:9c:00.0 fail XID 79 on GPU 0000:9c:00.0"])
        self.assertEqual(health_slurm(r2, sc, "--node", "n1", "--reboot")["slurm"]["step"], "reboot")

    def test_reboot_record_that_is_a_link_in_a_root_tree(self):
        """Before (round 13's attacker): under --root the record's path was
        resolved with its last link followed, so a healthy verdict with
        --reboot unlinked the file a link named health-reboot points at
        (ROOT/etc/victim here: /etc/passwd under --root /host), and a link to
        an empty file read as "no reboot tried" (a reboot bought by a link).
        After: the directory is resolved, the record itself is removed or
        refused as a link (drain)."""
        r = fixtures.healthy_root()
        set_watch(r, BOOT1)
        r.write("etc/victim", "precious\n")
        os.symlink("/etc/victim", r.p("var/lib/gpudoctor/health-reboot"))
        sc = FakeScontrol()
        doc = health_slurm(r, sc, "--node", "n1", "--reboot")
        self.assertEqual(doc["verdict"], "healthy", doc)
        self.assertTrue(os.path.exists(r.p("etc/victim")), "the link's target was removed")
        self.assertFalse(os.path.lexists(r.p("var/lib/gpudoctor/health-reboot")))
        # a link as the record never buys a reboot
        set_watch(r, BOOT2, ["gpu-lost 2 fail GPU 2 fell off the bus (XID 79)"])
        r.write("etc/empty", "")
        os.symlink("/etc/empty", r.p("var/lib/gpudoctor/health-reboot"))
        doc = health_slurm(r, sc, "--node", "n1", "--reboot")
        self.assertEqual(doc["slurm"]["step"], "drain", doc["slurm"])
        # near miss: the same as a regular file of root's is no record of a reboot
        os.unlink(r.p("var/lib/gpudoctor/health-reboot"))
        r.write("var/lib/gpudoctor/health-reboot", "")
        doc = health_slurm(r, sc, "--node", "n1", "--reboot")
        self.assertEqual(doc["slurm"]["step"], "reboot", doc["slurm"])

    def test_xid_needing_a_reset_reboots_and_a_restart_app_one_drains(self):
        # issue 22: the reboot policy matched "xid-error", an id nobody emits,
        # so an XID whose NVIDIA action is reset-gpu drained instead.  The state
        # record is the one watch writes for XID 48 (tests/e2e/test_watch.py).
        r = fixtures.healthy_root()
        sc = FakeScontrol()
        set_watch(r, BOOT1, ["cause=gpu-xid-error status=fail layer=driver gpu=1 pci=0000:19:00.0 "
                             "xid=48 action=reset-gpu title=XID 48 (Double Bit ECC Error) on GPU 1 "
                             "0000:19:00.0, 1 this boot: action reset-gpu"])
        doc = health_slurm(r, sc, "--node", "n1", "--reboot")
        self.assertEqual(doc["action"], "reboot", doc)
        self.assertEqual(doc["slurm"]["step"], "reboot", doc["slurm"])
        # near miss: an XID whose action is drain is drained, not rebooted
        r2 = fixtures.healthy_root()
        set_watch(r2, BOOT1, ["cause=gpu-xid-error status=fail layer=driver gpu=1 pci=0000:19:00.0 "
                              "xid=119 action=drain title=XID 119 (GSP RPC timeout) on GPU 1 "
                              "0000:19:00.0, 1 this boot: action drain"])
        doc = health_slurm(r2, FakeScontrol(), "--node", "n1", "--reboot")
        self.assertEqual(doc["action"], "drain", doc)
        self.assertEqual(doc["slurm"]["step"], "drain", doc["slurm"])

    def test_no_record_no_reboot(self):
        # Without this boot's id a reboot cannot be told from a retry: drain.
        r = fixtures.healthy_root()
        r.write("var/lib/gpudoctor/state", f"version=2\nupdated={int(time.time())}\n"
                "active=cause=gpu-lost status=fail gpu=0 title=gone\n")
        sc = FakeScontrol()
        doc = health_slurm(r, sc, "--node", "n1", "--reboot")
        self.assertEqual(doc["slurm"]["step"], "drain", doc["slurm"])
        self.assertIn("no reboot", doc["slurm"]["why"])

    def test_without_reboot_flag_drains(self):
        r = fixtures.healthy_root()
        set_watch(r, BOOT1, ["gpu-lost 2 fail gone"])
        sc = FakeScontrol()
        self.assertEqual(health_slurm(r, sc, "--node", "n1")["slurm"]["step"], "drain")
        self.assertFalse(os.path.exists(r.p("var/lib/gpudoctor/health-reboot")))

    def test_unknown_and_unregistered_touch_nothing(self):
        r = fixtures.healthy_root()
        set_watch(r, BOOT1, ["gpu-lost 2 fail gone"])
        sc = FakeScontrol("NodeName=n1 State=UNKNOWN+NOT_RESPONDING Reason=(null)")
        doc = health_slurm(r, sc, "--node", "n1")
        self.assertEqual(doc["slurm"]["step"], "skip")
        self.assertEqual(len(sc.calls()), 1)
        sc = FakeScontrol("slurm_load_node error: Invalid node name specified")
        doc = health_slurm(r, sc, "--node", "n1")
        self.assertEqual(doc["slurm"]["step"], "skip")

    def test_hanging_scontrol_keeps_the_deadline(self):
        r = fixtures.healthy_root()
        set_watch(r, BOOT1, ["gpu-lost 2 fail gone"])
        sc = FakeScontrol(hang=True)
        t = time.monotonic()
        doc = health_slurm(r, sc, "--node", "n1", "--deadline", "3")
        took = time.monotonic() - t
        self.assertLess(took, 3.5)
        self.assertEqual(doc["_rc"], 1)
        self.assertIn("timed out", doc["slurm"]["error"])
        self.assertIsNone(doc["slurm"]["step"])

    def test_text_output_is_one_line_even_with_slurm_errors(self):
        r = fixtures.healthy_root()
        set_watch(r, BOOT1, ["gpu-lost 2 fail gone"])
        rc, out, err = run(["--no-load", "health", "--slurm", "--node", "n1", "--scontrol",
                            "/nonexistent/scontrol"], root=r.path, env=clean_env())
        self.assertEqual(rc, 1)
        self.assertEqual(out, "gpudoctor: gpu-lost 2 gone\n")
        self.assertIn("scontrol not found", err)

    def test_bad_node_name_is_refused(self):
        r = fixtures.healthy_root()
        set_watch(r, BOOT1, ["gpu-lost 2 fail gone"])
        sc = FakeScontrol()
        doc = health_slurm(r, sc, "--node", "n1 State=RESUME")
        self.assertEqual(sc.calls(), [])
        self.assertIn("not a Slurm node name", doc["slurm"]["error"])

    def test_option_like_node_names_never_reach_scontrol(self):
        # scontrol's getopt permutes: "-Mx" anywhere picks another cluster, "--help" exits 0
        r = fixtures.healthy_root()
        set_watch(r, BOOT1, ["gpu-lost 2 fail gone"])
        for bad in ("-Mx", "--help", "-", "--", ".n1", "n[1-4]", "n1,n2", "n1\tn2", "n1\n",
                    "_n1", "x" * 256):
            sc = FakeScontrol()
            doc = health_slurm(r, sc, "--node=" + bad)
            self.assertEqual(sc.calls(), [], bad)
            self.assertIn("not a Slurm node name", doc["slurm"]["error"], bad)
            sc = FakeScontrol()
            doc = health_slurm(r, sc, env_extra={"SLURMD_NODENAME": bad})
            self.assertEqual(sc.calls(), [], bad)
            self.assertIn("not a Slurm node name", doc["slurm"]["error"], bad)
        # near misses: real host names pass, the name after "--"
        for good in ("n1", "gpu-node-01", "dgx_h200.a", "0node", "x" * 255):
            sc = FakeScontrol(IDLE.replace("NodeName=n1", "NodeName=" + good))
            doc = health_slurm(r, sc, "--node", good)
            self.assertEqual(sc.calls()[0], ["-o", "show", "node", "--", good], good)
            self.assertEqual(sc.calls()[1][:2], ["update", "NodeName=" + good], good)


if __name__ == "__main__":
    unittest.main()
