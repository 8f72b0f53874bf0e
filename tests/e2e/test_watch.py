"""gpudoctor watch on fixture machines: NVML health facts from the fake NVML
in changing states (healthy, ECC errors, a call that hangs, a GPU that
disappears), XIDs replayed from recorded kernel-log lines, the state
directory, the HTTP side under abuse, and systemd's notify protocol."""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

import fixtures
from gdtest import GPUDOCTOR, REPO, run, watch_legacy
from watchtest import Notify, Watch, metric, parse_metrics, series_labels

KMSG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "kmsg-xids.txt")


def root_with_boot(boot="boot-a", gpus=1):
    r = fixtures.healthy_root(gpus=gpus)
    r.write("proc/sys/kernel/random/boot_id", boot + "\n")
    return r


def read(path, mode="r"):
    with open(path, mode) as f:
        return f.read()


def active(w, cause):
    return [a for a in w.state()["active"] if a.split()[0] == cause]


class WatchNvmlStates(unittest.TestCase):
    def test_healthy_then_ecc_then_hang_then_gone(self):
        r = root_with_boot()
        with Watch(r) as w:
            m = w.wait(lambda: (lambda m: m if metric(m, "gpudoctor_gpu_temperature_celsius") else None)(w.metrics()))
            self.assertEqual(metric(m, "gpudoctor_up"), 1)
            self.assertEqual(metric(m, "gpudoctor_gpu_temperature_celsius", gpu=0,
                                    pci_bus_id="0000:18:00.0", model="NVIDIA H200"), 31)
            self.assertAlmostEqual(metric(m, "gpudoctor_gpu_power_watts", gpu=0), 75.123)
            self.assertEqual(metric(m, "gpudoctor_gpu_memory_used_bytes", gpu=0), 512 << 20)
            self.assertEqual(metric(m, "gpudoctor_gpus", source="pci"), 1)
            self.assertEqual(metric(m, "gpudoctor_gpus", source="nvml"), 1)
            self.assertEqual(metric(m, "gpudoctor_check_ok", layer="driver"), 1)
            self.assertIsNotNone(metric(m, "gpudoctor_sample_age_seconds", source="nvml"))
            self.assertEqual(w.get("/healthz")[0], 200)
            self.assertEqual(w.state()["status"], "ok")
            self.assertEqual(w.state()["boot_id"], "boot-a")

            # ECC: uncorrectable errors and a pending row remapping
            w.set_state(FAKE_NVML_ECC_VOLATILE_UNC=3, FAKE_NVML_REMAP_PENDING=1)
            w.wait(lambda: w.get("/healthz")[0] == 503, what="503 on ECC errors")
            m = w.metrics()
            self.assertEqual(metric(m, "gpudoctor_gpu_ecc_errors_total", gpu=0, type="uncorrected",
                                    scope="volatile"), 3)
            self.assertEqual(metric(m, "gpudoctor_finding", layer="driver", cause="ecc-errors",
                                    severity="fail", gpu=0), 1)
            # one domain per label: the index in gpu, the address in pci_bus_id (issue 23)
            self.assertEqual(series_labels(m, "gpudoctor_finding", cause="ecc-errors", severity="fail"),
                             {"layer": "driver", "cause": "ecc-errors", "severity": "fail", "gpu": "0",
                              "pci_bus_id": "0000:18:00.0"})
            self.assertEqual(metric(m, "gpudoctor_check_ok", layer="driver"), 0)
            self.assertTrue(active(w, "ecc-errors"))
            self.assertIn("fail ecc-errors gpu=0", w.stderr())

            # a call that hangs: the daemon keeps serving, the sample ages, the child restarts
            w.set_state(FAKE_NVML_HANG_CALL="temperature")
            w.wait(lambda: metric(w.metrics(), "gpudoctor_nvml_hang") == 1, what="nvml hang")
            t = time.monotonic()
            self.assertEqual(w.get("/metrics")[0], 200)
            self.assertLess(time.monotonic() - t, 1.0)
            w.wait(lambda: metric(w.metrics(), "gpudoctor_nvml_sampler_restarts_total") >= 1,
                   what="sampler restarted")
            self.assertGreater(metric(w.metrics(), "gpudoctor_sample_age_seconds", source="nvml"), 1.0)
            self.assertTrue(active(w, "nvml-hang"))
            self.assertIn("nvml-hang", w.stderr())

            # a call stuck in the kernel (state D): reported as a driver hang
            w.set_state(FAKE_NVML_HANG_CALL="temperature-d")
            w.wait(lambda: metric(w.metrics(), "gpudoctor_nvml_hang_in_kernel") == 1, what="hang in state D")
            self.assertEqual(metric(w.metrics(), "gpudoctor_nvml_hang"), 1)
            self.assertTrue(any("driver hang" in a and "state D" in a for a in active(w, "nvml-hang")),
                            active(w, "nvml-hang"))
            self.assertEqual(w.get("/healthz")[0], 503)

            # it answers again: the hang clears
            w.set_state()
            w.wait(lambda: metric(w.metrics(), "gpudoctor_nvml_hang") == 0, timeout=30,
                   what="hang cleared")
            w.wait(lambda: w.state()["status"] == "ok", what="status ok again")
            self.assertIn("ok nvml-hang gpu=-: cleared", w.stderr())

            # the GPU disappears from NVML while the bus still has it
            w.set_state(FAKE_NVML_GPUS=0)
            w.wait(lambda: active(w, "gpu-count-mismatch"), what="count mismatch")
            m = w.metrics()
            # a finding of the machine: neither gpu nor pci_bus_id, never "-" or ""
            self.assertEqual(series_labels(m, "gpudoctor_finding", cause="gpu-count-mismatch"),
                             {"layer": "hardware", "cause": "gpu-count-mismatch", "severity": "fail"})
            self.assertEqual(metric(m, "gpudoctor_gpus", source="nvml"), 0)
            self.assertEqual(metric(m, "gpudoctor_gpus", source="pci"), 1)

            # and from the bus
            r.remove("sys/bus/pci/devices/0000:18:00.0")
            w.wait(lambda: metric(w.metrics(), "gpudoctor_gpus", source="pci") == 0,
                   what="pci count 0")
            self.assertIn("gone from the PCI bus", "\n".join(active(w, "gpu-count-mismatch")))

    def test_driver_change_reruns_the_static_check(self):
        # the unattended upgrade: the loaded module no longer matches the libraries
        r = root_with_boot()
        with Watch(r, args=["--static-every", "1000"]) as w:
            w.wait_metric("gpudoctor_gpu_temperature_celsius")
            self.assertEqual(metric(w.metrics(), "gpudoctor_static_checks_total"), 1)
            time.sleep(2)
            self.assertEqual(metric(w.metrics(), "gpudoctor_static_checks_total"), 1)
            r.write("sys/module/nvidia/version", "575.57.08\n")
            w.wait(lambda: active(w, "driver-library-mismatch"), what="static finding after the change")
            self.assertEqual(metric(w.metrics(), "gpudoctor_static_checks_total"), 2)
            self.assertEqual(metric(w.metrics(), "gpudoctor_check_ok", layer="driver"), 0)
            self.assertIn("fail driver-library-mismatch", w.stderr())

    def test_no_load_serves_static_layers_only(self):
        r = root_with_boot()
        rc, out, err = run(["--root", r.path, "--no-load", "watch", "--once", "--state-dir",
                            tempfile.mkdtemp(), "--kmsg-file", os.devnull])
        self.assertEqual(rc, 0, err)
        self.assertIn("NVML has not answered", out)
        self.assertIn("no active findings", out)

    def test_gpu_lost_and_throttle(self):
        r = root_with_boot()
        with Watch(r, state={"FAKE_NVML_CLOCK_REASONS": 0x48}) as w:
            w.wait(lambda: active(w, "gpu-throttled"), what="throttle")
            m = w.metrics()
            self.assertEqual(metric(m, "gpudoctor_gpu_clock_event_active", gpu=0,
                                    reason="hw_thermal"), 1)
            self.assertEqual(metric(m, "gpudoctor_gpu_clock_event_active", gpu=0,
                                    reason="gpu_idle"), 0)
            self.assertEqual(w.get("/healthz")[0], 200)	# a warning is not a failure
            w.set_state(FAKE_NVML_MODE="gpu-lost")
            w.wait(lambda: active(w, "gpu-lost"), what="gpu lost")
            self.assertEqual(w.get("/healthz")[0], 503)

    def test_nvml_library_others_may_write_is_not_loaded(self):
        # The sampler's child loads the tree's NVML as root: a library that
        # another user could replace is refused, like --sample-nvml's, and
        # nothing is sampled.  Near miss: test_healthy_then_ecc_then_hang_then_gone,
        # the same root with the library's mode untouched, samples it.
        r = root_with_boot()
        lib = r.p("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.95.05")
        os.chmod(lib, 0o666)
        with Watch(r) as w:
            w.wait(lambda: "NVML library refused" in w.stderr(), what="refusal logged")
            self.assertIn("writable by every user", w.stderr())
            w.wait(lambda: metric(w.metrics(), "gpudoctor_gpus", source="pci") is not None,
                   what="a sweep")
            self.assertIsNone(metric(w.metrics(), "gpudoctor_gpus", source="nvml"))
            self.assertIsNone(metric(w.metrics(), "gpudoctor_gpu_temperature_celsius", gpu=0))

    def test_nvml_init_fails(self):
        r = root_with_boot()
        with Watch(r, state={"FAKE_NVML_MODE": "init-error:18"}) as w:
            w.wait(lambda: active(w, "nvml-failed"), what="nvml-failed")
            self.assertIn("version mismatch", active(w, "nvml-failed")[0])


class WatchXids(unittest.TestCase):
    def test_replay_counts_lost_ack_restart_escalate(self):
        r = root_with_boot("boot-a", gpus=2)
        kfile = os.path.join(tempfile.mkdtemp(prefix="gd-kmsg-"), "kmsg")
        shutil.copyfile(KMSG, kfile)
        state_dir = tempfile.mkdtemp(prefix="gd-watch-state-")
        two = {"FAKE_NVML_GPUS": 2}
        with Watch(r, kmsg_file=kfile, state_dir=state_dir, state=two) as w:
            w.wait_metric("gpudoctor_xid_errors_total", xid=32)
            w.wait_metric("gpudoctor_gpus", source="nvml")
            m = w.metrics()
            x = lambda gpu, xid, **bus: metric(m, "gpudoctor_xid_errors_total", gpu=gpu, xid=xid, **bus)
            self.assertEqual(x(0, 13), 1)
            self.assertEqual(x(0, 63), 1)
            self.assertEqual(x(1, 48), 1)
            # an address NVML did not map: no gpu label, never the address or ""
            for bus in ("0000:1a:00.0",	# one multi-line record
                        "0000:1b:00.0"):	# three records and an Xid line: once
                self.assertEqual(metric(m, "gpudoctor_xid_errors_total", xid=79, pci_bus_id=bus), 1)
                self.assertEqual(series_labels(m, "gpudoctor_xid_errors_total", xid=79, pci_bus_id=bus),
                                 {"xid": "79", "pci_bus_id": bus})
            self.assertEqual(metric(m, "gpudoctor_kmsg_records_lost_total"), 6)
            self.assertEqual(metric(m, "gpudoctor_finding", cause="gpu-xid-error", severity="fail", gpu=1), 1)
            self.assertEqual(metric(m, "gpudoctor_finding", cause="gpu-xid-error", severity="warn", gpu=0), 1)
            self.assertEqual(metric(m, "gpudoctor_xid_unacknowledged", gpu=1, xid=48, action="reset-gpu"), 1)
            self.assertEqual(w.get("/healthz")[0], 503)
            lost = active(w, "gpu-lost")
            self.assertEqual(len(lost), 2, lost)
            # XID 79 on two addresses NVML did not map: two series, each with
            # its pci_bus_id and no gpu label; the mapped XID 48 has both
            for bus in ("0000:1a:00.0", "0000:1b:00.0"):
                self.assertEqual(series_labels(m, "gpudoctor_finding", cause="gpu-lost", pci_bus_id=bus),
                                 {"layer": "driver", "cause": "gpu-lost", "severity": "fail",
                                  "pci_bus_id": bus})
            self.assertEqual(len([k for k in m if k[0] == "gpudoctor_finding" and
                                  ("cause", "gpu-lost") in k[1]]), 2)
            self.assertEqual(metric(m, "gpudoctor_finding", cause="gpu-xid-error", severity="fail", gpu=1,
                                    pci_bus_id="0000:19:00.0"), 1)
            # the state file carries the same scope, one record per XID and address
            recs = [v for v in w.state()["records"] if v.startswith("cause=gpu-lost ")]
            self.assertEqual(sorted(v.split(" title=")[0] for v in recs),
                             ["cause=gpu-lost status=fail layer=driver pci=%s xid=79 action=reboot" % bus
                              for bus in ("0000:1a:00.0", "0000:1b:00.0")], recs)
            self.assertTrue(any("0000:1b:00.0" in a and "action reboot" in a for a in lost), lost)
            self.assertFalse(any("XID 63" in a for a in w.state()["active"]))	# action none
            # a live record appended: a true counter
            with open(kfile, "a") as f:
                f.write("4,517,8000000000,-;NVRM: Xid (PCI:0000:19:00): 48, pid=77, name=python3, "
                        "An uncorrectable double bit error (DBE) has been detected on GPU in the "
                        "framebuffer at partition 0, subpartition 0.\n")
            w.wait(lambda: metric(w.metrics(), "gpudoctor_xid_errors_total", gpu=1, xid=48) == 2,
                   what="counter 2")
        # a restart in the same boot: counters continue, the fatal XID is still there
        with Watch(r, kmsg_file=kfile, state_dir=state_dir, state=two) as w:
            w.wait_metric("gpudoctor_xid_errors_total", gpu=1, xid=48)
            self.assertEqual(metric(w.metrics(), "gpudoctor_xid_errors_total", gpu=1, xid=48), 2)
            w.wait(lambda: any("XID 48" in a for a in active(w, "gpu-xid-error")), what="fatal kept")
        # --ack clears it from the state at once, and for the next daemon
        rc, out, err = run(["watch", "--ack", "1", "--state-dir", state_dir])
        self.assertEqual(rc, 0, err)
        self.assertIn("acknowledged GPU 1", out)
        self.assertFalse(any("XID 48" in a for a in active_in(state_dir)))
        with Watch(r, kmsg_file=kfile, state_dir=state_dir, state=two) as w:
            w.wait_metric("gpudoctor_xid_errors_total", gpu=1, xid=48)
            w.wait(lambda: w.state()["updated"] and not any("XID 48" in a for a in active(w, "gpu-xid-error")),
                   what="acked XID stays cleared")
            self.assertIsNone(metric(w.metrics(), "gpudoctor_xid_unacknowledged", gpu=1, xid=48))
        # a reboot, and XID 48 on the same GPU again: escalated to inspect-hw
        r.write("proc/sys/kernel/random/boot_id", "boot-b\n")
        k2 = os.path.join(os.path.dirname(kfile), "kmsg2")
        with open(k2, "w") as f:
            f.write("4,12,9000000,-;NVRM: Xid (PCI:0000:19:00): 48, pid=5, name=python3, "
                    "An uncorrectable double bit error (DBE) has been detected on GPU.\n")
        with Watch(r, kmsg_file=k2, state_dir=state_dir, state=two) as w:
            w.wait_metric("gpudoctor_xid_unacknowledged", gpu=1, xid=48, action="inspect-hw")
            a = [x for x in active(w, "gpu-xid-error") if "XID 48" in x]
            self.assertTrue(a and "earlier boot" in a[0], a)
            self.assertEqual(metric(w.metrics(), "gpudoctor_xid_errors_total", gpu=1, xid=48), 1)

    def test_ack_in_an_acks_file_written_anew(self):
        """Before (round 13's attacker): the daemon applied the acks file's
        lines by count (acks_done), so after the file was removed (an
        operator's clean-up) the next `--ack` was line 1 again, taken for
        one already applied: --ack said "cleared", and the daemon put the
        fatal XID back at its next sweep (health then drained or rebooted
        the node again).  After: the applied lines' signature is kept
        beside the count; a file written anew is applied from its start.
        Near miss: a restart re-reads the same file and applies nothing
        twice; an appended line (the file growing) still applies."""
        r = root_with_boot("boot-a", gpus=2)
        state_dir = tempfile.mkdtemp(prefix="gd-watch-acks-")
        kfile = os.path.join(state_dir, "kmsg")
        x48 = ("4,%d,8000000000,-;NVRM: Xid (PCI:0000:19:00): 48, pid=77, name=python3, "
               "An uncorrectable double bit error (DBE) has been detected on GPU.\n")
        with open(kfile, "w") as f:
            f.write(x48 % 10)
        two = {"FAKE_NVML_GPUS": 2}
        unacked = lambda w: metric(w.metrics(), "gpudoctor_xid_unacknowledged", gpu=1, xid=48)
        ack = lambda: run(["watch", "--ack", "0000:19:00.0", "--state-dir", state_dir])[0]
        with Watch(r, kmsg_file=kfile, state_dir=state_dir, state=two) as w:
            w.wait(lambda: unacked(w) == 1, what="fatal XID 48")
            self.assertEqual(ack(), 0)
            w.wait(lambda: unacked(w) is None, what="the first ack applied")
            os.unlink(os.path.join(state_dir, "acks"))
            time.sleep(1.1)		# the XID after the ack, in whole seconds
            with open(kfile, "a") as f:
                f.write(x48 % 11)
            w.wait(lambda: unacked(w) == 1, what="XID 48 again")
            time.sleep(1.1)
            self.assertEqual(ack(), 0)
            w.wait(lambda: unacked(w) is None, what="the ack in the new file applied", timeout=10)
            w.wait(lambda: not any("XID 48" in a for a in active(w, "gpu-xid-error")),
                   what="and left out of the state")
            # near miss: the file grows as usual, a new line applies
            time.sleep(1.1)
            with open(kfile, "a") as f:
                f.write(x48 % 12)
            w.wait(lambda: unacked(w) == 1, what="XID 48 a third time")
            time.sleep(1.1)
            self.assertEqual(ack(), 0)
            w.wait(lambda: unacked(w) is None, what="the appended ack applied", timeout=10)
        with open(os.path.join(state_dir, "xid-history")) as f:
            hist = f.read()
        self.assertIn("acks_done=2\n", hist)
        self.assertRegex(hist, r"acks_sum=[0-9a-f]{16}\n")
        # near miss: a restart reads the same two lines as applied, and the
        # acked XID stays cleared
        with Watch(r, kmsg_file=kfile, state_dir=state_dir, state=two) as w:
            w.wait(lambda: w.state()["updated"] and metric(w.metrics(), "gpudoctor_xid_errors_total",
                                                           gpu=1, xid=48) == 3, what="replayed")
            self.assertIsNone(unacked(w))
        with open(os.path.join(state_dir, "xid-history")) as f:
            self.assertIn("acks_done=2\n", f.read())

    def test_two_acks_in_one_tick_of_the_file_clock(self):
        """Before (round 13's attacker): the daemon re-read the acks file
        only when its modification time changed; a second ack appended in
        the same tick of the file system's clock (one second on ext3, small
        ext4 inodes or NFS: `for g in 0 1; do gpudoctor watch --ack $g;
        done`) left the time as it was, was never applied, and the daemon
        put that GPU's fatal XID back at its next sweep.  The test appends
        the second line and sets the time back as such a clock would.
        After: the size and inode count too.  Near miss: the first ack, a
        time that did change, applies as before."""
        r = root_with_boot("boot-a", gpus=2)
        state_dir = tempfile.mkdtemp(prefix="gd-watch-acks-")
        kfile = os.path.join(state_dir, "kmsg")
        with open(kfile, "w") as f:
            for seq, bus in ((10, "18"), (11, "19")):
                f.write("4,%d,8000000000,-;NVRM: Xid (PCI:0000:%s:00): 48, pid=77, name=python3, "
                        "An uncorrectable double bit error (DBE) has been detected on GPU.\n" % (seq, bus))
        unacked = lambda w, g: metric(w.metrics(), "gpudoctor_xid_unacknowledged", gpu=g, xid=48)
        acks = os.path.join(state_dir, "acks")
        with Watch(r, kmsg_file=kfile, state_dir=state_dir, state={"FAKE_NVML_GPUS": 2}) as w:
            w.wait(lambda: unacked(w, 0) == 1 and unacked(w, 1) == 1, what="two fatal XIDs")
            time.sleep(1.1)		# the acks after the XIDs, in whole seconds
            self.assertEqual(run(["watch", "--ack", "0000:18:00.0", "--state-dir", state_dir])[0], 0)
            w.wait(lambda: unacked(w, 0) is None, what="the first ack applied")
            st = os.stat(acks)
            with open(acks, "a") as f:
                f.write("ack=0000:19:00.0 %d\n" % int(time.time()))
            os.utime(acks, ns=(st.st_atime_ns, st.st_mtime_ns))
            w.wait(lambda: unacked(w, 1) is None, what="the ack of the same tick applied", timeout=8)
            self.assertIsNone(unacked(w, 0))

    def test_ack_each_gpu_in_turn_leaves_the_others(self):
        # issue 18/22: --ack matched a substring of the state line, so
        # `--ack 1` cleared GPU 0's XID (its line says "1 this boot") and
        # `--ack 0` every GPU's ("0000:...").  Each GPU is acked in turn; the
        # others' findings must stay.
        r = root_with_boot("boot-k", gpus=2)
        state_dir = tempfile.mkdtemp(prefix="gd-watch-ack-")
        kfile = os.path.join(state_dir, "kmsg")
        shutil.copyfile(KMSG, kfile)
        def kinds():
            out = set()
            for a in active_in(state_dir):
                cause, gpu = a.split()[:2]
                if cause in ("gpu-xid-error", "gpu-lost"):
                    where = "1a" if "0000:1a:00.0" in a else "1b" if "0000:1b:00.0" in a else gpu
                    out.add((cause, where, "XID 48" in a))
            return out
        everything = {("gpu-xid-error", "0", False), ("gpu-xid-error", "1", True),
                      ("gpu-lost", "1a", False), ("gpu-lost", "1b", False)}
        with Watch(r, kmsg_file=kfile, state_dir=state_dir, state={"FAKE_NVML_GPUS": 2}) as w:
            w.wait(lambda: kinds() == everything, what="all four XID findings")
        steps = [("0", ("gpu-xid-error", "0", False)), ("0000:1a:00.0", ("gpu-lost", "1a", False)),
                 ("1", ("gpu-xid-error", "1", True)), ("0000:1b:00", ("gpu-lost", "1b", False))]
        left = set(everything)
        for gpu, gone in steps:
            rc, out, err = run(["watch", "--ack", gpu, "--state-dir", state_dir])
            self.assertEqual(rc, 0, err)
            left.discard(gone)
            self.assertEqual(kinds(), left, f"after --ack {gpu}")
        self.assertEqual(left, set())

    def test_ack_by_uuid_and_by_pci_address_forms(self):
        # A GPU named by its NVML UUID, or by a PCI address as the kernel
        # prints it, is the same exact identity as its index.
        r = root_with_boot("boot-u", gpus=2)
        state_dir = tempfile.mkdtemp(prefix="gd-watch-uuid-")
        with Watch(r, kmsg_file=KMSG, state_dir=state_dir, state={"FAKE_NVML_GPUS": 2}) as w:
            # mapped to GPU 1 once NVML has answered: then the record has its UUID
            recs = w.wait(lambda: [x for x in w.state().get("records", [])
                                   if " xid=48 " in x and " uuid=" in x], what="XID 48 on GPU 1")
        uuid = recs[0].split(" uuid=")[1].split()[0]
        self.assertTrue(uuid.startswith("GPU-"), recs)
        rc, out, err = run(["watch", "--ack", uuid, "--state-dir", state_dir])
        self.assertEqual(rc, 0, err)
        left = active_in(state_dir)
        self.assertFalse(any("XID 48" in a for a in left), left)
        self.assertTrue(any("XID 13" in a for a in left), left)	# GPU 0's stays
        rc, out, err = run(["watch", "--ack", "PCI:0000:18:00", "--state-dir", state_dir])
        self.assertEqual(rc, 0, err)
        self.assertIn("acknowledged GPU 0000:18:00.0: 2 XID findings cleared", out)	# 13 and 32
        self.assertFalse(any(a.split()[:2] == ["gpu-xid-error", "0"] for a in active_in(state_dir)))
        with open(os.path.join(state_dir, "acks")) as f:
            self.assertRegex(f.read(), r"^ack=GPU-[0-9a-f-]+ \d+\nack=0000:18:00\.0 \d+\n$")
        for bad in ("1;reboot", "GPU-", "-1", "0000:zz:00.0"):
            rc, out, err = run(["watch", "--ack", bad, "--state-dir", state_dir])
            self.assertEqual(rc, 2, bad)

    def test_severities_are_the_catalogues(self):
        # issue 22: gpu-xid-error was a warning in the catalogue but a failure
        # in watch.  Every finding watch reports as a failure must belong to a
        # cause whose catalogue class can fail (src/knowledge/causes.def).
        classes = catalogue_classes()
        r = root_with_boot("boot-s", gpus=2)
        with Watch(r, kmsg_file=KMSG, state={"FAKE_NVML_GPUS": 2, "FAKE_NVML_ECC_VOLATILE_UNC": 2}) as w:
            w.wait_metric("gpudoctor_xid_unacknowledged", gpu=1, xid=48, action="reset-gpu")
            w.wait_metric("gpudoctor_finding", cause="ecc-errors", severity="fail")
            seen = set()
            for (name, labels), value in parse_metrics(w.get("/metrics")[1]).items():
                labels = dict(labels)
                if name == "gpudoctor_finding" and value:
                    seen.add((labels["cause"], labels["severity"]))
        self.assertIn(("gpu-xid-error", "fail"), seen)
        self.assertIn(("gpu-xid-error", "warn"), seen)
        for cause, sev in seen:
            if sev == "fail":
                self.assertIn(classes[cause], ("SEV_FAIL", "SEV_FAIL_ALWAYS"), cause)

    def test_policies(self):
        r = root_with_boot("boot-c", gpus=2)
        with Watch(r, kmsg_file=KMSG, args=["--policy", "conservative"], state={"FAKE_NVML_GPUS": 2}) as w:
            w.wait_metric("gpudoctor_xid_errors_total", xid=32)
            # 63 is "none" in NVIDIA's catalogue, a warning under conservative
            w.wait(lambda: any("XID 63" in a for a in w.state()["active"]), what="63 warns")
        pol = os.path.join(tempfile.mkdtemp(prefix="gd-pol-"), "policy")
        with open(pol, "w") as f:
            f.write("# site policy\nbase nvidia\n13 none\n32 none\n48 drain\n")
        with Watch(r, kmsg_file=KMSG, args=["--policy", pol], state={"FAKE_NVML_GPUS": 2}) as w:
            w.wait_metric("gpudoctor_xid_unacknowledged", gpu=1, xid=48, action="drain")
            self.assertFalse(any("XID 13" in a or "XID 32" in a for a in w.state()["active"]))
        with open(pol, "w") as f:
            f.write("13 sometimes\n")
        rc, out, err = run(["watch", "--once", "--policy", pol,
                            "--state-dir", tempfile.mkdtemp()], root=r.path)
        self.assertEqual(rc, 2)
        self.assertIn("policy:1: 'sometimes' is not an action", err)


def catalogue_classes():
    import re
    with open(os.path.join(REPO, "src", "knowledge", "causes.def")) as f:
        return dict(re.findall(r'^CAUSE\(\w+, "([a-z0-9-]+)", \w+, (\w+),', f.read(), re.M))


def active_in(state_dir):
    return [watch_legacy(l[7:]) for l in read(os.path.join(state_dir, "state")).splitlines()
            if l.startswith("active=")]


class WatchServing(unittest.TestCase):
    def test_idle_connections_and_garbage_do_not_stall(self):
        r = root_with_boot()
        with Watch(r) as w:
            w.wait_metric("gpudoctor_gpu_temperature_celsius")
            idle = []
            for _ in range(100):
                s = socket.create_connection(("127.0.0.1", w.port))
                s.sendall(b"GET /metr")		# never finished
                idle.append(s)
            garbage = [b"\x00\xff\x16\x03\x01 hello\r\n\r\n", b"POST /metrics HTTP/1.1\r\n\r\n",
                       b"GET /metrics HTTP/9.9\r\n\r\n", b"GET metrics HTTP/1.1\r\n\r\n",
                       b"GET /" + b"a" * 9000, b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 2000]
            codes = []
            for g in garbage:
                s = socket.create_connection(("127.0.0.1", w.port))
                try:
                    s.sendall(g)
                except OSError:
                    pass
                s.settimeout(5)
                try:
                    codes.append(s.recv(64).split(b" ")[1])
                except (OSError, IndexError):
                    codes.append(b"closed")
                s.close()
            self.assertEqual(codes[1], b"405")
            self.assertEqual(codes[2], b"505")
            self.assertEqual(codes[3], b"400")
            self.assertIn(codes[4], (b"414", b"431"))
            self.assertEqual(codes[5], b"431")
            for _ in range(5):	# scrapes stay fast while 100 clients sit idle
                t = time.monotonic()
                st, body = w.get("/metrics")
                self.assertEqual(st, 200)
                self.assertLess(time.monotonic() - t, 0.5)
            self.assertEqual(w.get("/metrics", method="HEAD")[0], 200)
            self.assertEqual(w.get("/nope")[0], 404)
            self.assertIn("GPU 0 NVIDIA H200", w.get("/")[1])
            # idle clients are dropped after the read deadline
            time.sleep(6)
            m = w.metrics()
            self.assertGreaterEqual(metric(m, "gpudoctor_http_rejected_total"), 100)
            for s in idle:
                s.close()

    def test_textfile_and_promtool(self):
        r = root_with_boot()
        tdir = tempfile.mkdtemp(prefix="gd-textfile-")
        with Watch(r, args=["--textfile", tdir]) as w:
            w.wait_metric("gpudoctor_gpu_temperature_celsius")
            path = os.path.join(tdir, "gpudoctor.prom")
            w.wait(lambda: os.path.exists(path) and "temperature" in read(path),
                   what="textfile")
            text = read(path)
            self.assertEqual([f for f in os.listdir(tdir) if f != "gpudoctor.prom"], [])
            parse_metrics(text)		# name{labels} value: no timestamps
            promtool = shutil.which("promtool")
            if not promtool:
                self.skipTest("promtool is not installed (Debian package prometheus)")
            body = w.get("/metrics")[1]
            p = subprocess.run([promtool, "check", "metrics"], input=body, text=True,
                               capture_output=True)
            self.assertEqual(p.returncode, 0, p.stdout + p.stderr)

    def test_once(self):
        r = root_with_boot()
        rc, out, err = run(["--timeout", "2", "watch", "--once",
                            "--state-dir", tempfile.mkdtemp(), "--kmsg-file", os.devnull],
                           root=r.path, extra_env={"FAKE_NVML_ECC_VOLATILE_UNC": "1"})
        self.assertEqual(rc, 1, err)
        self.assertIn("[FAIL]", out)
        self.assertIn("(ecc-errors)", out)


class WatchSystemd(unittest.TestCase):
    def test_ready_watchdog_stopping(self):
        for abstract in (False, True):
            r = root_with_boot()
            n = Notify(abstract=abstract)
            w = Watch(r, notify=n, env={"WATCHDOG_USEC": "1000000"})
            t0 = time.monotonic()
            with w:
                n.pump(4)
                w.stop()
            n.pump(0.5)
            n.close()
            msgs = n.msgs
            ready = [t for t, m in msgs if "READY=1" in m]
            self.assertEqual(len(ready), 1, msgs)
            self.assertLess(ready[0] - t0, 3.0)
            self.assertTrue(any("STATUS=" in m for t, m in msgs if "READY=1" in m), msgs)
            wd = [t for t, m in msgs if m == "WATCHDOG=1"]
            self.assertGreaterEqual(len(wd), 5, msgs)	# every 0.5 s for ~3.5 s
            gaps = [b - a for a, b in zip(wd, wd[1:])]
            self.assertLess(max(gaps), 0.9, gaps)
            self.assertIn("STOPPING=1", msgs[-1][1])

    def test_children_do_not_inherit_notify_socket(self):
        r = root_with_boot()
        n = Notify()
        with Watch(r, notify=n) as w:
            w.wait_metric("gpudoctor_gpu_temperature_celsius")
            kids = subprocess.run(["pgrep", "-P", str(w.proc.pid)], capture_output=True,
                                  text=True).stdout.split()
            self.assertTrue(kids, "no sampler child found")
            for k in kids:
                env = read("/proc/%s/environ" % k, "rb").split(b"\0")
                self.assertFalse([e for e in env if e.startswith(b"NOTIFY_SOCKET=")])
        n.close()

    def test_alert_rules(self):
        promtool = shutil.which("promtool")
        if not promtool:
            self.skipTest("promtool is not installed (Debian package prometheus)")
        d = os.path.join(REPO, "dist", "prometheus")
        p = subprocess.run([promtool, "check", "rules", "gpudoctor-alerts.yml"], cwd=d,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        p = subprocess.run([promtool, "test", "rules", "gpudoctor-alerts.test.yml"], cwd=d,
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("SUCCESS", p.stdout)

    def test_unit_file_verifies(self):
        unit = os.path.join(REPO, "dist", "systemd", "gpudoctor-watch.service")
        text = read(unit)
        for want in ("Type=notify", "WatchdogSec=", "ProtectSystem=", "NoNewPrivileges=yes",
                     "MemoryMax="):
            self.assertIn(want, text)
        sa = shutil.which("systemd-analyze")
        if not sa:
            self.skipTest("systemd-analyze is not installed")
        d = tempfile.mkdtemp(prefix="gd-unit-")
        # verify resolves ExecStart: point it at the binary under test
        with open(os.path.join(d, "gpudoctor-watch.service"), "w") as f:
            f.write(text.replace("/usr/bin/gpudoctor", GPUDOCTOR))
        p = subprocess.run([sa, "verify", os.path.join(d, "gpudoctor-watch.service")],
                           capture_output=True, text=True)
        if p.returncode != 0 and ("Failed to initialize manager" in p.stderr or
                                  "System has not been booted with systemd" in p.stderr):
            self.skipTest("systemd-analyze verify cannot run here: " + p.stderr.strip()[:200])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("gpudoctor-watch.service:", p.stderr)


if __name__ == "__main__":
    unittest.main()
