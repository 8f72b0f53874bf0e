"""What watch and health (root daemons) trust on disk: a state directory
and every directory above it, --kb DIR and its tables, health's reboot
record.  Each can be replaced by whoever may write it, so a file or
directory another user owns or may write (a sticky directory excepted) is
refused, and a reboot record that is not safely ours buys a drain, never a
reboot (core/safefile.h, health/health_reboot.h).

Before this file: safefile_check_dir looked at the directory alone and let
its group write; the reboot record was read from any owner; --kb was loaded
from anywhere.
"""
import os
import shutil
import tempfile
import unittest

from gdtest import GDTestCase, run, clean_env
import fixtures
from test_health_slurm import FakeScontrol, set_watch, health_slurm, BOOT1

ROOT = os.geteuid() == 0
DATA = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "src", "knowledge", "data"))


def watch_once(sd):
    r = fixtures.healthy_root()
    empty = os.path.join(tempfile.mkdtemp(prefix="gd-kmsg-"), "kmsg")
    open(empty, "w").close()
    return run(["--root", r.path, "--timeout", "5", "watch", "--once", "--state-dir", sd,
                "--kmsg-file", empty], env=clean_env())


class TestStateDirChain(GDTestCase):
    def test_parent_writable_by_everyone_is_refused(self):
        top = tempfile.mkdtemp(prefix="gd-trust-")
        sd = os.path.join(top, "state")
        os.mkdir(sd, 0o755)
        os.chmod(top, 0o777)    # anyone may rename "state" away and plant their own
        rc, out, err = watch_once(sd)
        self.assertNotEqual(rc, 0, out)
        self.assertIn("--state-dir refused", err)
        self.assertIn("writable by every user", err)
        # Near miss: the sticky bit (like /tmp) forbids renaming others' entries.
        os.chmod(top, 0o1777)
        rc, out, err = watch_once(sd)
        self.assertNotIn("refused", err)

    def test_group_writable_state_dir_is_refused(self):
        sd = tempfile.mkdtemp(prefix="gd-trust-")
        os.chmod(sd, 0o775)
        rc, out, err = watch_once(sd)
        self.assertNotEqual(rc, 0, out)
        self.assertIn("writable by its group", err)
        os.chmod(sd, 0o755)
        rc, out, err = watch_once(sd)
        self.assertNotIn("refused", err)


class TestKbDir(GDTestCase):
    def health_kb(self, kb):
        r = fixtures.healthy_root()
        return run(["--kb", kb, "health"], root=r.path, env=clean_env())

    def watch_kb(self, kb):
        r = fixtures.healthy_root()
        return run(["--kb", kb, "--root", r.path, "--timeout", "5", "watch", "--once",
                    "--state-dir", tempfile.mkdtemp(prefix="gd-trust-"), "--kmsg-file", "/dev/null"],
                   env=clean_env())

    def kb_with(self, table, mode):
        # a --kb directory holding a copy of one of the project's tables
        kb = tempfile.mkdtemp(prefix="gd-kb-")
        dst = os.path.join(kb, table)
        shutil.copy(os.path.join(DATA, table), dst)
        os.chmod(dst, mode)
        return kb, dst

    def test_world_writable_kb_dir_is_refused(self):
        kb = tempfile.mkdtemp(prefix="gd-kb-")
        os.chmod(kb, 0o777)
        rc, out, err = self.health_kb(kb)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("--kb refused", err)
        os.chmod(kb, 0o755)
        rc, out, err = self.health_kb(kb)
        self.assertNotEqual(rc, 2, err)
        self.assertNotIn("refused", err)

    def test_group_writable_table_is_refused(self):
        kb, dst = self.kb_with("xid.tsv", 0o664)
        rc, out, err = self.health_kb(kb)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("writable by its group", err)
        os.chmod(dst, 0o644)
        rc, out, err = self.health_kb(kb)
        self.assertNotIn("refused", err)

    def test_linked_table_is_refused_by_watch_and_health(self):
        # The tables are read through O_NOFOLLOW descriptors (kb_open_trusted),
        # so a link planted for a table is refused, not followed: before, the
        # name was checked and then opened again, a window to swap the file.
        kb = tempfile.mkdtemp(prefix="gd-kb-")
        src = os.path.join(DATA, "xid.tsv")
        os.symlink(src, os.path.join(kb, "xid.tsv"))
        rc, out, err = self.health_kb(kb)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("symbolic link", err)
        rc, out, err = self.watch_kb(kb)
        self.assertNotEqual(rc, 0, out)
        self.assertIn("--kb refused", err)
        self.assertIn("symbolic link", err)
        # Near miss: the same table copied in is read.
        os.unlink(os.path.join(kb, "xid.tsv"))
        shutil.copy(src, os.path.join(kb, "xid.tsv"))
        rc, out, err = self.health_kb(kb)
        self.assertNotIn("refused", err)

    def test_group_writable_table_is_refused_by_watch(self):
        kb, _ = self.kb_with("gpus.tsv", 0o666)
        rc, out, err = self.watch_kb(kb)
        self.assertNotEqual(rc, 0, out)
        self.assertIn("writable by every user", err)


@unittest.skipUnless(ROOT, "needs root to give the record to another user (chown)")
class TestRebootRecordOwner(GDTestCase):
    def test_record_of_another_user_drains(self):
        r = fixtures.healthy_root()
        sc = FakeScontrol()
        set_watch(r, BOOT1, ["gpu-lost 2 fail GPU 2 fell off the bus (XID 79)"])
        rec = r.p("var/lib/gpudoctor/health-reboot")
        # A record of another cause: ours would let this one reboot once.
        with open(rec, "w") as f:
            f.write("boot_id=00000000-0000-4000-8000-000000000000\ncause=ecc-errors\ngpu=0\n")
        doc = health_slurm(r, sc, "--node", "n1", "--reboot")
        self.assertEqual(doc["slurm"]["step"], "reboot", doc["slurm"])
        # The same record, written by another user: it decides nothing but a drain.
        with open(rec, "w") as f:
            f.write("boot_id=00000000-0000-4000-8000-000000000000\ncause=ecc-errors\ngpu=0\n")
        os.chown(rec, 65534, 65534)
        doc = health_slurm(r, sc, "--node", "n1", "--reboot")
        self.assertEqual(doc["slurm"]["step"], "drain", doc["slurm"])
        self.assertEqual(sc.calls()[-1][:3], ["update", "NodeName=n1", "State=DRAIN"])


if __name__ == "__main__":
    unittest.main()
