#!/usr/bin/env python3
"""Soak test of gpudoctor watch: DURATION seconds at a 1 s interval on a
fixture machine with the fake NVML, scraped every second, with faults cycled
(ECC errors, a hanging NVML call, XID lines appended to the kernel log file,
idle and garbage HTTP clients).  Every 10 s it records the daemon's RSS and
open descriptors (/proc/PID/status, /proc/PID/fd); at the end it fails when
RSS grew (median of the last tenth against the median of the first minute
or tenth after a 3-minute warm-up) by more than 256 KiB or the descriptor count is not flat (the last tenth's
maximum above the second tenth's; the band itself is at most 4 wide).

    GPUDOCTOR=build-asan/gpudoctor python3 tests/soak/watch_soak.py [SECONDS]
Prints one line per 10 s and a summary; exit 0 when flat.
"""
import os
import socket
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
import fixtures  # noqa: E402
from watchtest import Watch, metric  # noqa: E402


WARM = 180	# seconds before the RSS baseline is taken


def rss_fds(pid):
    rss = 0
    with open("/proc/%d/status" % pid) as f:
        for l in f:
            if l.startswith("VmRSS:"):
                rss = int(l.split()[1]) * 1024
    return rss, len(os.listdir("/proc/%d/fd" % pid))


def main():
    duration = float(sys.argv[1]) if len(sys.argv) > 1 else 3600
    r = fixtures.healthy_root(gpus=2)
    r.write("proc/sys/kernel/random/boot_id", "soak\n")
    kfile = os.path.join(tempfile.mkdtemp(prefix="gd-soak-"), "kmsg")
    open(kfile, "w").close()
    # A small quarantine, so that RSS shows what the program holds, not what ASan keeps.
    env = {"ASAN_OPTIONS": "detect_leaks=1:abort_on_error=1:quarantine_size_mb=2"}
    seq = 1
    rows = []
    with Watch(r, kmsg_file=kfile, state={"FAKE_NVML_GPUS": 2}, env=env) as w:
        w.wait_metric("gpudoctor_gpu_temperature_celsius")
        t0 = time.monotonic()
        next_row = t0
        scrapes = fails = 0
        while time.monotonic() - t0 < duration:
            t = time.monotonic() - t0
            phase = int(t // 20) % 6
            # cycle the fake NVML: healthy, ECC, hang, healthy, throttle, lost
            want = [{}, {"FAKE_NVML_ECC_VOLATILE_UNC": 2}, {"FAKE_NVML_HANG_CALL": "temperature"},
                    {}, {"FAKE_NVML_CLOCK_REASONS": 0x40}, {"FAKE_NVML_MODE": "gpu-lost"}][phase]
            want = dict(want, FAKE_NVML_GPUS=2)
            w.set_state(**want)
            if int(t) % 7 == 0:
                with open(kfile, "a") as f:
                    f.write("4,%d,%d,-;NVRM: Xid (PCI:0000:18:00): %d, pid=1, name=soak, test\n"
                            % (seq, int(t * 1e6), (13, 31, 43, 63)[seq % 4]))
                    seq += 2 if seq % 50 == 0 else 1	# a gap now and then: lost records
            if int(t) % 30 == 0:
                s = [socket.create_connection(("127.0.0.1", w.port)) for _ in range(20)]
                for c in s[:5]:
                    c.sendall(b"\x00garbage\r\n\r\n")
                for c in s:
                    c.close()
            try:
                st, body = w.get("/metrics")
                scrapes += 1
                fails += st != 200
            except OSError:
                fails += 1
            if time.monotonic() >= next_row:
                rss, fds = rss_fds(w.proc.pid)
                rows.append((t, rss, fds))
                print("t=%5.0f rss=%7.0f KiB fds=%d scrapes=%d failed=%d" % (t, rss / 1024, fds, scrapes, fails),
                      flush=True)
                next_row += 10
            time.sleep(max(0, 1 - (time.monotonic() - t0 - t)))
        m = w.metrics()
        sweeps = metric(m, "gpudoctor_sweeps_total")
        cpu = metric(m, "gpudoctor_process_cpu_seconds_total")
        restarts = metric(m, "gpudoctor_nvml_sampler_restarts_total")
    rc = w.proc.returncode
    n = len(rows)
    # The allocator (and ASan's) warms up for a couple of minutes: the baseline
    # is the first stretch after WARM seconds, compared with the last tenth.
    warm = min(WARM, duration / 3)
    span = max(60, (duration - warm) / 10)
    base = [x for x in rows if warm <= x[0] < warm + span] or rows[: max(1, n // 10)]
    early = [x[1] for x in base]
    late = [x[1] for x in rows[-(n // 10 or 1):]]
    fds = sorted(set(x[2] for x in rows[1:]))
    # The count moves within a small band: +1 while an HTTP client is connected,
    # -2 while the NVML sampler is being restarted (the hang phase), +2 during a
    # static check.  Flat means the band does not move: the late maximum is no
    # higher than the early one.
    fds_early = [x[2] for x in base]
    fds_late = [x[2] for x in rows[-(n // 10 or 1):]]
    growth = statistics.median(late) - statistics.median(early)
    print("summary: %.0f s, %d scrapes (%d failed), %d sweeps, daemon CPU %.2f s, %d sampler restarts, "
          "RSS %.0f -> %.0f KiB (growth %.0f KiB), fd counts seen %s, exit %s"
          % (duration, scrapes, fails, sweeps or 0, cpu or 0, restarts or 0, statistics.median(early) / 1024,
             statistics.median(late) / 1024, growth / 1024, fds, rc))
    ok = (growth <= 256 * 1024 and max(fds_late) <= max(fds_early) and max(fds) - min(fds) <= 4
          and fails == 0 and rc == 0)
    print("soak:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
