# gpudoctor - build, test, install.  See README.md.
#
#   make                 build build/gpudoctor
#   make check           unit tests + end-to-end tests
#   make check SANITIZE=1  the same under AddressSanitizer + UBSan (in build-asan/)
#   make install PREFIX=/usr/local DESTDIR=...
#
# Sources are found by wildcard: a new file in src/<folder>/ needs no edit here.

CC       ?= gcc
PREFIX   ?= /usr/local
SANITIZE ?=
ifeq ($(SANITIZE),1)
B        ?= build-asan
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
OPT      := -O1 -g
else
B        ?= build
SANFLAGS :=
OPT      := -O2 -g
endif

WARN     := -Wall -Wextra -Werror -Wshadow -Wformat=2 -Wmissing-prototypes \
            -Wstrict-prototypes -Wno-format-nonliteral
CFLAGS   ?=
ALL_CFLAGS := -std=c11 -D_GNU_SOURCE $(OPT) $(WARN) $(SANFLAGS) -Isrc -I$(B)/gen $(CFLAGS)
LDLIBS   := -ldl -lm -pthread
LDFLAGS  ?=

# Every folder under src/ with sources (probes/<layer>/ included): a new file or
# folder needs no edit here.
SRC_DIRS := $(patsubst %/,%,$(sort $(dir $(shell find src -name "*.c" -o -name "*.S"))))
SRCS     := $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c))
ASMS     := $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.S))
OBJS     := $(patsubst src/%.c,$(B)/obj/%.o,$(SRCS)) $(patsubst src/%.S,$(B)/obj/%.o,$(ASMS))
LIBOBJS  := $(filter-out $(B)/obj/commands/main.o,$(OBJS))

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(B)/tests/%,$(UNIT_SRCS))

all: $(B)/gpudoctor

# Optional per-folder rules (generated sources, embedded data).
-include $(wildcard mk/*.mk)

$(B)/gpudoctor: $(OBJS)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(LDLIBS)

$(B)/libgd.a: $(LIBOBJS)
	rm -f $@ && ar rcs $@ $(LIBOBJS)

$(B)/obj/%.o: src/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/obj/%.o: src/%.S
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(ALL_CFLAGS) -MMD -MP -c -o $@ $<

$(B)/tests/%: tests/unit/%.c $(B)/libgd.a tests/unit/tap.h
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit -o $@ $< $(B)/libgd.a $(LDLIBS)

unit: $(UNIT_BINS)

# A maintainer step with the network (not run by CI or check): read the
# knowledge base's primary sources again and print a reviewable diff
# (docs/knowledge.md).  OGKM=<clone of NVIDIA/open-gpu-kernel-modules> adds
# the GPU lists.
kb-refresh:
	python3 src/knowledge/data/kb-refresh.py

check: $(B)/gpudoctor $(UNIT_BINS)
	GPUDOCTOR=$(abspath $(B)/gpudoctor) BUILD=$(abspath $(B)) CC="$(CC)" \
	  tests/run-tests.sh $(UNIT_BINS)

install: $(B)/gpudoctor
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(B)/gpudoctor $(DESTDIR)$(PREFIX)/bin/gpudoctor

clean:
	rm -rf build build-asan build-fuzz build-compat

.PHONY: all unit check install clean kb-refresh
-include $(OBJS:.o=.d)
