#!/usr/bin/env python3
"""make-corpus.py - (re)make the checked-in fuzz seed corpus, tests/fuzz/corpus/<target>/.

    python3 tests/fuzz/make-corpus.py      # needs cc (the fixtures build fake libraries)

The seeds are the real inputs of the tests: the files of the e2e fixture
machines (tests/e2e/fixtures*.py: a healthy host, a container, a host with
Docker, containerd and the toolkit, a toolkit with cuDNN, framework venvs),
the explain fixtures and H200 logs, the knowledge-base tables, the kmsg data,
and the strings the e2e tests feed to health, bench and watch.  A target that
picks its parser by the first byte gets each seed once per selector it fits.
Every seed is cut to 4 KiB (libFuzzer mutates from there); names are the
first 16 hex digits of the content's SHA-1, so re-running is idempotent.

run-fuzz.sh replays every seed of a target, then fuzzes for a few seconds
from them; a target without seeds starts from nothing and finds little in
that time, which is why the corpus is checked in.
"""
import glob
import hashlib
import os
import re
import shutil
import sys

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(os.path.dirname(here))
sys.path.insert(0, os.path.join(top, "tests", "e2e"))
os.environ.setdefault("BUILD", os.path.join(top, "build"))

import fixtures  # noqa: E402
import fixtures_containers as fc  # noqa: E402
import fixtures_fw as ffw  # noqa: E402
import fixtures_libs as fl  # noqa: E402

MAX = 4096
corpus = {}


def seed(target, data, prefix=b""):
    if isinstance(data, str):
        data = data.encode()
    data = prefix + data[:MAX - len(prefix)]
    corpus.setdefault(target, set()).add(data)


# (pattern on the path inside a fixture root, target, selector bytes or None)
RULES = [
    (r"etc/cdi/.*\.ya?ml$", "fuzz_containers", [0]), (r"etc/cdi/.*\.json$", "fuzz_containers", [1]),
    (r"etc/cdi/.*\.ya?ml$", "fuzz_doc", [0]), (r"etc/cdi/.*\.json$", "fuzz_doc", [1]),
    (r"nvidia-container-runtime/config\.toml$", "fuzz_containers", [2]),
    (r"docker/daemon\.json$", "fuzz_containers", [3]), (r"docker/daemon\.json$", "fuzz_doc", [1]),
    (r"containerd/config\.toml$", "fuzz_containers", [4]),
    (r"\.toml$", "fuzz_toml", None),
    (r"proc/self/limits$", "fuzz_containers", [5]),
    (r"proc/self/(mountinfo|mounts)$", "fuzz_containers", [6]),
    (r"devices\.list$", "fuzz_containers", [7]),
    (r"etc/ld\.so\.cache$", "fuzz_ldcache", None),
    (r"etc/ld\.so\.conf(\.d/.*)?$", "fuzz_ldconf", None),
    (r"etc/ld\.so\.preload$", "fuzz_preload", [0]),
    (r"proc/modules$", "fuzz_procfs", None),
    (r"proc/driver/nvidia/version$", "fuzz_procfs", None),
    (r"proc/driver/nvidia/version$", "fuzz_versions", None),
    (r"proc/driver/nvidia/gpus/.*/information$", "fuzz_procfs", None),
    (r"efivars/SecureBoot-", "fuzz_procfs", None),
    (r"os-release$", "fuzz_osrel", None),
    (r"cudnn_version\.h$", "fuzz_versions", None),
    (r"cuda[^/]*/version\.(json|txt)$", "fuzz_versions", None),
    (r"dist-info/(METADATA|RECORD)$", "fuzz_pymeta", None),
    (r"build_info\.py$", "fuzz_pymeta", None),
    (r"torch/version\.py$", "fuzz_pymeta", None),
    (r"bin/nvcc$", "fuzz_script_exec", None),
]
ELF_SEEDS = 4  # a few of the fixtures' fake libraries: each is ~16 KiB, cut to 4 KiB


def from_root(path):
    elves = 0
    for dirpath, dirs, files in os.walk(path):
        for name in sorted(files):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, path)
            if os.path.islink(full) or not os.path.isfile(full):
                continue
            try:
                with open(full, "rb") as f:
                    data = f.read(1 << 20)
            except OSError:
                continue
            if data.startswith(b"\x7fELF") and ".so" in name and elves < ELF_SEEDS:
                seed("fuzz_elf", data)
                elves += 1
            for pat, target, sel in RULES:
                if re.search(pat, rel):
                    for s in sel or [None]:
                        seed(target, data, bytes([s]) if s is not None else b"")
            m = re.search(r"dist-info$", dirpath)
            if m:
                seed("fuzz_versions", os.path.basename(dirpath))


def roots():
    yield fixtures.healthy_root()
    yield fc.container_root()
    yield fc.host_root(docker=True, containerd=True, toolkit=True)
    r = fixtures.healthy_root()
    fl.add_toolkit(r)
    fl.add_cudnn_header(r, "9.19.0")
    site = ffw.add_venv(r)
    ffw.add_torch(r, site)
    ffw.add_torch_cu12_wheels(r, site)
    ffw.add_tensorflow(r, site)
    yield r


TABLE_SEEDS = [("r8-multigpu-15.txt", b"Unidirectional P2P=Disabled"), ("r8-multigpu-12.txt", b"(elements)"),
               ("r4-B22.txt", b"Temperature"), ("r8-fleethw-03.txt", b"Temperature")]


WATCH_SAMPLE = ("init.result=0\ndriver_version=570.124.06\ncuda_version=12080\ncount=2\n" + "".join(
    f"gpu.{i}.name=NVIDIA H200\ngpu.{i}.uuid=GPU-3f1a2b4c-5d6e-4f70-8192-a3b4c5d6e70{i}\n"
    f"gpu.{i}.bus_id=00000000:{0x18 + i:02X}:00.0\ngpu.{i}.temperature_c=34\ngpu.{i}.power_mw=74000\n"
    f"gpu.{i}.memory_used=1048576\ngpu.{i}.memory_total=150754820096\ngpu.{i}.persistence=1\n"
    f"gpu.{i}.ecc_mode=1\ngpu.{i}.ecc_volatile_uncorrected={i}\ngpu.{i}.remap_pending=0\n"
    f"gpu.{i}.clock_reasons=1\ngpu.{i}.pcie_gen=5\ngpu.{i}.pcie_gen_max=5\ngpu.{i}.pcie_width=16\n"
    f"gpu.{i}.pcie_width_max=16\ngpu.{i}.fabric_state=3\ngpu.{i}.lost=0\n"
    f"gpu.{i}.proc.0.pid=4242\ngpu.{i}.proc.0.used=1048576\n" for i in range(2)) + "end\n")


def main():
    for r in roots():
        from_root(r.path)
    for f in sorted(glob.glob(os.path.join(top, "tests", "explain", "fixtures", "*.txt")) +
                    glob.glob(os.path.join(top, "tests", "explain", "h200", "*.txt"))):
        with open(f, "rb") as fh:
            data = fh.read()
        seed("fuzz_lognorm", data, b"\x40")
        seed("fuzz_logmatch", data)
    # logtable's families (p2pBandwidthLatencyTest matrices, nccl-tests'
    # result table, nvidia-smi -q temperatures): each from its table's start
    for name, start in TABLE_SEEDS:
        with open(os.path.join(top, "tests", "explain", "corpus", "dev", name), "rb") as fh:
            data = fh.read()
        at = data.find(start)
        seed("fuzz_logmatch", data[max(at, 0):])
    for f in sorted(glob.glob(os.path.join(top, "src", "knowledge", "data", "*.tsv"))):
        with open(f, "rb") as fh:
            seed("fuzz_kb", fh.read())
    with open(os.path.join(top, "tests", "e2e", "data", "kmsg-xids.txt"), "rb") as fh:
        kmsg = fh.read()
    seed("fuzz_kmsg", kmsg)
    seed("fuzz_kmsg", b"6,1234,5678901,-;NVRM: Xid (PCI:0000:18:00): 79, pid=0, GPU has fallen off the bus.\n")
    for archs in (("sm_80", "sm_90"), ("sm_50",), ("compute_90",)):
        seed("fuzz_fatbin", ffw.fatbin_bytes(archs))
    # the container fixtures' configuration texts
    for sel, text in ((0, fc.cdi_spec()), (4, fc.CONTAINERD_NVIDIA_RUNTIME), (3, fc.DOCKER_DAEMON),
                      (2, fc.TOOLKIT_CONFIG)):
        seed("fuzz_containers", text, bytes([sel]))
    seed("fuzz_doc", fc.cdi_spec(), b"\x00")
    seed("fuzz_doc", fc.DOCKER_DAEMON, b"\x01")
    seed("fuzz_toml", fc.CONTAINERD_NVIDIA_RUNTIME)
    seed("fuzz_toml", fc.TOOLKIT_CONFIG)
    # strings the e2e tests feed in
    seed("fuzz_preload", "/usr/lib/libfoo.so:/opt/bar.so libbaz.so", b"\x01")
    seed("fuzz_containers", "cuda>=12.0 brand=tesla,driver>=535", b"\x08")
    seed("fuzz_containers", "all", b"\x08")
    seed("fuzz_http", b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1:9835\r\nAccept: */*\r\n\r\n")
    seed("fuzz_http", b"POST /ack HTTP/1.0\r\nContent-Length: 5\r\n\r\ngpu=0")
    seed("fuzz_http", b"GET /healthz HTTP/1.1\r\n\r\n")
    seed("fuzz_watch_policy", "# site policy\nbase nvidia\n13 none\n32 none\n48 drain\n79 reboot\n")
    seed("fuzz_watch_policy", "base conservative\n")
    seed("fuzz_health", f"version=1\nboot={fixtures.DRIVER_VERSION}\ntime=1000\n"
         "finding gpu=0 cause=gpu-xid-error xid=79 time=990\n", b"\x80")
    seed("fuzz_health", "NodeName=n1 Arch=x86_64 CoresPerSocket=1 State=IDLE ThreadsPerCore=1 Partitions=gd "
         "Reason=NHC:_gpu [root@2026-01-01T00:00:00]\n", b"\x00")
    # conda-meta records, finding records (watch's state, the children), PCIe
    # config space and sysfs resource files (an H200's, read on 2026-12-01)
    seed("fuzz_condameta", '{"name": "cudnn", "version": "8.9.7.29", "channel": '
         '"https://conda.anaconda.org/conda-forge/linux-64", "files": ["lib/libcudnn.so.8", '
         '"lib/libcudnn.so.8.9.7"]}')
    seed("fuzz_condameta", '{"name": "cudatoolkit", "version": "11.8.0", "files": ["lib/libcudart.so.11.0"]}')
    seed("fuzz_finding_record", "cause=gpu-xid-error status=fail gpu=0 pci=0000:18:00.0 "
         "uuid=GPU-3f1a2b4c-5d6e-4f70-8192-a3b4c5d6e700 xid=79 action=reboot title=XID 79\n")
    seed("fuzz_finding_record", "cause=ecc-errors status=warn layer=driver title=past uncorrectable errors\n")
    seed("fuzz_pcie", "0x0000104002000000 0x0000104002ffffff 0x000000000014220c\n"
         "0x0000000000000000 0x0000000000000000 0x0000000000000000\n"
         "0x0000100000000000 0x0000103fffffffff 0x000000000014220c\n")
    cfg = bytearray(4096)
    cfg[0:4] = bytes([0xb5, 0x10, 0x47, 0x87])
    cfg[0x100:0x104] = bytes([0x01, 0x00, 0x81, 0x14])	# AER, next at 0x148
    cfg[0x148:0x150] = bytes([0x0d, 0x00, 0x01, 0x00, 0x1f, 0x00, 0x1d, 0x00])	# ACS: SV RR CR on
    seed("fuzz_pcie", bytes(cfg))
    seed("fuzz_kvlist", "ok=1\ngpus=1\ngpu0.name=NVIDIA H200\ngpu0.h2d_gbs=52.1\ngpu0.gemm_tflops=612.5\n"
         "cpu.copy_gbs=11.2\n")
    seed("fuzz_ncclinfo", "n1:1234:1234 [0] NCCL INFO NCCL version 2.27.3+cuda12.9\n"
         "n1:1234:1234 [0] NCCL INFO Channel 00/02 : 0 1\n"
         "n1:1234:1234 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
         "n1:1234:1234 [0] NCCL INFO Using network Socket\n")
    # what watch's NVML sampler child says (watch/sampler_child.c's keys) and
    # health's layer child's list (health/health_layers.c)
    seed("fuzz_watch_sample", WATCH_SAMPLE)
    seed("fuzz_watch_sample", "items=2\nitem.0=cause=persistence-mode-off status=warn layer=driver gpu=0 "
         "title=persistence mode is off\nitem.1=cause=gpu-lost status=fail layer=driver gpu=1 "
         "pci=0000:19:00.0 title=GPU 1 has fallen off the bus\nend\n")
    # watch's xid-history and acks (docs/watch-state.md); the first byte splits them
    hist = ("version=1\nboot_id=boot-a\nlast_seq=907\nacks_done=1\n"
            "xid=boot-a 0000:18:00.0 13 2 1796028113 restart-app 0 0 NVRM: Xid (PCI:0000:18:00): 13, pid=4243, "
            "name=python3, Graphics Exception\n"
            "xid=boot-a 0000:1b:00.0 79 1 1796028200 reboot 0 1 NVRM: Xid (PCI:0000:1b:00): 79, GPU has fallen off the bus\n"
            "xid=boot-0 0000:19:00.0 48 1 1796000000 reset-gpu 0 1 NVRM: Xid (PCI:0000:19:00): 48, DBE\n"
            "past=boot-0 0000:18:00.0 13 4\n")
    acks = "ack=0000:19:00.0 1796020000\nack=all 1796028300\nack=1 1796028301\n"
    seed("fuzz_watch_history", hist + acks, bytes([len(hist) * 255 // (len(hist) + len(acks))]))
    seed("fuzz_escape", "caf\xe9 \x1b]0;pwned\x07 $(touch x) 'q' \xff\xfe\n")
    seed("fuzz_osrel", 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\nVERSION_ID="12"\n')
    seed("fuzz_script_exec", "#!/bin/sh\nexec /usr/local/cuda-12.4/bin/nvcc \"$@\"\n")
    out = os.path.join(here, "corpus")
    shutil.rmtree(out, ignore_errors=True)
    targets = sorted(os.path.basename(f)[:-2] for f in glob.glob(os.path.join(here, "fuzz_*.c")))
    for t in targets:
        d = os.path.join(out, t)
        os.makedirs(d)
        for data in corpus.get(t, ()):
            with open(os.path.join(d, hashlib.sha1(data).hexdigest()[:16]), "wb") as fh:
                fh.write(data)
        print(f"{t}: {len(corpus.get(t, ()))} seeds")
    missing = [t for t in targets if not corpus.get(t)]
    if missing:
        print("no seeds for: " + " ".join(missing))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
