#!/usr/bin/env python3
"""gpus-from-pciids.py - regenerate the PCI part of gpus.tsv from pci.ids.

Maintainer tool, never run at build time:
    python3 src/knowledge/data/gpus-from-pciids.py /path/to/pci.ids > /tmp/pci-rows.tsv
then replace the generated block of gpus.tsv with its output.

Each NVIDIA (10de) device whose pci.ids name starts with a GPU chip of Kepler
or newer becomes one row.  Compute capability is NOT in pci.ids: it comes from
the chip family (the rule below), which restates NVIDIA's CUDA GPUs pages
(developer.nvidia.com/cuda-gpus, /cuda-legacy-gpus) per chip: e.g. every
GeForce GTX 9xx is a GM20x and is listed as 5.2, every GP10x GeForce as 6.1.
Chips whose CC NVIDIA does not publish get "-" (unknown).
"""
import re
import sys

# chip-name regex -> (architecture, CC).  Order matters: first match wins.
FAMILY = [
    (r"GK110|GK180|GK208", "Kepler", "3.5"),
    (r"GK210", "Kepler", "3.7"),
    (r"GK10[4-7]", "Kepler", "3.0"),
    (r"GM10[78]", "Maxwell", "5.0"),
    (r"GM20[046]", "Maxwell", "5.2"),
    (r"GP100", "Pascal", "6.0"),
    (r"GP10[2-8]", "Pascal", "6.1"),
    (r"GV100", "Volta", "7.0"),
    (r"TU1[01][0-9]", "Turing", "7.5"),
    (r"GA100", "Ampere", "8.0"),
    (r"GA10[2-7]", "Ampere", "8.6"),
    (r"AD10[2-7]", "Ada Lovelace", "8.9"),
    (r"GH100", "Hopper", "9.0"),
    (r"GB10[02]", "Blackwell", "10.0"),
    (r"GB110", "Blackwell Ultra", "10.3"),
    (r"GB10B", "Blackwell", "11.0"),
    (r"GB20[2-7]", "Blackwell", "12.0"),
]
SKIP = re.compile(r"Audio|USB|UCSI|Serial|Bridge|Root|Host|SATA|Reserved|Switch|PCIe host", re.I)
DC = re.compile(r"\b(Tesla|A100|A800|A30|A40|A10G?|A10M|A16|A2|H100|H800|H200|H20|GH200|L4|L40S?|L40G|L20|L2|"
                r"B100|B200|GB200|B300|GB300|HGX|CMP|PG\d+|T4G?|V100S?|P100|P40|P4|M40|M60|M6|M10|K80|K40[a-z]*|"
                r"K20[a-zX]*|K10|GRID|DGX)\b")
WS = re.compile(r"Quadro|RTX A\d|RTX \d+ Ada|RTX PRO|NVS|\bT(400|550|600|1000|1200|2000)\b|"
                r"RTX (A|\d+)000|GV100GL|TITAN", re.I)


def main():
    lines = open(sys.argv[1], encoding="utf-8", errors="replace").read().split("\n")
    inside = False
    for line in lines:
        if re.match(r"^10de ", line):
            inside = True
            continue
        if re.match(r"^[0-9a-f]{4} ", line):
            inside = False
        m = re.match(r"^\t([0-9a-f]{4})  (.*)$", line) if inside else None
        if not m:
            continue
        dev, text = m.group(1), m.group(2)
        chip = text.split(" ")[0]
        fam = next(((a, cc) for rx, a, cc in FAMILY if re.match(rx, chip)), None)
        if not fam or SKIP.search(text):
            continue
        b = re.search(r"\[(.*)\]", text)
        name = b.group(1) if b else chip
        if "TITAN" in name.upper() or "GeForce" in name:
            cls = "geforce"
        elif chip == "GB10B":
            cls = "jetson"
        elif WS.search(name) and not DC.search(name):
            cls = "workstation"
        elif DC.search(name):
            cls = "datacenter"
        else:
            cls = "-"
        print("\t".join(["10de", dev, name, chip, fam[0], fam[1],
                         "-", "-", "-", "-", "-", cls, "pciids;nv-cuda-gpus"]))


if __name__ == "__main__":
    main()
