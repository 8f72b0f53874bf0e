"""Round 3 of the hostile suite for `gpudoctor watch` and `health` (a fresh
attacker after tests/e2e/test_hostile_watch.py): an unprivileged user, a
file or a peer trying to get a node drained or rebooted, or the daemon to
hang.  Each test says what the daemon did before its fix ("Before:") or
that the attack held ("Held:").

- the kernel log: a process name, which starts several kernel records about
  the process and may hold a newline, carrying driver lines; an XID short
  enough to fit in a process name;
- XIDs a user's own kernel raises (13, 31) in two boots: escalated to a
  GPU reset, so health asked for a reboot;
- --sample-nvml: a library in a directory every user can write to;
- HTTP: a client that sends without end after its request; HTTP/0.9,
  other methods, smuggling, paths with "..", oversized heads."""
import os
import socket
import stat
import subprocess
import tempfile
import threading
import time
import unittest

import fixtures
from gdtest import GPUDOCTOR, clean_env
from watchtest import Watch, metric
from test_hostile_watch import DRIVER_XID13, root, timed_get, xid_series


def kmsg_text(s):
    """Text as /dev/kmsg hands it out: bytes below 0x20 and the backslash
    escaped \\xNN (kernel/printk/printk.c, msg_add_ext_text())."""
    return "".join("\\x%02x" % ord(c) if ord(c) < 0x20 or c == "\\" else c for c in s)


XID79 = "NVRM: Xid (PCI:0000:18:00): 79, GPU has fallen off the bus"


class KernelLogNames(unittest.TestCase):
    def test_process_name_with_a_newline(self):
        """Before: a segfault record whose process name is "NVRM: \\nNVRM: x"
        (prctl(PR_SET_NAME) takes any byte) starts "NVRM: " and keeps its
        "]: segfault at " off the first line; the library's file name then
        adds a line "NVRM: Xid (PCI:0000:18:00): 79, ...": counted as XID
        79, gpu-lost, 503.  So did x86's "COMM[PID] bad frame in ..." and
        arm64's "COMM[PID]: unhandled ..." records (both name the file), and
        a name that is a whole XID line without an address ("NVRM: Xid ():
        9").  After: an XID counts only on a record's first line and with
        the GPU's address; later lines only in the fallen-off-the-bus
        report the first line began; all are ignored and the driver's own
        XID 13 (the near miss) still counts."""
        kfile = os.path.join(tempfile.mkdtemp(prefix="gd-kmsg-"), "kmsg")
        lib = "y\n" + XID79 + ".so"
        recs = [
            # arch/x86/mm/fault.c show_signal_msg(): "%s%s[%d]: segfault at %lx ip %px sp %px error %lx"
            "6,301,1,-;" + kmsg_text("NVRM: \nNVRM: x[8699]: segfault at 0 ip 00007f58eba7e10d "
                                     "sp 00007ffcced1d320 error 4 in " + lib + "[110d,7f58eba7e000+1000]") + "\n",
            "6,302,1,-;" + kmsg_text("NVRM: a\nb[8699]: segfault at 0 ip 0 sp 0 error 4 in "
                                     + lib + "[110d,7f58eba7e000+1000]") + "\n",
            # arch/x86/kernel/signal.c signal_fault(): "%s%s[%d] bad frame in %s frame:%p ip:%lx sp:%lx orax:%lx" + " in FILE"
            "6,303,1,-;" + kmsg_text("NVRM: a[8699] bad frame in rt_sigreturn frame:0 ip:0 sp:0 orax:0 in "
                                     + lib + "[7f58eba7e000+1000]") + "\n",
            # arch/arm64/kernel/traps.c arm64_show_signal(): "%s[%d]: unhandled %s (%d) at 0x%08lx, esr 0x%03x, " + "in FILE"
            "6,304,1,-;" + kmsg_text("NVRM: a[8699]: unhandled level 2 translation fault (11) at 0x0, "
                                     "esr 0x92000006, in y\nNVRM: GPU 0000:18:00.0: GPU has fallen off "
                                     "the bus.so[aaaab0000000+1000]") + "\n",
            "6,305,1,-;" + kmsg_text("NVRM: a[8699] bad frame in rt_sigreturn in y\nNVRM: The NVIDIA GPU "
                                     "0000:18:00.0\nNVRM: fallen off the bus and is not responding to "
                                     "commands.so") + "\n",
            # a 15-byte name that is an XID line of its own
            "6,306,1,-;NVRM: Xid (): 9[8699] bad frame in rt_sigreturn frame:0 ip:0 sp:0 orax:0\n",
            # the NVSwitch driver's own SXid record: real, not a spoof (before: counted as one)
            "4,307,1,-;nvidia-nvswitch3: SXid (PCI:0000:89:00.0): 12028, Non-fatal, Link 28 egress "
            "non-posted PRIV error (First)\n",
            DRIVER_XID13.replace("4,900,", "4,907,"),
        ]
        with open(kfile, "w") as f:
            f.write("".join(recs))
        with Watch(root(), kmsg_file=kfile) as w:
            w.wait(lambda: metric(w.metrics(), "gpudoctor_xid_errors_total", gpu=0, xid=13) == 1,
                   what="the driver's XID 13 on GPU 0")
            m = w.metrics()
            self.assertEqual(metric(m, "gpudoctor_kmsg_records_total"), len(recs))
            self.assertEqual(xid_series(m, 79), [])
            self.assertEqual(xid_series(m, 9), [])
            self.assertIsNone(metric(m, "gpudoctor_xid_unacknowledged", xid=79))
            self.assertEqual(w.get("/healthz")[0], 200)
            self.assertFalse([a for a in w.state()["active"] if a.startswith("gpu-lost")])
            # the segfault records are told apart and counted
            self.assertEqual(metric(m, "gpudoctor_kmsg_records_spoofed_total"), 2)


XID31 = ("4,%d,1000000,-;NVRM: Xid (PCI:0000:18:00): 31, pid=4243, name=python3, Ch 00000008, "
         "intr 10000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f12_34560000. "
         "Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ\n")


class UserXids(unittest.TestCase):
    def test_a_users_own_faults_in_two_boots(self):
        """Before: XID 13 and 31 are what any user's kernel raises with an
        illegal address (NVIDIA's catalogue: restart the application).  Seen
        on the same GPU in an earlier boot they were escalated to reset-gpu:
        gpu-xid-error failed, /healthz 503, and `health` said reboot (exit
        1, action reboot), so any user could get a node drained and
        rebooted by crashing a kernel once per boot.  After: the
        application's own XIDs are not escalated; a hardware XID still is
        (tests/e2e/test_watch.py, XID 48)."""
        r = root("boot-a")
        d = tempfile.mkdtemp(prefix="gd-k-")
        state_dir = tempfile.mkdtemp(prefix="gd-watch-state-")
        for boot, seq in (("boot-a", 10), ("boot-b", 20)):
            r.write("proc/sys/kernel/random/boot_id", boot + "\n")
            kfile = os.path.join(d, boot)
            with open(kfile, "w") as f:
                f.write(DRIVER_XID13.replace("4,900,", "4,%d," % seq) + XID31 % (seq + 1))
            with Watch(r, kmsg_file=kfile, state_dir=state_dir) as w:
                w.wait(lambda: metric(w.metrics(), "gpudoctor_xid_errors_total", gpu=0, xid=31) == 1,
                       what="XID 31 on GPU 0")
                w.wait(lambda: w.state().get("updated"), what="a state")
                m = w.metrics()
                self.assertIsNone(metric(m, "gpudoctor_xid_unacknowledged", gpu=0))
                self.assertEqual(w.get("/healthz")[0], 200, boot)
                with open(os.path.join(state_dir, "state")) as f:
                    state = f.read()
        self.assertIn("earlier boot", state)    # the second boot did see them again
        self.assertNotIn("status=fail", state)
        r.write("var/lib/gpudoctor/state", state)
        os.chmod(r.p("var/lib/gpudoctor/state"), 0o644)
        import json
        from gdtest import run
        rc, out, err = run(["--json", "--no-load", "health"], root=r.path, env=clean_env())
        doc = json.loads(out)
        self.assertEqual(doc["action"], "none", out)
        self.assertNotIn("gpu-xid-error", [p["cause"] for p in doc["problems"] if p["severity"] == "fail"])


class SampleNvml(unittest.TestCase):
    def once(self, r, lib):
        from gdtest import run
        sd = tempfile.mkdtemp(prefix="gd-watch-state-")
        empty = os.path.join(sd, "empty-kmsg")
        open(empty, "w").close()
        env = clean_env(FAKE_NVML_STATE_FILE=os.path.join(r.path, "fake-nvml-state"))
        return run(["--root", r.path, "--timeout", "5", "watch", "--once", "--state-dir", sd,
                    "--kmsg-file", empty, "--sample-nvml", lib], env=env)

    def test_library_others_could_replace(self):
        """Before: watch (root) loaded --sample-nvml's library from a
        directory every user can write to, or through a link into one, or
        owned by another user: whoever can write there runs code as root.
        After: refused at start (exit 2, the step named), as ld.so refuses
        such libraries for a set-user-ID program; the same library in a
        directory only root can write to is sampled (the near miss)."""
        r = root()
        src = os.path.join(r.path, "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1")
        base = tempfile.mkdtemp(prefix="gd-nvml-")
        os.chmod(base, 0o755)
        good = os.path.join(base, "good")
        os.mkdir(good, 0o755)
        shutil_copy(src, os.path.join(good, "libnvidia-ml.so.1"))
        rc, out, err = self.once(r, os.path.join(good, "libnvidia-ml.so.1"))
        self.assertEqual(rc, 0, out + err)
        self.assertIn("NVML sampled from", err)
        self.assertNotIn("refused", err)
        open_dir = os.path.join(base, "open")
        os.mkdir(open_dir)
        os.chmod(open_dir, 0o777)
        shutil_copy(src, os.path.join(open_dir, "libnvidia-ml.so.1"))
        os.symlink(os.path.join(open_dir, "libnvidia-ml.so.1"), os.path.join(good, "link.so"))
        theirs = os.path.join(good, "theirs.so")
        shutil_copy(src, theirs)
        writable = os.path.join(good, "writable.so")
        shutil_copy(src, writable)
        os.chmod(writable, 0o666)
        cases = [(os.path.join(open_dir, "libnvidia-ml.so.1"), "writable by every user"),
                 (os.path.join(good, "link.so"), "writable by every user"),
                 (writable, "writable by every user")]
        if os.geteuid() == 0:
            os.chown(theirs, 65534, 65534)
            cases.append((theirs, "owned by uid 65534"))
        for lib, why in cases:
            rc, out, err = self.once(r, lib)
            self.assertEqual(rc, 2, (lib, out, err))
            self.assertIn("--sample-nvml refused", err)
            self.assertIn(why, err)


def shutil_copy(a, b):
    import shutil
    shutil.copyfile(a, b)
    os.chmod(b, 0o755)


def raw(port, data, timeout=3.0, shut=True):
    """Everything the server answers to data, until it closes."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(data)
    if shut:
        s.shutdown(socket.SHUT_WR)
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except (socket.timeout, ConnectionResetError):
        pass
    s.close()
    return out


class HttpRequests(unittest.TestCase):
    def test_malformed_and_smuggled_requests(self):
        """Held: each request gets exactly one answer, then the connection
        closes; nothing but GET and HEAD of the three paths is served; no
        path reaches a file (there are none to reach); every page is
        text/plain (the / page is no HTML).  Hardened: a browser is told
        not to sniff one as HTML (X-Content-Type-Options: nosniff; before:
        absent, and the pages carry GPU names and kernel text)."""
        cases = [
            (b"GET /metrics\r\n\r\n", 400),                           # HTTP/0.9
            (b"GET /metrics HTTP/2.0\r\n\r\n", 505),
            (b"POST /metrics HTTP/1.1\r\nContent-Length: 4\r\n\r\nabcd", 405),
            (b"DELETE /healthz HTTP/1.1\r\n\r\n", 405),
            (b"OPTIONS * HTTP/1.1\r\n\r\n", 405),
            (b"get /metrics HTTP/1.1\r\n\r\n", 400),
            (b"GET http://127.0.0.1/metrics HTTP/1.1\r\n\r\n", 400),
            (b"GET /../../../../etc/passwd HTTP/1.1\r\n\r\n", 404),
            (b"GET /metrics/../healthz HTTP/1.1\r\n\r\n", 404),
            (b"GET /%2e%2e/%2e%2e/etc/shadow HTTP/1.1\r\n\r\n", 404),
            (b"GET /met\x00rics HTTP/1.1\r\n\r\n", 400),
            (b"GET /\x1b[31m HTTP/1.1\r\n\r\n", 400),
            (b"GET /" + b"a" * 9000 + b" HTTP/1.1\r\n\r\n", 414),
            (b"GET /healthz HTTP/1.1\r\nX: " + b"a" * 9000 + b"\r\n\r\n", 431),
            # smuggling: a body and a second request after the head
            (b"GET /healthz HTTP/1.1\r\nContent-Length: 40\r\nTransfer-Encoding: chunked\r\n\r\n"
             b"0\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", 200),
            (b"GET /healthz HTTP/1.1\r\n\r\nGET /metrics HTTP/1.1\r\n\r\n", 200),
        ]
        with Watch(root()) as w:
            w.wait_metric("gpudoctor_up", timeout=10)
            for req, want in cases:
                out = raw(w.port, req)
                self.assertEqual(out.count(b"HTTP/1.0 "), 1, (req[:60], out[:200]))
                self.assertTrue(out.startswith(b"HTTP/1.0 %d " % want), (req[:60], out[:200]))
                self.assertNotIn(b"gpudoctor_up", out if want != 200 else b"", req[:60])
                self.assertNotIn(b"root:", out)
            # the pages are text, and browsers are told not to guess otherwise
            for path in (b"/", b"/healthz", b"/metrics", b"/nothing"):
                head = raw(w.port, b"GET " + path + b" HTTP/1.1\r\n\r\n").split(b"\r\n\r\n")[0]
                self.assertIn(b"\r\nContent-Type: text/plain", head, path)
                self.assertIn(b"\r\nX-Content-Type-Options: nosniff", head, path)
            # the smuggled /metrics was never served
            self.assertNotIn(b"# TYPE", raw(w.port, cases[-1][0]))
            self.assertEqual(w.get("/healthz")[0], 200)

    def test_client_that_never_stops_sending(self):
        """Held, now bounded: after its answer the server drains what the
        client still sends (so the close does not reset the answer); a
        client sending without end could hold that loop.  The drain is now
        bounded (64 reads), and /healthz answers within 1 s while four such
        clients send."""
        with Watch(root()) as w:
            w.wait_metric("gpudoctor_up", timeout=10)
            stop = threading.Event()

            def flood():
                while not stop.is_set():
                    try:
                        s = socket.create_connection(("127.0.0.1", w.port), timeout=2)
                        s.sendall(b"GET /metrics HTTP/1.0\r\n\r\n")
                        chunk = b"x" * (1 << 20)
                        while not stop.is_set():
                            s.sendall(chunk)
                    except OSError:
                        pass
            ts = [threading.Thread(target=flood, daemon=True) for _ in range(4)]
            for t in ts:
                t.start()
            try:
                time.sleep(1)
                lat = []
                for _ in range(8):
                    st, took = timed_get(w.port)
                    self.assertIn(st, (200, 503), lat)
                    lat.append(took)
                    time.sleep(0.2)
                self.assertLess(max(lat), 1.0, lat)
            finally:
                stop.set()
                for t in ts:
                    t.join(5)

    def test_default_listen_is_loopback(self):
        """Held: without --listen the daemon binds 127.0.0.1:9835 only
        (the help and docs say so); reaching it from the network is an
        explicit --listen 0.0.0.0:PORT."""
        from gdtest import run
        rc, out, _ = run(["watch", "--help"])
        self.assertIn("127.0.0.1:9835", out)


class HealthBusyGpu(unittest.TestCase):
    def test_a_job_holding_the_gpu_drains_nothing(self):
        """Before: health's own CUDA check makes a context and a small
        allocation on every GPU.  While any user's job holds a GPU's memory
        (TensorFlow takes nearly all of it by default) or its
        Exclusive_Process context, that fails with CUDA_ERROR_OUT_OF_MEMORY
        (2) or CUDA_ERROR_DEVICE_UNAVAILABLE (46): gpu-compute-failed,
        exit 1, action drain, so `health --slurm` (Slurm runs it on busy
        nodes too) drained every node a big job ran on.  After: those
        results are gpu-memory-held and gpu-exclusive-busy, which
        health reports as warnings (CF_IN_USE in cause_policy.def): exit 0,
        action none.  A GPU that fails otherwise (a launch failure, the
        near miss) still drains."""
        import json
        import fixtures_driver
        from gdtest import Root, run
        for mode, rc_want, action, cause in (("ctx-error:2", 0, "none", "gpu-memory-held"),
                                             ("alloc-error:2", 0, "none", "gpu-memory-held"),
                                             ("ctx-error:46", 0, "none", "gpu-exclusive-busy"),
                                             ("launch-error:719", 1, "drain", "gpu-compute-failed")):
            r = Root()
            fixtures.healthy_root(root=r)
            # health hands its checks a clean environment: the mode is built in
            fixtures_driver.add_driver_libs(r, cuda_cflags=('-DFAKE_DEFAULT_MODE="%s"' % mode,))
            rc, out, err = run(["--load-from-root", "--json", "health"], root=r.path, env=clean_env())
            doc = json.loads(out)
            self.assertEqual((rc, doc["action"]), (rc_want, action), (mode, out, err))
            self.assertEqual([p["cause"] for p in doc["problems"]], [cause], (mode, out))


class HealthStateFile(unittest.TestCase):
    def health(self, r):
        import json
        from gdtest import run
        t = time.monotonic()
        rc, out, err = run(["--json", "--no-load", "health", "--deadline", "5"], root=r.path,
                           env=clean_env(), timeout=30)
        return rc, json.loads(out), time.monotonic() - t

    def test_state_files_a_user_could_plant(self):
        """Held: the watch state is trusted only as a regular file of root
        (or health's user); a FIFO without a writer, a link to /dev/zero,
        another user's file naming gpu-lost, a 1 MB file and a record cut
        in half neither hang health (each answers within its deadline) nor
        make it say drain or reboot."""
        from test_health import BOOT, with_boot, write_state
        lost = ["gpu-lost 0 fail GPU 0 fell off the bus"]
        cases = []
        r = root(BOOT)
        os.makedirs(r.p("var/lib/gpudoctor"), exist_ok=True)
        os.mkfifo(r.p("var/lib/gpudoctor/state"))
        cases.append(("fifo", r))
        r = root(BOOT)
        os.makedirs(r.p("var/lib/gpudoctor"), exist_ok=True)
        os.symlink("/dev/zero", r.p("var/lib/gpudoctor/state"))
        cases.append(("/dev/zero", r))
        if os.geteuid() == 0:
            r = root(BOOT)
            write_state(r, lost)
            os.chown(r.p("var/lib/gpudoctor/state"), 65534, 65534)
            cases.append(("another owner", r))
        r = root(BOOT)
        write_state(r, lost)
        with open(r.p("var/lib/gpudoctor/state"), "a") as f:
            f.write(("x" * 100 + "\n") * 11000)
        cases.append(("1 MB", r))
        r = root(BOOT)
        write_state(r, lost)
        text = open(r.p("var/lib/gpudoctor/state")).read()
        open(r.p("var/lib/gpudoctor/state"), "w").write(text[:text.index("active=") + 25])
        cases.append(("cut record", r))
        for what, r in cases:
            rc, doc, took = self.health(r)
            self.assertLess(took, 5.0, what)
            self.assertEqual(doc["action"], "none", (what, doc))
            self.assertNotIn("gpu-lost", [p["cause"] for p in doc["problems"]], what)
            self.assertIn(rc, (0, 2), (what, doc))
        # the near miss: root's own file naming gpu-lost does ask for the reboot
        r = root(BOOT)
        write_state(r, lost)
        rc, doc, _ = self.health(r)
        self.assertEqual((rc, doc["action"], doc["cause"]), (1, "reboot", "gpu-lost"), doc)

    def test_state_in_a_directory_others_can_write(self):
        """Before: health trusted root's state file in a directory every
        user can write to (no sticky bit), or below one: they can rename
        root's file away and theirs in for health's read, then root's back
        for its ownership check (lstat after read), and so name gpu-lost
        (a reboot).  After: the file and every directory above it must be
        writable by no one else (core/safefile.h, as for --sample-nvml):
        ignored with the warning watch-state-untrusted.  The sticky bit
        (as on /tmp: no one may rename another's file) is the near miss."""
        from test_health import BOOT, write_state
        lost = ["gpu-lost 0 fail GPU 0 fell off the bus"]
        for where, mode, trusted in (("var/lib/gpudoctor", 0o777, False),
                                     ("var/lib", 0o777, False),
                                     ("var/lib/gpudoctor", 0o1777, True)):
            r = root(BOOT)
            write_state(r, lost)
            os.chmod(r.p(where), mode)
            rc, doc, _ = self.health(r)
            causes = [(p["cause"], p["severity"]) for p in doc["problems"]]
            if trusted:
                self.assertEqual((rc, doc["action"]), (1, "reboot"), (where, doc))
            else:
                self.assertEqual((rc, doc["action"]), (0, "none"), (where, doc))
                self.assertEqual(causes, [("watch-state-untrusted", "warn")], where)
                self.assertIn("writable by every user", doc["watch_state"]["note"], where)



class PolicyFile(unittest.TestCase):
    def test_policy_others_could_rewrite(self):
        """Before: watch (root) obeyed a --policy file in a directory every
        user can write to: "13 reboot" there made any user's XID 13 a
        failure that asks for a reboot (health --slurm --reboot).  After:
        refused at start (exit 2), like --sample-nvml's library; the same
        file in a directory only root can write to is obeyed (near miss)."""
        from gdtest import run
        base = tempfile.mkdtemp(prefix="gd-policy-")
        os.chmod(base, 0o755)
        good = os.path.join(base, "good.policy")
        with open(good, "w") as f:
            f.write("13 reboot\n")
        open_dir = os.path.join(base, "open")
        os.mkdir(open_dir)
        os.chmod(open_dir, 0o777)
        bad = os.path.join(open_dir, "p.policy")
        with open(bad, "w") as f:
            f.write("13 reboot\n")
        kfile = os.path.join(base, "kmsg")
        with open(kfile, "w") as f:
            f.write(DRIVER_XID13)
        r = root()

        def once(pol):
            sd = tempfile.mkdtemp(prefix="gd-watch-state-")
            return run(["--root", r.path, "--no-load", "watch", "--once", "--policy", pol,
                        "--state-dir", sd, "--kmsg-file", kfile], env=clean_env())
        rc, out, err = once(good)
        self.assertEqual(rc, 1, out + err)          # obeyed: XID 13 fails the node
        self.assertIn("reboot", out)
        rc, out, err = once(bad)
        self.assertEqual(rc, 2, out + err)
        self.assertIn("--policy refused", err)
        self.assertIn("writable by every user", err)

    def test_policy_relative_name(self):
        """Before: a relative --policy was checked where it resolves from
        the working directory (a trusted file there passed) but read from
        "/" (fs_read_file("/", name)): the file obeyed was not the file
        checked.  After: refused with a usage-like error naming an absolute
        path; the same file given absolutely is obeyed (near miss)."""
        from gdtest import run
        base = tempfile.mkdtemp(prefix="gd-policy-")
        os.chmod(base, 0o755)
        good = os.path.join(base, "good.policy")
        with open(good, "w") as f:
            f.write("13 reboot\n")
        kfile = os.path.join(base, "kmsg")
        with open(kfile, "w") as f:
            f.write(DRIVER_XID13)
        r = root()

        def once(pol):
            sd = tempfile.mkdtemp(prefix="gd-watch-state-")
            return subprocess.run([GPUDOCTOR, "--root", r.path, "--no-load", "watch", "--once",
                                   "--policy", pol, "--state-dir", sd, "--kmsg-file", kfile],
                                  env=clean_env(), cwd=base, capture_output=True, text=True,
                                  timeout=120)
        p = once("good.policy")
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("absolute path", p.stderr)
        p = once(good)
        self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
        self.assertIn("reboot", p.stdout)


if __name__ == "__main__":
    unittest.main()
