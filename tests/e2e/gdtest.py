"""Shared helpers for the end-to-end tests: run gpudoctor, build fixture roots.

A fixture root is a directory laid out like a machine (proc/, sys/, dev/,
etc/, usr/ ...) that gpudoctor reads through --root.  Shared libraries in
it are real ELF files compiled here with the SONAME, NEEDED, RPATH and
RUNPATH a test chooses (Root.shared_lib).

    r = Root()                      # a fresh temporary tree
    r.write("proc/modules", "nvidia 1 0 - Live 0x0\n")
    rep = check(r)                  # gpudoctor --root r --json check, parsed
    assert_cause(self, rep, "nvidia-module-not-loaded")
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
GPUDOCTOR = os.environ.get("GPUDOCTOR", os.path.join(REPO, "build", "gpudoctor"))
BUILD = os.environ.get("BUILD", os.path.join(REPO, "build"))
CC = os.environ.get("CC", "gcc").split()[0] if os.environ.get("CC") else "gcc"
KEEP = os.environ.get("GD_KEEP_FIXTURES")

import causerec  # noqa: E402  (records the cause ids gpudoctor prints: catalogue_triggered.py)
causerec.install(GPUDOCTOR)

_lib_cache = {}


def run(args, env=None, root=None, timeout=60, extra_env=None):
    """Run gpudoctor; returns (returncode, stdout, stderr)."""
    cmd = [GPUDOCTOR]
    if root is not None:
        # the fixtures' libraries are our own fakes: load them (a --root other
        # than / implies --no-load otherwise)
        cmd += ["--root", str(root), "--load-from-root"]
    cmd += list(args)
    e = dict(os.environ if env is None else env)
    if extra_env:
        e.update(extra_env)
    p = subprocess.run(cmd, capture_output=True, text=True, env=e, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def explain_cpu(data, exe=None, stdin=False, timeout=120):
    """`explain --json --no-live` on data (bytes), given as a file or on stdin:
    (exit status, stdout bytes, CPU seconds of that process alone).  wait4 reaps
    it, so its own rusage counts and no other child's; the data goes through a
    temporary file in both cases, so a large input and the output never
    deadlock on pipes; past timeout seconds the process is killed."""
    import threading
    with tempfile.NamedTemporaryFile("wb", suffix=".log", delete=False) as f:
        f.write(data)
        name = f.name
    try:
        with open(name, "rb") as src:
            p = subprocess.Popen([exe or GPUDOCTOR, "explain", "--json", "--no-live", "-" if stdin else name],
                                 stdin=src if stdin else subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, env=clean_env())
            killer = threading.Timer(timeout, p.kill)
            killer.start()
            try:
                out = p.stdout.read()
                _, status, ru = os.wait4(p.pid, 0)
            finally:
                killer.cancel()
                p.stdout.close()
    finally:
        os.unlink(name)
    return os.waitstatus_to_exitcode(status), out, ru.ru_utime + ru.ru_stime


def matched_rules(doc):
    """The rule ids of an explain --json document's matches, in its order."""
    return [m["rule"] for m in (doc or {}).get("matches", [])]


def clean_env(**kw):
    """An environment without the variables that change what gpudoctor sees."""
    e = {k: v for k, v in os.environ.items()
         if k not in ("LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES",
                      "CUDA_HOME", "CUDA_PATH", "VIRTUAL_ENV", "CONDA_PREFIX",
                      "CUDA_LAUNCH_BLOCKING", "CUDA_INJECTION64_PATH", "LD_PRELOAD",
                      "PYTHONPATH", "NO_COLOR")}
    e.update({k: str(v) for k, v in kw.items()})
    if "LD_PRELOAD" in kw:
        # An ASan build refuses to start when a preload comes before its runtime;
        # the tests preload on purpose (gpudoctor reads LD_PRELOAD from its environment).
        e["ASAN_OPTIONS"] = ":".join(x for x in (e.get("ASAN_OPTIONS"), "verify_asan_link_order=0") if x)
    return e


def watch_record(a):
    """An active= record of watch's state file (docs/watch-state.md, version 2)
    from the short form "CAUSE GPU STATUS TITLE" (GPU an index, a PCI address
    or "-"); a record already in key=value form is returned as it is."""
    if a.startswith("cause="):
        return a
    parts = a.split(" ", 3)
    rec = "cause=" + parts[0]
    if len(parts) > 2:
        rec += " status=" + parts[2]
    if len(parts) > 1 and parts[1] != "-":
        rec += (" pci=" if ":" in parts[1] else " gpu=") + parts[1]
    if len(parts) > 3:
        rec += " title=" + parts[3]
    return rec


def watch_legacy(rec):
    """The short form "CAUSE GPU STATUS TITLE" of an active= record."""
    if not rec.startswith("cause="):
        return rec
    head, _, title = rec.partition(" title=")
    f = dict(kv.split("=", 1) for kv in head.split(" ") if "=" in kv)
    gpu = f.get("gpu") or f.get("pci") or "-"
    return f"{f.get('cause')} {gpu} {f.get('status')} {title}"


def check(root, *args, env=None, expect_rc=None, tc=None):
    """gpudoctor --root ROOT --json check ARGS; returns the parsed document.

    The document carries the exit status as doc["_rc"]."""
    rc, out, err = run(["--json", "check"] + list(args), env=env if env is not None else clean_env(),
                       root=root.path if isinstance(root, Root) else root)
    try:
        doc = json.loads(out)
    except ValueError as ex:
        raise AssertionError(f"gpudoctor printed no JSON (rc={rc}): {ex}\nstdout:\n{out}\nstderr:\n{err}")
    doc["_rc"] = rc
    doc["_stderr"] = err
    if expect_rc is not None and rc != expect_rc:
        raise AssertionError(f"exit status {rc}, expected {expect_rc}\n{out}\n{err}")
    return doc


def causes(doc):
    return {f["cause"] for f in doc["findings"] if f.get("cause")}


def explain_causes(text):
    """The stack causes `explain --json --no-live` names for a log text, in order."""
    import json as _json
    import subprocess as _sp
    p = _sp.run([GPUDOCTOR, "explain", "--json", "--no-live", "-"], input=text.encode(),
                capture_output=True, env=clean_env(), timeout=60)
    doc = _json.loads(p.stdout)
    return [c["cause"] for m in doc["matches"] if m["class"] == "cause" for c in m["causes"]]


def finding(doc, cause=None, fid=None):
    for f in doc["findings"]:
        if (cause is None or f.get("cause") == cause) and (fid is None or f["id"] == fid):
            return f
    return None


def layer(doc, lid):
    for l in doc["layers"]:
        if l["id"] == lid:
            return l
    raise KeyError(lid)


def assert_cause(tc, doc, cause, status=None):
    f = finding(doc, cause=cause)
    tc.assertIsNotNone(f, f"cause {cause} not reported; causes: {sorted(causes(doc))}\n"
                          + json.dumps(doc["findings"], indent=1))
    causerec.record({cause})
    if status:
        tc.assertEqual(f["status"], status, json.dumps(f, indent=1))
    tc.assertTrue(f["evidence"], f"finding {f['id']} has no evidence")
    tc.assertTrue(f["fix"], f"finding {f['id']} has no fix")
    return f


def assert_no_cause(tc, doc, cause):
    f = finding(doc, cause=cause)
    tc.assertIsNone(f, f"cause {cause} reported unexpectedly:\n" + json.dumps(f, indent=1))


class Root:
    """A fixture machine in a temporary directory."""

    def __init__(self, path=None):
        self.path = path or tempfile.mkdtemp(prefix="gd-root-")
        # readable by everyone: some tests run gpudoctor as nobody
        os.chmod(self.path, 0o755)
        if not KEEP:
            import atexit
            atexit.register(shutil.rmtree, self.path, True)

    def p(self, rel):
        """The host path of rel inside the tree.

        Refuses a path whose directory leads out of the tree (through an
        absolute symlink inside it, say /usr/local/cuda -> /usr/local/cuda-13.0):
        a fixture must never write to the machine it runs on."""
        full = os.path.join(self.path, rel.lstrip("/"))
        parent = os.path.realpath(os.path.dirname(full))
        top = os.path.realpath(self.path)
        if parent != top and not parent.startswith(top + os.sep):
            raise AssertionError(f"fixture path {rel!r} leads out of the root ({parent})")
        return full

    def mkdir(self, rel):
        os.makedirs(self.p(rel), exist_ok=True)
        return self.p(rel)

    def write(self, rel, content="", mode=None):
        full = self.p(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "wb" if isinstance(content, bytes) else "w") as f:
            f.write(content)
        if mode is not None:
            os.chmod(full, mode)
        return full

    def symlink(self, rel, target):
        full = self.p(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if os.path.lexists(full):
            os.unlink(full)
        os.symlink(target, full)
        return full

    def remove(self, rel):
        full = self.p(rel)
        if os.path.isdir(full) and not os.path.islink(full):
            shutil.rmtree(full)
        elif os.path.lexists(full):
            os.unlink(full)

    def chardev(self, rel, major, minor, mode=0o666):
        """A real character device node (needs root); returns False if impossible."""
        full = self.p(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        if os.path.lexists(full):
            os.unlink(full)
        try:
            os.mknod(full, mode | 0o020000, os.makedev(major, minor))
            os.chmod(full, mode)
            return True
        except (PermissionError, OSError):
            return False

    def shared_lib(self, rel, soname=None, needed=(), rpath=None, runpath=None,
                   source="int gd_fixture_symbol(void) { return 42; }\n", cflags=()):
        """Compile a real shared object at rel with the given dynamic entries.

        needed: sonames; each must be satisfiable at link time, so stub
        libraries with those sonames are built in a scratch dir first.
        rpath/runpath: strings (colon lists) written as DT_RPATH / DT_RUNPATH.
        """
        full = self.p(rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        key = (soname, tuple(needed), rpath, runpath, source, tuple(cflags))
        if key in _lib_cache and os.path.exists(_lib_cache[key]):
            shutil.copyfile(_lib_cache[key], full)
            return full
        scratch = tempfile.mkdtemp(prefix="gd-lib-")
        try:
            src = os.path.join(scratch, "lib.c")
            with open(src, "w") as f:
                f.write(source)
            args = [CC, "-shared", "-fPIC", "-o", full, src] + list(cflags)
            if soname:
                args.append(f"-Wl,-soname,{soname}")
            if needed:
                for i, n in enumerate(needed):
                    stub = os.path.join(scratch, n)
                    subprocess.run([CC, "-shared", "-fPIC", "-o", stub, "-x", "c", "/dev/null",
                                    f"-Wl,-soname,{n}"], check=True, capture_output=True)
                    args.append(stub)
                args.insert(1, "-Wl,--no-as-needed")
            if rpath is not None:
                args += ["-Wl,--disable-new-dtags", f"-Wl,-rpath,{rpath}"]
            if runpath is not None:
                args += ["-Wl,--enable-new-dtags", f"-Wl,-rpath,{runpath}"]
            subprocess.run(args, check=True, capture_output=True, text=True)
        finally:
            shutil.rmtree(scratch, True)
        cache = os.path.join(tempfile.gettempdir(), f"gd-libcache-{os.getpid()}")
        os.makedirs(cache, exist_ok=True)
        cached = os.path.join(cache, f"{len(_lib_cache)}.so")
        shutil.copyfile(full, cached)
        _lib_cache[key] = cached
        return full


def have_gpu():
    return os.path.exists("/dev/nvidiactl") and (shutil.which("nvidia-smi") is not None)


class GDTestCase(unittest.TestCase):
    """Base class: fails early with a clear message when the binary is missing."""

    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GPUDOCTOR):
            raise unittest.SkipTest(f"{GPUDOCTOR} not built")
