"""The shipped alert rules fit what ships beside them.

- every alert's job matches the job the shipped ServiceMonitor produces
  (Prometheus Operator names the job after the Service it selects), so
  GpudoctorDown can fire, and an absent() companion exists for a job that
  disappears whole;
- every alert has a runbook_url whose anchor is a section of docs/runbook.md;
- promtool (Debian's prometheus package) checks and unit-tests the rules
  with that job name (tests/e2e/test_watch.py runs the same promtool test
  on the rule file; this test adds the cross-file facts).
"""
import os
import re
import shutil
import subprocess
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
RULES = os.path.join(REPO, "dist", "prometheus", "gpudoctor-alerts.yml")
RULES_TEST = os.path.join(REPO, "dist", "prometheus", "gpudoctor-alerts.test.yml")
K8S = os.path.join(REPO, "dist", "kubernetes", "gpudoctor-watch.yaml")
SMON = os.path.join(REPO, "dist", "kubernetes", "servicemonitor.yaml")
RUNBOOK = os.path.join(REPO, "docs", "runbook.md")


def read(p):
    with open(p, encoding="utf-8") as f:
        return f.read()


def alerts(text):
    """[(name, block)] of the rule file, split at each '- alert:'."""
    parts = re.split(r"(?m)^\s+- alert: ", text)[1:]
    return [(p.split("\n", 1)[0].strip(), p) for p in parts]


def service_job():
    """The job name Prometheus Operator gives the ServiceMonitor's targets:
    the name of the Service whose labels its selector matches."""
    sel = re.search(r"matchLabels:\s*\n\s+app\.kubernetes\.io/name:\s*(\S+)", read(SMON)).group(1)
    for doc in read(K8S).split("\n---"):
        if re.search(r"(?m)^kind: Service\s*$", doc) and f"app.kubernetes.io/name: {sel}" in doc:
            return re.search(r"(?m)^metadata:\s*\n\s+name:\s*(\S+)", doc).group(1)
    raise AssertionError("no Service in gpudoctor-watch.yaml matches the ServiceMonitor's selector")


class AlertRules(unittest.TestCase):
    def test_jobs_match_the_servicemonitor(self):
        job = service_job()
        rules = read(RULES)
        jobs = set(re.findall(r'job="([^"]+)"', rules))
        self.assertTrue(jobs, "no alert names a job")
        self.assertEqual(jobs, {job})
        names = dict(alerts(rules))
        self.assertIn(f'absent(up{{job="{job}"}})', names.get("GpudoctorAbsent", ""))
        self.assertIn(f'up{{job="{job}"}} == 0', names["GpudoctorDown"])
        # The promtool unit test feeds series of that job, not another.
        self.assertEqual(set(re.findall(r'job="([^"]+)"', read(RULES_TEST))) - {"other"}, {job})

    def test_every_alert_has_a_runbook_section(self):
        sections = {s.lower() for s in re.findall(r"(?m)^## (\w+)\s*$", read(RUNBOOK))}
        found = alerts(read(RULES))
        self.assertGreater(len(found), 5)
        for name, block in found:
            m = re.search(r'runbook_url: "[^"#]*docs/runbook\.md#([a-z0-9-]+)"', block)
            self.assertTrue(m, f"{name} has no runbook_url into docs/runbook.md")
            self.assertEqual(m.group(1), name.lower())
            self.assertIn(m.group(1), sections, f"docs/runbook.md has no section for {name}")

    @unittest.skipUnless(shutil.which("promtool"), "promtool is not installed (Debian package prometheus)")
    def test_promtool(self):
        d = os.path.dirname(RULES)
        p = subprocess.run(["promtool", "test", "rules", os.path.basename(RULES_TEST)], cwd=d,
                           capture_output=True, text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("SUCCESS", p.stdout)


if __name__ == "__main__":
    unittest.main()
