"""Knowledge truth, round 3 (issue 21): each audit class has a test that
fails for the wrong fact, not only for the named instance.

- XID actions are NVIDIA's, read from the line where NVIDIA carries them in
  the message (154), and labelled gpudoctor's judgement where the catalogue
  gives none (162-172).
"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import clean_env, run  # noqa: E402


def explain_text(text):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        rc, out, err = run(["explain", "--json", name], env=clean_env())
    finally:
        os.unlink(name)
    return json.loads(out)


def decoded(doc):
    out = []
    for m in doc["matches"]:
        out += [str(v) for v in (m.get("decoded") or {}).values() if v]
    return "\n".join(out)


def plan_root(os_id, os_version, py=None, like=None):
    """A machine with an H100 on a working 580 driver and, when py is given,
    a system Python of that version in /usr."""
    from fixtures_lower import add_gpus, add_kernel
    from gdtest import Root
    r = Root()
    text = 'ID=%s\nVERSION_ID="%s"\n' % (os_id, os_version)
    if like:
        text += 'ID_LIKE="%s"\n' % like
    r.write("etc/os-release", text)
    add_gpus(r, 1, device_id=0x2330, driver="nvidia")
    add_kernel(r, driver_version="580.95.05", modules=["nvidia", "nvidia_uvm"])
    if py:
        r.write("usr/bin/python3", "", mode=0o755)
        r.mkdir("usr/lib/python%s" % py)
        r.mkdir("usr/lib/python3/dist-packages")
    return r


def plan(r, *args, env=None):
    rc, out, err = run(["plan", "--format", "json"] + list(args), root=r.path, env=env or clean_env())
    doc = json.loads(out)
    return {s["id"]: s for s in doc["steps"]}, doc


class PythonPerDistribution(unittest.TestCase):
    """plan's Python step: the newest system Python that fits, else the
    newest python3.X the distribution release ships that fits (facts.tsv
    python.packages.*), else a standalone CPython from uv; never a package
    the release does not ship."""

    def py(self, r, *args, env=None):
        steps, _ = plan(r, *args, env=env)
        return "\n".join(steps["python"]["commands"]), steps["python"]["why"]

    def test_debian12_has_no_python310_or_312(self):
        r = plan_root("debian", "12", py="3.9")
        # torch 2.14 supports 3.10-3.14: Debian 12 ships python3.11, not 3.10
        c, _ = self.py(r, "--torch", "2.14")
        self.assertIn("apt-get install -y python3.11 python3.11-venv", c)
        self.assertNotIn("python3.10", c)
        # TF 2.19 (3.9-3.12) is met by the system's 3.9: no install at all
        c, _ = self.py(r, "--tf", "2.19")
        self.assertNotIn("apt-get", c)
        # JAX 0.12 needs 3.12+: Debian 12 ships none; a standalone CPython, not python3.12
        c, why = self.py(r, "--jax", "0.12.0")
        self.assertNotIn("apt-get", c)
        self.assertIn("uv python install 3.13", c)
        self.assertIn("python3.11", why)      # says what the release ships

    def test_newest_packaged_version_that_fits(self):
        # Ubuntu 20.04 ships 3.8 and 3.9; TF 2.13 supports 3.8-3.11: 3.9, the newest it has
        r = plan_root("ubuntu", "20.04")
        c, _ = self.py(r, "--tf", "2.13")
        self.assertIn("python3.9 python3.9-venv", c)
        # RHEL 8 names its packages python39 / python3.11 / python3.12
        r = plan_root("rocky", "8.10", like="rhel centos fedora")
        c, _ = self.py(r, "--torch", "2.14")
        self.assertIn("dnf install -y python3.12", c)
        r = plan_root("rocky", "8.10", like="rhel centos fedora")
        c, _ = self.py(r, "--tf", "2.13")
        self.assertIn("dnf install -y python3.11", c)

    def test_unknown_release_gets_uv_not_a_guess(self):
        r = plan_root("ubuntu", "26.04")
        c, why = self.py(r, "--torch", "2.14")
        self.assertNotIn("apt-get install -y python3", c)
        self.assertIn("uv python install", c)
        self.assertIn("does not know", why)

    def test_newest_system_python_that_fits(self):
        # /usr/local's 3.11 is found first, /usr's 3.12 is newer: 3.12 it is
        r = plan_root("ubuntu", "24.04", py="3.12")
        r.write("usr/local/bin/python3", "", mode=0o755)
        r.mkdir("usr/local/lib/python3.11/site-packages")
        c, _ = self.py(r, "--torch", "2.15")
        self.assertIn("/usr/bin/python3 -m venv", c)

    def test_virtualenv_whose_base_is_312(self):
        # the H200 machine: /usr/bin/python3 is 3.12.3, seen only through an
        # active virtualenv's pyvenv.cfg home (no site dir of /usr itself)
        r = plan_root("ubuntu", "24.04")
        r.write("usr/bin/python3.12", "", mode=0o755)
        r.symlink("usr/bin/python3", "python3.12")
        r.write("home/u/venv/pyvenv.cfg",
                "home = /usr/bin\ninclude-system-site-packages = false\nversion = 3.12.3\n")
        r.mkdir("home/u/venv/lib/python3.12/site-packages")
        r.symlink("home/u/venv/bin/python3", "/usr/bin/python3.12")
        env = clean_env(VIRTUAL_ENV="/home/u/venv")
        c, why = self.py(r, "--torch", "2.15", env=env)
        self.assertIn("-m venv", c)
        self.assertNotIn("apt-get install", c)
        self.assertNotIn("uv python", c)
        self.assertIn("3.12", why)
        rc, out, _ = run(["check", "--json", "--upto", "frameworks"], root=r.path, env=env)
        doc = json.loads(out)
        envs = doc["inventory"]["python_environments"] if "inventory" in doc else doc["python_environments"]
        self.assertIn("/usr/bin/python3.12", [e.get("base_python") for e in envs])


class FourPartVersions(unittest.TestCase):
    """JAX 0.12.0.1 and 0.9.0.1 are on PyPI (https://pypi.org/pypi/jax/json,
    read 2026-12-01); a four-part release is a release."""

    def test_jax_four_part_releases(self):
        for v in ("0.12.0.1", "0.9.0.1"):
            rc, out, err = run(["matrix", "--jax", v], env=clean_env())
            self.assertNotIn("never released", err, v)
            self.assertIn('jax[cuda13]==%s' % v, out, v)

    def test_unreleased_four_part_refused(self):
        rc, out, err = run(["matrix", "--jax", "0.12.0.2"], env=clean_env())
        self.assertIn("never released", err)

    def test_release_list_in_order(self):
        # facts.tsv's list is in version order, four-part releases included
        import re
        from gdtest import REPO
        for line in open(os.path.join(REPO, "src/knowledge/data/facts.tsv"), encoding="utf-8"):
            if line.startswith("jax.releases\t"):
                vs = line.split("\t")[1].split()
        key = [tuple(int(x) for x in v.split(".")) for v in vs]
        self.assertEqual(key, sorted(key))
        self.assertIn("0.12.0.1", vs)
        self.assertTrue(all(re.fullmatch(r"[0-9]+(\.[0-9]+)+", v) for v in vs))


class XidActions(unittest.TestCase):
    def line(self, xid, msg):
        return "NVRM: Xid (PCI:0000:3b:00): %d, pid=1234, name=python3, %s\n" % (xid, msg)

    def test_154_action_from_the_message(self):
        # the catalogue's bucket for 154 is "XID_154": the action is in the line
        for code, words, action in ((2, "Node Reboot Required", "reboot"),
                                    (1, "GPU Reset Required", "reset-gpu"),
                                    (0, "None", "none"),
                                    (4, "Drain and Reset", "drain")):
            d = decoded(explain_text(self.line(
                154, "GPU recovery action changed from 0x3 (Drain P2P) to 0x%x (%s)" % (code, words))))
            self.assertIn("NVIDIA's action: %s (in the message: %s)" % (action, words), d)

    def test_154_without_an_action_keeps_the_catalogue(self):
        d = decoded(explain_text(self.line(154, "GPU recovery action changed")))
        self.assertIn("NVIDIA's action: drain", d)
        self.assertNotIn("in the message", d)

    def test_no_catalogue_action_is_gpudoctors_judgement(self):
        for xid in (162, 165, 167, 172):
            d = decoded(explain_text(self.line(xid, "something")))
            self.assertIn("gpudoctor's judgement", d, xid)
            self.assertNotIn("NVIDIA's action", d, xid)
        # a catalogued XID is NVIDIA's
        d = decoded(explain_text(self.line(79, "GPU has fallen off the bus.")))
        self.assertIn("NVIDIA's action: reboot", d)
        self.assertNotIn("judgement", d)

    def test_45_alone_restart_fabric_manager(self):
        d = decoded(explain_text(self.line(45, "Ch 00000008, errorString CTX SWITCH TIMEOUT")))
        self.assertIn("restart Fabric Manager", d)
        d = decoded(explain_text(self.line(48, "An uncorrectable double bit error")))
        self.assertNotIn("Fabric Manager", d)


if __name__ == "__main__":
    unittest.main()


class GpuNames(unittest.TestCase):
    """An exact name beats a prefix; an ambiguous name lists its candidates
    and asks when the answer depends on which; a name resolves to an id the
    current drivers list (gpu_drivers.tsv last_driver)."""

    def gpu(self, name):
        rc, out, err = run(["matrix", "--json", "--gpu", name], env=clean_env())
        return rc, out, err

    def line(self, name):
        rc, out, err = run(["matrix", "--gpu", name], env=clean_env())
        return out.splitlines()[0] if out else err

    def test_exact_beats_prefix(self):
        self.assertIn("(10de:1b80)", self.line("GTX 1080"))       # not the Ti, 10de:1b06
        self.assertIn("(10de:1b06)", self.line("GTX 1080 Ti"))
        self.assertIn("(10de:1b80)", self.line("NVIDIA GeForce GTX 1080"))
        self.assertIn("(10de:1eb8)", self.line("T4"))             # "Tesla T4"

    def test_h100_is_a_current_id(self):
        # 10de:2336 "H100" was listed only by 525.47.07 and 525.85.05
        line = self.line("H100")
        self.assertNotIn("2336", line)
        self.assertIn("Hopper", line)
        self.assertIn("(10de:2330)", self.line("NVIDIA H100 80GB HBM3"))

    def test_ambiguous_name_lists_candidates(self):
        rc, out, err = run(["matrix", "--gpu", "TITAN X"], env=clean_env())
        self.assertNotEqual(rc, 0)
        self.assertIn("ambiguous", err)
        self.assertIn("10de:1b00", err)     # TITAN X Pascal, CC 6.1
        self.assertIn("10de:17c2", err)     # GTX TITAN X, CC 5.2
        self.assertIn("(10de:1b00)", self.line("TITAN X Pascal"))

    def test_same_capability_candidates_are_noted(self):
        rc, out, err = run(["matrix", "--gpu", "A100"], env=clean_env())
        self.assertEqual(err, "")
        self.assertIn("also matches", out)


class KbAsOf(unittest.TestCase):
    """The knowledge base's as-of date (the oldest "# as-of:" of its tables)
    in --version, in every JSON document and in the markdown report."""

    def oldest(self):
        import glob
        import re
        from gdtest import REPO
        dates = []
        for p in glob.glob(os.path.join(REPO, "src/knowledge/data/*.tsv")):
            for line in open(p, encoding="utf-8"):
                m = re.match(r"# as-of: (\d{4}-\d\d-\d\d)", line)
                if m:
                    dates.append(m.group(1))
        return min(dates)

    def test_version(self):
        rc, out, err = run(["--version"], env=clean_env())
        self.assertIn("knowledge as of %s" % self.oldest(), out)

    def test_json_documents(self):
        d = self.oldest()
        for args in (["matrix", "--json", "--cuda", "12.4"], ["--json", "check", "--upto", "hardware"],
                     ["matrix", "--json", "--kb-info"]):
            rc, out, err = run(args, env=clean_env())
            self.assertEqual(json.loads(out)["kb_as_of"], d, args)
        self.assertEqual(explain_text("hello\n").get("kb_as_of"), d)

    def test_markdown_report(self):
        rc, out, err = run(["check", "--format", "markdown", "--upto", "hardware"], env=clean_env())
        self.assertIn("knowledge as of %s" % self.oldest(), out)


class OneCudnnReading(unittest.TestCase):
    """The frameworks layer takes cuDNN's version from the libraries layer,
    and a cuDNN front library that would load sub-libraries of another
    release is a failure, with the copy that wins and why."""

    SITE = "opt/venv/lib/python3.11/site-packages"

    def root(self, record=True):
        import fixtures
        import fixtures_fw as fw
        r = fixtures.healthy_root(device_id=fixtures.H200_PCI_ID)
        site = fw.add_venv(r)
        fw.add_torch(r, site, archs=("sm_80", "sm_90"))
        fw.add_nvidia_wheel(r, site, "nvidia-cuda-runtime-cu12", "12.4.127", "cuda_runtime",
                            ["libcudart.so.12"])
        fw.add_nvidia_wheel(r, site, "nvidia-cublas-cu12", "12.4.5.8", "cublas",
                            ["libcublasLt.so.12", "libcublas.so.12"],
                            needed={"libcublas.so.12": ["libcublasLt.so.12"]})
        paths = fw.add_cudnn_wheel(r, site, "9.5.1.17", cu="12")
        if not record:
            # a RECORD that does not list the libraries (edited, or another installer's):
            # the frameworks scan cannot tie them to the wheel, the libraries layer can
            d = f"{site}/nvidia_cudnn_cu12-9.5.1.17.dist-info"
            r.write(f"{d}/RECORD", f"{d.split('/')[-1]}/RECORD,,\n")
        return r

    def env(self, **kw):
        e = clean_env(PATH="/usr/bin:/bin", HOME="/nonexistent", VIRTUAL_ENV="/opt/venv")
        e.update({k: str(v) for k, v in kw.items()})
        return e

    def doc(self, r, **kw):
        rc, out, err = run(["--json", "check"], root=r.path, env=self.env(**kw))
        return json.loads(out)

    def torch(self, doc):
        (t,) = [f for f in doc["inventory"]["frameworks"] if f["name"] == "torch"]
        return {l["soname"]: l for l in t["libraries"]}

    def test_one_version_for_the_wheel_cudnn(self):
        doc = self.doc(self.root(record=False))
        libs = self.torch(doc)
        self.assertEqual(libs["libcudnn.so.9"]["version"], "9.5.1.17")
        copies = [c for c in doc["inventory"]["libraries"]
                  if c["path"].endswith("nvidia/cudnn/lib/libcudnn.so.9")]
        self.assertEqual([c["version"] for c in copies], ["9.5.1.17"])
        for f in doc["findings"]:
            self.assertNotIn("unknown version", f["title"], f)

    def test_mixed_sub_libraries_are_a_failure(self):
        import fixtures_fw as fw
        r = self.root(record=False)
        sysdir = fw.add_system_cudnn(r, version="9.1.0")
        doc = self.doc(r, LD_LIBRARY_PATH=sysdir)
        (f,) = [f for f in doc["findings"] if f["id"] == "frameworks.opt_venv.torch.cudnn"]
        self.assertEqual(f["cause"], "cudnn-version-mismatch", json.dumps(f, indent=1))
        self.assertIn("cuDNN 9.5.1 shim", f["title"])
        ev = "\n".join(f["evidence"])
        self.assertIn(f"{sysdir}/libcudnn_graph.so.9.1.0", ev)   # the copy that wins
        self.assertIn("DT_RUNPATH", ev)                              # why: read, not assumed
        self.assertIn("LD_LIBRARY_PATH", ev)
        s = [x for x in doc["findings"] if x["id"] == "frameworks.opt_venv.torch"][0]
        self.assertEqual(s["cause"], "cudnn-version-mismatch")
        # the near miss: the same release through LD_LIBRARY_PATH is not a mismatch
        r = self.root(record=False)
        sysdir = fw.add_system_cudnn(r, version="9.5.1")
        doc = self.doc(r, LD_LIBRARY_PATH=sysdir)
        self.assertNotIn("cudnn-version-mismatch", [x["cause"] for x in doc["findings"]])

    def test_rpath_front_library_keeps_its_sub_libraries(self):
        # today's cuDNN wheels: DT_RPATH $ORIGIN, which outranks LD_LIBRARY_PATH
        import fixtures
        import fixtures_fw as fw
        r = fixtures.healthy_root(device_id=fixtures.H200_PCI_ID)
        site = fw.add_venv(r)
        fw.add_torch(r, site, archs=("sm_80", "sm_90"))
        fw.add_nvidia_wheel(r, site, "nvidia-cuda-runtime-cu12", "12.4.127", "cuda_runtime",
                            ["libcudart.so.12"])
        fw.add_nvidia_wheel(r, site, "nvidia-cublas-cu12", "12.4.5.8", "cublas",
                            ["libcublasLt.so.12", "libcublas.so.12"],
                            needed={"libcublas.so.12": ["libcublasLt.so.12"]})
        sonames = ["libcudnn.so.9"] + [f"{s}.so.9" for s in fw.CUDNN9_SUBS]
        for so in sonames:
            r.shared_lib(f"{site}/nvidia/cudnn/lib/{so}", soname=so, rpath="$ORIGIN")
        fw.add_dist(r, site, "nvidia-cudnn-cu12", "9.5.1.17",
                    record=[f"nvidia/cudnn/lib/{so}" for so in sonames])
        sysdir = fw.add_system_cudnn(r, version="9.1.0")
        doc = self.doc(r, LD_LIBRARY_PATH=sysdir)
        libs = self.torch(doc)
        self.assertEqual(libs["libcudnn_graph.so.9"]["source"], "rpath")
        self.assertNotIn("frameworks.opt_venv.torch.cudnn", [x["id"] for x in doc["findings"]])


class ExplainSourcesAudit(unittest.TestCase):
    """tests/explain/sources-audit.tsv: every explain rule, its source, and the
    line from that source that the rule matches."""

    def rows(self):
        from gdtest import REPO
        out = {}
        for line in open(os.path.join(REPO, "tests/explain/sources-audit.tsv"), encoding="utf-8"):
            if line.startswith("#") or line.startswith("rule\t") or not line.strip():
                continue
            c = line.rstrip("\n").split("\t")
            self.assertEqual(len(c), 4, line)
            self.assertNotIn(c[0], out, "listed twice: " + c[0])
            out[c[0]] = c
        return out

    def rules(self):
        from gdtest import REPO
        out = {}
        for line in open(os.path.join(REPO, "src/knowledge/data/explain.tsv"), encoding="utf-8"):
            if line.startswith("#") or line.startswith("id\t") or not line.strip():
                continue
            c = line.rstrip("\n").split("\t")
            out[c[0]] = c[-1]
        return out

    def test_every_rule_has_its_source_and_a_quote_it_matches(self):
        rows, rules = self.rows(), self.rules()
        self.assertEqual(sorted(rows), sorted(rules), "audit rows and explain rules differ")
        for rule, (r, source, quote, checked) in rows.items():
            self.assertEqual(source, rules[rule], rule)
            self.assertTrue(checked.split()[0] in ("fixture", "search", "docs", "source", "none"), rule)
            if quote == "-":
                self.assertEqual(checked.split()[0], "none", rule)
                continue
            doc = explain_text(quote.replace("\\n", "\n") + "\n")
            self.assertIn(rule, [m["rule"] for m in doc["matches"]], "%s does not match its quote" % rule)

    def test_no_rule_cites_a_thread_of_another_error(self):
        # NVIDIA/nccl#290's log is an unhandled *system* error
        self.assertNotEqual(self.rules()["nccl-unhandled-cuda-error"], "https://github.com/NVIDIA/nccl/issues/290")


class NewerThanTheKb(unittest.TestCase):
    """An installed framework newer than the knowledge base is judged from its
    own files, with a note that the knowledge base predates it."""

    def doc(self, version, cuda="'13.0'"):
        import fixtures
        import fixtures_fw as fw
        r = fixtures.healthy_root(device_id=fixtures.H200_PCI_ID)
        site = fw.add_venv(r)
        fw.add_torch(r, site, version=version, cuda=cuda, archs=("sm_80", "sm_90", "sm_100", "sm_120"))
        fw.add_torch_cu12_wheels(r, site)
        env = clean_env(PATH="/usr/bin:/bin", HOME="/nonexistent", VIRTUAL_ENV="/opt/venv")
        rc, out, err = run(["--json", "check"], root=r.path, env=env)
        d = json.loads(out)
        (s,) = [f for f in d["findings"] if f["id"] == "frameworks.opt_venv.torch"]
        return s

    def test_a_release_newer_than_the_kb(self):
        # torch 2.16 is not in torch.tsv (its newest is 2.15, issue 21's as-of)
        s = self.doc("2.16.0+cu130")
        ev = "\n".join(s["evidence"])
        self.assertIn("predates torch 2.16.0+cu130", ev)
        self.assertIn("its newest torch is 2.15", ev)
        self.assertIn("sm_120", ev)          # its own GPU code, read from its files
        self.assertIn(s["status"], ("ok", "warn", "fail"))

    def test_near_miss_a_known_release(self):
        s = self.doc("2.15.0+cu130")
        self.assertNotIn("predates", "\n".join(s["evidence"]))
        s = self.doc("2.15.1+cu130")        # a patch release of a known line
        self.assertNotIn("predates", "\n".join(s["evidence"]))
