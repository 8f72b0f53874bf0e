"""gpudoctor explain on real logs it was not written from (issue 20).

tests/explain/corpus holds 100 logs from public threads, each with the cause
that fixed it (or "benign"), split by a hash of the thread's URL into dev/
(rules were written from these) and test/ (held out).  score.py is the
scorer; this test asserts the goal: at least 85 % of the real failures of
each set named right, and no stack cause named on any benign log.

It also triggers each cause added for issue 20 with a real text, beside a
near miss that must not name it.
"""
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import GPUDOCTOR, REPO  # noqa: E402

sys.path.insert(0, os.path.join(REPO, "tests", "explain", "corpus"))
import score  # noqa: E402


def causes_of(text):
    return score.named(GPUDOCTOR, text)[0]


# Floors: what explain honestly reaches on each later set (a regression fails);
# they are not the 85 % goal.  test3 was opened to rule writers in round 9, after
# its score was reported, so it is now a regression set; test4 is held out.
TEST3_FLOOR = 53
TEST4_FLOOR = 23
TEST5_FLOOR = 34
TEST6_FLOOR = 26
TEST7_FLOOR = 24


class Corpus(unittest.TestCase):
    def check(self, split):
        r = score.score(GPUDOCTOR, [split])
        self.assertGreaterEqual(r["failures"], 30, f"{split}: too few real failures")
        self.assertGreaterEqual(r["benign"], 5, f"{split}: too few benign logs")
        misses = "\n".join(f"{f}: expected {e}, named {c}" for f, e, c, _ in r["misses"])
        self.assertGreaterEqual(r["right"] / r["failures"], 0.85,
                                f"{split}: {r['right']}/{r['failures']}\n{misses}")
        self.assertEqual(r["alarms"], [], f"{split}: a stack cause named on a benign log")

    def floor(self, split, failures, benign, right, known_alarms=()):
        # a later set: at least `right` named right, no benign alarm but the known
        # ones (each with its reason at the caller), enough logs
        r = score.score(GPUDOCTOR, [split])
        self.assertGreaterEqual(r["failures"], failures, f"{split}: too few real failures")
        self.assertGreaterEqual(r["benign"], benign, f"{split}: too few benign logs")
        misses = "\n".join(f"{f}: expected {e}, named {c}" for f, e, c, _ in r["misses"])
        self.assertGreaterEqual(r["right"], right, f"{split}: {r['right']}/{r['failures']}\n{misses}")
        alarms = [a for a in r["alarms"] if a[0] not in known_alarms]
        self.assertEqual(alarms, [], f"{split}: {r['alarms']}")

    def test_development_set(self):
        self.check("dev")

    def test_held_out_set(self):
        self.check("test")

    def test_second_held_out_set(self):
        # test2/: the held-out halves of rounds 4 and 5 (2026-12-01), collected
        # by evaluators after every rule of the earlier rounds and split by
        # sha1 of the thread before any rule of theirs was written.  explain
        # does NOT reach the 85 % goal there: 13/27 and 13/29 named right before
        # this round's rules, 18/27 and 16/29 after (34/56, 61 %), with 3 of 13
        # benign logs given a stack cause, before and after.  The sixth session's
        # rules reach 42/56 (75 %) and 0 of 13 benign alarms; its engineers saw
        # the expected causes of test2's misses (not the texts), so test3 below
        # is the cleaner measure.  The floors are what it honestly reaches, so a
        # regression fails; they are not the goal.
        self.floor("test2", 50, 10, 44)

    def test_third_set(self):
        # test3/: round 8 (2026-12-01, sixth session), 73 logs that three independent
        # evaluators collected from threads nobody had used, labelled before any run.
        # Held out through round 8 (before that session's rules 30/57, after 35/57,
        # 1/16 benign alarm); opened to the rule writers of round 9 once that score was
        # reported (README.md), so it is no longer a measure of generalization, only a
        # floor: 52/57, 0/16 benign alarms after round 9.
        self.floor("test3", 55, 15, TEST3_FLOOR)

    def test_fourth_held_out_set(self):
        # test4/: the held-out half of round 9 (2026-12-01, seventh session): logs that
        # five independent evaluators collected from threads nobody had used, labelled
        # before any run, split by sha1 of the thread URL (8-f here; 0-7 went to dev/
        # after the first wave's score was taken).  No rule was written from these
        # texts.  Before the session's rules 19/33, after both waves 20/33 (61 %),
        # 0/15 benign alarms: under the 85 % goal (README.md).  21/33 after round
        # 10, 22/33 (67 %) after round 11.
        self.floor("test4", 30, 10, TEST4_FLOOR)

    def test_fifth_held_out_set(self):
        # test5/: the held-out half of round 10 (2026-12-02, eighth session): logs that
        # six independent evaluators collected from threads nobody had used while the
        # session's engineers wrote rules from other threads, labelled before any run;
        # split by sha1 of the thread URL (8-f here, 0-7 to dev/ for the second wave).
        # No rule was written from these texts.  Before the session 22/43, after the
        # first wave 22/43, after both waves 23/43 (53 %), 0/9 benign alarms: far under
        # the 85 % goal (README.md).  Ninth session: 25/43 once a program that finds no
        # driver names the container started without GPUs beside the host's causes
        # (test_explain_no_driver_in_container.py); 30/43 (70 %) after the six
        # engineers of round 11 (containers, frameworks and libraries, the kernel
        # driver, hardware, the normaliser, the vocabulary tier), none of whom
        # read these texts.
        self.floor("test5", 40, 9, TEST5_FLOOR)

    def test_sixth_held_out_set(self):
        # test6/: round 12 (2026-12-02, tenth session): 40 failures and 11 benign
        # look-alikes that two collectors gathered from threads nobody had claimed,
        # labelled from each thread's confirmed fix, never run through explain while
        # collecting, and scored once before the round's merge: 21/40 (52.5 %), 0/11.
        # After the round's seven engineers (kernel driver, framework builds, library
        # loading, hardware, containers, Slurm/cuDNN/NCCL/OOM, the old cudaError
        # numbering, the one-line GPU-lost form) it is still 21/40: their families
        # gained on their own new logs (dev) and on test4/test5, not on these.  The
        # lead saw the misses' expected ids (not the texts) before the sys engineer
        # started (README.md of the corpus, round 12).  Eleventh session: 26/40 after
        # round 13 (the #@beside siblings +2, the library term rows +2, +1 together);
        # the siblings engineer's brief named classes the lead had taken from
        # test6's miss ids, so test6 no longer measures generalization: test7 does.
        self.floor("test6", 40, 11, TEST6_FLOOR)

    def test_seventh_held_out_set(self):
        # test7/: round 13 (2026-12-02, eleventh session): 40 failures and 8 benign
        # look-alikes that three collectors gathered from threads nobody had claimed,
        # labelled from each thread's confirmed fix, never run through explain while
        # collecting, and scored once, with main at the start of the session
        # (9c0a998), before any of the round's branches was merged: 24/40 (60 %),
        # 1/8 benign alarms.  The alarm, r13T-20, is a two-node nccl-tests start
        # whose paste ends before the run does (the store cut the text); its
        # collector doubted the label (nobody in the thread says the run finished),
        # and multigpu-nccl-tests-unfinished reads an unfinished run as a hang: kept
        # as a known alarm, not tuned away.  After round 13's seven engineers (the
        # vocabulary tier as SUBJECT x FAILURE KIND for libraries, the kernel and
        # devices, containers, frameworks; #@beside siblings; the required-literal
        # prefilter): still 24/40, the same causes named on every one of the 48.
        self.floor("test7", 40, 8, TEST7_FLOOR, known_alarms=("test7/r13T-20.txt",))


# (cause id, a real text that names it, its source, a near miss that must not)
CASES = [
    ("ctk-cgroup-v2-unsupported",
     "stderr: nvidia-container-cli: container error: cgroup subsystem devices not found: unknown.\n",
     "https://github.com/NVIDIA/nvidia-docker/issues/1486",
     "stderr: nvidia-container-cli: container error: failed to get device cgroup mount path: unable to "
     "create cgroupv0 interface: invalid version: unknown.\n"),
    ("kernel-module-flavor-wrong",
     "kernel: NVRM: The NVIDIA GPU 0000:09:00.0 (PCI ID: 10de:1d01)\n"
     "             NVRM: installed in this system is not supported by open\n"
     "             NVRM: nvidia.ko because it does not include the required GPU\n"
     "             NVRM: System Processor (GSP).\n",
     "https://github.com/negativo17/nvidia-driver/issues/158",
     "[ 1215.756689] NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  535.98  Release Build\n"),
    ("ptxas-too-old",
     "A simple Lux+Reactant+Enzyme test complains 'ptxas too old'.\n",
     "https://github.com/EnzymeAD/Reactant.jl/issues/1280",
     "W asm_compiler.cc:111] *** WARNING *** You are using ptxas 9.2.148, which is older than "
     "11.1. ptxas before 11.1 is known to miscompile XLA code\n"),
    ("shm-permission",
     "node08:27106:27302 [0] include/shm.h:27 NCCL WARN Call to shm_open failed : Permission denied\n",
     "https://github.com/pytorch/pytorch/issues/37004",
     "g148:14937:69361 [0] misc/shmutils.cc:93 NCCL WARN Call to open failed: No such file or directory\n"),
    ("lib-mixed-builds",
     "[Bug]version libcudnn_ops_infer.so.8 not defined in file libcudnn_ops_infer.so.8\n",
     "https://github.com/davisking/dlib/issues/2719",
     "libstdc++.so.6: version `GLIBCXX_3.4.20' not found\n"),
    ("ctk-ldconfig-path",
     "nvidia-container-cli: ldcache error: process /sbin/ldconfig failed with error code: 127\n",
     "https://github.com/NVIDIA/nvidia-docker/issues/587",
     "I0711 07:13:39.545694 40071 nvc_ldcache.c:372] executing /usr/sbin/ldconfig from host\n"),
    ("nccl-ib-network-error",
     "NET/IBP:Got completion from peer 7.6.13.83<36315> with status=12 opcode=32698 len=32696 "
     "vendor err 129 (Send)\n",
     "https://github.com/NVIDIA/nccl/issues/1664",
     "hostname-test:986:1338 [6] NCCL INFO NCCL_IB_TIMEOUT set by environment to 18.\n"),
    ("slurm-gres-misconfigured",
     "sbatch: error: Invalid generic resource (gres) specification\n",
     "https://github.com/awslabs/awsome-distributed-ai/issues/196",
     "Name=gpu File=/dev/nvidia0 CPUs=48-63,176-191\n"),
    ("kernel-lockdown-blocks-module",
     "[  398.381052] Lockdown: modprobe: unsigned module loading is restricted; see man kernel_lockdown.7\n",
     "https://github.com/RinCat/RTL88x2BU-Linux-Driver/issues/114",
     "\tlockdown=\t[SECURITY]\n"),
]


class NewCauses(unittest.TestCase):
    def test_each_new_cause_is_named_and_not_on_its_near_miss(self):
        for cause, text, source, near in CASES:
            with self.subTest(cause=cause, source=source):
                self.assertIn(cause, causes_of(text))
                self.assertNotIn(cause, causes_of(near))

    def test_explain_documents_each_new_cause(self):
        for cause, _, _, _ in CASES:
            with self.subTest(cause=cause):
                p = subprocess.run([GPUDOCTOR, "explain", cause], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, timeout=30)
                self.assertEqual(p.returncode, 0, p.stderr)
                self.assertIn(cause, p.stdout.decode())


if __name__ == "__main__":
    unittest.main()


def rules_of(data, exe=None):
    """explain's matched rules for raw bytes (the normaliser sees them as they are)."""
    import json
    p = subprocess.run([exe or GPUDOCTOR, "explain", "--json", "--no-live", "-"], input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return [m["rule"] for m in json.loads(p.stdout)["matches"]]


class PastedForms(unittest.TestCase):
    """The normaliser's forms of issue 20, each with real text."""

    RMINIT = b"NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)"

    def test_dmesg_human_relative_with_comma(self):
        # dmesg -H: "[Nov30 08:12]" at a new minute, then "[  +0,000150]" deltas
        data = b"[Nov30 08:12] nvidia: loading out-of-tree module taints kernel.\n" \
               b"[  +0,000150] " + self.RMINIT + b"\n"
        self.assertIn("nvrm-rminit-failed", rules_of(data))
        # the prefix is gone, not just tolerated: the line folds with a plain copy
        self.assertEqual(rules_of(b"[  +0.000150] " + self.RMINIT + b"\n" + self.RMINIT + b"\n"),
                         ["nvrm-rminit-failed"])

    def test_crlf_and_cr_only(self):
        line = b"nvidia-container-cli: ldcache error: process /sbin/ldconfig failed with error code: 127"
        self.assertIn("ctk-ldcache-error", rules_of(b"x\r\n" + line + b"\r\ny\r\n"))
        self.assertIn("ctk-ldcache-error", rules_of(b"x\r" + line + b"\ry\r"))
        # a progress bar redrawn with CR in an LF log keeps only what was shown last
        self.assertNotIn("ctk-ldcache-error", rules_of(b"a\n" + line + b"\r100%\n"))

    def test_quoted_and_html_escaped(self):
        # https://github.com/NVIDIA/libnvidia-container/issues/177 quoted in a reply
        q = b"> > nvidia-container-cli: ldcache error: process /usr/sbin/ldconfig failed with error code: 1\n"
        self.assertIn("ctk-ldcache-error", rules_of(q))
        # a traceback line copied from an issue's HTML
        h = b"RuntimeError: DataLoader worker (pid 46794) is killed by signal: Bus error. It is " \
            b"possible that dataloader&#39;s workers are out of shared memory. Please try to raise " \
            b"your shared memory limit.\n"
        self.assertIn("dataloader-bus-error", rules_of(h))
        self.assertIn("tf-oom-tensor", rules_of(
            b"OOM when allocating tensor with shape[16,112,112,147] and type float on "
            b"/job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc &lt;br&gt;\n"))

    def test_wrapped_message_is_joined(self):
        # https://github.com/shrubb/latent-pose-reenactment/issues/21: the renderer broke the line
        wrapped = b"ERROR: Unexpected bus error encountered in worker. This might be caused by\n" \
                  b"insufficient shared memory (shm).\n"
        self.assertIn("dataloader-bus-error", rules_of(wrapped))
        # near miss: two unrelated lines that happen to meet mid-phrase join to nothing known
        self.assertEqual(rules_of(b"loading the model from\nthe cache directory\n"), [])


class Speed(unittest.TestCase):
    def test_100_mb_in_one_second(self):
        import time
        if os.environ.get("GD_SKIP_SPEED"):
            self.skipTest("GD_SKIP_SPEED set")
        # a plain training log with a wrapped line and an error now and then
        block = (b"2026-11-30 08:12:01.123 INFO step 1200 loss 0.1234 lr 3e-4 throughput 1234.5 samples/s\n"
                 * 60 + b"[  +0,000150] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n"
                 b"This might be caused by\ninsufficient shared memory (shm).\n")
        data = block * (100 * 1024 * 1024 // len(block))
        # The bound is the product's speed.  CI runs this suite on the
        # sanitized build (build-asan/), several times slower by design: time
        # the optimised build beside it (ci.sh builds it first), which must
        # match the same rules.
        exe = GPUDOCTOR
        plain = os.path.join(REPO, "build", "gpudoctor")
        if os.sep + "build-asan" + os.sep in GPUDOCTOR and os.access(plain, os.X_OK):
            exe = plain
            self.assertEqual(sorted(set(rules_of(block))), sorted(set(rules_of(block, exe))))
        best = None
        for _ in range(2):
            t = time.monotonic()
            rules_of(data, exe)
            best = min(best or 1e9, time.monotonic() - t)
        # 1 s is the goal on an unloaded machine; a shared CI machine gets 3x
        self.assertLess(best, 3.0, f"100 MB took {best:.2f} s")
        print(f"\n  explain ({os.path.relpath(exe, REPO)}): 100 MB in {best:.2f} s", file=sys.stderr)

    def test_100_mb_of_a_repeated_error_report(self):
        # A crash loop or a job's ranks repeat a whole report, not one line:
        # lognorm folds only consecutive copies, so each line of the block
        # reached the patterns every time (50 MB of one NCCL report took
        # 9 s).  logmatch remembers a line's match (linememo.h).  CPU time of
        # the child, not wall time: the bound must hold on a loaded machine.
        import tempfile
        if os.environ.get("GD_SKIP_SPEED"):
            self.skipTest("GD_SKIP_SPEED set")
        block = b""
        for name in ("r8-multigpu-05", "r8-multigpu-06", "r8-containers-10", "r8-installpkg-02"):
            with open(os.path.join(REPO, "tests/explain/corpus/dev", name + ".txt"), "rb") as f:
                block += f.read()
        exe = GPUDOCTOR
        plain = os.path.join(REPO, "build", "gpudoctor")
        if os.sep + "build-asan" + os.sep in GPUDOCTOR and os.access(plain, os.X_OK):
            exe = plain
        once = sorted(set(rules_of(block, exe)))
        self.assertTrue(once)
        with tempfile.NamedTemporaryFile("wb", suffix=".log", delete=False) as f:
            f.write(block * (100 * 1024 * 1024 // len(block)))
            name = f.name
        try:
            p = subprocess.Popen([exe, "explain", "--json", "--no-live", name], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
            out = p.stdout.read()
            _, _, ru = os.wait4(p.pid, 0)
        finally:
            os.unlink(name)
        import json
        many = sorted({m["rule"] for m in json.loads(out)["matches"]})
        cpu = ru.ru_utime + ru.ru_stime
        # the same rules match the block once and a thousand times
        self.assertEqual(once, many)
        self.assertLess(cpu, 1.5, f"100 MB of a repeated report took {cpu:.2f} CPU s")
        print(f"\n  explain ({os.path.relpath(exe, REPO)}): 100 MB of a repeated report in {cpu:.2f} CPU s",
              file=sys.stderr)


def hits(data):
    import json
    p = subprocess.run([GPUDOCTOR, "explain", "--json", "--no-live", "-"], input=data,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return json.loads(p.stdout)["matches"]


class Decoding(unittest.TestCase):
    def test_oom_numbers_say_who_holds_the_memory(self):
        # https://github.com/phamquiluan/ResidualMaskingNetwork/issues/15: another process held it
        other = hits(b"RuntimeError: CUDA out of memory. Tried to allocate 36.00 MiB (GPU 0; 10.76 GiB "
                     b"total capacity; 996.23 MiB already allocated; 8.81 MiB free; 1010.00 MiB reserved "
                     b"in total by PyTorch)\n")[0]
        self.assertIn("held outside this process", other["decoded"]["oom_free"])
        # https://github.com/CompVis/stable-diffusion/issues/702: the job itself filled the GPU
        own = hits(b"OutOfMemoryError: CUDA out of memory. Tried to allocate 192.00 MiB (GPU 0; 4.00 GiB "
                   b"total capacity; 3.08 GiB already allocated; 0 bytes free; 3.47 GiB reserved in "
                   b"total by PyTorch)\n")[0]
        self.assertIn("do not fit", own["decoded"]["oom_free"])
        # the numbers decide the cause (issue 20 round 3): another holder is gpu-memory-held,
        # the job's own allocations are its scope, with no stack cause
        self.assertEqual(other["class"], "cause")
        self.assertEqual([c["cause"] for c in other["causes"]], ["gpu-memory-held"])
        self.assertEqual(own["class"], "scope")
        self.assertEqual(own["causes"], [])
        # near miss: the PyTorch 2 wording has no such numbers, so nothing is claimed
        new = hits(b"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has "
                   b"a total capacity of 79.19 GiB of which 1.19 GiB is free.\n")[0]
        self.assertNotIn("oom_free", new["decoded"])

    def test_error_codes_by_name_and_number(self):
        def causes(line):
            return [c["cause"] for m in hits(line) for c in m["causes"]]
        self.assertEqual(causes(b"pynvml.nvml.NVMLError_GpuIsLost: GPU is lost\n"), ["gpu-lost"])
        self.assertEqual(causes(b"RuntimeError: cuDNN error: CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH\n"),
                         ["lib-mixed-builds", "cudnn-version-mismatch"])
        # an allocation-failure code is an out-of-memory report with no figures: the neutral
        # gpu-out-of-memory, unless the log shows another holder (issue 20, oombenign)
        self.assertEqual(causes(b"RuntimeError: cuda runtime error (2) : out of memory at THCStorage.cu:66\n"),
                         ["gpu-out-of-memory"])
        self.assertEqual(causes(b"RuntimeError: cuda runtime error (2) : out of memory at THCStorage.cu:66\n"
                                b"nvidia-smi: another process (pid 4242) holds 10 GiB of GPU 0\n"),
                         ["gpu-memory-held"])
        # a code that implies no stack cause names none (an illegal address is the program's bug)
        self.assertEqual(causes(b"CUDA error 700\n"), [])
        # near miss: a success code is no error
        self.assertEqual(hits(b"ncclSuccess\n"), [])

    def test_table_is_generated_from_the_headers(self):
        inc = "/usr/local/cuda/include"
        if not all(os.path.exists(os.path.join(inc, f))
                   for f in ("cuda.h", "driver_types.h", "cudnn_graph.h", "nccl.h")):
            self.skipTest("the CUDA, cuDNN and NCCL headers are not installed here")
        gen = os.path.join(REPO, "src", "knowledge", "data", "errcodes-from-headers.py")
        out = subprocess.run([sys.executable, gen, inc], stdout=subprocess.PIPE, check=True).stdout
        with open(os.path.join(REPO, "src", "explain", "errcodes.c"), "rb") as f:
            self.assertEqual(out, f.read(), "src/explain/errcodes.c is not what the headers give")


class Ranking(unittest.TestCase):
    def result(self, data):
        import json
        p = subprocess.run([GPUDOCTOR, "explain", "--json", "--no-live", "-"], input=data,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        return json.loads(p.stdout)

    SMI = b"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. " \
          b"Make sure that the latest NVIDIA driver is installed and running.\n"

    def test_the_most_specific_evidence_wins(self):
        # https://github.com/linux-surface/linux-surface/issues/906 with nvidia-smi's generic line
        doc = self.result(self.SMI + b"modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n")
        self.assertEqual(doc["result"]["most_specific_cause"], "secure-boot-blocks-module")
        # near miss: the generic line alone keeps its own first candidate
        self.assertEqual(self.result(self.SMI)["result"]["most_specific_cause"], "nvidia-module-not-loaded")

    def test_no_nouveau_without_nouveau_in_the_log(self):
        # https://github.com/NVIDIA/gpu-operator/issues/1146: RmInitAdapter, nouveau nowhere
        doc = self.result(b"NVRM: GPU 0000:0a:00.0: RmInitAdapter failed! (0x24:0x72:1568)\n")
        named = [c["cause"] for m in doc["matches"] for c in m["causes"]]
        self.assertNotIn("nouveau-loaded", named)
        # with nouveau's own probe line (https://github.com/negativo17/nvidia-driver/issues/73) it is named
        doc = self.result(b"NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:894)\n"
                          b"[    5.436312] nouveau 0000:01:00.0: NVIDIA GM204 (124020a1)\n")
        named = [c["cause"] for m in doc["matches"] for c in m["causes"]]
        self.assertIn("nouveau-loaded", named)


class Evidence(unittest.TestCase):
    """A rule's guesses are named by the log's evidence (src/explain/logrules.h: "cause?lit")."""

    def named(self, data):
        return [c["cause"] for m in hits(data) for c in m["causes"]]

    # https://github.com/microsoft/WSL/issues/8587 (WSL 2, kernel 5.10.102.1)
    DLOPEN = b"OSError: libcuda.so: cannot open shared object file: No such file or directory\n"

    def test_wsl_paths_name_the_wsl_cause(self):
        for ev in (b"Linux PC 5.10.102.1-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux\n",
                   b"ls /usr/lib/wsl/lib\nlibcuda.so  libcuda.so.1  libcuda.so.1.1  libd3d12.so  libdxcore.so\n"):
            named = self.named(ev + self.DLOPEN)
            self.assertIn("wsl-lib-not-on-loader-path", named)
            self.assertNotIn("libcuda-missing", named)
        # a traceback frame's path counts: a script under /mnt/c/ runs in WSL
        tb = (b"Traceback (most recent call last):\n  File \"/mnt/c/Users/me/train.py\", line 3, in <module>\n"
              b"    import cupy\n" + self.DLOPEN)
        self.assertIn("wsl-lib-not-on-loader-path", self.named(tb))
        # near miss: the same message on a Linux host (no WSL evidence) names the Linux causes
        named = self.named(b"Linux gpu01 5.15.0-91-generic #101-Ubuntu SMP x86_64 GNU/Linux\n" + self.DLOPEN)
        self.assertIn("libcuda-missing", named)
        self.assertNotIn("wsl-lib-not-on-loader-path", named)

    SMI = Ranking.SMI

    def test_a_guess_falls_when_another_has_evidence(self):
        # https://github.com/linux-surface/linux-surface/issues/906: the key was rejected, so
        # nvidia-smi's line names Secure Boot, not the nouveau guess
        named = self.named(self.SMI + b"modprobe: ERROR: could not insert 'nvidia': Key was rejected by service\n")
        self.assertIn("secure-boot-blocks-module", named)
        self.assertNotIn("nouveau-loaded", named)
        # https://github.com/negativo17/nvidia-driver/issues/73: nouveau probed the GPU
        named = self.named(self.SMI + b"[    5.436312] nouveau 0000:01:00.0: NVIDIA GM204 (124020a1)\n")
        self.assertIn("nouveau-loaded", named)
        self.assertNotIn("secure-boot-blocks-module", named)
        # near miss: the line alone cannot tell the guesses apart, so all stand
        named = self.named(self.SMI)
        self.assertIn("nouveau-loaded", named)
        self.assertIn("secure-boot-blocks-module", named)


class NumbersInContext(unittest.TestCase):
    """A bare number is decoded when its context names the API it belongs to (the errctx-* rules)."""

    def one(self, line):
        ms = hits(line)
        self.assertEqual(len(ms), 1, ms)
        return ms[0]

    def test_each_family_by_its_context(self):
        cases = [
            # (line, rule, capture, decoded, a cause it names); sources in tests/explain/fixtures/errctx.txt
            (b"cuInit(0) return code:100\n", "errctx-curesult", "cu_result",
             "CUDA_ERROR_NO_DEVICE", "no-nvidia-gpu"),
            (b"ERROR: Manager API failed: Encountered Cuda Error: 35:\n", "errctx-cudart", "cuda_error",
             "cudaErrorInsufficientDriver", "cuda-runtime-too-new-for-driver"),
            (b"ncclCommInitRank failed: 6\n", "errctx-nccl", "nccl_code", "ncclRemoteError",
             "nccl-ib-network-error"),
            (b"Warning: nvmlInit failed with error 9, dynamic information will not be available.\n",
             "errctx-nvml", "nvml_code", "NVML_ERROR_DRIVER_NOT_LOADED", "nvidia-module-not-loaded"),
            (b"cudnnCreate failed with error 1001\n", "errctx-cudnn", "cudnn_code",
             "CUDNN_STATUS_NOT_INITIALIZED", "cudnn-not-initialized"),
            (b"./collatz2: collatz2.c:3592: CUDA call\n  cuInit(0)\nfailed with error code 999 (unknown error)\n",
             "cuinit-unknown-number", "cu_result", "CUDA_ERROR_UNKNOWN", "uvm-module-not-loaded"),
        ]
        for line, rule, cap, name, cause in cases:
            with self.subTest(line=line):
                m = self.one(line)
                self.assertEqual(m["rule"], rule)
                self.assertIn(name, m["decoded"][cap])
                self.assertIn(cause, [c["cause"] for c in m["causes"]])

    def test_the_same_number_means_what_its_family_says(self):
        # 2 is CUDA_ERROR_OUT_OF_MEMORY for the driver API and ncclSystemError for NCCL
        cu = self.one(b"RuntimeError: cuCtxSetLimit(STACK_SIZE, 16384) returned CUresult 2\n")
        self.assertIn("CUDA_ERROR_OUT_OF_MEMORY", cu["decoded"]["cu_result"])
        # an allocation failure with no figures and no evidence of another holder: the neutral cause
        self.assertEqual((cu["class"], [c["cause"] for c in cu["causes"]]), ("cause", ["gpu-out-of-memory"]))
        nccl = self.one(b"F0118 23:24:48.788218 37264 parallel.cpp:135] Check failed: result == ncclSuccess (2 vs. 0)\n")
        # ncclSystemError: an OS call failed (NCCL's WARN line says which); the call itself failed either way
        self.assertEqual([c["cause"] for c in nccl["causes"]], ["shm-too-small", "memlock-limited", "nccl-call-failed"])

    def test_near_misses_numbers_without_an_api_context(self):
        # device indices and NCCL's return-code trace are numbers, not error codes
        self.assertEqual(hits(b"NCCL INFO ncclCommInitRank comm 0x55 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 65000\n"), [])
        self.assertEqual(hits(b"DESKTOP-GGBQPHK:64756:64771 [0] NCCL INFO init.cc:544 -> 1\n"), [])
        self.assertEqual(hits(b"cuMemAlloc of 2 MB took 3 ms\n"), [])


class WrappedLines(unittest.TestCase):
    """logjoin: a message a renderer or a fixed-width terminal broke over two lines."""

    SMI = (b"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
           b"Make sure that the latest NVIDIA driver is installed and running.")

    def test_a_capital_after_a_word_no_sentence_ends_with(self):
        # nvidia-smi's message (https://github.com/gridhead/nvidia-auto-installer-for-fedora-linux/issues/75)
        # wrapped at 72 columns, as a mail client or a narrow issue renderer does
        cut = self.SMI.index(b"NVIDIA driver.")
        self.assertEqual(rules_of(self.SMI[:cut].rstrip() + b"\n" + self.SMI[cut:] + b"\n"),
                         ["nvidia-smi-no-driver"])
        # near miss: a line that ends a phrase ("... the model") before a capital is not joined
        self.assertEqual(rules_of(b"RuntimeError: CUDA error: no kernel image is available for execution on the\n"
                                  b"Device manager started\n"), [])

    def test_a_word_cut_by_a_fixed_width_wrap(self):
        # onnxruntime's CUDA_CALL message (CUDA failure 35: CUDA driver version is insufficient ...)
        # hard-wrapped at 80 columns inside a word
        line = (b"CUDA failure 35: CUDA driver version is insufficient for CUDA runtime version ; GPU=0 ; "
                b"hostname=localhost ; expr=cudaSetDevice(info_.device_id);")
        self.assertIn("cuda-insufficient-driver", rules_of(line[:66] + b"\n" + line[66:] + b"\n"))
        # near miss: a short line is not a fixed-width wrap, so its words are not glued
        self.assertEqual(rules_of(b"no kernel image is avail\nable\n"), [])


class Typography(unittest.TestCase):
    """A log copied from a web page: curly quotes and no-break spaces are read as ASCII."""

    def test_curly_quote_and_no_break_space(self):
        # nvidia-smi's message (https://github.com/gridhead/nvidia-auto-installer-for-fedora-linux/issues/75)
        # as a rich-text editor or a blog renders it
        smi = ("NVIDIA-SMI has failed because it couldn\u2019t communicate with the\u00a0NVIDIA driver. "
               "Make sure that the latest NVIDIA driver is installed and running.\n").encode()
        self.assertEqual(rules_of(smi), ["nvidia-smi-no-driver"])
        self.assertEqual(rules_of(smi.decode().replace("\u2019", "&rsquo;").encode()), ["nvidia-smi-no-driver"])
        # near miss: another character in the apostrophe's place is not an apostrophe
        self.assertEqual(rules_of(smi.decode().replace("\u2019", "\u00b4").encode()), [])


class OutOfMemory(unittest.TestCase):
    """An out-of-memory report names gpu-memory-held only on evidence of another holder
    (issue 20, oombenign); its own figures showing the job's use make it scope (the job is
    too big); with no figures either way it names gpu-out-of-memory alone, neutral."""

    def one(self, text, rule):
        m = [h for h in hits(text.encode()) if h["rule"] == rule]
        self.assertTrue(m, f"{rule} did not match")
        return m[0]

    def test_no_figures_names_the_neutral_cause(self):
        # https://github.com/Azure/MachineLearningNotebooks/issues/880 (TF), jax-ml/jax#8362 (JAX)
        for text, rule in [
                ("ResourceExhaustedError: OOM when allocating tensor with shape[16,112,112,147] and type "
                 "float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n", "tf-oom-tensor"),
                ("jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to "
                 "allocate 17179869184 bytes.\n", "jax-oom"),
                ("RuntimeError: CUDA error: CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`\n",
                 "cublas-alloc-failed"),
                # the PyTorch 2 message wrapped over lines: the figures are not on the matched line
                ("OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB.\n"
                 "GPU 0 has a total capacity of 14.74 GiB of which 1.25 GiB is free.\n", "torch-cuda-oom")]:
            m = self.one(text, rule)
            self.assertEqual(m["class"], "cause", rule)
            self.assertEqual(causes_of(text), ["gpu-out-of-memory"], rule)

    def test_another_holder_in_the_log_names_the_cause(self):
        # near miss of the above: the same message beside a line saying who holds the memory
        text = ("ResourceExhaustedError: OOM when allocating tensor with shape[16,112,112,147] and type "
                "float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc\n"
                "the GPU is shared: another process (a notebook kernel) holds 10 GiB of it\n")
        self.assertEqual(causes_of(text), ["gpu-memory-held"])

    def test_other_processes_listed_before_pytorchs_figures(self):
        # PyTorch 2.1 on Colab (c10/cuda/CUDACachingAllocator.cpp wording): "Process N has" is this
        # job seen from NVML; PyTorch's own allocated + reserved say it filled the GPU itself
        m = self.one("OutOfMemoryError: CUDA out of memory. Tried to allocate 1.95 GiB. GPU 0 has a total "
                     "capacty of 14.75 GiB of which 1.66 GiB is free. Process 414660 has 13.09 GiB memory in "
                     "use. Of the allocated memory 10.09 GiB is allocated by PyTorch, and 1.92 GiB is reserved "
                     "by PyTorch but unallocated.\n", "torch-cuda-oom-v2-pytorch-only")
        self.assertEqual((m["class"], m["causes"]), ("scope", []))

    def test_small_gpu_context_is_not_another_holder(self):
        # https://github.com/Rudrabha/Wav2Lip/issues/221 (2 GiB GPU; "Reduce the batch size" fixed it)
        m = self.one("RuntimeError: CUDA out of memory. Tried to allocate 288.00 MiB (GPU 0; 2.00 GiB total "
                     "capacity; 849.59 MiB already allocated; 87.44 MiB free; 326.41 MiB cached)\n",
                     "torch-cuda-oom")
        self.assertEqual(m["class"], "scope")
        # near miss: a large GPU nearly all held elsewhere (pytorch/pytorch#40863)
        m = self.one("RuntimeError: CUDA out of memory. Tried to allocate 60.00 MiB (GPU 0; 11.17 GiB total "
                     "capacity; 505.96 MiB already allocated; 12.50 MiB free; 530.00 MiB reserved in total by "
                     "PyTorch)\n", "torch-cuda-oom")
        self.assertEqual([c["cause"] for c in m["causes"]], ["gpu-memory-held"])

    def test_hostile_figures(self):
        for size in ["1e309 GiB", "99999999999999999999999 GiB", "0x10 GiB", "-5 GiB"]:
            text = (f"RuntimeError: CUDA out of memory. Tried to allocate 60.00 MiB (GPU 0; {size} total "
                    "capacity; 505.96 MiB already allocated; 12.50 MiB free; 530.00 MiB reserved in total)\n")
            p = subprocess.run([GPUDOCTOR, "explain", "--json", "--no-live", "-"], input=text.encode(),
                               capture_output=True, timeout=60)
            self.assertIn(p.returncode, (0, 1, 3), size)
            # figures that are no numbers are no evidence of another holder
            self.assertNotIn("gpu-memory-held", causes_of(text), size)

    def test_webui_banner_alone_names_nothing(self):
        # the banner prints on every start with another Python; only a failed install is evidence
        banner = "This program is tested with 3.10.6 Python, but you have 3.11.2.\n"
        self.assertEqual(causes_of(banner), [])
        self.assertEqual(causes_of(banner + "ERROR: No matching distribution found for torch==2.1.2\n"),
                         ["framework-python-unsupported"])
