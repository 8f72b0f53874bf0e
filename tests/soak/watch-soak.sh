#!/bin/sh
# watch-soak.sh - build gpudoctor under AddressSanitizer and soak `watch` for
# SECONDS (default one hour) at a 1 s interval; see watch_soak.py.
#   sh tests/soak/watch-soak.sh [SECONDS]
set -eu
cd "$(dirname "$0")/../.."
make SANITIZE=1 -j2 build-asan/gpudoctor >/dev/null
GPUDOCTOR=$(pwd)/build-asan/gpudoctor exec python3 tests/soak/watch_soak.py "${1:-3600}"
