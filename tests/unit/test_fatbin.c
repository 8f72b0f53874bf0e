/* test_fatbin.c - fat binary headers: archs, suffixes, containers, malformed input. */
#include "tap.h"

#include "loader/fatbin.h"

#include <stdint.h>
#include <string.h>

static unsigned char img[4096];
static size_t used;

static void put16(size_t at, uint16_t v) { img[at] = (unsigned char)v; img[at + 1] = (unsigned char)(v >> 8); }
static void put32(size_t at, uint32_t v) { put16(at, (uint16_t)v); put16(at + 2, (uint16_t)(v >> 16)); }
static void put64(size_t at, uint64_t v) { put32(at, (uint32_t)v); put32(at + 4, (uint32_t)(v >> 32)); }

static size_t container_at;

static void container_begin(void)
{
	container_at = used;
	put32(used, FATBIN_MAGIC);
	put16(used + 4, 1);
	put16(used + 6, 16);
	used += 16;
}

static void container_end(void)
{
	put64(container_at + 8, used - container_at - 16);
	used = (used + 7) & ~(size_t)7;
}

/* Entry with the header layout nvcc 13.0 writes (64 bytes, 80 for PTX). */
static void entry(int kind, int arch, uint64_t flags, size_t payload)
{
	size_t h = kind == FATBIN_KIND_PTX ? 80 : 64;

	memset(img + used, 0, h + payload);
	put16(used, (uint16_t)kind);
	put16(used + 2, 0x101);
	put32(used + 4, (uint32_t)h);
	put64(used + 8, payload);
	put16(used + 24, kind == FATBIN_KIND_PTX ? 0 : 8);
	put16(used + 26, kind == FATBIN_KIND_PTX ? 9 : 1);
	put32(used + 28, (uint32_t)arch);
	put64(used + 40, flags);
	memset(img + used + h, 0xAB, payload);
	used += h + payload;
}

static void build(void)
{
	memset(img, 0, sizeof(img));
	used = 0;
	container_begin();
	entry(FATBIN_KIND_ELF, 90, 0x100011, 100);	/* sm_90a */
	entry(FATBIN_KIND_ELF, 100, 0x1200011, 60);	/* sm_100f */
	entry(FATBIN_KIND_ELF, 80, 0x11, 40);
	container_end();
	container_begin();
	entry(FATBIN_KIND_ELF, 80, 0x11, 24);
	entry(FATBIN_KIND_ELF, 75, 0x11, 8);
	entry(FATBIN_KIND_PTX, 120, 0x8011, 33);	/* compressed PTX */
	container_end();
}

static void test_archs(void)
{
	struct fatbin_summary s = FATBIN_SUMMARY_INIT;
	char name[32];

	build();
	CHECK_INT(fatbin_parse(img, used, &s, NULL), 0);
	CHECK_INT(s.containers, 2);
	CHECK_INT(s.entries, 6);
	CHECK_INT(s.compressed, 1);
	CHECK(s.problem == NULL);
	CHECK_INT(s.n, 5);
	if (s.n == 5) {
		CHECK_STR(fatbin_arch_name(&s.archs[0], name, sizeof(name)), "sm_75");
		CHECK_STR(fatbin_arch_name(&s.archs[1], name, sizeof(name)), "sm_80");
		CHECK_INT(s.archs[1].count, 2);
		CHECK_STR(fatbin_arch_name(&s.archs[2], name, sizeof(name)), "sm_90a");
		CHECK_STR(fatbin_arch_name(&s.archs[3], name, sizeof(name)), "sm_100f");
		CHECK_STR(fatbin_arch_name(&s.archs[4], name, sizeof(name)), "compute_120");
	}
	fatbin_summary_release(&s);
}

static void test_malformed(void)
{
	struct fatbin_summary s = FATBIN_SUMMARY_INIT;
	struct err e = ERR_INIT;

	build();
	/* every truncation: never reads past, never crashes */
	for (size_t n = 0; n < used; n++) {
		memset(&s, 0, sizeof(s));
		(void)fatbin_parse(img, n, &s, NULL);
		CHECK(s.entries <= 6);
		fatbin_summary_release(&s);
	}
	/* a payload size past the container */
	put64(16 + 8, (uint64_t)1 << 62);
	CHECK_INT(fatbin_parse(img, used, &s, NULL), 0);
	CHECK(s.problem != NULL);
	fatbin_summary_release(&s);
	/* no magic */
	memset(img, 0x41, 64);
	CHECK_INT(fatbin_parse(img, 64, &s, &e), -1);
	CHECK(strstr(e.msg, "no fat binary") != NULL);
	fatbin_summary_release(&s);
	CHECK_INT(fatbin_parse(img, 0, &s, NULL), -1);
	fatbin_summary_release(&s);
}

int main(void)
{
	RUN(test_archs);
	RUN(test_malformed);
	return tap_done();
}
