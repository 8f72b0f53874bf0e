#!/usr/bin/env python3
"""Measure with PyTorch what `gpudoctor bench` measures, and print both side by side.

    compare-torch.py BENCH.json [--gpu N]
    compare-torch.py --gpudoctor build/gpudoctor --rounds 5 [--gpu N]

The second form runs gpudoctor bench and the torch measurement in turn, N
rounds, and compares medians: on the H200 VMs one run moves the FP16, BF16
and pageable figures by about 10% either way, so single runs decide little.

BENCH.json is the output of `gpudoctor bench --json`.  For each figure the
same size as gpudoctor's (read from the JSON) is measured with PyTorch on
GPU N (default: the first GPU in the JSON), timed with CUDA events on a
side stream, warm-ups first, median of several timed regions:

  h2d/d2h pinned:   dst.copy_(src, non_blocking=True) between a pinned CPU
                    tensor (pin_memory=True) and a CUDA tensor
  h2d/d2h pageable: the same with an ordinary CPU tensor
  d2d:              dst.copy_(src) of CUDA tensors, counted as bytes read
                    plus bytes written (2 x size / time), as gpudoctor does
  gemm_*:           torch.matmul of random n x n matrices; fp32 with
                    allow_tf32 False, tf32 with allow_tf32 True, fp16, bf16

Prints a table (gpudoctor, torch, ratio) and the goals of issue 6: every
figure >= 95 % of PyTorch's, d2d >= 85 % of 4.8 TB/s (H200 datasheet),
and the time of the run if given with --seconds.  Exit status 0 when every
goal holds, 1 otherwise.
"""
import argparse
import json
import statistics
import sys

import torch


def timed(fn, warmup, reps, inner, stream):
    """Median milliseconds per fn() call, CUDA events on `stream`."""
    with torch.cuda.stream(stream):
        for _ in range(warmup):
            fn()
        times = []
        for _ in range(reps):
            a = torch.cuda.Event(enable_timing=True)
            b = torch.cuda.Event(enable_timing=True)
            a.record(stream)
            for _ in range(inner):
                fn()
            b.record(stream)
            b.synchronize()
            times.append(a.elapsed_time(b) / inner)
    return statistics.median(times)


def copies(dev, nbytes, d2d_bytes, stream):
    out = {}
    n = nbytes // 4
    gpu = torch.empty(n, dtype=torch.float32, device=dev).uniform_(-1, 1)
    pinned = torch.empty(n, dtype=torch.float32, pin_memory=True).uniform_(-1, 1)
    pageable = torch.empty(n, dtype=torch.float32).uniform_(-1, 1)
    gbs = lambda ms, b: b / (ms / 1e3) / 1e9
    out["h2d_pinned"] = gbs(timed(lambda: gpu.copy_(pinned, non_blocking=True), 2, 7, 1, stream), nbytes)
    out["d2h_pinned"] = gbs(timed(lambda: pinned.copy_(gpu, non_blocking=True), 2, 7, 1, stream), nbytes)
    out["h2d_pageable"] = gbs(timed(lambda: gpu.copy_(pageable), 1, 5, 1, stream), nbytes)
    out["d2h_pageable"] = gbs(timed(lambda: pageable.copy_(gpu), 1, 5, 1, stream), nbytes)
    del gpu, pinned, pageable
    m = d2d_bytes // 4
    src = torch.empty(m, dtype=torch.float32, device=dev).uniform_(-1, 1)
    dst = torch.empty_like(src)
    out["d2d"] = gbs(timed(lambda: dst.copy_(src), 3, 9, 10, stream), 2 * d2d_bytes)
    del src, dst
    torch.cuda.empty_cache()
    return out


def gemms(dev, sizes, stream):
    out = {}
    for name, dtype, tf32 in (("gemm_fp32", torch.float32, False), ("gemm_tf32", torch.float32, True),
                              ("gemm_fp16", torch.float16, False), ("gemm_bf16", torch.bfloat16, False)):
        n = sizes.get(name)
        if not n:
            continue
        torch.backends.cuda.matmul.allow_tf32 = tf32
        a = torch.empty(n, n, device=dev, dtype=dtype).uniform_(-1, 1)
        b = torch.empty(n, n, device=dev, dtype=dtype).uniform_(-1, 1)
        inner = 1 if name == "gemm_fp32" else (4 if name == "gemm_tf32" else 10)
        ms = timed(lambda: torch.matmul(a, b), 3, 7, inner, stream)
        out[name] = 2.0 * n ** 3 / (ms / 1e3) / 1e12
        del a, b
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.cuda.empty_cache()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bench_json", nargs="?")
    ap.add_argument("--gpu", type=int, default=None)
    ap.add_argument("--seconds", type=float, default=None, help="wall time of the default gpudoctor bench run")
    ap.add_argument("--rounds", type=int, default=1,
                    help="with --gpudoctor: run gpudoctor bench and the torch measurement in "
                         "turn this many times and compare the medians (one run on these "
                         "machines moves FP16/BF16/pageable figures by +-10%%)")
    ap.add_argument("--gpudoctor", default=None, help="gpudoctor binary for --rounds")
    args = ap.parse_args()
    if args.rounds > 1:
        return rounds(args)
    with open(args.bench_json) as f:
        doc = json.load(f)
    if doc.get("schema") != "gpudoctor.bench/1":
        sys.exit(f"{args.bench_json}: not a gpudoctor.bench/1 document")
    gpus = [g for g in doc["gpus"] if args.gpu is None or g["index"] == args.gpu]
    if not gpus or gpus[0].get("refused"):
        sys.exit(f"gpudoctor measured nothing on that GPU: {gpus[0]['refused'] if gpus else 'no such GPU'}")
    g = gpus[0]
    res = {r["name"]: r for r in g["results"]}
    dev = torch.device("cuda", g["index"])
    torch.cuda.set_device(dev)
    stream = torch.cuda.Stream(dev)
    pcie = res.get("h2d_pinned", {}).get("bytes") or 256 << 20
    d2d = res.get("d2d", {}).get("bytes") or 1 << 30
    sizes = {k: res[k].get("n") for k in res if k.startswith("gemm_")}
    torch_fig = copies(dev, pcie, d2d, stream)
    torch_fig.update(gemms(dev, sizes, stream))

    ok = True
    print(f"GPU {g['index']}: {g['name']} ({torch.cuda.get_device_name(dev)}), torch {torch.__version__}")
    print(f"{'figure':<14} {'unit':<8} {'gpudoctor':>10} {'torch':>10} {'ratio':>7} {'% ceiling':>10}  goal")
    for name in ("h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "d2d",
                 "gemm_fp32", "gemm_tf32", "gemm_fp16", "gemm_bf16"):
        r = res.get(name)
        t = torch_fig.get(name)
        if not r or r.get("value") is None or t is None:
            print(f"{name:<14} {'':<8} {'-':>10} {t if t else '-':>10}")
            ok = False
            continue
        ratio = r["value"] / t
        pct = f"{r['percent']:.0f}%" if r.get("percent") is not None else "?"
        good = ratio >= 0.95
        ok = ok and good
        print(f"{name:<14} {r['unit']:<8} {r['value']:>10.1f} {t:>10.1f} {ratio:>6.1%} {pct:>10}  "
              f"{'ok' if good else 'BELOW 95% of torch'}")
    if "d2d" in res and res["d2d"].get("value"):
        frac = res["d2d"]["value"] / 4800.0
        good = frac >= 0.85
        ok = ok and good
        print(f"d2d vs the H200's 4.8 TB/s datasheet: {frac:.1%} ({'ok' if good else 'BELOW 85%'})")
    if args.seconds is not None:
        good = args.seconds <= 15.0
        ok = ok and good
        print(f"default gpudoctor bench run: {args.seconds:.1f} s ({'ok' if good else 'OVER 15 s'})")
    cpu = doc.get("cpu", {})
    if cpu.get("sgemm_gflops"):
        print(f"CPU SGEMM ({cpu.get('impl')}): {cpu['sgemm_gflops']:.1f} GFLOP/s; GPU FP32 speedup {cpu.get('gpu_fp32_speedup')}x")
    print("all goals met" if ok else "some goals NOT met")
    return 0 if ok else 1


FIGURES = ("h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "d2d",
           "gemm_fp32", "gemm_tf32", "gemm_fp16", "gemm_bf16")


def rounds(args):
    """gpudoctor and torch measured in turn, args.rounds times; medians compared."""
    import subprocess
    gpu = args.gpu or 0
    gd_vals = {k: [] for k in FIGURES}
    t_vals = {k: [] for k in FIGURES}
    for i in range(args.rounds):
        p = subprocess.run([args.gpudoctor, "bench", "--json", "--no-cpu", "--gpu", str(gpu)],
                           capture_output=True, text=True)
        doc = json.loads(p.stdout)
        g = [x for x in doc["gpus"] if x["index"] == gpu][0]
        res = {r["name"]: r for r in g["results"]}
        for k in FIGURES:
            if res.get(k, {}).get("value") is not None:
                gd_vals[k].append(res[k]["value"])
        dev = torch.device("cuda", gpu)
        torch.cuda.set_device(dev)
        stream = torch.cuda.Stream(dev)
        pcie = res.get("h2d_pinned", {}).get("bytes") or 256 << 20
        d2d = res.get("d2d", {}).get("bytes") or 1 << 30
        sizes = {k: res[k].get("n") for k in res if k.startswith("gemm_")}
        fig = copies(dev, pcie, d2d, stream)
        fig.update(gemms(dev, sizes, stream))
        for k in FIGURES:
            if fig.get(k) is not None:
                t_vals[k].append(fig[k])
    print(f"GPU {gpu}: {args.rounds} rounds, gpudoctor then torch in each; medians (min-max)")
    print(f"{'figure':<14} {'gpudoctor':>22} {'torch':>22} {'ratio':>7}  goal")
    ok = True
    for k in FIGURES:
        a, b = gd_vals[k], t_vals[k]
        if not a or not b:
            print(f"{k:<14} -")
            ok = False
            continue
        ma, mb = statistics.median(a), statistics.median(b)
        good = ma / mb >= 0.95
        ok = ok and good
        ra = f"{ma:.1f} ({min(a):.1f}-{max(a):.1f})"
        rb = f"{mb:.1f} ({min(b):.1f}-{max(b):.1f})"
        print(f"{k:<14} {ra:>22} {rb:>22} {ma / mb:>6.1%}  {'ok' if good else 'BELOW 95% of torch'}")
    print("all goals met" if ok else "some goals NOT met")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
