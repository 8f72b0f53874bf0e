"""ldcache-stale: a library installed into a directory of ld.so.conf without
running ldconfig is invisible to the loader; so is everything when the cache
is missing.  The libraries layer warns, with `sudo ldconfig` as the fix."""
import os
import unittest

from gdtest import GDTestCase, check, assert_cause, assert_no_cause
import fixtures
import fixtures_driver


class LdcacheStale(GDTestCase):
    def test_healthy_root_has_a_current_cache(self):
        doc = check(fixtures.healthy_root(), "--no-load")
        assert_no_cause(self, doc, "ldcache-stale")

    def test_library_added_after_ldconfig(self):
        r = fixtures.healthy_root()
        r.shared_lib(f"{fixtures_driver.LIBDIR}/libgdlate.so.1", soname="libgdlate.so.1")
        doc = check(r, "--no-load")
        f = assert_cause(self, doc, "ldcache-stale", "warn")
        self.assertIn("sudo ldconfig", f["fix"])
        self.assertTrue(any("libgdlate.so.1" in e or "not in" in e for e in f["evidence"]), f["evidence"])

    def test_missing_cache(self):
        r = fixtures.healthy_root()
        os.unlink(r.p("etc/ld.so.cache"))
        doc = check(r, "--no-load")
        f = assert_cause(self, doc, "ldcache-stale", "warn")
        self.assertIn("no usable", f["title"])


if __name__ == "__main__":
    unittest.main()
