"""gpudoctor's frameworks layer against REAL wheels from PyPI, installed into
throw-away virtualenvs kept in a persistent cache (GD_TEST_CACHE, default
/var/cache/gpudoctor-test: pip cache + venvs), reused across runs.

  python3 tests/integration/test_wheels.py --prepare   # download/install once
  GPUDOCTOR=build/gpudoctor tests/integration/run.sh test_wheels.py

Environments:
  tf-and-cuda   pip install 'tensorflow[and-cuda]'        (current release)
  tf215         pip install 'tensorflow==2.15.*'          (no CUDA wheels: this
                machine's CUDA is 13, TF 2.15 wants libcudart.so.12 ...)
  torch-cuda    pip install torch (the PyPI default, a CUDA wheel) and its deps
  torch-cpu     torch/version.py + METADATA of the macOS arm64 wheel (PyPI's
                only CPU-only torch; download.pytorch.org is not reachable
                here) placed in a site-packages directory: real files of a CPU
                build, though not an installable Linux environment.

What is compared:
  - every library gpudoctor resolves must be the file the real loader picks:
    DT_NEEDED of a requester against `ldd <requester>`; dlopen()ed sonames
    against a probe library compiled into the requester's own directory with
    the requester's RPATH/RUNPATH, which dlopen()s the soname and reports the
    path glibc mapped (same $ORIGIN, same search lists);
  - the verdict against the framework itself on import (no GPU here, so the
    library-loading part: TF's "Could not load dynamic library" lines, torch's
    ImportError or not).
Without network and without a cache every test skips with the reason.
"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CACHE = os.environ.get("GD_TEST_CACHE", "/var/cache/gpudoctor-test")
GPUDOCTOR = os.environ.get("GPUDOCTOR", os.path.join(REPO, "build", "gpudoctor"))
PY = sys.executable

ENVS = {
    "tf-and-cuda": [["tensorflow[and-cuda]"]],
    "tf215": [["tensorflow==2.15.*"]],
    "torch-cuda": [["torch"]],
}


def venv_dir(name):
    return os.path.join(CACHE, "venvs", name)


def pip_env():
    e = dict(os.environ)
    e["PIP_CACHE_DIR"] = os.path.join(CACHE, "pip")
    e["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return e


def prepare_venv(name, log=sys.stderr):
    d = venv_dir(name)
    marker = os.path.join(d, ".gd-ready")
    if os.path.exists(marker):
        return d
    shutil.rmtree(d, True)
    os.makedirs(os.path.dirname(d), exist_ok=True)
    subprocess.run([PY, "-m", "venv", d], check=True)
    for args in ENVS[name]:
        p = subprocess.run([os.path.join(d, "bin", "python3"), "-m", "pip", "install", "-q"] + args,
                           env=pip_env(), capture_output=True, text=True, timeout=3600)
        if p.returncode != 0:
            print(f"{name}: pip install {' '.join(args)} failed:\n{p.stderr[-2000:]}", file=log)
            return None
    with open(marker, "w") as f:
        f.write("ok\n")
    return d


def prepare_torch_cpu(log=sys.stderr):
    """Real torch/version.py + dist-info of PyPI's CPU-only (macOS arm64) torch wheel."""
    site = os.path.join(CACHE, "torch-cpu", "site-packages")
    marker = os.path.join(CACHE, "torch-cpu", ".gd-ready")
    if os.path.exists(marker):
        return site
    dl = os.path.join(CACHE, "torch-cpu", "dl")
    os.makedirs(dl, exist_ok=True)
    p = subprocess.run([PY, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                        "--platform", "macosx_11_0_arm64", "--python-version", "3.11", "-d", dl, "torch"],
                       env=pip_env(), capture_output=True, text=True, timeout=3600)
    if p.returncode != 0:
        print(f"torch-cpu: pip download failed:\n{p.stderr[-2000:]}", file=log)
        return None
    import zipfile
    whl = sorted(glob.glob(os.path.join(dl, "torch-*.whl")))[-1]
    os.makedirs(site, exist_ok=True)
    with zipfile.ZipFile(whl) as z:
        for n in z.namelist():
            if n == "torch/version.py" or (".dist-info/" in n and n.split("/")[-1] in ("METADATA", "RECORD")):
                z.extract(n, site)
    with open(marker, "w") as f:
        f.write(os.path.basename(whl) + "\n")
    return site


def gpudoctor(*args, env=None):
    e = dict(os.environ if env is None else env)
    for k in ("VIRTUAL_ENV", "CONDA_PREFIX", "LD_LIBRARY_PATH"):
        if env is None:
            e.pop(k, None)
    p = subprocess.run([GPUDOCTOR, "--json", "check"] + list(args), capture_output=True, text=True,
                       env=e, timeout=120)
    return json.loads(p.stdout)


def frameworks(doc, site, name):
    return [f for f in doc["inventory"]["frameworks"] if f["name"] == name and f["site_dir"] == site]


def ldd(path, env=None):
    """soname -> resolved path (None for 'not found') as the real loader says."""
    p = subprocess.run(["ldd", path], capture_output=True, text=True, env=env)
    out = {}
    for line in p.stdout.splitlines():
        line = line.strip()
        if "=>" not in line:
            continue
        so, rest = [s.strip() for s in line.split("=>", 1)]
        out[so] = None if rest.startswith("not found") else os.path.realpath(rest.split(" (")[0])
    return out


PROBE_C = r"""
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
/* dlopen(name) from this object (whose RPATH/RUNPATH and $ORIGIN are the requester's) */
const char *gd_probe_dlopen(const char *name)
{
	static char out[4096];
	struct link_map *lm = NULL;
	void *h = dlopen(name, RTLD_LAZY | RTLD_LOCAL | RTLD_NOLOAD);
	if (!h)
		h = dlopen(name, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		snprintf(out, sizeof(out), "ERROR %s", dlerror());
		return out;
	}
	dlinfo(h, RTLD_DI_LINKMAP, &lm);
	snprintf(out, sizeof(out), "%s", lm && lm->l_name ? lm->l_name : "?");
	return out;
}
"""


def real_dlopen(requester, sonames, env=None, one_process=False):
    """Which file glibc maps for dlopen(soname) called from an object with
    requester's directory and RPATH/RUNPATH.  Returns soname -> realpath or
    'ERROR ...'.  The probe lives beside the requester while it runs."""
    rp = subprocess.run(["readelf", "-d", requester], capture_output=True, text=True).stdout
    flags = []
    for line in rp.splitlines():
        if "(RPATH)" in line:
            flags += ["-Wl,--disable-new-dtags", "-Wl,-rpath," + line.split("[", 1)[1].rstrip("]")]
        if "(RUNPATH)" in line:
            flags += ["-Wl,--enable-new-dtags", "-Wl,-rpath," + line.split("[", 1)[1].rstrip("]")]
    scratch = tempfile.mkdtemp(prefix="gd-probe-")
    probe = os.path.join(os.path.dirname(requester), "gd_probe_dlopen.so")
    try:
        src = os.path.join(scratch, "p.c")
        with open(src, "w") as f:
            f.write(PROBE_C)
        subprocess.run(["gcc", "-shared", "-fPIC", "-o", probe, src, "-ldl"] + flags, check=True)
        code = ("import ctypes, json, sys\n"
                "lib = ctypes.CDLL(sys.argv[1])\n"
                "lib.gd_probe_dlopen.restype = ctypes.c_char_p\n"
                "print(json.dumps({n: lib.gd_probe_dlopen(n.encode()).decode() for n in sys.argv[2:]}))\n")
        out = {}
        # one process per soname, so that what one load maps cannot satisfy the next;
        # except cuDNN's sub-libraries, which the shim loads into one process in turn
        # (libcudnn_graph first: the engines' DT_NEEDED on it is then already loaded)
        groups = [list(sonames)] if one_process else [[so] for so in sonames]
        for g in groups:
            p = subprocess.run([PY, "-c", code, probe] + g, capture_output=True, text=True, env=env)
            for so, v in json.loads(p.stdout).items():
                out[so] = v if v.startswith("ERROR") else os.path.realpath(v)
        return out
    finally:
        if os.path.exists(probe):
            os.unlink(probe)
        shutil.rmtree(scratch, True)


def real(p):
    return os.path.realpath(p) if p else None


class Wheels(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(GPUDOCTOR):
            raise unittest.SkipTest(f"{GPUDOCTOR} not built")

    def need(self, name):
        d = venv_dir(name)
        if not os.path.exists(os.path.join(d, ".gd-ready")):
            d = prepare_venv(name, log=open(os.devnull, "w")) if os.environ.get("GD_PREPARE") else None
        if not d:
            self.skipTest(f"no cached venv {name} in {CACHE} (run: python3 {__file__} --prepare)")
        site = glob.glob(os.path.join(d, "lib", "python3.*", "site-packages"))[0]
        return d, site

    def check_resolution(self, fw, env=None):
        """Every resolved library against the real loader."""
        by_req = {}
        for l in fw["libraries"]:
            if l["role"] == "driver":
                continue
            by_req.setdefault((l["requester"], l["how"]), []).append(l)
        checked = 0
        for (req, how), libs in by_req.items():
            if not req:
                continue
            if how == "needed":
                real_map = ldd(req, env=env)
                for l in libs:
                    if l["soname"] in real_map:
                        self.assertEqual(real(l["path"]), real_map[l["soname"]],
                                         f"{l['soname']} from {req}: gpudoctor {l['path']}")
                        checked += 1
            else:
                real_map = real_dlopen(req, [l["soname"] for l in libs], env=env,
                                       one_process=all(l["role"] == "cudnn-sub" for l in libs))
                for l in libs:
                    got = real_map[l["soname"]]
                    if got.startswith("ERROR") and "cannot open shared object file" in got and \
                            l["soname"] in got.split(":")[0]:
                        self.assertIsNone(l["path"], f"{l['soname']}: glibc says {got}")
                    elif got.startswith("ERROR libcuda.so.1:"):
                        # a dependency on the driver: judged by the driver layer, not here
                        self.assertIsNotNone(l["path"], f"{l['soname']}: glibc says {got}")
                    elif got.startswith("ERROR"):
                        # found, but a dependency is missing
                        self.assertTrue(l["path"] is None or l["missing_dependency"],
                                        f"{l['soname']}: glibc says {got}; gpudoctor {json.dumps(l)}")
                    else:
                        self.assertEqual(real(l["path"]), got, f"{l['soname']} from {req}")
                    checked += 1
        return checked

    def test_tensorflow_and_cuda(self):
        d, site = self.need("tf-and-cuda")
        doc = gpudoctor("--site-packages", site)
        (tf,) = frameworks(doc, site, "tensorflow")
        self.assertEqual(tf["is_cuda_build"], True)
        # no driver here: libcuda.so.1 is missing, so the prediction is the CPU fallback
        missing = [l["soname"] for l in tf["libraries"] if l["required"] and l["role"] != "cudnn-sub"
                   and (not l["path"] or l["missing_dependency"])]
        self.assertEqual(tf["prediction"], "cpu" if missing else "gpu", json.dumps(tf, indent=1))
        self.assertGreater(self.check_resolution(tf), 5)
        for l in tf["libraries"]:
            if l["role"] not in ("driver",) and l["path"]:
                self.assertIn("/nvidia/", l["path"], l)

    def test_tensorflow_own_dso_loader_agrees(self):
        """TensorFlow's own loader, not a model of it: after a full `import tensorflow`, call
        tsl::internal::DsoLoader::TryDlopenCUDALibraries() -- what TF runs before it registers
        GPUs ("Cannot dlopen some GPU libraries ... Skipping registering GPU devices") -- from
        libtensorflow_framework.so.2 through ctypes, and compare every library it opened or
        could not open with gpudoctor's prediction.  No GPU is needed for this part."""
        d, site = self.need("tf-and-cuda")
        fwlib = os.path.join(site, "tensorflow", "libtensorflow_framework.so.2")
        sym = "_ZN3tsl8internal9DsoLoader22TryDlopenCUDALibrariesEv"
        if sym not in subprocess.run(["nm", "-D", "--defined-only", fwlib], capture_output=True,
                                     text=True).stdout:
            self.skipTest(f"{fwlib} does not define {sym} (another TF layout)")
        code = (
            "import ctypes, os, sys\n"
            "import tensorflow\n"
            "fw = ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)\n"
            "f = getattr(fw, sys.argv[2]); f.restype = None; f.argtypes = [ctypes.c_void_p]\n"
            "status = (ctypes.c_uint64 * 8)()\n"
            "f(ctypes.addressof(status))  # absl::Status is returned through a hidden pointer\n"
            "for l in open('/proc/self/maps'):\n"
            "    p = l.split()[-1] if len(l.split()) >= 6 else ''\n"
            "    if '/nvidia/' in p: print('MAPPED', os.path.realpath(p))\n")
        e = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="0", TF_CPP_MAX_VLOG_LEVEL="2")
        for k in ("LD_LIBRARY_PATH", "CUDA_VISIBLE_DEVICES"):
            e.pop(k, None)
        p = subprocess.run([os.path.join(d, "bin", "python3"), "-c", code, fwlib, sym],
                           capture_output=True, text=True, env=e, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        opened, failed = set(), set()
        for line in p.stderr.splitlines():
            if "Successfully opened dynamic library " in line:
                opened.add(line.rsplit(" ", 1)[1].strip())
            elif "Could not load dynamic library '" in line:
                failed.add(line.split("'")[1])
        mapped = {os.path.basename(m): m for m in
                  (l.split(" ", 1)[1] for l in p.stdout.splitlines() if l.startswith("MAPPED "))}
        self.assertGreaterEqual(len(opened | failed), 6, p.stderr[-3000:])
        doc = gpudoctor("--site-packages", site)
        (tf,) = frameworks(doc, site, "tensorflow")
        ours = {l["soname"]: l for l in tf["libraries"]}
        for so in sorted(opened | failed):
            self.assertIn(so, ours, f"TF's loader asked for {so}; gpudoctor did not model it")
            l = ours[so]
            if so in opened:
                self.assertIsNotNone(l["path"], f"TF opened {so}; gpudoctor says not found")
                self.assertEqual(real(l["path"]), mapped.get(so), so)
            else:
                self.assertIsNone(l["path"], f"TF could not load {so}; gpudoctor says {l['path']}")
        # and TF 2.21.0 as published: its RUNPATH lacks nvidia/cusolver/lib (found 2026-11-30)
        if tf["version"] == "2.21.0":
            self.assertIn("libcusolver.so.11", failed)
            self.assertTrue(ours["libcusolver.so.11"]["unreached"])

    def test_tensorflow_215_on_cuda13(self):
        d, site = self.need("tf215")
        doc = gpudoctor("--site-packages", site)
        (tf,) = frameworks(doc, site, "tensorflow")
        self.assertEqual(tf["cuda_build"], "12.2")
        self.assertEqual(tf["prediction"], "cpu")
        missing = sorted(l["soname"] for l in tf["libraries"] if l["required"] and not l["path"]
                         and l["role"] != "driver")
        self.assertIn("libcudart.so.12", missing)
        self.assertGreater(self.check_resolution(tf), 5)
        # what TF itself says: no GPU, and (if it gets that far) the libraries it could not load
        p = subprocess.run([os.path.join(d, "bin", "python3"), "-c",
                            "import tensorflow as tf; print(len(tf.config.list_physical_devices('GPU')))"],
                           capture_output=True, text=True, timeout=600)
        self.assertEqual(p.stdout.strip().splitlines()[-1], "0", p.stderr[-3000:])
        said = sorted(set(l.split("'")[1] for l in p.stderr.splitlines()
                          if "Could not load dynamic library '" in l))
        for so in said:
            self.assertIn(so, missing + ["libcuda.so.1"], f"TF said it could not load {so}")

    def test_torch_cuda(self):
        d, site = self.need("torch-cuda")
        doc = gpudoctor("--site-packages", site)
        (t,) = frameworks(doc, site, "torch")
        self.assertEqual(t["is_cuda_build"], True)
        self.assertTrue(t["archs"], "no archs read from libtorch_cuda.so's fatbin")
        self.assertGreater(self.check_resolution(t), 3)
        # the same with LD_LIBRARY_PATH pointing at this machine's CUDA 13 / cuDNN
        e = dict(os.environ, LD_LIBRARY_PATH="/usr/local/cuda/lib64")
        doc2 = gpudoctor("--site-packages", site, env=e)
        (t2,) = frameworks(doc2, site, "torch")
        self.check_resolution(t2, env=e)
        p = subprocess.run([os.path.join(d, "bin", "python3"), "-c",
                            "import torch; print(torch.version.cuda, torch.cuda.is_available())"],
                           capture_output=True, text=True, timeout=600)
        if t["prediction"] == "broken":
            self.assertNotEqual(p.returncode, 0, p.stdout)
        else:
            self.assertEqual(p.returncode, 0, p.stderr[-3000:])
            self.assertEqual(p.stdout.split()[0], t["cuda_build"])

    def test_torch_cpu_metadata(self):
        site = os.path.join(CACHE, "torch-cpu", "site-packages")
        if not os.path.exists(os.path.join(CACHE, "torch-cpu", ".gd-ready")):
            self.skipTest(f"no cached CPU torch files in {CACHE} (run: python3 {__file__} --prepare)")
        doc = gpudoctor("--site-packages", site)
        (t,) = frameworks(doc, site, "torch")
        self.assertEqual(t["is_cuda_build"], False)
        self.assertEqual(t["flavour"], "cpu")
        self.assertEqual(t["prediction"], "cpu")


if __name__ == "__main__":
    if "--prepare" in sys.argv:
        ok = True
        for name in ENVS:
            print(f"preparing {name} ...", flush=True)
            ok = prepare_venv(name) is not None and ok
        ok = prepare_torch_cpu() is not None and ok
        sys.exit(0 if ok else 1)
    unittest.main()
