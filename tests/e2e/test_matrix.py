"""gpudoctor matrix: queries over the knowledge base, --solve on fixture
machines, --kb-info, and malformed --kb data files (clear error, no crash)."""
import json
import os
import shutil
import tempfile

from gdtest import GDTestCase, run, Root, clean_env

NVRM = ("NVRM version: NVIDIA UNIX x86_64 Kernel Module  %s  Thu Oct  9 20:13:33 UTC 2025\n"
        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n")


def matrix(*args, root=None):
    rc, out, err = run(["--json", "matrix"] + list(args), root=root, env=clean_env())
    doc = json.loads(out) if out.strip() else None
    return rc, doc, err


def answers(doc, what, scenario="as queried"):
    return [a for a in doc["answers"] if a["what"] == what and a["scenario"] == scenario]


def upgrades(doc):
    return [a for a in doc["answers"] if a["scenario"] == "with a newer driver"]


def machine(gpus=(), driver=None):
    r = Root()
    for i, dev in enumerate(gpus):
        d = "sys/bus/pci/devices/0000:%02x:00.0/" % (i + 1)
        r.write(d + "vendor", "0x10de\n")
        r.write(d + "device", "0x%s\n" % dev)
        r.write(d + "class", "0x030200\n")
    # a non-GPU NVIDIA function (audio) must be ignored
    r.write("sys/bus/pci/devices/0000:09:00.1/vendor", "0x10de\n")
    r.write("sys/bus/pci/devices/0000:09:00.1/device", "0x22ba\n")
    r.write("sys/bus/pci/devices/0000:09:00.1/class", "0x040300\n")
    if driver:
        r.write("proc/driver/nvidia/version", NVRM % driver)
    return r


class TestMatrix(GDTestCase):
    def test_tf215_needs_cuda122_cudnn89(self):
        rc, doc, _ = matrix("--tf", "2.15")
        self.assertEqual(rc, 0)
        facts = {f["key"]: f["value"] for f in doc["facts"]}
        self.assertIn("CUDA 12.2", facts["tensorflow"])
        self.assertIn("cuDNN 8.9", facts["tensorflow"])
        self.assertIn("525.60.13", facts["tensorflow driver"])
        self.assertIn("tensorflow[and-cuda]", answers(doc, "tensorflow")[0]["install"])

    def test_issue_example_tf221_on_r470_is_explained(self):
        rc, doc, _ = matrix("--tf", "2.21", "--driver", "470.256.02")
        self.assertEqual(rc, 1)
        self.assertIs(doc["verdict"], False)
        why = answers(doc, "tensorflow")[0]["why"]
        self.assertIn("CUDA 12.5", why)
        self.assertIn("525.60.13", why)
        self.assertTrue(any("R470 is the last driver branch" in n for n in doc["notes"]))

    def test_tf221_cusolver_runpath_gap_is_noted(self):
        """Read from the wheels: TF 2.16.2-2.20.0 list nvidia/cusolver/lib in
        libtensorflow_framework.so.2's RUNPATH, 2.21.0 does not."""
        rc, doc, _ = matrix("--tf", "2.21")
        self.assertEqual(rc, 0)
        (n,) = [n for n in doc["notes"] if "RUNPATH" in n]
        self.assertIn("nvidia/cusolver/lib", n)
        self.assertIn("export LD_LIBRARY_PATH=", n)
        rc, doc, _ = matrix("--tf", "2.20")
        self.assertFalse([n for n in doc["notes"] if "RUNPATH" in n])
        facts = {f["key"]: f["value"] for f in doc["facts"]}
        self.assertEqual(facts["tensorflow archs"], "sm_60,sm_70,sm_80,sm_89,compute_90")
        # once, even when the newest release answers more than one question
        rc, doc, _ = matrix("--gpu", "H100", "--driver", "580.65.06")
        self.assertEqual(len([n for n in doc["notes"] if "RUNPATH" in n]), 1)

    def test_tf215_on_450_driver_is_no(self):
        rc, doc, _ = matrix("--tf", "2.15", "--driver", "450.80.02")
        self.assertEqual(rc, 1)
        rc, doc, _ = matrix("--tf", "2.14", "--driver", "450.80.02")
        self.assertEqual(rc, 0)
        self.assertIs(doc["verdict"], True)

    def test_cuda118_runs_on_rtx4090(self):
        rc, doc, _ = matrix("--gpu", "RTX 4090", "--cuda", "11.8", "--driver", "520.61.05")
        self.assertEqual(rc, 0, doc)
        self.assertIs(doc["verdict"], True)
        rc, doc, _ = matrix("--pci", "10de:2684", "--cuda", "11.7")
        self.assertEqual(rc, 1)

    def test_contradicting_cc(self):
        rc, doc, _ = matrix("--gpu", "H200", "--cc", "8.6")
        self.assertEqual(rc, 1)
        self.assertTrue(any("contradicts" in n for n in doc["notes"]))

    def test_torch_variants_for_pascal(self):
        rc, doc, _ = matrix("--torch", "2.8", "--cc", "6.1")
        ok = {a["version"]: a["ok"] for a in answers(doc, "torch")}
        self.assertIs(ok["2.8+cu126"], True)
        self.assertIs(ok["2.8+cu128"], False)

    def test_jax(self):
        rc, doc, _ = matrix("--jax", "0.7.2", "--cc", "7.0")
        ok = {a["version"]: a["ok"] for a in answers(doc, "jax")}
        self.assertIs(ok[">=0.7.2 (cuda13)"], False)
        # 0.7.2 is served by the 0.6.0-0.11.1 cuda12 row (cuDNN >= 9.8); on a
        # V100 the install pins cuDNN 9.10.2.21, the newest with sm_70 code
        self.assertIs(ok["0.6.0-0.11.1 (cuda12)"], True)
        inst = {a["version"]: a["install"] for a in answers(doc, "jax")}
        self.assertIn('"nvidia-cudnn-cu12==9.10.2.21"', inst["0.6.0-0.11.1 (cuda12)"])

    def test_usage_errors(self):
        for args in (["--tf", "9.9"], ["--gpu", "Voodoo 5"], ["--cc", "x"], ["--pci", "zz"],
                     ["--driver", "abc", "--tf", "2.15"], ["--bogus"], []):
            rc, out, err = run(["matrix"] + args, env=clean_env())
            self.assertEqual(rc, 2, args)
            # option errors in git's style (test_cli_conventions.py), the others named by command
            self.assertRegex(err, r"^(error: |gpudoctor matrix: )")

    def test_text_output(self):
        rc, out, _ = run(["matrix", "--tf", "2.21", "--driver", "470.256.02"], env=clean_env())
        self.assertEqual(rc, 1)
        self.assertIn("answer: no", out)


class TestIssue9Also(GDTestCase):
    """The "Also" list of issue 9."""

    def test_cuda_query_excludes_newer_cuda(self):
        # TF 2.21 is built with CUDA 12.5: not a "yes" for someone who has CUDA 12.4
        rc, doc, _ = matrix("--cuda", "12.4")
        tf = answers(doc, "tensorflow")[0]
        self.assertNotEqual(tf["version"], "2.21.0")
        self.assertEqual(tf["version"], "2.17.0")      # CUDA 12.3, the newest <= 12.4
        rc, doc, _ = matrix("--cuda", "12.4", "--tf", "2.21")
        self.assertIs(answers(doc, "tensorflow")[0]["ok"], False)
        self.assertEqual(rc, 1)

    def test_no_lists_yes_items_as_excluded(self):
        rc, out, _ = run(["matrix", "--gpu", "RTX 4080", "--driver", "515.65.01"], env=clean_env())
        self.assertEqual(rc, 1)
        self.assertIn("answer: no", out)
        self.assertIn("excluded from the answer", out)
        for block in out.split("\nyes ")[1:]:
            self.assertIn("(excluded)", block.split("\n\n")[0].split("\nno ")[0])
        rc, doc, _ = matrix("--gpu", "RTX 4080", "--driver", "515.65.01")
        # matrix/2: the verdict says the combination fails; no per-answer flag
        self.assertIs(doc["verdict"], False)
        self.assertTrue(all("excluded" not in a for a in doc["answers"]))
        facts = {f["key"]: f["value"] for f in doc["facts"]}
        self.assertIn("525.47.04", facts["driver knows gpu"])   # open-gpu-kernel-modules tag

    def test_source_cites_table(self):
        rc, doc, _ = matrix("--tf", "2.15")
        self.assertEqual(answers(doc, "tensorflow")[0]["table"], "tf.tsv")
        rc, out, _ = run(["matrix", "--torch", "2.9"], env=clean_env())
        self.assertIn("source: torch.tsv, ", out)

    def test_tf213_system_cuda_and_windows(self):
        rc, doc, _ = matrix("--tf", "2.13")
        facts = {f["key"]: f["value"] for f in doc["facts"]}
        self.assertIn("CUDA 11.8 and cuDNN 8.6 must be installed system-wide", facts["tensorflow system"])
        self.assertIn("needs CUDA 11.8 and cuDNN 8.6 installed system-wide",
                      answers(doc, "tensorflow")[0]["install"])
        self.assertIn("no GPU on native Windows", facts["tensorflow windows"])
        rc, doc, _ = matrix("--tf", "2.10")
        facts = {f["key"]: f["value"] for f in doc["facts"]}
        self.assertIn("up to TensorFlow 2.10", facts["tensorflow windows"])

    def test_cupy_and_nccl(self):
        rc, doc, _ = matrix("--cupy", "14", "--gpu", "H100", "--driver", "580.95.05")
        ok = {a["version"]: a["ok"] for a in answers(doc, "cupy")}
        self.assertIs(ok["14 (cupy-cuda13x)"], True)
        self.assertIs(ok["14 (cupy-cuda12x)"], True)
        rc, doc, _ = matrix("--cupy", "14", "--cc", "6.1")
        ok = {a["version"]: a["ok"] for a in answers(doc, "cupy")}
        self.assertIs(ok["14 (cupy-cuda13x)"], False)     # CUDA 13 starts at Turing
        self.assertIs(ok["14 (cupy-cuda12x)"], True)
        rc, doc, _ = matrix("--nccl")
        facts = {f["key"]: f["value"] for f in doc["facts"]}
        self.assertIn("nvidia-nccl", facts["nccl"])
        self.assertIn("libnccl2", facts["nccl"])
        self.assertIn("never the CUDA toolkit's lib64/stubs", facts["nccl"])

    def test_unreleased_versions_same_status(self):
        for args in (["--tf", "2.99"], ["--torch", "2.99"], ["--jax", "0.4.99"], ["--cupy", "99"]):
            rc, _, err = matrix(*args)
            self.assertEqual(rc, 2, args)

    def test_tf_on_blackwell_known_failure(self):
        rc, doc, _ = matrix("--tf", "2.21", "--gpu", "RTX 5090", "--driver", "580.95.05")
        tf = answers(doc, "tensorflow")[0]
        self.assertIs(tf["ok"], False)
        self.assertIn("known failure", tf["why"])
        self.assertIs(tf["known_failure"], True)
        rc, out, _ = run(["matrix", "--tf", "2.21", "--gpu", "RTX 5090", "--driver", "580.95.05"], env=clean_env())
        self.assertIn("no    tensorflow 2.21.0 (known failure)", out)
        # the deciding source (the failure report) comes first in the list
        self.assertIn("tensorflow/tensorflow/issues", tf["sources"][0]["url"])


class TestSolve(GDTestCase):
    def test_h200_with_r580(self):
        r = machine(["2335"], "580.95.05")
        rc, doc, _ = matrix("--solve", root=r.path)
        self.assertEqual(rc, 0, doc)
        facts = {f["key"]: f["value"] for f in doc["facts"]}
        self.assertIn("H200", facts["gpu"])
        self.assertIn("580.95.05", facts["machine driver"])
        tf = answers(doc, "tensorflow")[0]
        self.assertEqual(tf["version"], "2.21.0")
        self.assertIn("pip install", tf["install"])
        self.assertTrue(answers(doc, "torch")[0]["install"].startswith("pip install"))
        self.assertIn("cuda13", answers(doc, "jax")[0]["version"])

    def test_driver_upgrade_unlocks(self):
        r = machine(["2684"], "535.104.05")
        rc, doc, _ = matrix("--solve", root=r.path)
        up = upgrades(doc)
        # TF 2.21 (CUDA 12.5) already runs on R535 under minor-version
        # compatibility: only torch (cu13x) and jax[cuda13] are unlocked.
        self.assertEqual(sorted(a["what"] for a in up), ["jax", "torch"])
        self.assertFalse(any("nothing newer" in a["why"] for a in doc["answers"]))
        self.assertNotIn("a newer driver unlocks nothing more for these frameworks", doc["notes"])
        jax = [a for a in up if a["what"] == "jax"][0]
        self.assertIn("cuda13", jax["version"])
        self.assertIn("580", jax["why"])
        # matrix/2: the requirement is a field, the name stays bare
        self.assertEqual(jax["requires"]["driver_min"], "580.65.06")
        self.assertTrue(all(a["requires"]["driver_min"] is None for a in doc["answers"]
                            if a["scenario"] == "as queried"))

    def test_nothing_to_unlock_on_h200(self):
        # The H200 machine: R580 already runs the newest of every framework,
        # so no "with newer driver" block, one line saying so (text and JSON).
        r = machine(["2335"], "580.159.04")
        rc, doc, _ = matrix("--solve", root=r.path)
        self.assertEqual(rc, 0, doc)
        self.assertEqual(upgrades(doc), [])
        self.assertIn("a newer driver unlocks nothing more for these frameworks", doc["notes"])
        rc, out, _ = run(["matrix", "--solve"], root=r.path, env=clean_env())
        self.assertEqual(rc, 0, out)
        self.assertNotIn("with newer driver", out)
        self.assertNotIn("nothing newer", out)
        self.assertEqual(out.count("a newer driver unlocks nothing more"), 1)

    def test_matrix2_null_versions_and_source_list(self):
        # gpudoctor.matrix/2: a framework none of whose releases fits has
        # version null (matrix/1 said the string "none"); sources are a list
        # of {id, url}, the ids the knowledge base joined with ';' split.
        rc, doc, _ = matrix("--cc", "3.0")
        self.assertEqual(doc["schema"], "gpudoctor.matrix/2")
        torch = answers(doc, "torch")[0]
        self.assertIsNone(torch["version"])
        self.assertIs(torch["ok"], False)
        self.assertNotIn("none", [a["version"] for a in doc["answers"]])
        rc, doc, _ = matrix("--torch", "2.9", "--gpu", "H200", "--driver", "580.95.05")
        for a in doc["answers"]:
            self.assertIsInstance(a["sources"], list)
            ids = [s["id"] for s in a["sources"]]
            self.assertTrue(ids, a)
            self.assertEqual(len(ids), len(set(ids)), ids)
            self.assertFalse(any(";" in i for i in ids), ids)
            self.assertTrue(any(i.startswith("torch-") for i in ids), ids)
        rc, out, _ = run(["matrix", "--cc", "3.0"], env=clean_env())
        self.assertIn("no    torch none", out)      # the text keeps its word

    def test_kepler_on_r470(self):
        r = machine(["102d"], "470.256.02")
        rc, doc, _ = matrix("--solve", root=r.path)
        tf = answers(doc, "tensorflow")[0]
        self.assertEqual(tf["version"], "2.14.0")	# 2.15+ need CUDA 12, which dropped sm_37
        self.assertTrue(any("R470" in n for n in doc["notes"]))

    def test_no_gpu(self):
        # issue 9, class 7: no GPU is never a "yes"
        r = machine([], None)
        rc, doc, _ = matrix("--solve", root=r.path)
        self.assertEqual(rc, 1)
        self.assertIs(doc["verdict"], False)
        self.assertTrue(any("no NVIDIA GPU" in n for n in doc["notes"]))
        self.assertFalse(any(a["ok"] is True for a in doc["answers"]))
        rc, out, _ = run(["matrix", "--solve"], root=r.path, env=clean_env())
        self.assertEqual(rc, 1)
        self.assertIn("no NVIDIA GPU", out)
        self.assertNotIn("yes", out.replace("answer: no", ""))
        rc, doc, _ = matrix("--solve", "--gpu", "T4", root=r.path)
        facts = {f["key"]: f["value"] for f in doc["facts"]}
        self.assertIn("T4", facts["gpu"])


class TestKbFiles(GDTestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="gd-kb-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def put(self, name, text):
        with open(os.path.join(self.dir, name), "w") as f:
            f.write(text)

    def test_kb_info_embedded(self):
        rc, out, _ = run(["--json", "matrix", "--kb-info"], env=clean_env())
        doc = json.loads(out)
        tables = {t["name"]: t for t in doc["tables"]}
        self.assertGreater(tables["gpus.tsv"]["rows"], 500)
        self.assertRegex(tables["tf.tsv"]["as_of"], r"^\d{4}-\d{2}-\d{2}$")
        self.assertEqual(tables["tf.tsv"]["origin"], "embedded")

    def test_kb_dir_overrides_one_file(self):
        self.put("branches.tsv", "# as-of: 2031-01-01\nbranch\tcuda\teol\tconf\tsource\n"
                 "700\t14.0\t-\tU\tcuda-rn\n")
        rc, out, _ = run(["--kb", self.dir, "--json", "matrix", "--kb-info"], env=clean_env())
        tables = {t["name"]: t for t in json.loads(out)["tables"]}
        self.assertEqual(tables["branches.tsv"]["rows"], 1)
        self.assertEqual(tables["branches.tsv"]["as_of"], "2031-01-01")
        self.assertEqual(tables["tf.tsv"]["origin"], "embedded")
        rc, out, _ = run(["--kb", self.dir, "--json", "matrix", "--driver", "700.1.2"], env=clean_env())
        self.assertIn("CUDA 14.0", out)

    def test_malformed_files_name_file_and_line(self):
        cases = {
            "gpus.tsv": ("# x\nvendor\tdevice\n10de\n", "gpus.tsv:3:"),
            "tf.tsv": ("version\tpython\n", "tf.tsv"),
            "cuda.tsv": ("toolkit\trelease\tlinux_min\twindows_min\tconf\tsource\n"
                         "twelve\tGA\t1\t-\tV\tcuda-rn\n", "cuda.tsv:2:"),
            "sources.tsv": ("id\turl\tnote\na\tb\tc\na\tb\tc\n", "sources.tsv:3:"),
            "archs.tsv": ("\x00\x01binary", "archs.tsv"),
            "jax.tsv": ("# as-of: yesterday\n", "jax.tsv:1:"),
        }
        for name, (text, want) in cases.items():
            for f in os.listdir(self.dir):
                os.unlink(os.path.join(self.dir, f))
            self.put(name, text)
            rc, out, err = run(["--kb", self.dir, "matrix", "--tf", "2.15"], env=clean_env())
            self.assertEqual(rc, 2, name)
            self.assertIn(want, err, name)
            self.assertNotIn("Sanitizer", err)

    def test_kb_not_a_directory(self):
        rc, out, err = run(["--kb", "/nonexistent", "matrix", "--tf", "2.15"], env=clean_env())
        self.assertEqual(rc, 2)
        self.assertIn("not a directory", err)
