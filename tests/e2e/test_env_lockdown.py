"""Kernel lockdown named as the reason the nvidia module is not loaded (issue 19).

/sys/kernel/security/lockdown lists the modes with the selected one in
brackets; in integrity or confidentiality mode only signed modules load
(man 7 kernel_lockdown, https://man7.org/linux/man-pages/man7/kernel_lockdown.7.html).
"""
import unittest

import fixtures
import fixtures_env as env_fx
import fixtures_lower
from gdtest import GDTestCase, assert_cause, assert_no_cause, check, clean_env


def env():
    return clean_env(PATH="/usr/bin:/bin", HOME="/nonexistent")


def not_loaded(lockdown, secure_boot=True):
    r = fixtures.healthy_root()
    fixtures_lower.add_kernel(r, modules=(), secure_boot=secure_boot)
    if lockdown:
        env_fx.set_lockdown(r, lockdown)
    return r


class Lockdown(GDTestCase):
    def test_integrity_lockdown_blocks_the_module(self):
        doc = check(not_loaded("none [integrity] confidentiality"), env=env())
        f = assert_cause(self, doc, "kernel-lockdown-blocks-module", "fail")
        self.assertIn("integrity", f["title"])
        self.assertIn("none [integrity] confidentiality", " ".join(f["evidence"]))
        self.assertIn("Secure Boot on", " ".join(f["evidence"]))
        self.assertIn("mokutil", f["fix"])
        assert_no_cause(self, doc, "secure-boot-blocks-module")
        self.assertEqual(doc["inventory"]["platform"]["lockdown"], "integrity")

    def test_confidentiality_mode(self):
        doc = check(not_loaded("none integrity [confidentiality]", secure_boot=False), env=env())
        assert_cause(self, doc, "kernel-lockdown-blocks-module", "fail")

    def test_lockdown_none_is_a_near_miss(self):
        doc = check(not_loaded("[none] integrity confidentiality", secure_boot=False), env=env())
        assert_no_cause(self, doc, "kernel-lockdown-blocks-module")
        assert_cause(self, doc, "nvidia-module-not-loaded")
        # Secure Boot without lockdown keeps its own cause
        doc = check(not_loaded(None, secure_boot=True), env=env())
        assert_no_cause(self, doc, "kernel-lockdown-blocks-module")
        assert_cause(self, doc, "secure-boot-blocks-module")

    def test_loaded_module_under_lockdown_is_fine(self):
        r = fixtures.healthy_root()
        env_fx.set_lockdown(r, "none [integrity] confidentiality")
        assert_no_cause(self, check(r, env=env()), "kernel-lockdown-blocks-module")

    def test_garbage_lockdown_file(self):
        doc = check(not_loaded("[\x1b[31mintegrity] x"), env=env())
        assert_no_cause(self, doc, "kernel-lockdown-blocks-module")
        self.assertIsNone(doc["inventory"]["platform"]["lockdown"])


if __name__ == "__main__":
    unittest.main()
