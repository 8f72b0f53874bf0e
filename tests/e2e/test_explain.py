"""gpudoctor explain: rules against real output, the normaliser, live
confirmation against fixture roots, --run, the exit statuses, the catalogue
entries and check --format markdown.

The fixtures are tests/explain/fixtures/*.txt: blocks "=== match RULE" (the
text must be matched by RULE) and "=== nomatch RULE" (it must not), each with
a "source:" line.  Every rule of src/knowledge/data/explain.tsv needs two
match blocks and one nomatch block.  "=== match RULE fits" is a match whose
own numbers say the job does not fit (an out-of-memory error whose process
holds the memory): the rule matches and names no cause.  "=== match RULE
neutral" is an out-of-memory report with no figures either way: it names
gpu-out-of-memory alone (not gpu-memory-held: nothing shows another holder).  The causes a matched
rule must name come from tests/explain/expected-causes.tsv, written down apart from the
table explain reads (a test comparing explain's answer with its own table
could not fail).
"""
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixtures  # noqa: E402
import fixtures_lower as fl  # noqa: E402
from gdtest import GPUDOCTOR, REPO, Root, clean_env, run  # noqa: E402

FIXTURES = os.path.join(REPO, "tests", "explain", "fixtures")
RULES = os.path.join(REPO, "src", "knowledge", "data", "explain.tsv")
EXPECTED = os.path.join(REPO, "tests", "explain", "expected-causes.tsv")


def rules():
    out = {}
    beside = set()
    for line in open(RULES, encoding="utf-8"):
        if line.startswith("#@beside\t"):
            # a cause whose rows also name a sibling on its evidence (logrules.h)
            beside.add(line.split("\t")[1])
        if line.startswith("#") or not line.strip() or line.startswith("id\t"):
            continue
        c = line.rstrip("\n").split("\t")
        causes = [] if c[7] == "-" else c[7].split(";")
        # "id?lit|lit": named by the log's evidence (src/explain/logrules.h)
        out[c[0]] = {"class": c[2], "causes": [x.split("?")[0] for x in causes],
                     "conditional": any("?" in x for x in causes)}
    for r in out.values():
        # a #@beside sibling is a conditional cause of every row that names its cause
        r["conditional"] |= any(x in beside for x in r["causes"])
    return out


def expected_causes():
    out = {}
    for line in open(EXPECTED, encoding="utf-8"):
        if line.startswith("#") or not line.strip():
            continue
        rule, causes = line.rstrip("\n").split("\t")
        out[rule] = [] if causes == "-" else causes.split(";")
    return out


def blocks():
    out = []
    for path in sorted(glob.glob(os.path.join(FIXTURES, "*.txt"))):
        cur = None
        for line in open(path, encoding="utf-8"):
            m = re.match(r"^=== (match|nomatch) (\S+)( fits| neutral| unproven)?$", line.rstrip("\n"))
            if m:
                cur = {"kind": m.group(1), "rule": m.group(2), "file": os.path.basename(path),
                       "source": None, "text": [], "fits": m.group(3) == " fits",
                       "neutral": m.group(3) == " neutral", "unproven": m.group(3) == " unproven"}
                out.append(cur)
            elif cur is not None and cur["source"] is None and line.startswith("source: "):
                cur["source"] = line[8:].strip()
            elif cur is not None:
                cur["text"].append(line)
    for b in out:
        b["text"] = "".join(b["text"])
    return out


def explain(text, *args, root=None, env=None):
    with tempfile.NamedTemporaryFile("w", suffix=".log", delete=False) as f:
        f.write(text)
        name = f.name
    try:
        rc, out, err = run(["explain", "--json", *args, name], root=root, env=env or clean_env())
    finally:
        os.unlink(name)
    return rc, (json.loads(out) if out.strip().startswith("{") else None), err


def match_of(doc, rule):
    for m in doc["matches"]:
        if m["rule"] == rule:
            return m
    return None


class Fixtures(unittest.TestCase):
    """Every rule against real output and a near miss."""

    @classmethod
    def setUpClass(cls):
        cls.rules = rules()
        cls.blocks = blocks()
        cls.expected = expected_causes()

    def test_every_rule_has_expected_causes(self):
        from causerec import catalogue_ids
        self.assertEqual(sorted(set(self.rules) - set(self.expected)), [],
                         "rules without a line in tests/explain/expected-causes.tsv")
        self.assertEqual(sorted(set(self.expected) - set(self.rules)), [],
                         "lines of expected-causes.tsv for rules explain.tsv does not have")
        for rule, causes in self.expected.items():
            for c in causes:
                if c == "@errcode":	# the generated error-code table names them (explain/errcodes.c)
                    continue
                self.assertIn(c, catalogue_ids(), f"{rule}: {c} is not a catalogue id")

    def test_every_rule_has_fixtures(self):
        for rid in self.rules:
            n_match = sum(1 for b in self.blocks if b["rule"] == rid and b["kind"] == "match")
            n_miss = sum(1 for b in self.blocks if b["rule"] == rid and b["kind"] == "nomatch")
            self.assertGreaterEqual(n_match, 2, f"rule {rid}: {n_match} match fixtures")
            self.assertGreaterEqual(n_miss, 1, f"rule {rid}: no near miss")
        for b in self.blocks:
            self.assertIn(b["rule"], self.rules, f"{b['file']}: unknown rule {b['rule']}")
            self.assertTrue(b["source"], f"{b['file']}: a {b['rule']} block without a source")

    def test_fixtures(self):
        # all blocks in one run each: a block must produce its rule (or not)
        for b in self.blocks:
            with self.subTest(rule=b["rule"], kind=b["kind"], source=b["source"]):
                rc, doc, err = explain(b["text"], "--no-live")
                self.assertIsNotNone(doc, err)
                m = match_of(doc, b["rule"])
                if b["kind"] == "match":
                    self.assertIsNotNone(m, f"{b['rule']} did not match:\n{b['text']}\n"
                                            f"matched: {[x['rule'] for x in doc['matches']]}")
                    if b["unproven"]:
                        # the message alone (a configuration), none of its conditions' evidence: no cause
                        self.assertTrue(self.rules[b["rule"]]["conditional"], b["rule"])
                        self.assertEqual(m["causes"], [], f"{b['rule']}: a cause without its evidence")
                    elif b["fits"]:
                        # the numbers decide: the job itself does not fit, no stack cause
                        self.assertEqual(m["class"], "scope", f"{b['rule']}: not decoded as the job's own")
                        self.assertEqual(m["causes"], [], f"{b['rule']}: a cause for a job that does not fit")
                    elif b["neutral"]:
                        # no figures either way: the GPU ran out, nothing says who holds it
                        self.assertEqual(m["class"], "cause", b["rule"])
                        self.assertEqual([c["cause"] for c in m["causes"]], ["gpu-out-of-memory"], b["rule"])
                    elif self.expected.get(b["rule"]) == ["@errcode"]:
                        # the error-code table names them: each match block's code implies one
                        self.assertTrue(m["causes"], f"{b['rule']}: no cause for\n{b['text']}")
                    elif self.rules[b["rule"]]["conditional"]:
                        # the causes whose condition the block's evidence meets, in order
                        named = [c["cause"] for c in m["causes"]]
                        self.assertTrue(named, f"{b['rule']}: no cause for\n{b['text']}")
                        self.assertEqual(named, [c for c in self.expected.get(b["rule"]) if c in named],
                                         "the causes named for the rule")
                    else:
                        self.assertEqual([c["cause"] for c in m["causes"]],
                                         self.expected.get(b["rule"]), "the causes named for the rule")
                    for c in m["causes"]:
                        self.assertEqual(c["confirmation"], "not-checked")
                        self.assertTrue(c["fix"], f"{c['cause']}: no fix")
                else:
                    self.assertIsNone(m, f"{b['rule']} matched a near miss:\n{b['text']}")


class Decoding(unittest.TestCase):
    def one(self, text, rule):
        rc, doc, err = explain(text, "--no-live")
        m = match_of(doc, rule)
        self.assertIsNotNone(m, err)
        return m

    def test_found_version_is_the_driver_api(self):
        m = self.one("RuntimeError: The NVIDIA driver on your system is too old (found version 11040).",
                     "torch-driver-too-old")
        self.assertEqual(m["captures"]["driver_int"], "11040")
        self.assertIn("CUDA 11.4", m["decoded"]["driver_int"])

    def test_sm_is_a_compute_capability(self):
        m = self.one("NVIDIA GeForce RTX 3060 Laptop GPU with CUDA capability sm_86 is not compatible "
                     "with the current PyTorch installation.", "torch-capability-not-compatible")
        self.assertIn("compute capability 8.6 (Ampere)", m["decoded"]["sm"])

    def test_cuda_error_numbers_become_names(self):
        m = self.one("cudaGetDeviceCount returned 35\n-> CUDA driver version is insufficient",
                     "cuda-device-count-returned")
        self.assertIn("cudaErrorInsufficientDriver", m["decoded"]["cuda_error"])

    def test_curesult_names(self):
        m = self.one("failed call to cuInit: CUDA_ERROR_INVALID_DEVICE: x", "cuinit-failed")
        self.assertIn("CUresult 101", m["decoded"]["cu_name"])

    def test_xid_meaning_and_action(self):
        m = self.one("[ 5923.771106] NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus.",
                     "nvrm-xid-79")
        self.assertIn("GPU has fallen off the bus", m["decoded"]["xid"])
        self.assertIn("reboot", m["decoded"]["xid"])
        self.assertEqual(m["decoded"]["pci"], "PCI device 0000:44:00.0")
        m = self.one("NVRM: Xid (PCI:0000:18:00): 119, pid=1, name=x, Timeout after 6s of waiting for RPC",
                     "kern-nvrm-xid-gsp")
        self.assertIn("XID 119", m["decoded"]["xid"])

    def test_cudnn_int(self):
        m = self.one("Found cuDNN version 8600, but JAX was built against version 8906, which is newer.",
                     "jax-cudnn-older")
        self.assertEqual(m["decoded"]["found_cudnn_int"], "cuDNN 8.6.0")
        self.assertEqual(m["decoded"]["built_cudnn_int"], "cuDNN 8.9.6")


class Normaliser(unittest.TestCase):
    def test_ansi_progress_timestamps_and_folding(self):
        lines = ["\x1b[31m2026-11-30T08:00:%02d.123456+00:00 gpu01 python[42]: [rank%d]: "
                 "RuntimeError: CUDA error: no kernel image is available for execution on the device\x1b[0m"
                 % (i % 60, i % 8) for i in range(10000)]
        text = "epoch 1 10%|#  |\repoch 1 50%|#####|\repoch 1 100%|##########|\n" + "\n".join(lines) + "\n"
        rc, doc, err = explain(text, "--no-live")
        m = match_of(doc, "no-kernel-image")
        self.assertEqual(m["count"], 10000)
        self.assertEqual(m["first_line"], 2)
        self.assertEqual(m["last_line"], 10001)
        self.assertEqual(m["text"], "RuntimeError: CUDA error: no kernel image is available for execution on the device")
        self.assertEqual(doc["input"]["normalised_lines"], 2)

    def test_octal_escapes_split_records(self):
        rc, doc, err = explain("Jul  3 11:22:33 gpu01 python3[2211]: first#012Failed to initialize NVML: "
                               "Driver/library version mismatch#011tail\n", "--no-live")
        m = match_of(doc, "nvml-driver-library-mismatch")
        self.assertEqual(m["text"], "Failed to initialize NVML: Driver/library version mismatch\ttail")

    def test_kmsg_records_and_dictionary_lines(self):
        rc, doc, err = explain("4,1234,5923771106,-;NVRM: Xid (PCI:0000:44:00): 79, pid=1, GPU has fallen off the bus.\n"
                               " SUBSYSTEM=pci\n DEVICE=+pci:0000:44:00.0\n", "--no-live")
        self.assertEqual(doc["input"]["normalised_lines"], 1)
        self.assertIsNotNone(match_of(doc, "nvrm-xid-79"))

    def test_traceback_reduced_to_exception_and_frames(self):
        text = ("Traceback (most recent call last):\n"
                "  File \"/home/u/train.py\", line 12, in <module>\n"
                "    x = torch.zeros(1).cuda()\n"
                "  File \"/opt/v/lib/python3.12/site-packages/torch/cuda/__init__.py\", line 412, in _lazy_init\n"
                "    torch._C._cuda_init()\n"
                "RuntimeError: No CUDA GPUs are available\n")
        rc, doc, err = explain(text, "--no-live")
        m = match_of(doc, "cuinit-no-device")
        self.assertEqual(m["first_line"], 6)
        self.assertEqual(m["frames"], ["/home/u/train.py:12 in <module>",
                                       "/opt/v/lib/python3.12/site-packages/torch/cuda/__init__.py:412 in _lazy_init"])
        self.assertEqual(doc["input"]["normalised_lines"], 1)

    def test_user_script_error_is_out_of_scope(self):
        rc, doc, err = explain("Traceback (most recent call last):\n  File \"t.py\", line 1, in <module>\n"
                               "    1/0\nZeroDivisionError: division by zero\n", "--no-live")
        self.assertEqual(rc, 0)
        self.assertEqual([m["rule"] for m in doc["matches"]], ["python-error-in-script"])
        self.assertEqual(doc["result"]["stack_matches"], 0)


class Edges(unittest.TestCase):
    def test_no_match_exits_3_and_says_so(self):
        rc, out, err = run(["explain", "--no-live", "-"], env=clean_env())
        p = subprocess.run([GPUDOCTOR, "explain", "--no-live", "-"], input="all good\nepoch 3 loss 0.1\n",
                           capture_output=True, text=True, env=clean_env())
        self.assertEqual(p.returncode, 3)
        self.assertIn("no rule matched", p.stdout)

    def test_benign_only_exits_3(self):
        rc, doc, err = explain("W tensorflow/compiler/tf2tensorrt/utils/py_utils.cc:38] TF-TRT Warning: "
                               "Could not find TensorRT\n", "--no-live")
        self.assertEqual(rc, 3)
        self.assertEqual(doc["result"]["benign_matches"], 1)

    def test_stack_message_without_a_cause_has_a_result(self):
        # an @errcode number the table does not know, and a condition that
        # drops the rule's one cause: a stack message that names no cause
        for log in ("cuInit(0) failed with error code 12345\n",
                    "[h264_nvenc @ 0x55] Cannot load libnvidia-encode.so.1\n"
                    "[h264_nvenc @ 0x55] The minimum required Nvidia driver for nvenc is 470.57.02 or newer\n"):
            p = subprocess.run([GPUDOCTOR, "explain", "--no-live", "-"], input=log,
                               capture_output=True, text=True, env=clean_env())
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertRegex(p.stdout, r"(?m)^result: .*layer", p.stdout)

    def test_unsigned_in_a_build_log_is_no_secure_boot_evidence(self):
        # "signed" as a substring made any "unsigned" (a compiler warning of a
        # DKMS build) the evidence of secure boot, and dropped the other guesses
        smi = ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
               "Make sure that the latest NVIDIA driver is installed and running.\n")
        rc, doc, err = explain("warning: comparison of unsigned expression in '>= 0' is always true\n" + smi,
                               "--no-live")
        causes = [c["cause"] for m in doc["matches"] for c in m["causes"]]
        self.assertIn("nouveau-loaded", causes)
        rc, doc, err = explain("Loading of unsigned module is rejected\n" + smi, "--no-live")
        causes = [c["cause"] for m in doc["matches"] for c in m["causes"]]
        self.assertIn("secure-boot-blocks-module", causes)
        self.assertNotIn("nouveau-loaded", causes)

    def test_order_is_bottom_up(self):
        rc, doc, err = explain("RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
                               "Failed to initialize NVML: Driver/library version mismatch\n"
                               "RuntimeError: CUDA error: an illegal memory access was encountered\n", "--no-live")
        self.assertEqual([m["rule"] for m in doc["matches"]],
                         ["nvml-driver-library-mismatch", "no-kernel-image", "illegal-memory-access"])
        self.assertEqual(doc["result"]["lowest_cause"], "driver-library-mismatch")

    def test_terminal_output_is_escaped(self):
        p = subprocess.run([GPUDOCTOR, "explain", "--no-live", "-"],
                           input=b"libcudnn.so.8\x1b]0;pwned\x07\x9b: cannot open shared object file: "
                                 b"No such file or directory\n",
                           capture_output=True, env=clean_env())
        self.assertNotIn(b"\x1b]", p.stdout)
        self.assertNotIn(b"\x9b", p.stdout)

    def test_run_passes_output_and_status(self):
        p = subprocess.run([GPUDOCTOR, "explain", "--no-live", "--run", "--", "sh", "-c",
                            "echo out; echo 'RuntimeError: No CUDA GPUs are available' >&2; exit 7"],
                           capture_output=True, text=True, env=clean_env())
        self.assertEqual(p.returncode, 7)
        self.assertEqual(p.stdout, "out\n")
        self.assertIn("RuntimeError: No CUDA GPUs are available\n", p.stderr)
        self.assertIn("cuinit-no-device", p.stderr)
        self.assertIn("exited with status 7", p.stderr)

    def test_run_success_explains_nothing(self):
        p = subprocess.run([GPUDOCTOR, "explain", "--run", "--", "sh", "-c",
                            "echo 'CUDA out of memory. Tried to allocate 2.00 GiB'"],
                           capture_output=True, text=True, env=clean_env())
        self.assertEqual(p.returncode, 0)
        self.assertEqual(p.stderr, "")

    def test_run_missing_command_is_127(self):
        p = subprocess.run([GPUDOCTOR, "explain", "--no-live", "--run", "--", "/nonexistent/cmd"],
                           capture_output=True, text=True, env=clean_env())
        self.assertEqual(p.returncode, 127)


class Catalogue(unittest.TestCase):
    def test_cause_entry(self):
        rc, out, err = run(["explain", "gpu-lost"], env=clean_env())
        self.assertEqual(rc, 0, err)
        for label in ("title", "why", "verify", "fix", "sources"):
            self.assertRegex(out, r"(?m)^%s\s+\S" % label)
        rc, out, err = run(["--json", "explain", "ptx-too-new-for-driver"], env=clean_env())
        doc = json.loads(out)
        self.assertEqual(doc["schema"], "gpudoctor.cause/1")
        self.assertTrue(doc["verify"] and doc["sources"])

    def test_unknown_cause(self):
        rc, out, err = run(["explain", "no-such-cause"], env=clean_env())
        self.assertEqual(rc, 2)

    def test_every_cause_is_documented(self):
        rc, out, err = run(["explain", "--list-causes"], env=clean_env())
        ids = [l.split()[0] for l in out.splitlines() if l.strip()]
        self.assertGreater(len(ids), 60)
        for cid in ids:
            rc, out, err = run(["--json", "explain", cid], env=clean_env())
            doc = json.loads(out)
            for k in ("title", "why", "verify", "fix", "sources"):
                self.assertTrue(doc[k].strip(), f"{cid}: empty {k}")

    def test_new_causes_are_triggered(self):
        cases = {
            "gpu-xid-error": "NVRM: Xid (PCI:0000:18:00): 74, pid=1, name=python, NVLink: fatal error",
            "gpu-exclusive-busy": "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable",
            "ptx-too-new-for-driver": "CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the provided PTX was compiled with an unsupported toolchain.",
            "cuda-nvcc-tools-missing": "Couldn't invoke ptxas --version",
            "inforom-corrupted": "WARNING: infoROM is corrupted at gpu 0000:41:00.0",
            "container-runtime-missing": "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]].",
            "container-toolkit-missing": "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file",
            "container-caps-missing-compute": "ImportError: libcuda.so.1: cannot open shared object file: No such file or directory",
            "container-device-revoked": "Failed to initialize NVML: Unknown Error",
            "image-ships-libcuda": "nvidia-container-cli: mount error: file creation failed: /var/lib/docker/overlay2/x/merged/usr/lib/x86_64-linux-gnu/libcuda.so.1: file exists: unknown.",
            "cuda-compat-unusable": "Error 804: forward compatibility was attempted on non supported HW",
            "shm-too-small": "RuntimeError: DataLoader worker (pid 7) is killed by signal: Bus error.",
            "memlock-limited": "NCCL WARN Call to ibv_reg_mr failed with error Cannot allocate memory",
            "cdi-spec-stale": "Error: setting up CDI devices: unresolvable CDI devices nvidia.com/gpu=all",
        }
        for cause, text in cases.items():
            with self.subTest(cause=cause):
                rc, doc, err = explain(text + "\n", "--no-live")
                got = [c["cause"] for m in doc["matches"] for c in m["causes"]]
                self.assertIn(cause, got)


class Confirmation(unittest.TestCase):
    """Live confirmation against fixture roots (--root)."""

    def test_confirmed_from_a_finding(self):
        r = fixtures.healthy_root()
        fl.add_gpus(r, driver="nouveau")
        fl.add_kernel(r, modules=("nouveau",))
        rc, doc, err = explain("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
                               root=r.path)
        m = match_of(doc, "nvidia-smi-no-driver")
        c = {x["cause"]: x for x in m["causes"]}
        self.assertEqual(c["nouveau-loaded"]["confirmation"], "confirmed", json.dumps(m, indent=1))
        self.assertTrue(any("nouveau" in e for e in c["nouveau-loaded"]["evidence"]))
        self.assertIn("blacklist nouveau", c["nouveau-loaded"]["fix"])
        self.assertTrue(c["nouveau-loaded"]["fix_is_for_this_machine"])
        self.assertEqual(c["nvidia-module-not-loaded"]["confirmation"], "not-reproduced")

    def test_not_reproduced_on_a_healthy_machine(self):
        r = fixtures.healthy_root()
        rc, doc, err = explain("Failed to initialize NVML: Driver/library version mismatch\n", root=r.path)
        c = match_of(doc, "nvml-driver-library-mismatch")["causes"][0]
        self.assertEqual(c["confirmation"], "not-reproduced", json.dumps(c, indent=1))
        self.assertTrue(doc["confirmation"]["ran"])

    def test_cannot_tell_without_a_check(self):
        r = fixtures.healthy_root()
        rc, doc, err = explain("NVRM: Xid (PCI:0000:18:00): 74, pid=1, name=python, NVLink: fatal error\n",
                               root=r.path)
        m = match_of(doc, "nvrm-xid")
        c = m["causes"][0]
        self.assertEqual(c["confirmation"], "cannot-tell", json.dumps(c, indent=1))
        self.assertTrue(any("0000:18:00.0 is an NVIDIA GPU here" in e for e in c["evidence"]))

    def test_cannot_tell_when_a_lower_layer_broke(self):
        r = Root()
        r.write("proc/sys/kernel/osrelease", "6.8.0-49-generic\n")
        rc, doc, err = explain("Failed to initialize NVML: Driver/library version mismatch\n", root=r.path)
        c = match_of(doc, "nvml-driver-library-mismatch")["causes"][0]
        self.assertEqual(c["confirmation"], "cannot-tell", json.dumps(c, indent=1))
        self.assertTrue(any("blocked" in e for e in c["evidence"]))

    def test_pci_address_of_another_machine(self):
        r = fixtures.healthy_root()
        rc, doc, err = explain("NVRM: Xid (PCI:0000:c3:00): 79, GPU has fallen off the bus.\n", root=r.path)
        c = match_of(doc, "nvrm-xid-79")["causes"][0]
        self.assertEqual(c["confirmation"], "not-reproduced")
        self.assertTrue(any("no NVIDIA GPU at 0000:c3:00.0" in e for e in c["evidence"]))

    def test_soname_missing_here_with_a_copy_elsewhere(self):
        r = fixtures.healthy_root()
        r.shared_lib("opt/cudnn8/lib/libcudnn.so.8", soname="libcudnn.so.8")
        rc, doc, err = explain("Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: "
                               "cannot open shared object file: No such file or directory\n", root=r.path)
        c = match_of(doc, "dlopen-cudnn")["causes"][0]
        self.assertEqual(c["confirmation"], "confirmed", json.dumps(c, indent=1))
        self.assertTrue(any("not on the loader's path" in e for e in c["evidence"]))
        # a plain directory needs no quotes (core/shquote, as check's fixes)
        self.assertEqual(c["fix"], "export LD_LIBRARY_PATH=/opt/cudnn8/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}")

    def test_soname_copy_in_a_hostile_directory_fix_is_one_word(self):
        r = fixtures.healthy_root()
        d = "opt/cu dnn$(touch pwned)'x/lib"
        r.shared_lib(d + "/libcudnn.so.8", soname="libcudnn.so.8")
        rc, doc, err = explain("Could not load dynamic library 'libcudnn.so.8'; dlerror: libcudnn.so.8: "
                               "cannot open shared object file: No such file or directory\n", root=r.path)
        c = match_of(doc, "dlopen-cudnn")["causes"][0]
        self.assertEqual(c["confirmation"], "confirmed", json.dumps(c, indent=1))
        with tempfile.TemporaryDirectory() as t:
            p = subprocess.run(["sh", "-c", c["fix"] + '; printf %s "$LD_LIBRARY_PATH"'], cwd=t,
                               env={"PATH": "/usr/bin:/bin"}, capture_output=True, text=True)
            self.assertEqual(p.stdout, "/" + d, c["fix"])
            self.assertEqual(os.listdir(t), [], "the fix ran something")

    def test_soname_found_here(self):
        r = fixtures.healthy_root()
        rc, doc, err = explain("ImportError: libcuda.so.1: cannot open shared object file: No such file or directory\n",
                               root=r.path)
        c = match_of(doc, "dlopen-libcuda")["causes"][0]
        self.assertEqual(c["confirmation"], "not-reproduced", json.dumps(c, indent=1))
        self.assertTrue(any("the loader finds" in e for e in c["evidence"]))


class Markdown(unittest.TestCase):
    def test_check_format_markdown(self):
        r = fixtures.healthy_root()
        fl.add_gpus(r, driver="nouveau")
        fl.add_kernel(r, modules=("nouveau",))
        rc, out, err = run(["check", "--format", "markdown"], root=r.path, env=clean_env())
        self.assertEqual(rc, 1, err)
        self.assertTrue(out.startswith("**gpudoctor check:** FAIL at the kernel layer"), out[:200])
        self.assertIn("| Component | Version | Where / how |", out)
        self.assertIn("<details><summary>Findings:", out)
        self.assertIn("(`nouveau-loaded`)", out)
        self.assertTrue(out.rstrip().endswith("</details>"))

    def test_markdown_escapes_machine_values(self):
        r = fixtures.healthy_root()
        r.write("proc/sys/kernel/osrelease", "6.8|`x`<b>\n")
        rc, out, err = run(["check", "--format", "markdown"], root=r.path, env=clean_env())
        self.assertIn("| Linux kernel | `` 6.8\\|`x`<b> `` |", out)


if __name__ == "__main__":
    unittest.main()
