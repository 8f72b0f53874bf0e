#!/usr/bin/env python3
"""gpudoctor's NCCL busbw beside torch.distributed's, in alternating rounds.

    compare-nccl-torch.py --gpudoctor build/gpudoctor [--rounds 3] [--out DIR] [--nccl PATH]

--nccl PATH is passed to gpudoctor (for example torch's own libnccl.so.2
from its nvidia-nccl wheel, so that both sides run the same NCCL build).
NVLink multicast stays as the environment sets it (NCCL_NVLS_ENABLE).

Each round runs `gpudoctor bench --json --no-cpu --no-conv` (one process,
ncclCommInitAll over every GPU) and then the same sweep with
torch.distributed's NCCL backend: one process per GPU (spawned here, as
torchrun would), FP32 sums, out of place, 8 B to 1 GiB doubling:
  all-reduce      dist.all_reduce(t)                        size = t's bytes
  all-gather      dist.all_gather_into_tensor(out, inp)     size = out's bytes
  reduce-scatter  dist.reduce_scatter_tensor(out, inp)      size = inp's bytes
timed as nccl-tests and gpudoctor time them: 5 warm-ups, then a host clock
around 50 (< 16 MiB), 20 (< 256 MiB) or 10 operations and a synchronize.
busbw = size / time x 2(n-1)/n (all-reduce) or (n-1)/n (the other two).

The table compares medians over the rounds.  Exit status 0 when every
busbw at 64 MiB and above is >= 95 % of PyTorch's; 1 otherwise.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

COLLS = ["all_reduce", "all_gather", "reduce_scatter"]


def factor(c, n):
    return 2.0 * (n - 1) / n if c == "all_reduce" else (n - 1) / n


def iters_for(size):
    return 10 if size >= 256 << 20 else 20 if size >= 16 << 20 else 50


def worker(rank, world, port, out_path):
    import torch
    import torch.distributed as dist

    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
                            device_id=torch.device("cuda", rank))
    res = {c: [] for c in COLLS}
    big = torch.empty((1 << 30) // 4, dtype=torch.float32, device="cuda")
    out = torch.empty((1 << 30) // 4, dtype=torch.float32, device="cuda")
    for c in COLLS:
        size = 8
        while size <= 1 << 30:
            count = size // 4 if c == "all_reduce" else size // 4 // world
            if count == 0:
                size *= 2
                continue
            real = count * 4 if c == "all_reduce" else count * 4 * world
            if c == "all_reduce":
                op = lambda: dist.all_reduce(big[:count])
            elif c == "all_gather":
                op = lambda: dist.all_gather_into_tensor(out[:count * world], big[:count])
            else:
                op = lambda: dist.reduce_scatter_tensor(out[:count], big[:count * world])
            for _ in range(5):
                op()
            torch.cuda.synchronize()
            dist.barrier()
            torch.cuda.synchronize()
            n = iters_for(real)
            t0 = time.perf_counter()
            for _ in range(n):
                op()
            torch.cuda.synchronize()
            sec = (time.perf_counter() - t0) / n
            res[c].append((real, sec * 1e6))
            size *= 2
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump({"world": world, "res": res, "torch": torch.__version__,
                       "nccl": ".".join(map(str, torch.cuda.nccl.version()))}, f)
    dist.destroy_process_group()


def torch_round(tmp):
    import torch.multiprocessing as mp
    import torch
    world = torch.cuda.device_count()
    port = 29500 + (os.getpid() % 1000)
    path = os.path.join(tmp, "torch-nccl.json")
    mp.spawn(worker, args=(world, port, path), nprocs=world, join=True)
    with open(path) as f:
        return json.load(f)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpudoctor", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default="/tmp")
    ap.add_argument("--nccl")
    a = ap.parse_args()
    gd, tv, secs = [], [], []
    for i in range(a.rounds):
        t0 = time.monotonic()
        extra = ["--nccl", a.nccl] if a.nccl else []
        p = subprocess.run([a.gpudoctor, "bench", "--json", "--no-cpu", "--no-conv"] + extra, capture_output=True, text=True)
        secs.append(time.monotonic() - t0)
        with open(os.path.join(a.out, f"nccl-round{i}.json"), "w") as f:
            f.write(p.stdout)
        doc = json.loads(p.stdout)
        gd.append(doc["nccl"])
        # the torch side in a process of its own: it must let go of the GPUs
        q = subprocess.run([sys.executable, __file__, "--worker-round", a.out], capture_output=True, text=True)
        if q.returncode:
            print(q.stderr[-2000:])
            return 2
        with open(os.path.join(a.out, "torch-nccl.json")) as f:
            tv.append(json.load(f))
        print(f"round {i}: gpudoctor {secs[-1]:.1f} s rc={p.returncode}, topology: {gd[-1].get('topology')}", flush=True)
    n = tv[0]["world"]
    print(f"torch {tv[0]['torch']} with NCCL {tv[0]['nccl']}; gpudoctor: {gd[0].get('library')} "
          f"(version {gd[0].get('version_code')}), {gd[0].get('gpus')} GPUs, ceiling {gd[0].get('ceiling_gbs')} GB/s "
          f"({gd[0].get('ceiling_source')}), verified={gd[0].get('verified')}")
    ok = True
    for c in COLLS:
        print(f"\n{c}: busbw GB/s (median of {a.rounds} alternating rounds); time in us")
        print(f"{'size':>12} {'gd us':>10} {'torch us':>10} {'gd busbw':>9} {'torch busbw':>11} {'ratio':>7}")
        pts = {}
        for r in gd:
            for pt in r["collectives"][c]["points"]:
                pts.setdefault(pt["bytes"], {"g": [], "t": []})["g"].append(pt["us"])
        for r in tv:
            for size, us in r["res"][c]:
                pts.setdefault(size, {"g": [], "t": []})["t"].append(us)
        for size in sorted(pts):
            g, t = pts[size]["g"], pts[size]["t"]
            if not g or not t:
                continue
            gu, tu = statistics.median(g), statistics.median(t)
            gb = size / gu / 1e3 * factor(c, n)
            tb = size / tu / 1e3 * factor(c, n)
            ratio = gb / tb
            mark = ""
            if size >= 64 << 20:
                good = ratio >= 0.95
                ok &= good
                mark = " ok" if good else " BELOW 95%"
            print(f"{size:12d} {gu:10.1f} {tu:10.1f} {gb:9.1f} {tb:11.1f} {100 * ratio:6.1f}%{mark}")
    print(f"\ngpudoctor bench --no-cpu --no-conv on {n} GPUs: {', '.join(f'{s:.1f}' for s in secs)} s")
    return 0 if ok else 1


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--worker-round":
        torch_round(sys.argv[2])
        sys.exit(0)
    sys.exit(main())
