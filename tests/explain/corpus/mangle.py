#!/usr/bin/env python3
"""Score `gpudoctor explain` on the corpus as log collectors and web pages
mangle it: each real log of a split is rewritten the way one tool prints it
(every line behind a collector's prefix, escaped inside docker's JSON,
coloured with the ESC lost, CRLF, a German glibc) and scored as score.py
does.  A mangling the normaliser undoes scores as the plain log does.

    mangle.py GPUDOCTOR [dev|test3] [-v] [--every N] [mangling...]

--every N scores every Nth log only (a quicker sample); -v lists the logs a
mangling loses (named right plain, not mangled).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import score  # noqa: E402

DE = [("cannot open shared object file", "Kann die Shared-Object-Datei nicht \u00f6ffnen"),
      ("No such file or directory", "Datei oder Verzeichnis nicht gefunden"),
      ("Permission denied", "Keine Berechtigung")]


def per_line(f):
    return lambda text: "".join(f(line) + "\n" for line in text.split("\n"))


MANGLINGS = {
    "plain": lambda t: t,
    # kubelet/containerd CRI log files
    "cri": per_line(lambda l: "2024-05-01T10:00:00.123456789Z stderr F " + l),
    # mpirun --tag-output
    "mpi": per_line(lambda l: "[1,0]<stderr>:" + l),
    # docker compose up
    "compose": per_line(lambda l: "worker-1  | " + l),
    # Ray / vLLM workers
    "ray": per_line(lambda l: "(RayWorkerWrapper pid=4242, ip=10.0.0.2) " + l),
    # srun --label
    "srun": per_line(lambda l: "3: " + l),
    # docker's json-file driver
    "json": per_line(lambda l: json.dumps({"log": l + "\n", "stream": "stderr",
                                           "time": "2024-05-01T10:00:00.1Z"},
                                          separators=(",", ":"))),
    # colour whose ESC a web page dropped
    "ansi-lost": per_line(lambda l: "[1;31m" + l + "[0m"),
    "crlf": lambda t: t.replace("\n", "\r\n"),
    # a German locale's glibc
    "de": lambda t: [t := t.replace(a, b) for a, b in DE][-1],
    # torchrun / torch.distributed.elastic: "[rank3]: " (--local-ranks-filter),
    # "[default0]:" (--tee, log_line_prefix_template "[{role_name}{local_rank}]:")
    "torchrun": per_line(lambda l: "[rank3]: " + l),
    "elastic": per_line(lambda l: "[default0]:" + l),
    # Python logging.basicConfig(format="%(asctime)s - %(levelname)s - %(message)s")
    "pylog": per_line(lambda l: "2024-05-01 10:00:00,123 - ERROR - " + l),
    # vLLM's logger (vllm/logger.py): "%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] "
    # with datefmt "%m-%d %H:%M:%S", behind its worker's "(VllmWorkerProcess pid=N) "
    "vllm": per_line(lambda l: "(VllmWorkerProcess pid=4242) ERROR 05-01 10:00:00 [worker.py:123] " + l),
    "vllm-old": per_line(lambda l: "ERROR 05-01 10:00:00 multiproc_worker_utils.py:226] " + l),
    # pdsh -R ssh (DeepSpeed's multi-node launcher): "host: "
    "pdsh": per_line(lambda l: "worker-1: " + l),
    # DeepSpeed's logger behind pdsh
    "deepspeed": per_line(lambda l: "worker-1: [2024-05-01 10:00:00,123] [INFO] [engine.py:123:main] " + l),
    # kubectl logs --prefix (Kubeflow training jobs)
    "kubectl": per_line(lambda l: "[pod/train-worker-0/pytorch] " + l),
    # Horovod (horovodrun, its mpirun): "[1]<stderr>:"
    "horovod": per_line(lambda l: "[1]<stderr>:" + l),
    # a terminal or a renderer that wraps at 80 columns, in the middle of a word
    "wrap80": lambda t: "".join("\n".join([l[i:i + 80] for i in range(0, len(l), 80)] or [""]) + "\n"
                                for l in t.split("\n")),
    # the same at 100 columns
    "wrap100": lambda t: "".join("\n".join([l[i:i + 100] for i in range(0, len(l), 100)] or [""]) + "\n"
                                 for l in t.split("\n")),
    # two ranks printing the same report, their lines interleaved
    "interleave": lambda t: "".join(f"[rank0]:{l}\n[rank1]:{l}\n" for l in t.split("\n")),
}


def main():
    gd, split = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "dev"
    rest, every, verbose = sys.argv[3:], 1, False
    if rest[:1] == ["-v"]:
        verbose, rest = True, rest[1:]
    if rest[:1] == ["--every"]:
        every, rest = int(rest[1]), rest[2:]
    names = rest or list(MANGLINGS)
    logs = score.load(split)[::every]
    for name in names:
        f = MANGLINGS[name]
        right = fail = alarms = ben = 0
        for c in logs:
            causes, _ = score.named(gd, f(c["text"]))
            if c["expect"] is None:
                ben += 1
                alarms += bool(causes)
                ok = not causes
            else:
                fail += 1
                ok = bool(set(causes) & set(c["expect"]))
                right += ok
            if verbose and not ok and name != "plain":
                plain, _ = score.named(gd, c["text"])
                if (c["expect"] is None and not plain) or (set(plain) & set(c["expect"] or [])):
                    print(f"  {name} lost {c['file']}: {','.join(causes) or '-'}")
        print(f"{split} {name}: {right}/{fail} named right, {alarms}/{ben} benign with a stack cause",
              flush=True)


if __name__ == "__main__":
    main()
