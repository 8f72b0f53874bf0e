#!/usr/bin/env python3
"""CPU and RSS of gpudoctor watch on a fixture machine with the fake NVML:
a 1 s and a 30 s instance side by side for SECONDS (default 300), the
daemon and its NVML sampler child measured apart from /proc (CPU time, so
a busy machine slows the run but barely changes the figures).

    GPUDOCTOR=build/gpudoctor python3 bench/watch-cost.py [SECONDS]
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "e2e"))
import fixtures  # noqa: E402
from watchtest import Watch  # noqa: E402

HZ = os.sysconf("SC_CLK_TCK")


def cpu_rss(pid):
    with open("/proc/%d/stat" % pid) as f:
        st = f.read()
    fl = st[st.rindex(")") + 2:].split()
    rss = 0
    with open("/proc/%d/status" % pid) as f:
        for l in f:
            if l.startswith("VmRSS:"):
                rss = int(l.split()[1]) * 1024
    return (int(fl[11]) + int(fl[12])) / HZ, rss


def kids(pid):
    return [int(k) for k in subprocess.run(["pgrep", "-P", str(pid)], capture_output=True,
                                           text=True).stdout.split()]


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 300
    r = fixtures.healthy_root()
    with Watch(r, interval="1s") as w1, Watch(r, interval="30s") as w30:
        w1.wait_metric("gpudoctor_gpu_temperature_celsius")
        w30.wait_metric("gpudoctor_gpu_temperature_celsius")
        time.sleep(5)	# past the start-up static check
        start = {}
        for name, w in (("1s", w1), ("30s", w30)):
            k = kids(w.proc.pid)
            start[name] = (cpu_rss(w.proc.pid), {c: cpu_rss(c) for c in k})
        t0 = time.monotonic()
        time.sleep(secs)
        span = time.monotonic() - t0
        for name, w in (("1s", w1), ("30s", w30)):
            (c0, _), kstart = start[name]
            c1, rss = cpu_rss(w.proc.pid)
            print("watch --interval %s: daemon CPU %.3f%% of a core, RSS %.2f MB over %.0f s"
                  % (name, 100 * (c1 - c0) / span, rss / 1e6, span))
            for k, (kc0, _) in kstart.items():
                try:
                    kc1, krss = cpu_rss(k)
                    print("  NVML sampler child %d: CPU %.3f%% of a core, RSS %.2f MB"
                          % (k, 100 * (kc1 - kc0) / span, krss / 1e6))
                except OSError:
                    print("  child %d gone" % k)


if __name__ == "__main__":
    main()
