"""`gpudoctor health --slurm` as a real Slurm's HealthCheckProgram.

A single-node cluster (slurmlab.py: munged, slurmctld, slurmd from Debian, on
127.0.0.1) runs `gpudoctor --root FIXTURE --json health --slurm` every few
seconds through a wrapper script, as HealthCheckProgram (Slurm runs it
without arguments and with an almost empty environment: SLURMD_NODENAME
only).  The fixture is a healthy machine; the watch daemon's state file in
it makes it unhealthy.  Each run's JSON is kept, so the test can also see
the runs Slurm made before slurmd registered.
"""
import glob
import json
import os
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import fixtures  # noqa: E402
from gdtest import GPUDOCTOR, watch_record  # noqa: E402
import slurmlab  # noqa: E402

INTERVAL = 5
BOOT = "5a0d3f1e-1111-4c2b-9b8e-0a1b2c3d4e5f"


class TestSlurmHealthCheck(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if os.geteuid() != 0:
            raise unittest.SkipTest("slurmd and munged need root")
        miss = slurmlab.missing_tools()
        if miss:
            raise unittest.SkipTest("Slurm/munge not installed (apt-get install slurmctld slurmd "
                                    "slurm-client munge): missing " + " ".join(miss))
        if not os.path.exists(GPUDOCTOR):
            raise unittest.SkipTest(f"{GPUDOCTOR} not built")
        cls.root = fixtures.healthy_root()
        cls.root.write("proc/sys/kernel/random/boot_id", BOOT + "\n")
        cls.runs = tempfile.mkdtemp(prefix="gd-hc-runs-")
        cls.lab = slurmlab.SlurmLab(interval=INTERVAL)
        wrapper = os.path.join(cls.lab.dir, "healthcheck")
        with open(wrapper, "w") as f:
            f.write("#!/bin/sh\n"
                    f"export SLURM_CONF={cls.lab.conf}\n"
                    f"out={cls.runs}/run.$(date +%s%N).json\n"
                    f"{GPUDOCTOR} --root {cls.root.path} --json health --slurm --reboot "
                    f">\"$out.tmp\" 2>&1\n"
                    "rc=$?\n"
                    "mv \"$out.tmp\" \"$out\"\n"
                    "exit $rc\n")
        os.chmod(wrapper, 0o755)
        cls.lab.health_program = wrapper
        cls.lab.__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.lab.__exit__(None, None, None)

    # -- helpers ---------------------------------------------------------
    def set_state(self, active=()):
        lines = ["version=2", f"updated={int(time.time())}", f"boot_id={BOOT}",
                 "status=" + ("fail" if active else "ok")] + [f"active={watch_record(a)}" for a in active]
        self.root.write("var/lib/gpudoctor/state.tmp", "\n".join(lines) + "\n")
        os.replace(self.root.p("var/lib/gpudoctor/state.tmp"), self.root.p("var/lib/gpudoctor/state"))

    def all_runs(self):
        docs = []
        for path in sorted(glob.glob(os.path.join(self.runs, "run.*[0-9].json"))):
            with open(path) as f:
                text = f.read()
            try:
                docs.append(json.loads(text))
            except ValueError:
                docs.append({"_raw": text})
        return docs

    def wait_runs(self, n):
        """Wait until n more health checks have run; returns them."""
        before = len(self.all_runs())
        self.lab.wait_for(lambda: len(self.all_runs()) >= before + n, f"{n} health check runs",
                          timeout=INTERVAL * (n + 2) + 20)
        return self.all_runs()[before:]

    def drained(self):
        return "DRAIN" in self.lab.state()

    # -- the cases, in order (one cluster for all) --------------------------
    def test_1_lifecycle(self):
        lab = self.lab
        # Healthy: the node stays idle and every run says so.
        self.set_state()
        for doc in self.wait_runs(1):
            self.assertEqual(doc.get("verdict"), "healthy", doc)
            self.assertEqual(doc["exit_status"], 0)
        self.assertFalse(self.drained())

        # Slurm ran the check once before slurmd registered: it was skipped.
        first = self.all_runs()[0]
        self.assertEqual(first["slurm"]["node"], slurmlab.NODE, first)
        self.assertEqual(first["slurm"]["step"], "skip", first)
        self.assertIn("not registered", first["slurm"]["why"])

        # Unhealthy: drained with gpudoctor's reason, visible in sinfo -R.
        self.set_state(["ecc-errors 1 fail uncorrectable ECC errors on GPU 1 (XID 48)"])
        lab.wait_for(lambda: lab.sinfo_reason().startswith("gpudoctor: ecc-errors 1 "),
                     "drain with gpudoctor's reason")
        self.assertTrue(self.drained())
        self.assertEqual(lab.sinfo_reason(),
                         "gpudoctor: ecc-errors 1 uncorrectable ECC errors on GPU 1 (XID 48)")
        # The same cause again changes nothing.
        for doc in self.wait_runs(1):
            self.assertEqual(doc["slurm"]["step"], "nothing", doc)

        # A new cause replaces gpudoctor's own reason.
        self.set_state(["nvml-failed - fail NVML does not answer"])
        lab.wait_for(lambda: lab.sinfo_reason().startswith("gpudoctor: nvml-failed - "),
                     "gpudoctor's reason updated")

        # Healthy again: resumed.
        self.set_state()
        lab.wait_for(lambda: not self.drained() and lab.sinfo_reason() == "", "resume")
        self.assertTrue(lab.state().startswith("IDLE"), lab.state())

    def test_2_foreign_reason_is_kept(self):
        lab = self.lab
        self.set_state()
        lab.run("scontrol", "update", f"NodeName={slurmlab.NODE}", "State=DRAIN",
                "Reason=replacing fan tray (ops ticket 4711)", check=True)
        # A run already under way may have read the node before the drain
        # (NHC has the same window): let it finish first.
        self.wait_runs(1)
        self.assertEqual(lab.sinfo_reason(), "replacing fan tray (ops ticket 4711)")
        self.set_state(["ecc-errors 0 fail uncorrectable ECC errors on GPU 0"])
        for doc in self.wait_runs(2):
            self.assertEqual(doc["verdict"], "unhealthy")
            self.assertEqual(doc["slurm"]["step"], "nothing", doc)
        self.assertEqual(lab.sinfo_reason(), "replacing fan tray (ops ticket 4711)")
        # Healthy: still not resumed, someone else drained it.
        self.set_state()
        for doc in self.wait_runs(2):
            self.assertEqual(doc["verdict"], "healthy")
            self.assertEqual(doc["slurm"]["step"], "nothing", doc)
        self.assertTrue(self.drained())
        self.assertEqual(lab.sinfo_reason(), "replacing fan tray (ops ticket 4711)")
        lab.run("scontrol", "update", f"NodeName={slurmlab.NODE}", "State=RESUME", check=True)
        lab.wait_for(lambda: not self.drained(), "resume by hand")

    def test_3_reboot_when_the_cause_needs_it(self):
        lab = self.lab
        # gpu-lost is only cleared by a reboot; --reboot asks Slurm for one.
        self.set_state(["gpu-lost 2 fail GPU 2 fell off the bus (XID 79)"])
        lab.wait_for(lambda: "REBOOT" in lab.state(), "reboot requested")
        self.assertIn("gpudoctor: gpu-lost 2 ", lab.show_node())
        runs = [d for d in self.all_runs() if d.get("slurm", {}).get("step") == "reboot"]
        self.assertTrue(runs)
        self.assertTrue(runs[-1]["slurm"]["applied"], runs[-1])
        # Later runs leave the pending reboot alone.
        for doc in self.wait_runs(1):
            self.assertIn(doc["slurm"]["step"], ("nothing", "skip"), doc)

    def test_4_every_run_within_the_deadline(self):
        for doc in self.all_runs():
            self.assertIn("duration_ms", doc, doc)
            self.assertLess(doc["duration_ms"], 10000)
            self.assertLessEqual(len(doc["line"]), 80)


if __name__ == "__main__":
    unittest.main(verbosity=2)
