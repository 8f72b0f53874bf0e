"""Driver of watch-h200.sh: scrape gpudoctor watch every second, compare with
nvidia-smi, make faults, measure the daemon's RSS and CPU beside dmon's."""
import json, os, re, subprocess, sys, time, urllib.request

GD, W1, W30, DMON, SECS, OUT = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
PY = os.environ.get("PY", "/opt/torch/.venv/bin/python")
HZ = os.sysconf("SC_CLK_TCK")


def get(port, path):
    try:
        with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=5) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except Exception as e:
        return -1, str(e)


def metrics(text):
    out = {}
    for l in text.splitlines():
        if l.startswith("#") or not l:
            continue
        name, _, val = l.rpartition(" ")
        out[name] = float(val)
    return out


def pick(m, prefix, **labels):
    for k, v in m.items():
        if k.startswith(prefix + "{") or k == prefix:
            if all('%s="%s"' % (a, b) in k for a, b in labels.items()):
                return v
    return None


def proc(pid):
    try:
        st = open("/proc/%d/stat" % pid).read()
        f = st[st.rindex(")") + 2:].split()
        cpu = (int(f[11]) + int(f[12])) / HZ
        rss = 0
        for l in open("/proc/%d/status" % pid):
            if l.startswith("VmRSS:"):
                rss = int(l.split()[1]) * 1024
        kids = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
        return cpu, rss, [int(k) for k in kids]
    except OSError:
        return None, None, []


def smi():
    q = "index,pci.bus_id,temperature.gpu,power.draw,memory.used,persistence_mode,pcie.link.gen.current,pcie.link.width.current,ecc.errors.uncorrected.volatile.total"
    p = subprocess.run(["nvidia-smi", "--query-gpu=" + q, "--format=csv,noheader,nounits"], capture_output=True, text=True)
    return [x.strip() for x in p.stdout.strip().split("\n")[0].split(",")]


t0 = time.monotonic()
samples = []
faults = []
mem_proc = None
xid_done = False
ack_done = False
cpu_start = {}
bus = None
while time.monotonic() - t0 < SECS:
    t = time.monotonic() - t0
    ts = time.monotonic()
    st, body = get(9835, "/metrics")
    lat = time.monotonic() - ts
    m = metrics(body) if st == 200 else {}
    row = {"t": round(t, 1), "status": st, "latency_ms": round(lat * 1000, 1)}
    if m:
        row.update({
            "temp": pick(m, "gpudoctor_gpu_temperature_celsius", gpu="0"),
            "power": pick(m, "gpudoctor_gpu_power_watts", gpu="0"),
            "mem_mib": (pick(m, "gpudoctor_gpu_memory_used_bytes", gpu="0") or 0) / 2**20,
            "age": pick(m, "gpudoctor_sample_age_seconds", source="nvml"),
            "rss": pick(m, "gpudoctor_process_resident_memory_bytes"),
            "hz": st})
    if int(t) % 5 == 0:
        row["smi"] = smi()
        if bus is None and row["smi"]:
            bus = row["smi"][1]
    samples.append(row)
    if t >= 15 and 1 not in cpu_start:
        cpu_start[1] = (time.monotonic(), proc(W1), proc(W30), proc(DMON))
    if t >= 30 and mem_proc is None:
        code = "import torch,time; x=torch.empty(20*2**30,dtype=torch.uint8,device='cuda'); x.fill_(1); torch.cuda.synchronize(); print('holding', flush=True); time.sleep(45)"
        mem_proc = subprocess.Popen([PY, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        faults.append(("t=%.0f" % t, "torch process holding 20 GiB started, pid %d" % mem_proc.pid))
    if t >= 60 and mem_proc is not None and not any("during the hold" in f[1] for f in faults):
        st2, b2 = get(9835, "/metrics")
        procs = [l for l in b2.splitlines() if l.startswith("gpudoctor_gpu_process_memory_used_bytes")]
        apps = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits"], capture_output=True, text=True).stdout.strip()
        faults.append(("t=%.0f" % t, "during the hold: watch says %s; nvidia-smi apps: %s" % (procs, apps)))
    if t >= 90 and not xid_done and bus:
        b = bus.lower()
        b = b[4:] if b.startswith("0000") and len(b) > 12 else b	# 00000000:18:00.0 -> 0000:18:00.0
        short = b.rsplit(".", 1)[0]
        lines = ["<4>NVRM: Xid (PCI:%s): 13, pid=4242, name=python3, Graphics Exception: ESR 0x514648=0x1000f 0x514650=0x0 0x514644=0xd3eff2 0x51464c=0x17f" % short,
                 "<4>NVRM: Xid (PCI:%s): 48, pid='<unknown>', name=<unknown>, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 0, subpartition 0." % short]
        try:
            with open("/dev/kmsg", "w") as f:
                for l in lines:
                    f.write(l + "\n")
                    f.flush()
            faults.append(("t=%.0f" % t, "wrote XID 13 and XID 48 lines for %s into /dev/kmsg" % short))
        except OSError as e:
            faults.append(("t=%.0f" % t, "cannot write /dev/kmsg: %s" % e))
        xid_done = True
        xid_t = time.monotonic()
    if xid_done and not ack_done and time.monotonic() - xid_t > 3:
        st3, b3 = get(9835, "/metrics")
        faults.append(("t=%.0f" % t, "after the XIDs: /healthz %s; %s" % (get(9835, "/healthz"), [l for l in b3.splitlines() if "xid" in l and not l.startswith("#")])))
        faults.append(("t=%.0f" % t, "report:\n" + get(9835, "/")[1]))
        p = subprocess.run([GD, "watch", "--ack", "0", "--state-dir", OUT + "/state1"], capture_output=True, text=True)
        faults.append(("t=%.0f" % t, "ack: rc %d %s %s" % (p.returncode, p.stdout.strip(), p.stderr.strip())))
        ack_done = True
        ack_t = time.monotonic()
    if ack_done and not any("after the ack" in f[1] for f in faults) and time.monotonic() - ack_t > 3:
        faults.append(("t=%.0f" % t, "after the ack: /healthz %s" % (get(9835, "/healthz"),)))
    time.sleep(max(0, 1 - (time.monotonic() - ts)))

end = (time.monotonic(), proc(W1), proc(W30), proc(DMON))
print("== faults")
for f in faults:
    print(*f)
print("== scrape samples (every 10th)")
for r in samples[::10]:
    print(json.dumps(r))
ok = [r for r in samples if r["status"] == 200]
print("scrapes: %d, 200: %d, max latency %.1f ms, median latency %.1f ms" % (len(samples), len(ok), max(r["latency_ms"] for r in samples), sorted(r["latency_ms"] for r in samples)[len(samples)//2]))
print("max nvml sample age %.2f s" % max((r.get("age") or 0) for r in ok))
diffs = []
for r in ok:
    if "smi" in r and r.get("temp") is not None:
        s = r["smi"]
        diffs.append((r["t"], "temp watch %s smi %s" % (r["temp"], s[2]), "power watch %.1f smi %s" % (r["power"] or -1, s[3]), "mem MiB watch %.0f smi %s" % (r["mem_mib"], s[4])))
print("== watch vs nvidia-smi (same second)")
for d in diffs[::3]:
    print(*d)
if 1 in cpu_start:
    t1, w1a, w30a, dma = cpu_start[1]
    t2, w1b, w30b, dmb = end
    span = t2 - t1

    def line(name, a, b):
        if a[0] is None or b[0] is None:
            return "%s: gone" % name
        return "%s: CPU %.3f%% of a core over %.0f s, RSS %.2f MB" % (name, 100 * (b[0] - a[0]) / span, span, b[1] / 1e6)
    print("== cost")
    print(line("watch --interval 1s (daemon)", w1a, w1b))
    print(line("watch --interval 30s (daemon)", w30a, w30b))
    print(line("nvidia-smi dmon", dma, dmb))
    for name, a, b in (("1s", w1a, w1b), ("30s", w30a, w30b)):
        for k in b[2]:
            c = proc(k)
            print("  child of the %s instance: pid %d RSS %.2f MB, CPU %.2f s in total" % (name, k, (c[1] or 0) / 1e6, c[0] or 0))
