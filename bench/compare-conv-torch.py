#!/usr/bin/env python3
"""gpudoctor's cuDNN convolution figures beside PyTorch's, in alternating rounds.

    compare-conv-torch.py --gpudoctor build/gpudoctor [--rounds 3] [--gpu 0] [--out DIR]
                          [--also-cudnn PATH]

--also-cudnn runs gpudoctor a second time per round with --cudnn PATH (for
example torch's own libcudnn.so.9 from its nvidia-cudnn wheel), so that the
two sides can also be compared on the same cuDNN build.

Each round runs `gpudoctor bench --json --gpu N` (the default run, timed:
the goal is <= 20 s on one GPU) and then measures the same layer with
PyTorch, so that clocks and temperature drift hit both alike; the table
compares the medians over the rounds.

PyTorch side, as close to what training does as one layer gets:
  torch.backends.cudnn.benchmark = True (cudnnFind-style autotuning),
  torch.backends.cudnn.allow_tf32 left at its default True (FP32 = TF32 math),
  x (32, 256, 56, 56), w (256, 256, 3, 3) and dy uniform in [-1, 1) like
  gpudoctor's inputs (full mantissas: tensor-core power depends on the bits
  that toggle), in channels_last, padding 1,
  forward:          torch.nn.functional.conv2d(x, w, padding=1)
  backward data:    torch.ops.aten.convolution_backward(..., output_mask=[True, False, False])
  backward filter:  torch.ops.aten.convolution_backward(..., output_mask=[False, True, False])
  timed with CUDA events on the current stream, 3 warm-ups after the
  autotuning call, the median of 7 regions of passes lasting about 4 ms
  each (as gpudoctor times).  TFLOP/s = 2*N*K*P*Q*C*R*S / time.

Exit status 0 when every figure is >= 95 % of PyTorch's and every default
run took <= 20 s; 1 otherwise.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

N, C, H, W, K, R, S = 32, 256, 56, 56, 256, 3, 3
FLOPS = 2.0 * N * K * H * W * C * R * S  # pad 1, stride 1: P = H, Q = W
PRECS = [("fp32", torch.float32), ("fp16", torch.float16), ("bf16", torch.bfloat16)]
DIRS = ["fwd", "bwd_data", "bwd_filter"]


def timed(fn):
    for _ in range(3):
        fn()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    fn()
    b.record()
    b.synchronize()
    one = max(a.elapsed_time(b), 1e-3)
    inner = max(1, min(50, int(4.0 / one + 0.999)))
    ms = []
    for _ in range(7):
        a.record()
        for _ in range(inner):
            fn()
        b.record()
        b.synchronize()
        ms.append(a.elapsed_time(b) / inner)
    return statistics.median(ms)


def torch_round(dev):
    torch.backends.cudnn.benchmark = True
    out = {}
    for name, dt in PRECS:
        g = torch.Generator(device=dev).manual_seed(1)
        def u(*shape):
            t = torch.rand(*shape, device=dev, dtype=torch.float32, generator=g) * 2 - 1
            return t.to(dt).contiguous(memory_format=torch.channels_last)
        x, w, dy = u(N, C, H, W), u(K, C, R, S), u(N, K, H, W)
        ops = {
            "fwd": lambda: F.conv2d(x, w, padding=1),
            "bwd_data": lambda: torch.ops.aten.convolution_backward(
                dy, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, False, False]),
            "bwd_filter": lambda: torch.ops.aten.convolution_backward(
                dy, x, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [False, True, False]),
        }
        for d in DIRS:
            ops[d]()  # the autotuning call
            torch.cuda.synchronize()
            out[(d, name)] = FLOPS / (timed(ops[d]) / 1e3) / 1e12
        del x, w, dy
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    return out


def gd_round(gd, gpu, out_dir, i, cudnn=None):
    t0 = time.monotonic()
    extra = ["--cudnn", cudnn, "--no-cpu"] if cudnn else []
    p = subprocess.run([gd, "bench", "--json", "--gpu", str(gpu)] + extra, capture_output=True, text=True)
    secs = time.monotonic() - t0
    if out_dir and not cudnn:
        with open(os.path.join(out_dir, f"bench-round{i}.json"), "w") as f:
            f.write(p.stdout)
    doc = json.loads(p.stdout)
    g = doc["gpus"][0]
    conv = g.get("conv") or {}
    vals = {}
    for r in conv.get("results", []):
        if r.get("tflops") is not None:
            vals[(r["direction"], r["precision"])] = r["tflops"]
    extra = {"seconds": secs, "rc": p.returncode, "cudnn": conv.get("cudnn"),
             "speedup": doc.get("cpu", {}).get("gpu_conv_speedup"),
             "cpu_conv": doc.get("cpu", {}).get("conv_gflops"),
             "cpu_sgemm": doc.get("cpu", {}).get("sgemm_gflops"),
             "verified": all(r.get("verified") for r in conv.get("results", [])),
             "algos": {(r["direction"], r["precision"]): r.get("algo") for r in conv.get("results", [])},
             "refused": conv.get("refused")}
    return vals, extra


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpudoctor", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--gpu", type=int, default=0)
    ap.add_argument("--out")
    ap.add_argument("--also-cudnn")
    a = ap.parse_args()
    dev = torch.device("cuda", a.gpu)
    torch.cuda.init()
    print(f"torch {torch.__version__}, cuDNN {torch.backends.cudnn.version()}, "
          f"allow_tf32(cudnn)={torch.backends.cudnn.allow_tf32}, {torch.cuda.get_device_name(dev)}")
    gd_vals, t_vals, extras, alt_vals, alt_extras = [], [], [], [], []
    for i in range(a.rounds):
        v, e = gd_round(a.gpudoctor, a.gpu, a.out, i)
        gd_vals.append(v)
        extras.append(e)
        t_vals.append(torch_round(dev))
        if a.also_cudnn:
            v2, e2 = gd_round(a.gpudoctor, a.gpu, a.out, i, a.also_cudnn)
            alt_vals.append(v2)
            alt_extras.append(e2)
        print(f"round {i}: gpudoctor bench {e['seconds']:.1f} s rc={e['rc']} verified={e['verified']} refused={e['refused']}",
              flush=True)
    print(f"cuDNN used by gpudoctor: {extras[0]['cudnn']}; algorithms: "
          + ", ".join(f"{d}/{p}={al}" for (d, p), al in sorted(extras[0]['algos'].items())))
    ok = True
    if alt_extras:
        print(f"second gpudoctor column: --cudnn {a.also_cudnn} -> {alt_extras[0]['cudnn']}")
    print(f"\n{'direction':<11} {'precision':<9} {'gpudoctor':>10} {'PyTorch':>10} {'ratio':>7}"
          + (f" {'gd+torch cuDNN':>15} {'ratio':>7}" if alt_vals else "")
          + f"   (TFLOP/s, medians of {a.rounds} alternating rounds)")
    for d in DIRS:
        for p, _ in PRECS:
            g = [r[(d, p)] for r in gd_vals if (d, p) in r]
            t = [r[(d, p)] for r in t_vals]
            gm = statistics.median(g) if g else float("nan")
            tm = statistics.median(t)
            ratio = gm / tm if g else float("nan")
            good = ratio >= 0.95
            line = f"{d:<11} {p:<9} {gm:10.1f} {tm:10.1f} {100 * ratio:6.1f}%"
            if alt_vals:
                g2 = [r[(d, p)] for r in alt_vals if (d, p) in r]
                g2m = statistics.median(g2) if g2 else float("nan")
                r2 = g2m / tm if g2 else float("nan")
                good = good and r2 >= 0.95
                line += f" {g2m:15.1f} {100 * r2:6.1f}%"
            ok &= good
            print(line + (" ok" if good else " BELOW 95%"))
    secs = [e["seconds"] for e in extras]
    print(f"\ngpudoctor bench default run (one GPU): {', '.join(f'{s:.1f}' for s in secs)} s; goal <= 20 s: "
          f"{'ok' if max(secs) <= 20 else 'NOT MET'}")
    ok &= max(secs) <= 20
    sp = [e["speedup"] for e in extras if e["speedup"]]
    if sp:
        print(f"CNN layer, cuDNN FP32 forward vs CPU im2col+SGEMM: {statistics.median(sp):.0f}x "
              f"(CPU conv {statistics.median([e['cpu_conv'] for e in extras if e['cpu_conv']]):.1f} GFLOP/s, "
              f"CPU SGEMM {statistics.median([e['cpu_sgemm'] for e in extras if e['cpu_sgemm']]):.1f} GFLOP/s)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
