#!/bin/sh
# run.sh - the fleet integration tests: `health --slurm` under a real
# single-node Slurm, the node-problem-detector plugin and the Kubernetes
# manifests, the NHC check, the .deb (lintian, debootstrap root), the wheel.
# Installs the Debian packages they need when missing (as root, with apt);
# tests whose tools are still missing skip and say why.  Ends with
# "N passed, N failed, N skipped".
cd "$(dirname "$0")/../.." || exit 2
need=""
for p in slurmctld slurmd slurm-client munge debootstrap lintian debhelper dpkg-dev man-db \
	 patchelf bash-completion zsh fish python3-venv shellcheck \
	 gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-user; do
	dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
	echo "== installing:$need"
	# shellcheck disable=SC2086 # a list of package names
	(apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $need) >/dev/null 2>&1 || echo "warning: could not install$need"
	# Debian starts munge when it is installed; the tests run their own.
	if command -v systemctl >/dev/null 2>&1; then
		systemctl stop munge slurmd slurmctld >/dev/null 2>&1 || true
	fi
fi
[ -x build/gpudoctor ] || make -j2 >/dev/null
exec python3 tests/fleet/run.py "$@"
