# dist.mk - man pages, completions, `make install` of everything under dist/,
# `make deb` and `make wheel`.  Included by the top Makefile (mk/*.mk).
#
#   make docs            man pages and bash/zsh/fish completions in $(B)/docs,
#                        generated from the built binary's --help (dist/gendocs.py)
#   make install         binary, man pages, completions, systemd units,
#                        example Prometheus rules, NHC check, Slurm wrapper,
#                        Kubernetes examples (PREFIX, DESTDIR as usual)
#   make deb             build/deb/gpudoctor_<version>_<arch>.deb (dpkg-buildpackage),
#                        compiled by mk/compat.mk's zig cc for glibc 2.28, so
#                        its Depends is libc6 (>= 2.28) or older and the one
#                        package installs on Debian 11, Ubuntu 20.04 and later;
#                        COMPAT=0 builds with the system compiler instead
#   make wheel           build/wheel/gpudoctor-<version>-py3-none-manylinux_*.whl,
#                        from the glibc 2.28 binary of `make compat`
#
# Files under dist/ are installed by pattern, so a unit or a rules file that
# another change adds there is picked up without an edit here.

PYTHON        ?= python3
INSTALL       ?= install
BINDIR        ?= $(PREFIX)/bin
MANDIR        ?= $(PREFIX)/share/man
DATADIR       ?= $(PREFIX)/share
DOCDIR        ?= $(DATADIR)/doc/gpudoctor
LIBEXECDIR    ?= $(PREFIX)/libexec
BASHCOMPDIR   ?= $(DATADIR)/bash-completion/completions
ZSHCOMPDIR    ?= $(DATADIR)/zsh/site-functions
FISHCOMPDIR   ?= $(DATADIR)/fish/vendor_completions.d
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
# How to run the built binary for `make docs` in a cross build, e.g.
# DOCS_EXEC="qemu-aarch64 -L /usr/aarch64-linux-gnu" (docs/fleet.md).
DOCS_EXEC     ?=

DOCS_STAMP    := $(B)/docs/.stamp
DIST_UNITS     = $(wildcard dist/systemd/*.service dist/systemd/*.timer dist/systemd/*.socket)
DIST_PROM      = $(wildcard dist/prometheus/*.yml dist/prometheus/*.yaml dist/prometheus/*.rules \
                            dist/prometheus/*.json)
# docs/*.md: --help, the man pages and the unit point at these files.
DIST_DOCS      = $(wildcard docs/*.md)
DIST_GRAFANA   = $(wildcard dist/grafana/*.json)
DIST_K8S       = $(wildcard dist/kubernetes/*.yaml dist/kubernetes/*.json dist/kubernetes/*.md \
                            dist/kubernetes/Containerfile)

docs: $(DOCS_STAMP)

$(DOCS_STAMP): $(B)/gpudoctor dist/gendocs.py dist/man-sections.txt
	@mkdir -p $(B)/docs
	GENDOCS_EXEC="$(DOCS_EXEC)" $(PYTHON) dist/gendocs.py $(B)/gpudoctor $(B)/docs
	@touch $@

install: install-dist

install-dist: $(DOCS_STAMP)
	$(INSTALL) -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(BASHCOMPDIR) \
	  $(DESTDIR)$(ZSHCOMPDIR) $(DESTDIR)$(FISHCOMPDIR) $(DESTDIR)$(DATADIR)/gpudoctor/nhc \
	  $(DESTDIR)$(LIBEXECDIR)/gpudoctor
	$(INSTALL) -m 0644 $(B)/docs/man/*.1 $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 0644 $(B)/docs/man/*.7 $(DESTDIR)$(MANDIR)/man7/
	$(INSTALL) -m 0644 $(B)/docs/completions/gpudoctor.bash $(DESTDIR)$(BASHCOMPDIR)/gpudoctor
	$(INSTALL) -m 0644 $(B)/docs/completions/_gpudoctor $(DESTDIR)$(ZSHCOMPDIR)/_gpudoctor
	$(INSTALL) -m 0644 $(B)/docs/completions/gpudoctor.fish $(DESTDIR)$(FISHCOMPDIR)/gpudoctor.fish
	$(INSTALL) -m 0644 dist/nhc/gpudoctor.nhc $(DESTDIR)$(DATADIR)/gpudoctor/nhc/gpudoctor.nhc
	sed 's|@BINDIR@|$(BINDIR)|g' dist/slurm/slurm-health-check.in \
	  > $(DESTDIR)$(LIBEXECDIR)/gpudoctor/slurm-health-check
	chmod 0755 $(DESTDIR)$(LIBEXECDIR)/gpudoctor/slurm-health-check
	@set -e; for f in $(DIST_UNITS); do \
	  $(INSTALL) -d $(DESTDIR)$(SYSTEMDUNITDIR); \
	  sed 's|/usr/local/bin/gpudoctor|$(BINDIR)/gpudoctor|g; s|/usr/bin/gpudoctor|$(BINDIR)/gpudoctor|g' \
	    $$f > $(DESTDIR)$(SYSTEMDUNITDIR)/$$(basename $$f); \
	  chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$$(basename $$f); \
	  echo "  UNIT    $(SYSTEMDUNITDIR)/$$(basename $$f)"; done
	$(INSTALL) -d $(DESTDIR)$(DOCDIR)
	$(INSTALL) -m 0644 $(DIST_DOCS) $(DESTDIR)$(DOCDIR)/
	$(INSTALL) -d $(DESTDIR)$(DOCDIR)/schema
	$(INSTALL) -m 0644 docs/schema/*.schema.json $(DESTDIR)$(DOCDIR)/schema/
	@set -e; for f in $(DIST_PROM); do \
	  $(INSTALL) -d $(DESTDIR)$(DOCDIR)/examples/prometheus; \
	  $(INSTALL) -m 0644 $$f $(DESTDIR)$(DOCDIR)/examples/prometheus/; done
	@set -e; for f in $(DIST_GRAFANA); do \
	  $(INSTALL) -d $(DESTDIR)$(DOCDIR)/examples/grafana; \
	  $(INSTALL) -m 0644 $$f $(DESTDIR)$(DOCDIR)/examples/grafana/; done
	@set -e; for f in $(DIST_K8S); do \
	  $(INSTALL) -d $(DESTDIR)$(DOCDIR)/examples/kubernetes; \
	  $(INSTALL) -m 0644 $$f $(DESTDIR)$(DOCDIR)/examples/kubernetes/; done

# The Debian package: debian/ with debhelper, built in a copy of the tree
# (build/deb/src) so that dpkg-buildpackage's outputs, which go to the
# parent directory, land in build/deb/ and the checkout stays clean.
COMPAT        ?= 1
DEB_ZIG_CC    = $(if $(filter $(COMPAT_TOOLS)/%,$(ZIG_CC)),$(CURDIR)/$(ZIG_CC),$(ZIG_CC))
deb: $(if $(filter 1,$(COMPAT)),$(if $(filter $(COMPAT_TOOLS)/%,$(ZIG_CC)),$(COMPAT_TOOLS)/.stamp))
	@command -v dpkg-buildpackage >/dev/null || { echo "make deb: dpkg-buildpackage is missing: apt-get install dpkg-dev debhelper python3"; exit 2; }
	@missing=$$(dpkg-checkbuilddeps debian/control 2>&1 | sed -n 's/.*Unmet build dependencies: //p'); \
	  if [ -n "$$missing" ]; then \
	    echo "make deb: missing build dependencies: $$missing"; \
	    echo "  install them with: apt-get install $$(echo "$$missing" | sed 's/([^)]*)//g; s/debhelper-compat/debhelper/g')"; \
	    exit 2; fi
	rm -rf build/deb && mkdir -p build/deb/src
	tar --exclude=./build --exclude='./build-*' --exclude=./.git --exclude=./.dev -cf - . \
	  | tar -C build/deb/src -xf -
	cd build/deb/src && $(if $(filter 1,$(COMPAT)),GD_DEB_CC="$(DEB_ZIG_CC) -target $(COMPAT_ARCH)-linux-gnu.$(COMPAT_GLIBC)") \
	  dpkg-buildpackage -us -uc -b
	@ls build/deb/*.deb

# The Python wheel: the binary inside a PEP 517 build (setuptools).
wheel: compat
	$(PYTHON) packaging/python/build_wheel.py build-compat/gpudoctor build/wheel

.PHONY: docs install-dist deb wheel
