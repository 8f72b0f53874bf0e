"""conda environments (issue 19): conda's CUDA packages in the libraries layer, with the
package and channel behind each library, and conda-cuda-mixed when an environment also
gets the same libraries from pip nvidia-* wheels or the system toolkit.
"""
import json
import unittest

import fixtures
import fixtures_env as env_fx
import fixtures_fw as fw
import fixtures_libs
from gdtest import GDTestCase, assert_cause, assert_no_cause, check, clean_env, finding

PREFIX = "/opt/conda/envs/tf"


def env(**kw):
    e = clean_env(PATH="/usr/bin:/bin", HOME="/nonexistent", CONDA_PREFIX=PREFIX)
    e.update({k: str(v) for k, v in kw.items()})
    return e


def tf_in_conda(conda_pkgs=(env_fx.CONDA_CUDNN,), wheels=True):
    """TensorFlow 2.15 from pip ([and-cuda]: nvidia-cudnn-cu12 8.9.4.25 and friends) in a
    conda env that also has conda packages: the classic mix (tensorflow/tensorflow#60913)."""
    r = fixtures.healthy_root()
    site = env_fx.conda_env(r, PREFIX.lstrip("/"))
    for name, version, build, libs in conda_pkgs:
        env_fx.add_conda_pkg(r, PREFIX.lstrip("/"), name, version, build, libs)
    fw.add_tensorflow(r, site)
    if wheels:
        fw.add_cuda12_wheels(r, site)
    return r


def copy_of(doc, path):
    for c in doc["inventory"]["libraries"]:
        if c["path"] == path:
            return c
    raise AssertionError(f"no copy {path}: {[c['path'] for c in doc['inventory']['libraries']]}")


class Conda(GDTestCase):
    def test_conda_packages_named_in_the_libraries_layer(self):
        r = tf_in_conda(wheels=False)
        doc = check(r, env=env())
        envs = doc["inventory"]["libraries_loader"]["conda_environments"]
        tf = [e for e in envs if e["prefix"] == PREFIX]
        self.assertEqual(len(tf), 1, envs)
        names = {p["name"]: p for p in tf[0]["packages"]}
        self.assertIn("cudnn", names)
        self.assertEqual(names["cudnn"]["channel"], "conda-forge")
        self.assertNotIn("python", names)           # not a CUDA package
        # and in the frameworks layer, beside the framework of that environment
        f = finding(doc, fid=[x["id"] for x in doc["findings"] if x["layer"] == "frameworks"
                              and "in conda environment " + PREFIX in " ".join(x["evidence"])][0])
        self.assertIn("conda CUDA packages in this environment: conda-forge::cudnn=8.9.7.29",
                      "\n".join(f["evidence"]))
        c = copy_of(doc, PREFIX + "/lib/libcudnn.so.8")
        self.assertEqual(c["origin"], "conda")
        self.assertEqual(c["conda_package"], "conda-forge::cudnn=8.9.7.29")

    def test_healthy_conda_env_is_green(self):
        # conda's cudatoolkit and cuDNN alone, the way conda installs them
        r = fixtures.healthy_root()
        env_fx.conda_env(r, PREFIX.lstrip("/"))
        env_fx.add_conda_pkg(r, PREFIX.lstrip("/"), *env_fx.CONDA_CUDATOOLKIT)
        env_fx.add_conda_pkg(r, PREFIX.lstrip("/"), *env_fx.CONDA_CUDNN)
        doc = check(r, env=env())
        bad = [f for f in doc["findings"] if f["status"] in ("fail", "warn")]
        self.assertEqual(bad, [], json.dumps(bad, indent=1))
        self.assertEqual(copy_of(doc, PREFIX + "/lib/libcudart.so.11.0")["conda_package"],
                         "conda-forge::cudatoolkit=11.8.0")

    def test_conda_cudnn_mixed_with_pip_wheel(self):
        doc = check(tf_in_conda(), env=env())
        f = assert_cause(self, doc, "conda-cuda-mixed", "fail")
        ev = "\n".join(f["evidence"])
        self.assertIn("conda-forge::cudnn=8.9.7.29", ev)
        self.assertIn("nvidia-cudnn-cu12", ev)
        # which copy the framework takes: its RUNPATH finds the wheel's
        self.assertIn("tensorflow 2.15.0 takes libcudnn.so.8: " + PREFIX +
                      "/lib/python3.11/site-packages/nvidia/cudnn/lib/libcudnn.so.8 (via runpath)", ev)
        # the framework came from pip with its wheels: remove conda's packages, with conda
        self.assertIn("conda remove -p /opt/conda/envs/tf --force cudnn", f["fix"])

    def test_evidence_follows_ld_library_path(self):
        # TensorFlow's old conda recipe put $CONDA_PREFIX/lib on LD_LIBRARY_PATH
        # (etc/conda/activate.d/env_vars.sh): it comes before RUNPATH, so conda's copy wins
        doc = check(tf_in_conda(), env=env(LD_LIBRARY_PATH=PREFIX + "/lib"))
        f = assert_cause(self, doc, "conda-cuda-mixed", "fail")
        self.assertIn("tensorflow 2.15.0 takes libcudnn.so.8: " + PREFIX + "/lib/libcudnn.so.8 "
                      "(via ld-library-path)", "\n".join(f["evidence"]))

    def test_conda_cudnn_too_old_gets_a_conda_fix(self):
        # conda's cuDNN 8.6 on LD_LIBRARY_PATH is what TensorFlow 2.15 (needs 8.9) loads
        doc = check(tf_in_conda(conda_pkgs=(env_fx.CONDA_CUDNN_86,)), env=env(LD_LIBRARY_PATH=PREFIX + "/lib"))
        f = assert_cause(self, doc, "cudnn-version-mismatch")
        self.assertIn("conda install -p /opt/conda/envs/tf -c conda-forge 'cudnn>=8.9,<9'", f["fix"])
        self.assertNotIn("pip install", f["fix"])
        assert_no_cause(self, doc, "lib-corrupt")
        # near miss: the same too-old cuDNN from a pip wheel keeps the pip fix
        import fixtures
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_tensorflow(r, site)
        fw.add_cuda12_wheels(r, site, cudnn="8.6.0.163")
        doc = check(r, env=clean_env(PATH="/usr/bin:/bin", HOME="/nonexistent", VIRTUAL_ENV="/opt/venv"))
        f = assert_cause(self, doc, "cudnn-version-mismatch")
        self.assertIn("pip install", f["fix"])
        self.assertNotIn("conda install", f["fix"])

    def test_framework_from_conda_gets_a_pip_fix(self):
        r = tf_in_conda()
        r.write(PREFIX.lstrip("/") + "/conda-meta/tensorflow-base-2.15.0-cuda120py311h1234567_0.json",
                env_fx.conda_record("tensorflow-base", "2.15.0", "cuda120py311h1234567_0", "conda-forge",
                                    ["lib/python3.11/site-packages/tensorflow/__init__.py"]))
        doc = check(r, env=env())
        f = assert_cause(self, doc, "conda-cuda-mixed")
        self.assertIn("pip uninstall -y nvidia-cudnn-cu12", f["fix"])

    def test_conda_mixed_with_the_system_toolkit(self):
        r = fixtures.healthy_root()
        env_fx.conda_env(r, PREFIX.lstrip("/"))
        env_fx.add_conda_pkg(r, PREFIX.lstrip("/"), *env_fx.CONDA_CUDATOOLKIT)
        fixtures_libs.add_toolkit(r)
        doc = check(r, env=env(LD_LIBRARY_PATH="/usr/local/cuda/lib64:" + PREFIX + "/lib"))
        # conda's libcudart.so.11.0 beside the toolkit's libcudart.so.13: no load gets the wrong one
        f = assert_cause(self, doc, "conda-cuda-mixed", "warn")
        self.assertIn("/usr/local/cuda", "\n".join(f["evidence"]))
        self.assertIn("LD_LIBRARY_PATH", f["fix"])

    def test_near_miss_tf212_recipe(self):
        # TensorFlow 2.12's documented recipe: cudatoolkit 11.8 from conda-forge, cuDNN from
        # pip (nvidia-cudnn-cu11): two sources, but no library from both
        r = fixtures.healthy_root()
        site = env_fx.conda_env(r, PREFIX.lstrip("/"))
        env_fx.add_conda_pkg(r, PREFIX.lstrip("/"), *env_fx.CONDA_CUDATOOLKIT)
        fw.add_cudnn_wheel(r, site, "8.6.0.163", cu="11")
        assert_no_cause(self, check(r, env=env()), "conda-cuda-mixed")

    def test_near_miss_pip_only_and_conda_only(self):
        # conda's cuDNN alone
        assert_no_cause(self, check(tf_in_conda(wheels=False), env=env()), "conda-cuda-mixed")
        # a venv with the same wheels and no conda package
        r = fixtures.healthy_root()
        site = fw.add_venv(r)
        fw.add_tensorflow(r, site)
        fw.add_cuda12_wheels(r, site)
        assert_no_cause(self, check(r, env=clean_env(PATH="/usr/bin:/bin", HOME="/nonexistent",
                                                     VIRTUAL_ENV="/opt/venv")), "conda-cuda-mixed")

    def test_hostile_conda_meta(self):
        r = tf_in_conda()
        meta = PREFIX.lstrip("/") + "/conda-meta/"
        r.write(meta + "cudnn-9.0.0-bad_0.json", "{\"name\": \"cudnn\", \"files\": [" + "1," * 100000)
        r.write(meta + "libcublas-12.4.5.8-0.json", json.dumps({"name": "lib cublas; rm -rf /",
                                                               "version": "1", "files": ["lib/x"]}))
        r.write(meta + "cuda-nvrtc-12.4.127-0.json", json.dumps([1, 2, 3]))
        r.write(meta + "nccl-2.21.5.1-0.json", json.dumps({"name": "nccl", "version": "2.21",
                                                          "files": ["../../etc/passwd", "lib/../x.so",
                                                                    "lib/libnccl.so.2\x1b[31m"]}))
        doc = check(r, env=env())
        tf = [e for e in doc["inventory"]["libraries_loader"]["conda_environments"] if e["prefix"] == PREFIX][0]
        names = {p["name"]: p for p in tf["packages"]}
        self.assertNotIn("lib cublas; rm -rf /", names)
        self.assertEqual(names["nccl"]["libraries"], [])
        self.assertGreaterEqual(tf["unreadable_records"], 2)
        assert_cause(self, doc, "conda-cuda-mixed")


if __name__ == "__main__":
    unittest.main()
