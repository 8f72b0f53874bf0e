"""Hostile fixture trees: roots built to make gpudoctor leave the root, hang,
print a host file, run a pasted name, or forge report lines.

Each builder returns (Root, Plant).  A Plant is a directory OUTSIDE the
root (tempfile) holding files with a unique marker string; a hostile tree
points at it with links that the kernel would follow out of the root.  The
tests (test_hostile.py) assert that no byte of the marker appears in any
output.

    python3 tests/e2e/hostile.py BINARY [BINARY ...]
prints, for every hostile case, what each binary answers (the before/after
record of the closing note).
"""
import os
import shutil
import subprocess
import sys
import tempfile
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import Root, clean_env, GPUDOCTOR  # noqa: E402
import fixtures  # noqa: E402
import fixtures_fw  # noqa: E402

UP = "../" * 24     # more '..' than any fixture path is deep: climbs to / on the host


class Plant:
    """Files outside the root that must never be read."""

    def __init__(self):
        self.marker = "GDPLANT" + uuid.uuid4().hex[:12]
        self.path = tempfile.mkdtemp(prefix="gd-plant-")
        os.chmod(self.path, 0o755)
        import atexit
        atexit.register(shutil.rmtree, self.path, True)
        self.write("version", "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  "
                   f"{self.marker}\nGCC version: {self.marker}\n")
        self.write("shadow", f"root:{self.marker}:19000:0:99999:7:::\n")
        self.write("ld.so.conf", f"/{self.marker}\n")
        site = "venv/lib/python3.11/site-packages"
        self.write("venv/pyvenv.cfg", "home = /usr/bin\nversion = 3.11.2\n")
        self.write("venv/bin/python3", "", 0o755)
        self.write(f"{site}/torch-2.5.1.dist-info/METADATA",
                   f"Metadata-Version: 2.1\nName: torch\nVersion: 2.5.1+{self.marker}\n")
        self.write(f"{site}/torch-2.5.1.dist-info/RECORD", "")
        self.write(f"{site}/torch/version.py", f"__version__ = '2.5.1+{self.marker}'\ncuda = '12.4'\n")
        os.makedirs(os.path.join(self.path, "lib"), exist_ok=True)
        # a real ELF whose soname and path carry the marker
        src = os.path.join(self.path, "x.c")
        with open(src, "w") as f:
            f.write("int gd_plant(void) { return 1; }\n")
        for so in ("libcuda.so.1", "libc.so.6", "libcudart.so.13"):
            subprocess.run(["gcc", "-shared", "-fPIC", "-o", os.path.join(self.path, "lib", so), src,
                            f"-Wl,-soname,{so}"], check=True, capture_output=True)

    def write(self, rel, text, mode=None):
        full = os.path.join(self.path, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w") as f:
            f.write(text)
        if mode is not None:
            os.chmod(full, mode)
        return full

    def rel(self, name):
        """A relative link target that climbs out of any root to this file."""
        return UP + os.path.join(self.path, name).lstrip("/")

    def leaked(self, text):
        """The marker is in the plant's files only (its path may be shown:
        it is the text of a link in the tree, not a host file's content)."""
        return self.marker in text


def _chain(r, at, n, final_target):
    """at -> c/l1 -> c/l2 ... : n links in all, the last pointing at final_target."""
    d = "hostile-chain/" + at.replace("/", "_")
    depth = at.count("/")
    first = "../" * depth + f"{d}/l1"
    if n == 1:
        r.symlink(at, final_target)
        return
    r.symlink(at, first)
    for i in range(1, n - 1):
        r.symlink(f"{d}/l{i}", f"l{i + 1}")
    r.symlink(f"{d}/l{n - 1}", final_target if final_target.startswith("/") else "../../" + final_target)


TARGETS = {
    # path in the root: the plant's file it leads to
    "proc/driver/nvidia/version": "version",
    "etc/ld.so.conf": "ld.so.conf",
    "usr/lib/x86_64-linux-gnu": "lib",
    "usr/local/cuda": ".",
    "opt/venv": "venv",
}


def chain_root(n, plant):
    """Every target path is a chain of n links whose last link climbs out
    with '..' (inside a root '..' stops at the root: a missing file)."""
    r = fixtures.healthy_root()
    for at, name in TARGETS.items():
        r.remove(at)
        _chain(r, at, n, plant.rel(name))
    return r


def absolute_root(plant):
    """Absolute links straight to the plant: inside the root, a missing file."""
    r = fixtures.healthy_root()
    for at, name in TARGETS.items():
        r.remove(at)
        r.symlink(at, os.path.join(plant.path, name))
    return r


def dotdot_root(plant):
    """'..' past the root in link targets that are not chains."""
    r = fixtures.healthy_root()
    for at, name in TARGETS.items():
        r.remove(at)
        r.symlink(at, plant.rel(name))
    return r


def loop_root(plant):
    """Links that loop inside the root: a -> b -> a, and a link to itself
    under a path that climbs to the host's copy of the root."""
    r = fixtures.healthy_root()
    for i, (at, name) in enumerate(TARGETS.items()):
        r.remove(at)
        if i % 2:
            r.symlink(at, os.path.basename(at))
        else:
            r.symlink(at, f"/hostile-loop/{i}a")
            r.symlink(f"hostile-loop/{i}a", f"{i}b")
            r.symlink(f"hostile-loop/{i}b", f"{i}a")
    return r


CASES = {
    "chain-39": lambda p: chain_root(39, p),
    "chain-40": lambda p: chain_root(40, p),
    "chain-41": lambda p: chain_root(41, p),
    "chain-42": lambda p: chain_root(42, p),
    "absolute": absolute_root,
    "dotdot": dotdot_root,
    "loop": loop_root,
}

COMMANDS = [
    ["-v", "check", "--no-load"],
    ["--json", "check", "--no-load"],
    ["-v", "check"],
    ["--load-from-root", "--json", "check"],    # loading allowed: still nothing from outside
    ["which", "libc.so.6"],
    ["which", "libcuda.so.1"],
    ["--json", "which", "libcudart.so.13"],
    ["matrix", "--solve"],
]


SHOW = ("/proc/driver/nvidia/version", "ld.so.conf", "ELOOP", "Too many levels")


def run(binary, root, args, env=None, timeout=60):
    cmd = [binary, "--root", root.path] + args
    try:
        p = subprocess.run(cmd, capture_output=True, env=env or clean_env(), timeout=timeout)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", "", ""


def main(binaries):
    plant = Plant()
    for name, build in CASES.items():
        root = build(plant)
        for args in COMMANDS:
            for b in binaries:
                rc, out, err = run(b, root, args)
                both = out + err
                leak = [ln.strip() for ln in both.splitlines() if plant.leaked(ln)]
                print(f"{name:9} {' '.join(args):28} {b}: rc={rc} "
                      f"{'LEAKED ' + str(len(leak)) + ' lines' if leak else 'no leak'}")
                shown = leak[:2] + [ln.strip() for ln in both.splitlines()
                                    if any(k in ln for k in SHOW) and not plant.leaked(ln)][:3]
                if args[0] == "which":
                    shown = both.splitlines()[:2]
                for ln in shown:
                    print(f"    | {ln[:150]}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["build/gpudoctor"])
