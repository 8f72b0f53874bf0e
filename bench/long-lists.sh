#!/bin/sh
# long-lists.sh - the two lists a hostile or just large machine makes long:
# 10,000 LD_LIBRARY_PATH entries (every one an existing directory, as ld.so
# sees them) and a --kb torch.tsv of 20,000 rows.  Both must cost linear
# time: the LD_LIBRARY_PATH duplicate check once per list, not per soname;
# the torch rows in one pass per query.
#
#   sh bench/long-lists.sh [GPUDOCTOR ...]     # from the repository root
#
# Times each binary given (default build/gpudoctor) with /usr/bin/time and
# prints one line per case (user + sys is the figure to compare: wall time
# on a shared machine includes waiting).  For reference, the host's own ld.so with the
# same LD_LIBRARY_PATH: `/bin/true` run under it.
set -u
[ $# -gt 0 ] || set -- build/gpudoctor
W=$(mktemp -d /tmp/gd-long-XXXXXX)
trap 'rm -rf "$W"' EXIT
python3 - "$W" <<'PY'
import os, sys
sys.path.insert(0, "tests/e2e")
os.environ["GD_KEEP_FIXTURES"] = "1"
import fixtures_libs as fl, fixtures_fw as fw
r = fl.healthy_libs_root()
site = fw.add_venv(r)
fw.add_torch(r, site, version="2.9.0+cu130", cuda="'13.0'")
fw.add_cudnn_wheel(r, site, version="9.19.0.56", cu="13")
for i in range(10000):
    os.makedirs(r.p(f"l/{i}"), exist_ok=True)
open(os.path.join(sys.argv[1], "rootpath"), "w").write(r.path)
# a torch.tsv of 20,000 rows: the embedded rows, then copies with new patch levels
src = "src/knowledge/data"
kb = os.path.join(sys.argv[1], "kb")
os.makedirs(kb)
for f in os.listdir(src):
    if f.endswith(".tsv"):
        with open(os.path.join(src, f)) as a, open(os.path.join(kb, f), "w") as b:
            b.write(a.read())
lines = open(os.path.join(kb, "torch.tsv")).read().split("\n")
rows = [l for l in lines if l and not l.startswith("#")]
cols = rows[0].split("\t"); vi = cols.index("version")
out = [l for l in lines if l.startswith("#")] + [rows[0]]
for i in range(20000):
    f = rows[1 + i % (len(rows) - 1)].split("\t")
    f[vi] = f"{f[vi]}.{i}"
    out.append("\t".join(f))
open(os.path.join(kb, "torch.tsv"), "w").write("\n".join(out) + "\n")
PY
R=$(cat "$W/rootpath")
trap 'rm -rf "$W" "$R"' EXIT
LLP=$(python3 -c "print(':'.join(f'/l/{i}' for i in range(10000)))")
# ld.so takes relative entries from the working directory: the same 10k
# existing directories, short enough for one environment string
RLLP=$(python3 -c "print(':'.join(f'l/{i}' for i in range(10000)))")
printf 'host ld.so, /bin/true with the 10k LD_LIBRARY_PATH: '
(cd "$R" && LD_LIBRARY_PATH=$RLLP /usr/bin/time -f '%e s wall, %U s user, %S s sys' /bin/true)
for GD in "$@"; do
	printf '%s check --no-load, 10k LD_LIBRARY_PATH: ' "$GD"
	env LD_LIBRARY_PATH="$LLP" VIRTUAL_ENV=/opt/venv /usr/bin/time -f '%e s wall, %U s user, %S s sys' \
		timeout 300 "$GD" --root "$R" check --no-load >/dev/null
	printf '%s --kb (torch.tsv of 20,000 rows) matrix --torch 2.5: ' "$GD"
	/usr/bin/time -f '%e s wall, %U s user, %S s sys' timeout 300 "$GD" --kb "$W/kb" matrix --torch 2.5 >/dev/null
done
