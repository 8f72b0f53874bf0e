#!/bin/sh
# watch-h200.sh - gpudoctor watch on a real GPU machine, about 3 minutes:
# a 1 s instance scraped every second and compared with nvidia-smi, a 30 s
# instance beside it for the CPU figure, nvidia-smi dmon running alongside,
# and two faults: a process holding GPU memory (torch) and recorded XID lines
# written into /dev/kmsg (needs root).  Results go to $OUT (default ./out).
#   sh bench/watch-h200.sh ./gpudoctor [seconds]
set -u
GD=${1:-./gpudoctor}
SECS=${2:-170}
OUT=${OUT:-./out}
PY=${PY:-/opt/torch/.venv/bin/python}
mkdir -p "$OUT"
here=$(cd "$(dirname "$0")" && pwd)
nvidia-smi -L > "$OUT/nvidia-smi-L.txt" 2>&1
nvidia-smi dmon -s pucm -d 1 > "$OUT/dmon.txt" 2>&1 &
DMON=$!
W=/tmp/gdwatch
rm -rf "$W"; mkdir -p "$W/tf"
"$GD" watch --interval 1s --listen 127.0.0.1:9835 --state-dir "$W/state1" --textfile "$W/tf" \
	2> "$OUT/watch1.log" &
W1=$!
"$GD" watch --interval 30s --listen 127.0.0.1:9836 --state-dir "$W/state30" \
	2> "$OUT/watch30.log" &
W30=$!
"$PY" "$here/watch-h200.py" "$GD" "$W1" "$W30" "$DMON" "$SECS" "$W" > "$OUT/scrape.txt" 2>&1
echo "scraper exit $?" >> "$OUT/scrape.txt"
kill -TERM $W1 $W30 2>/dev/null
sleep 1
kill $DMON 2>/dev/null
wait
cp "$W/state1/state" "$OUT/state.txt"; cp "$W/tf/gpudoctor.prom" "$OUT/gpudoctor.prom.txt"
cat "$OUT/scrape.txt"; echo "== watch1.log"; cat "$OUT/watch1.log"; echo "== state"; cat "$OUT/state.txt"
