"""gpudoctor health: node-problem-detector's custom-plugin protocol on fixture machines.

The protocol (node-problem-detector, docs/custom_plugin_monitor.md): exit 0 OK,
1 NonOK, 2 Unknown; the message is the first line of stdout, cut at
max_output_length (80 by default).  gpudoctor keeps its line within 80
printable ASCII characters itself.
"""
import json
import os
import re
import time
import unittest

from gdtest import GDTestCase, Root, run, clean_env, watch_record
import fixtures
import fixtures_lower as fl
import fixtures_driver

BOOT = "0f3c6b9e-6c1d-4b53-9e83-8c3f6a3b0d11"
LINE = re.compile(r"^gpudoctor: [\x20-\x7e]*$")


def health(root, *args, expect=None, tc=None, extra=()):
    rc, out, err = run(list(extra) + ["health"] + list(args),
                       root=root.path if isinstance(root, Root) else root, env=clean_env())
    return rc, out, err


def health_json(root, *args):
    rc, out, err = run(["--json", "health"] + list(args), root=root.path, env=clean_env())
    try:
        doc = json.loads(out)
    except ValueError as ex:
        raise AssertionError(f"no JSON (rc={rc}): {ex}\n{out}\n{err}")
    doc["_rc"] = rc
    return doc


def with_boot(r, boot=BOOT):
    r.write("proc/sys/kernel/random/boot_id", boot + "\n")
    return r


def write_state(r, active=(), updated=None, boot=BOOT, version="2", status=None,
                state_dir="var/lib/gpudoctor"):
    updated = int(time.time()) if updated is None else updated
    lines = [f"version={version}", f"updated={updated}"]
    if boot is not None:
        lines.append(f"boot_id={boot}")
    worst = "ok"
    for a in active:
        if " fail " in a:
            worst = "fail"
        elif worst == "ok":
            worst = "warn"
    lines.append(f"status={status or worst}")
    lines += [f"active={watch_record(a)}" for a in active]
    r.write(f"{state_dir}/state", "\n".join(lines) + "\n")


class TestHealthProtocol(GDTestCase):
    def assert_line(self, out):
        lines = out.splitlines()
        self.assertEqual(len(lines), 1, out)
        self.assertLessEqual(len(lines[0]), 80, lines[0])
        self.assertRegex(lines[0], LINE)
        return lines[0]

    def test_healthy_is_0(self):
        r = with_boot(fixtures.healthy_root())
        rc, out, err = health(r, extra=["--no-load"])
        self.assertEqual(rc, 0, out + err)
        self.assertEqual(self.assert_line(out), "gpudoctor: ok")

    def test_healthy_live_on_fake_driver_is_0(self):
        # Live probes run the fixture's fake NVML/libcuda in children.
        r = with_boot(fixtures.healthy_root())
        rc, out, err = health(r)
        self.assertEqual(rc, 0, out + err)
        self.assert_line(out)

    def test_module_not_loaded_is_1_with_cause(self):
        r = fixtures.healthy_root()
        fl.add_kernel(r, modules=("snd", "e1000e"))
        rc, out, err = health(r, extra=["--no-load"])
        self.assertEqual(rc, 1, out + err)
        line = self.assert_line(out)
        self.assertTrue(line.startswith("gpudoctor: nvidia-module-not-loaded - "), line)

    def test_no_gpu_is_1(self):
        rc, out, err = health(Root(), extra=["--no-load"])
        self.assertEqual(rc, 1, out + err)
        self.assertTrue(self.assert_line(out).startswith("gpudoctor: no-nvidia-gpu "))

    def test_frameworks_do_not_count(self):
        # A broken user environment is not the node's health: health never
        # judges the libraries and frameworks layers.
        r = fixtures.healthy_root()
        r.write("opt/venv/bin/python", "#!/bin/sh\nexit 1\n", mode=0o755)
        r.write("opt/venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.11.2\n")
        doc = health_json(r)
        self.assertEqual(doc["verdict"], "healthy")
        self.assertEqual(doc["_rc"], 0)

    def hung_nvml_root(self):
        # NVML's init never returns (a wedged driver); the fake is compiled to
        # hang by default because health hands its children a clean
        # environment (FAKE_NVML_MODE would not reach them).
        r = Root()
        fixtures.healthy_root(root=r)
        fixtures_driver.add_driver_libs(r, nvml_cflags=('-DFAKE_DEFAULT_MODE="hang"',))
        return r

    def test_hung_nvml_is_1_within_deadline(self):
        r = self.hung_nvml_root()
        t = time.monotonic()
        rc, out, err = health(r, "--deadline", "4")
        took = time.monotonic() - t
        self.assertEqual(rc, 1, out + err)
        self.assertTrue(self.assert_line(out).startswith("gpudoctor: nvml-failed "), out)
        self.assertLess(took, 4.0)

    def test_deadline_exceeded_is_2(self):
        # With a 1 s deadline the probe's own limit (0.5 s, the floor) ends
        # after the parent's: the parent gives up first and says unknown.
        r = self.hung_nvml_root()
        t = time.monotonic()
        rc, out, err = health(r, "--deadline", "1")
        took = time.monotonic() - t
        self.assertEqual(rc, 2, out + err)
        self.assertEqual(self.assert_line(out), "gpudoctor: unknown - checks did not finish within 0.5 s")
        self.assertLess(took, 2.0)

    def test_usage_errors_are_2(self):
        r = fixtures.healthy_root()
        for args in (["--deadline", "0"], ["--state-dir", "relative"], ["--reboot"], ["bogus"]):
            rc, _, err = health(r, *args)
            self.assertEqual(rc, 2, args)
            self.assertTrue(err, args)

    def test_help_lists_options(self):
        rc, out, _ = run(["health", "--help"])
        self.assertEqual(rc, 0)
        for opt in ("--slurm", "--node", "--reboot", "--hardware", "--state-dir", "--max-age",
                    "--deadline"):
            self.assertIn(opt, out)
        self.assertNotIn("--layers-kv", out)


class TestHealthWatchState(GDTestCase):
    def root(self):
        return with_boot(fixtures.healthy_root())

    def test_fresh_fatal_xid_is_1(self):
        r = self.root()
        write_state(r, ["gpu-lost 3 fail GPU 3 fell off the bus (XID 79 at 03:12)"])
        rc, out, err = health(r, extra=["--no-load"])
        self.assertEqual(rc, 1, out + err)
        self.assertEqual(out.strip(), "gpudoctor: gpu-lost 3 GPU 3 fell off the bus (XID 79 at 03:12)")

    def test_json_names_the_source_and_action(self):
        r = self.root()
        write_state(r, ["gpu-lost 3 fail GPU 3 fell off the bus",
                        "persistence-mode-off 0 warn persistence mode is off"])
        doc = health_json(r, "--no-load") if False else None
        rc, out, _ = run(["--json", "--no-load", "health"], root=r.path, env=clean_env())
        doc = json.loads(out)
        self.assertEqual(rc, 1)
        self.assertEqual(doc["verdict"], "unhealthy")
        self.assertEqual(doc["cause"], "gpu-lost")
        self.assertEqual(doc["gpu"], "3")
        self.assertEqual(doc["action"], "reboot")
        srcs = {(p["cause"], p["source"], p["severity"]) for p in doc["problems"]}
        self.assertIn(("gpu-lost", "watch", "fail"), srcs)
        self.assertIn(("persistence-mode-off", "watch", "warn"), srcs)
        self.assertTrue(doc["watch_state"]["present"])
        self.assertTrue(doc["watch_state"]["fresh"])
        self.assertEqual(doc["watch_state"]["active"], 2)

    def test_earlier_boot_is_ignored(self):
        r = self.root()
        write_state(r, ["gpu-lost 3 fail GPU 3 fell off the bus"], boot="11111111-2222-3333-4444-555555555555")
        rc, out, _ = run(["--json", "--no-load", "health"], root=r.path, env=clean_env())
        doc = json.loads(out)
        self.assertEqual(rc, 0, out)
        self.assertFalse(doc["watch_state"]["used"])
        self.assertIn("earlier boot", doc["watch_state"]["note"])

    def test_large_state_is_read_and_an_unreadable_one_is_unknown(self):
        """Before (round 13's attacker): health read the state up to 64 KiB
        (watch --ack reads 1 MiB) and a file it could not read counted as
        one with nothing in it: 128 findings whose titles quote long paths
        made a gpu-lost at the end vanish, the node healthy (exit 0), and
        --slurm resumed a node gpudoctor had drained for it.  After: read up
        to 1 MiB; a trusted file that still cannot be read makes the
        verdict unknown (exit 2, nothing touched; a known failure of the
        checks still outranks it, health.c).  Near miss: the same gpu-lost
        in a small state."""
        r = self.root()
        long = "/usr/lib/x86_64-linux-gnu/" + "d" * 200 + "/libcuda.so.1"
        warns = ["persistence-mode-off %d warn persistence mode is off, see %s" % (i % 8, long)
                 for i in range(300)]
        write_state(r, warns + ["gpu-lost 3 fail GPU 3 fell off the bus"])
        self.assertGreater(os.path.getsize(r.p("var/lib/gpudoctor/state")), 64 * 1024)
        rc, out, _ = run(["--json", "--no-load", "health"], root=r.path, env=clean_env())
        doc = json.loads(out)
        self.assertEqual((rc, doc["cause"]), (1, "gpu-lost"), doc["watch_state"])
        # more than any report: unknown, never healthy
        write_state(r, warns * 12 + ["gpu-lost 3 fail GPU 3 fell off the bus"])
        self.assertGreater(os.path.getsize(r.p("var/lib/gpudoctor/state")), 1 << 20)
        rc, out, _ = run(["--json", "--no-load", "health"], root=r.path, env=clean_env())
        doc = json.loads(out)
        self.assertEqual((rc, doc["verdict"]), (2, "unknown"), doc)
        self.assertIn("watch state could not be read", doc["unknown_reason"])
        self.assertIn("larger than", doc["watch_state"]["note"])
        # near miss: the same gpu-lost in a small state
        write_state(r, ["gpu-lost 3 fail GPU 3 fell off the bus"])
        rc, out, _ = run(["--json", "--no-load", "health"], root=r.path, env=clean_env())
        self.assertEqual(rc, 1, out)

    def test_stale_same_boot_keeps_failures_drops_warnings(self):
        r = self.root()
        old = int(time.time()) - 3600
        write_state(r, ["ecc-errors 1 fail uncorrectable ECC errors on GPU 1",
                        "persistence-mode-off 0 warn persistence mode is off"], updated=old)
        rc, out, _ = run(["--json", "--no-load", "health"], root=r.path, env=clean_env())
        doc = json.loads(out)
        self.assertEqual(rc, 1)
        self.assertFalse(doc["watch_state"]["fresh"])
        self.assertEqual([p["cause"] for p in doc["problems"]], ["ecc-errors"])
        self.assertGreaterEqual(doc["watch_state"]["age_s"], 3600)

    def test_max_age_option(self):
        r = self.root()
        write_state(r, ["persistence-mode-off 0 warn persistence mode is off"],
                    updated=int(time.time()) - 100)
        rc, out, _ = health(r, "--max-age", "50", extra=["--no-load"])
        self.assertEqual((rc, out.strip()), (0, "gpudoctor: ok"))
        rc, out, _ = health(r, "--max-age", "500", extra=["--no-load"])
        self.assertEqual(rc, 0)
        self.assertEqual(out.strip(), "gpudoctor: ok; warn persistence-mode-off 0 persistence mode is off")

    def test_no_boot_id_and_stale_is_ignored(self):
        r = fixtures.healthy_root()	# no boot_id in the fixture
        write_state(r, ["gpu-lost 0 fail gone"], updated=int(time.time()) - 3600)
        rc, out, _ = health(r, extra=["--no-load"])
        self.assertEqual(rc, 0, out)

    def test_wrong_version_and_garbage_are_not_trusted(self):
        r = self.root()
        write_state(r, ["gpu-lost 0 fail gone"], version="1")
        self.assertEqual(health(r, extra=["--no-load"])[0], 0)
        write_state(r, ["GPU-LOST 0 fail bad id", "gpu-lost zz fail bad gpu",
                        "gpu-lost 0 fatal bad severity", "gpu-lost"])
        rc, out, _ = run(["--json", "--no-load", "health"], root=r.path, env=clean_env())
        doc = json.loads(out)
        self.assertEqual(rc, 0, out)
        self.assertEqual(doc["watch_state"]["malformed"], 4)

    def test_hostile_reason_is_escaped_and_cut(self):
        r = self.root()
        evil = "\x1b]0;pwned\x07\x1b[31m" + "é" * 10 + "A" * 300
        write_state(r, [f"gpu-lost 7 fail {evil}"])
        rc, out, _ = health(r, extra=["--no-load"])
        self.assertEqual(rc, 1)
        line = out.rstrip("\n")
        self.assertEqual(len(line), 80, line)
        self.assertRegex(line, LINE)
        self.assertNotIn("\x1b", line)
        self.assertTrue(line.endswith("..."))

    def test_error_messages_are_escaped(self):
        # what health echoes on stderr goes through core/termesc like every command's
        r = self.root()
        for args in (["--deadline", "x\x1b]0;pwned\x07"], ["--state-dir", "rel\x1b[31m"],
                     ["extra\x1b[2J"]):
            rc, out, err = health(r, *args, extra=["--no-load"])
            self.assertEqual(rc, 2, err)
            self.assertIn("\\x1b", err)
            self.assertNotIn("\x1b", err)

    def test_more_problems_are_counted(self):
        r = self.root()
        write_state(r, ["gpu-lost 1 fail GPU 1 fell off the bus",
                        "gpu-lost 2 fail GPU 2 fell off the bus"])
        rc, out, _ = health(r, extra=["--no-load"])
        self.assertEqual(rc, 1)
        self.assertEqual(out.strip(), "gpudoctor: gpu-lost 1 GPU 1 fell off the bus (+1 more)")

    def test_state_dir_option(self):
        r = self.root()
        write_state(r, ["gpu-lost 5 fail gone"], state_dir="run/gd")
        self.assertEqual(health(r, extra=["--no-load"])[0], 0)
        rc, out, _ = health(r, "--state-dir", "/run/gd", extra=["--no-load"])
        self.assertEqual(rc, 1)
        self.assertTrue(out.startswith("gpudoctor: gpu-lost 5 "))

    def test_hardware_scope(self):
        # The kernel is broken, the hardware is fine: --hardware says ok.
        r = self.root()
        fl.add_kernel(r, modules=("snd",))
        self.assertEqual(health(r, extra=["--no-load"])[0], 1)
        rc, out, _ = health(r, "--hardware", extra=["--no-load"])
        self.assertEqual((rc, out.strip()), (0, "gpudoctor: ok"))
        write_state(r, ["gpu-lost 0 fail gone"])
        self.assertEqual(health(r, "--hardware", extra=["--no-load"])[0], 1)


if __name__ == "__main__":
    unittest.main()
