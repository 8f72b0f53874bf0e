#!/usr/bin/env python3
"""Score `gpudoctor explain` on the corpus as log collectors and web pages
mangle it: each real log of a split is rewritten the way one tool prints it
(every line behind a collector's prefix, escaped inside docker's JSON,
coloured with the ESC lost, CRLF, a German glibc) and scored as score.py
does.  A mangling the normaliser undoes scores as the plain log does.

    mangle.py GPUDOCTOR [dev|test3] [--every N] [mangling...]

--every N scores every Nth log only (a quicker sample).
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
}


def main():
    gd, split = sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "dev"
    rest, every = sys.argv[3:], 1
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
            else:
                fail += 1
                right += bool(set(causes) & set(c["expect"]))
        print(f"{split} {name}: {right}/{fail} named right, {alarms}/{ben} benign with a stack cause",
              flush=True)


if __name__ == "__main__":
    main()
