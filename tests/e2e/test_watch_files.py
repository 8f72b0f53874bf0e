"""Files watch and health write or trust as root, attacked as another user
would (issue 18): a symbolic link planted at the temporary name a predictable
pid gives, a planted `acks` link, a state directory anyone can write to, a
state file owned by someone else.  The state format is docs/watch-state.md."""
import json
import os
import shutil
import tempfile
import time
import unittest

import fixtures
from gdtest import run, clean_env

KMSG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "kmsg-xids.txt")
VICTIM = "precious: must never be overwritten\n"
NOBODY = 65534


def root_with_boot(boot="boot-f", gpus=2):
    r = fixtures.healthy_root(gpus=gpus)
    r.write("proc/sys/kernel/random/boot_id", boot + "\n")
    return r


def read(path):
    with open(path) as f:
        return f.read()


def once(r, state_dir, *extra):
    env = clean_env(FAKE_NVML_GPUS="2")
    return run(["--no-load", "watch", "--once", "--state-dir", state_dir, "--kmsg-file", KMSG]
               + list(extra), root=r.path, env=env, timeout=60)


class SafeWrites(unittest.TestCase):
    def setUp(self):
        self.top = tempfile.mkdtemp(prefix="gd-files-")
        os.chmod(self.top, 0o755)
        self.victims = os.path.join(self.top, "victims")
        os.mkdir(self.victims)

    def tearDown(self):
        shutil.rmtree(self.top, ignore_errors=True)

    def victim(self, name):
        p = os.path.join(self.victims, name)
        with open(p, "w") as f:
            f.write(VICTIM)
        return p

    def test_symlink_race_with_predictable_pids(self):
        # The old writer used FILE.tmp.<pid>: plant a link at that name for
        # every pid the next process can get, for all three files root writes.
        r = root_with_boot()
        state = os.path.join(self.top, "state")
        text = os.path.join(self.top, "textfile")
        os.mkdir(state)
        os.mkdir(text)
        with open("/proc/sys/kernel/ns_last_pid") as f:
            last = int(f.read())
        targets = []
        for name, d in (("state", state), ("xid-history", state), ("gpudoctor.prom", text)):
            v = self.victim(name)
            targets.append(v)
            for pid in range(last + 1, last + 400):
                os.symlink(v, os.path.join(d, f"{name}.tmp.{pid}"))
        rc, out, err = once(r, state, "--textfile", text)
        self.assertIn(rc, (0, 1), err)
        for v in targets:
            self.assertEqual(read(v), VICTIM, v)
        self.assertTrue(read(os.path.join(state, "state")).startswith("version=2\n"))
        self.assertFalse(os.path.islink(os.path.join(state, "state")))
        self.assertIn("gpudoctor_up", read(os.path.join(text, "gpudoctor.prom")))
        # no temporary is left behind
        left = [n for n in os.listdir(state) + os.listdir(text)
                if n.startswith(".") and ".XXXXXX" not in n]
        self.assertEqual(left, [])

    def test_planted_acks_link_is_not_followed(self):
        r = root_with_boot()
        state = os.path.join(self.top, "state")
        os.mkdir(state)
        self.assertIn(once(r, state)[0], (0, 1))
        v = self.victim("acks")
        os.symlink(v, os.path.join(state, "acks"))
        rc, out, err = run(["watch", "--ack", "0", "--state-dir", state])
        self.assertEqual(rc, 2, out + err)
        self.assertIn("symbolic link", err)
        self.assertEqual(read(v), VICTIM)
        # the daemon refuses to start on it too
        rc, out, err = once(r, state)
        self.assertEqual(rc, 2, err)
        self.assertIn("refused", err)
        self.assertEqual(read(v), VICTIM)
        # near miss: a real acks file is appended to
        os.unlink(os.path.join(state, "acks"))
        rc, out, err = run(["watch", "--ack", "0", "--state-dir", state])
        self.assertEqual(rc, 0, err)
        self.assertRegex(read(os.path.join(state, "acks")), r"^ack=0 \d+\n$")

    def test_world_writable_state_dir_is_refused(self):
        r = root_with_boot()
        state = os.path.join(self.top, "state")
        text = os.path.join(self.top, "textfile")
        os.mkdir(state)
        os.mkdir(text)
        os.chmod(state, 0o777)
        rc, out, err = once(r, state)
        self.assertEqual(rc, 2, err)
        self.assertIn("--state-dir refused", err)
        self.assertIn("writable by every user", err)
        self.assertFalse(os.path.exists(os.path.join(state, "state")))
        rc, out, err = run(["watch", "--ack", "all", "--state-dir", state])
        self.assertEqual(rc, 2, err)
        self.assertFalse(os.path.exists(os.path.join(state, "acks")))
        os.chmod(text, 0o777)
        os.chmod(state, 0o755)
        rc, out, err = once(r, state, "--textfile", text)
        self.assertEqual(rc, 2, err)
        self.assertIn("--textfile refused", err)
        # near miss: the sticky bit (as on /tmp) keeps others from replacing our files
        os.chmod(text, 0o1777)
        rc, out, err = once(r, state, "--textfile", text)
        self.assertIn(rc, (0, 1), err)
        self.assertTrue(os.path.exists(os.path.join(text, "gpudoctor.prom")))

    @unittest.skipUnless(os.geteuid() == 0, "needs root to give a file to another user")
    def test_state_owned_by_another_user_is_not_trusted(self):
        r = root_with_boot()
        sdir = r.p("var/lib/gpudoctor")
        os.makedirs(sdir, exist_ok=True)
        r.write("var/lib/gpudoctor/state",
                f"version=2\nupdated={int(time.time())}\nboot_id=boot-f\nstatus=fail\n"
                "active=cause=gpu-lost status=fail gpu=3 title=GPU 3 fell off the bus\n")
        rc, out, err = run(["--json", "--no-load", "health"], root=r.path, env=clean_env())
        self.assertEqual(rc, 1, out)	# our own file counts
        self.assertNotIn("watch-state-untrusted", out)	# near miss
        os.chown(os.path.join(sdir, "state"), NOBODY, NOBODY)
        rc, out, err = run(["--json", "--no-load", "health"], root=r.path, env=clean_env())
        doc = json.loads(out)
        self.assertEqual(rc, 0, out)
        self.assertIn("owned by uid 65534", doc["watch_state"]["note"])
        self.assertEqual(doc["watch_state"]["taken"], 0)
        # ignored, not silently: a warning with its own cause
        self.assertEqual([(p["cause"], p["severity"]) for p in doc["problems"]],
                         [("watch-state-untrusted", "warn")], doc)
        rc, out, err = run(["--no-load", "health"], root=r.path, env=clean_env())
        self.assertTrue(out.startswith("gpudoctor: ok; warn watch-state-untrusted - "), out)
        # and the daemon will not take it over
        rc, out, err = once(r, sdir)
        self.assertEqual(rc, 2, err)
        self.assertIn("owned by uid 65534", err)
        # nor a directory another user owns
        os.chown(os.path.join(sdir, "state"), 0, 0)
        os.chown(sdir, NOBODY, NOBODY)
        rc, out, err = once(r, sdir)
        self.assertEqual(rc, 2, err)
        self.assertIn("--state-dir refused", err)


if __name__ == "__main__":
    unittest.main()
