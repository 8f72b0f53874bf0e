# compat.mk - the released binary: one that needs nothing newer than glibc
# 2.28 (RHEL 8, Ubuntu 20.04, Debian 11, most HPC clusters).  Included by
# the top Makefile (mk/*.mk).
#
#   make compat          build-compat/gpudoctor, compiled by `zig cc` against
#                        glibc 2.28's symbol versions (zig carries the stubs of
#                        every glibc release, so no old sysroot is needed)
#
# zig comes from PyPI's ziglang wheel, installed once into
# build-compat-tools/ (set ZIG_CC to use another zig, e.g. ZIG_CC="zig cc").
# make wheel packs this binary, so the wheel is tagged manylinux_2_28 or
# older; tests/fleet/test_compat.py checks the symbol versions and runs it
# in a Debian 11 root.

COMPAT_GLIBC  ?= 2.28
COMPAT_ARCH   ?= $(shell uname -m)
COMPAT_TOOLS  ?= build-compat-tools
ZIG_CC        ?= $(COMPAT_TOOLS)/bin/python -m ziglang cc

$(COMPAT_TOOLS)/.stamp:
	$(PYTHON) -m venv $(COMPAT_TOOLS)
	$(COMPAT_TOOLS)/bin/python -m pip install -q --disable-pip-version-check ziglang
	@touch $@

# zig is installed only when ZIG_CC is left at its default.
compat: $(if $(filter $(COMPAT_TOOLS)/%,$(ZIG_CC)),$(COMPAT_TOOLS)/.stamp)
	$(MAKE) B=build-compat CC="$(ZIG_CC) -target $(COMPAT_ARCH)-linux-gnu.$(COMPAT_GLIBC)" \
	  build-compat/gpudoctor

.PHONY: compat
