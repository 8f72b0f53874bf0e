"""gpudoctor explain against hostile input (issue 18): matching time is linear
in the input (a 1 MB line, lines full of every rule's anchor), NUL bytes
separate records instead of ending them, and explain --run forwards SIGINT,
SIGTERM and SIGHUP to the command's process group and ends with its status.

Times are CPU seconds of the gpudoctor process (user + system, from wait4),
so that a loaded CI machine does not fail them; the wall clock only guards
against a hang.  Under AddressSanitizer (make check SANITIZE=1) the bounds
are ten times wider: the instrumentation, not the algorithm, costs there.
"""
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gdtest import GPUDOCTOR, REPO, clean_env, explain_cpu, matched_rules  # noqa: E402

RULES = os.path.join(REPO, "src", "knowledge", "data", "explain.tsv")
MB = 1 << 20
with open(GPUDOCTOR, "rb") as _f:
    SLOW = 10 if b"__asan_init" in _f.read() else 1
KERNEL_IMAGE = "RuntimeError: CUDA error: no kernel image is available for execution on the device"


def anchors():
    """Every rule's anchor literals, as the matcher's automaton sees them."""
    out = []
    for line in open(RULES, encoding="utf-8"):
        c = line.rstrip("\n").split("\t")
        if line.startswith("#") or len(c) < 6 or c[0] == "id":
            continue
        if c[3] in ("re", "rei"):
            out += c[5].split("|")
        elif c[3] == "lit":
            out.append(c[4].split("{")[0])
    return [a for a in out if a]


class Linear(unittest.TestCase):
    def timed(self, data):
        t0 = time.monotonic()
        rc, out, cpu = explain_cpu(data, stdin=True)
        wall = time.monotonic() - t0
        self.assertLess(wall, 20, "explain hung")
        doc = json.loads(out) if out.strip().startswith(b"{") else None
        return rc, doc, cpu

    def test_one_megabyte_line_with_the_error_at_its_end(self):
        rc, doc, cpu = self.timed(b"x" * MB + b" " + KERNEL_IMAGE.encode() + b"\n")
        self.assertEqual(rc, 0)
        self.assertIn("no-kernel-image", matched_rules(doc))
        self.assertLessEqual(cpu, 0.1 * SLOW, "a 1 MB line took %.3f CPU s" % cpu)

    def test_one_megabyte_line_of_every_anchor(self):
        # each anchor behind 1200 bytes that glibc's regexec would try as
        # start positions: quadratic if a pattern saw the whole line
        for pad in (b"lib" * 400, b"0" * 1200, b"'" + b"a" * 1200, b"libcudnn_" * 130):
            unit = b"".join(pad + a.encode() + b" " for a in anchors())
            line = (unit * (MB // len(unit) + 1))[:MB] + b"\n"
            rc, _, cpu = self.timed(line)
            self.assertIn(rc, (0, 3))
            self.assertLessEqual(cpu, 0.1 * SLOW, "pad %r: %.3f CPU s" % (pad[:8], cpu))

    def test_time_grows_linearly_with_the_line(self):
        # 40 KB took 9.5 s before the windows; 16x the length must cost at
        # most about 16x (plus the start-up), never 256x
        pad = b"lib" * 13000
        small = pad + b" permission denied\n"
        big = pad * 16 + b" permission denied\n"
        _, _, c_small = self.timed(small)
        _, _, c_big = self.timed(big)
        self.assertLessEqual(c_big, 0.1 * SLOW)
        self.assertLessEqual(c_big, 16 * c_small + 0.05 * SLOW)

    def test_error_after_a_long_line_prefix_is_still_found(self):
        # the window follows the anchor wherever it is in the line
        for at in (0, 1000, 500000):
            text = b"y" * at + b" libcudnn.so.8: cannot open shared object file: No such file or directory\n"
            rc, doc, _ = self.timed(text)
            self.assertEqual(rc, 0, at)
            self.assertIn("dlopen-cudnn", matched_rules(doc), at)

    def test_hit_text_of_a_long_line_is_the_matched_part(self):
        rc, doc, _ = self.timed(b"z" * 100000 + b" " + KERNEL_IMAGE.encode() + b"\n")
        m = [m for m in doc["matches"] if m["rule"] == "no-kernel-image"][0]
        self.assertIn("no kernel image", json.dumps(m))

    def test_hundred_megabytes_of_ordinary_log(self):
        lines = "".join("2024-05-01 12:00:%02d,123 INFO train.py:%d: epoch %d step %d loss 0.%04d "
                        "lr 0.0001 throughput %d samples/s\n" % (i % 60, i, i // 100, i, i, 100 + i)
                        for i in range(2000)).encode()
        data = lines * (100 * MB // len(lines) + 1) + KERNEL_IMAGE.encode() + b"\n"
        rc, out, cpu = explain_cpu(data)
        self.assertEqual(rc, 0)
        self.assertIn("no-kernel-image", matched_rules(json.loads(out)))
        self.assertLessEqual(cpu, 1.0 * SLOW, "100 MB took %.2f CPU s" % cpu)

    def test_hundred_megabytes_of_non_ascii_progress(self):
        # tqdm's block characters and a Chinese training log: a lead byte every
        # few bytes, each tried against every localised word (logunwrap.c) took
        # 9 s for 100 MB; the words are indexed by their first byte
        lines = "".join("Epoch %d: %d%%|%s%s| %d/1000 [00:10<00:12, 45.0it/s] \u8bad\u7ec3\u635f\u5931 0.%04d "
                        "\u9a8c\u8bc1 %d\n" % (i // 100, i % 100, "\u2588" * (i % 40), " " * (40 - i % 40), i, i, i)
                        for i in range(2000)).encode()
        data = lines * (100 * MB // len(lines) + 1) + KERNEL_IMAGE.encode() + b"\n"
        rc, out, cpu = explain_cpu(data)
        self.assertEqual(rc, 0)
        self.assertIn("no-kernel-image", matched_rules(json.loads(out)))
        self.assertLessEqual(cpu, 1.0 * SLOW, "100 MB took %.2f CPU s" % cpu)


class HostileRuleTable(unittest.TestCase):
    """--kb DIR's explain.tsv is outside input too: a rule id is printed as it
    is, and glibc compiles and runs its regexes (src/explain/rulecheck.h)."""

    def kb_with_row(self, edit):
        with open(RULES, "rb") as f:
            lines = f.read().split(b"\n")
        n = next(i for i, l in enumerate(lines) if l.startswith(b"nvidia-smi-gpu-lost\t"))
        cells = lines[n].split(b"\t")
        edit(cells)
        lines[n] = b"\t".join(cells)
        d = tempfile.mkdtemp(prefix="gd-kbrules-")
        with open(os.path.join(d, "explain.tsv"), "wb") as f:
            f.write(b"\n".join(lines))
        return d

    def explain(self, kb, text):
        p = subprocess.run([GPUDOCTOR, "--kb", kb, "explain", "--no-live", "-"], input=text,
                           capture_output=True, timeout=30 * SLOW, env=clean_env())
        return p.returncode, p.stdout + p.stderr

    def test_back_reference_is_refused_not_run(self):
        # before: regexec backtracked on a 3000-byte line past any timeout
        def edit(c):
            c[4], c[6] = b"Unable to determine the device handle(a*)*\\1(a*)*\\2x", b"p,q"
        rc, out = self.explain(self.kb_with_row(edit), b"Unable to determine the device handle" + b"a" * 3000 + b"\n")
        self.assertNotEqual(rc, 0)
        self.assertIn(b"back-reference", out)

    def test_stacked_bounds_are_refused_not_compiled(self):
        # before: regcomp expanded 255^3 copies and never returned
        def edit(c):
            c[4] = b"a{1,255}{1,255}{1,255}"
        rc, out = self.explain(self.kb_with_row(edit), b"\n")
        self.assertNotEqual(rc, 0)
        self.assertIn(b"bounded repetition", out)

    def test_rule_id_with_an_escape_is_refused(self):
        def edit(c):
            c[0] = b"id-\x1b[31m"
        rc, out = self.explain(self.kb_with_row(edit), b"GPU is lost\n")
        self.assertNotEqual(rc, 0)
        self.assertNotIn(b"\x1b", out)
        self.assertIn(b"rule id", out)

    def test_near_miss_the_table_as_shipped_loads(self):
        rc, out = self.explain(self.kb_with_row(lambda c: None),
                               b"Unable to determine the device handle for GPU 0000:3b:00.0: GPU is lost\n")
        self.assertEqual(rc, 0, out)
        self.assertIn(b"nvidia-smi-gpu-lost", out)


class Nul(unittest.TestCase):
    def explain(self, data):
        rc, out, _ = explain_cpu(data, stdin=True)
        return rc, json.loads(out) if out.strip().startswith(b"{") else None

    def test_nul_before_an_error_does_not_hide_it(self):
        for prefix in (b"\0", b"binary junk\0\0\0", b"\0" * 5000, b"[ 12.3] \0"):
            rc, doc = self.explain(prefix + KERNEL_IMAGE.encode() + b"\n")
            self.assertEqual(rc, 0, prefix[:20])
            self.assertIn("no-kernel-image", matched_rules(doc), prefix[:20])

    def test_nul_separates_records_of_one_line(self):
        rc, doc = self.explain(b"libcudnn.so.8: cannot open shared object file: No such file or directory"
                               b"\0" + KERNEL_IMAGE.encode() + b"\n")
        self.assertEqual(rc, 0)
        self.assertIn("dlopen-cudnn", matched_rules(doc))
        self.assertIn("no-kernel-image", matched_rules(doc))

    def test_near_miss_nul_inside_the_message_splits_it(self):
        # a NUL separates: the two halves are two records, neither the message
        rc, doc = self.explain(b"no kernel image is avail\0able for execution on the device\n")
        self.assertNotIn("no-kernel-image", matched_rules(doc))


class RunSignals(unittest.TestCase):
    """A real signal to `gpudoctor explain --run -- sh -c ...`."""

    # "ready" only once the sleeper has exec'd: between fork and exec it
    # still runs sh's trap handler, and a signal caught there is lost at
    # exec, so under load the sleeper outlived the signal and its trap's
    # kill (seen in CI: sh exited 7, sleep 300 kept the pipes open)
    SCRIPT = ("trap 'echo got-$SIG >&2; kill $SLEEPER 2>/dev/null; exit 7' %s; "
              "sleep 300 & SLEEPER=$!; "
              "while [ \"$(cat /proc/$SLEEPER/comm 2>/dev/null)\" = sh ]; do :; done; "
              "echo sleeper=$SLEEPER; echo ready; "
              "while :; do sleep 0.05; done")

    def start(self, script):
        # Default dispositions, as a shell gives a foreground job: a suite
        # started in the background (nohup, "cmd &" in a script) inherits
        # SIGINT ignored, which gpudoctor rightly keeps ignoring and sh then
        # cannot trap (POSIX: signals ignored on entry stay ignored).
        def default_signals():
            for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
                signal.signal(s, signal.SIG_DFL)
        p = subprocess.Popen([GPUDOCTOR, "explain", "--no-live", "--run", "--", "sh", "-c", script],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env(),
                             start_new_session=True, preexec_fn=default_signals)
        info = {}
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            line = p.stdout.readline().decode()
            if line.startswith("sleeper="):
                info["sleeper"] = int(line.split("=")[1])
            if line.strip() == "ready":
                return p, info
        p.kill()
        self.fail("the command did not start")

    def finish(self, p):
        try:
            # generous: on a loaded 2-core machine the shell's trap, its kill
            # of the sleeper and the pipes' EOF have been seen to take seconds
            out, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            self.fail("gpudoctor did not end after the signal")
        return out.decode(), err.decode()

    def gone(self, pid):
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                with open("/proc/%d/stat" % pid) as f:
                    if f.read().split(") ")[1].startswith("Z"):
                        return True
            except OSError:
                return True
            time.sleep(0.05)
        return False

    def test_each_signal_reaches_the_command_and_its_status_is_ours(self):
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            name = sig.name[3:]
            p, _ = self.start(self.SCRIPT.replace("$SIG", name) % name)
            os.kill(p.pid, sig)
            out, err = self.finish(p)
            self.assertEqual(p.returncode, 7, (name, err))
            self.assertIn("got-" + name, err)

    def test_untrapped_signal_ends_the_whole_group(self):
        # sh and its background sleep are in the command's group: both go
        p, info = self.start("sleep 300 & echo sleeper=$!; echo ready; wait")
        os.kill(p.pid, signal.SIGTERM)
        out, err = self.finish(p)
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, err)
        self.assertTrue(self.gone(info["sleeper"]), "the command's child outlived it")

    def kill_group_named_in(self, out):
        # the command's own group (the sh's pid), where what it left runs on
        for line in out.decode().splitlines():
            if line.startswith("group="):
                try:
                    os.killpg(int(line[6:]), signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def run_leaving_one_behind(self, script):
        # gpudoctor's own output to files: a relay keeps copying what the
        # process left behind prints, so its pipes stay open after we end,
        # as they would have with the command alone
        with tempfile.TemporaryDirectory() as d:
            o, e = os.path.join(d, "out"), os.path.join(d, "err")
            t0 = time.monotonic()
            with open(o, "wb") as fo, open(e, "wb") as fe:
                p = subprocess.Popen([GPUDOCTOR, "explain", "--no-live", "--run", "--", "sh", "-c",
                                      "echo group=$$; " + script],
                                     stdout=fo, stderr=fe, env=clean_env(), start_new_session=True)
                try:
                    p.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(p.pid, signal.SIGKILL)
                    p.wait()
                    self.fail("gpudoctor waited for the pipes of a process the command left behind")
            took = time.monotonic() - t0
            with open(o, "rb") as fo:
                at_exit = fo.read()
            time.sleep(1)
            with open(o, "rb") as fo, open(e, "rb") as fe:
                out, err = fo.read(), fe.read()
            self.kill_group_named_in(out)
            try:
                os.killpg(p.pid, signal.SIGKILL)	# the relay, in gpudoctor's group
            except ProcessLookupError:
                pass
            return p.returncode, took, at_exit, out, err

    def test_a_process_left_behind_holding_the_pipes_does_not_hang_it(self):
        # the command ends; its background child keeps stdout and stderr open
        rc, took, _, out, err = self.run_leaving_one_behind("sleep 300 & exit 4")
        self.assertEqual(rc, 4, err)
        self.assertLess(took, 15)
        self.assertIn(b"still holds its output open", err)

    def test_a_chatty_process_left_behind_is_cut_off_and_passed_on(self):
        # one that never goes quiet is read for a few seconds, not for ever;
        # what it prints after that still reaches our stdout (the relay), and
        # it is not killed by a closed pipe
        rc, took, at_exit, out, err = self.run_leaving_one_behind(
            "(i=0; while :; do i=$((i+1)); echo tick-$i; sleep 0.1; done) & exit 3")
        self.assertEqual(rc, 3, err)
        self.assertLess(took, 15)
        self.assertIn(b"tick-1\n", at_exit)
        # a second after gpudoctor ended, more ticks reached its stdout: passed
        # on by the relay, from a process a closed pipe did not kill
        self.assertGreater(out.count(b"tick-"), at_exit.count(b"tick-") + 3, (took, at_exit[-40:], out[-40:]))

    def test_a_closed_stdout_does_not_take_the_status_or_the_explanation(self):
        # `gpudoctor explain --run -- CMD | head -1`: the reader goes after one
        # line; the command (which ignores SIGPIPE) goes on and fails; we must
        # not die of SIGPIPE (141) but end with its status and explain on stderr
        p = subprocess.Popen([GPUDOCTOR, "explain", "--no-live", "--run", "--", "sh", "-c",
                              "trap '' PIPE; echo a; sleep 0.3; echo b; "
                              "echo 'RuntimeError: CUDA error: out of memory' >&2; exit 4"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env())
        self.assertEqual(p.stdout.readline(), b"a\n")
        p.stdout.close()
        err = p.stderr.read()
        p.wait(timeout=30)
        self.assertEqual(p.returncode, 4, err)
        self.assertIn(b"out of memory", err)

    def test_a_signal_after_the_command_ended_is_ours(self):
        # the command ended (status 0); while its leftover is read, gpudoctor
        # itself is told to stop: the signal goes to the leftover, and our
        # status says we were stopped, not that all went well
        p = subprocess.Popen([GPUDOCTOR, "explain", "--no-live", "--run", "--", "sh", "-c",
                              "echo group=$$; (while :; do echo tick; sleep 0.2; done) & exit 0"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=clean_env(),
                             start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_DFL))
        first = p.stdout.readline()
        time.sleep(1.5)	# the command has ended; its loop still prints (the drain)
        os.kill(p.pid, signal.SIGTERM)
        try:
            out, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            self.fail("gpudoctor did not end after the signal")
        self.kill_group_named_in(first + out)
        self.assertEqual(p.returncode, 128 + signal.SIGTERM, err)

    def test_near_miss_what_a_background_process_prints_soon_is_kept(self):
        # a short gap after the command ends is still read, and the pipes'
        # EOF ends it without the note
        p = subprocess.run([GPUDOCTOR, "explain", "--no-live", "--run", "--", "sh", "-c",
                            "(sleep 0.3; echo late-line) & exit 0"],
                           capture_output=True, env=clean_env(), timeout=30)
        self.assertEqual(p.returncode, 0)
        self.assertIn(b"late-line", p.stdout)
        self.assertNotIn(b"still holds its output open", p.stderr)

    def test_near_miss_without_a_signal_the_status_is_the_commands(self):
        p = subprocess.run([GPUDOCTOR, "explain", "--no-live", "--run", "--", "sh", "-c", "exit 5"],
                           capture_output=True, text=True, env=clean_env(), timeout=30)
        self.assertEqual(p.returncode, 5)
        self.assertNotIn("after signal", p.stderr)


if __name__ == "__main__":
    unittest.main()
