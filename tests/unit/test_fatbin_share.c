/* test_fatbin_share.c - full builds vs "a few kernels" (fatbin.h's share rule),
 * on a fat binary shaped like torch 2.11.0+cu130's libtorch_cuda.so on the H200:
 * many sm_80 / sm_90 / sm_100 entries, one sm_90a and one sm_121a. */
#include "tap.h"

#include "loader/fatbin.h"

#include <stdint.h>
#include <string.h>

static unsigned char img[16384];
static size_t used;

static void put16(size_t at, uint16_t v) { img[at] = (unsigned char)v; img[at + 1] = (unsigned char)(v >> 8); }
static void put32(size_t at, uint32_t v) { put16(at, (uint16_t)v); put16(at + 2, (uint16_t)(v >> 16)); }
static void put64(size_t at, uint64_t v) { put32(at, (uint32_t)v); put32(at + 4, (uint32_t)(v >> 32)); }

/* One container (one compilation unit) with an entry per arch: arch 0 ends the list. */
static void unit(const int *archs, const uint64_t *flags, int ptx)
{
	size_t start = used;

	put32(used, FATBIN_MAGIC);
	put16(used + 4, 1);
	put16(used + 6, 16);
	used += 16;
	for (size_t i = 0; archs[i]; i++) {
		int kind = ptx ? FATBIN_KIND_PTX : FATBIN_KIND_ELF;
		size_t h = 64, payload = 8;

		memset(img + used, 0, h + payload);
		put16(used, (uint16_t)kind);
		put16(used + 2, 0x101);
		put32(used + 4, (uint32_t)h);
		put64(used + 8, payload);
		put16(used + 26, 1);
		put32(used + 28, (uint32_t)archs[i]);
		put64(used + 40, flags ? flags[i] : 0x11);
		used += h + payload;
	}
	put64(start + 8, used - start - 16);
}

static size_t find(const struct fatbin_summary *s, int kind, int sm, char suffix)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->archs[i].kind == kind && s->archs[i].sm == sm && s->archs[i].suffix == suffix)
			return i;
	return (size_t)-1;
}

static void test_h200_shape(void)
{
	static const int common[] = { 100, 75, 80, 90, 0 };
	static const int hopper[] = { 90, 0 };
	static const uint64_t arch_specific[] = { 0x100011 };	/* sm_90a, sm_121a */
	static const int blackwell[] = { 121, 0 };
	static const int ptx[] = { 120, 0 };
	struct fatbin_summary s = FATBIN_SUMMARY_INIT;
	char name[32];
	size_t i;

	memset(img, 0, sizeof(img));
	used = 0;
	for (int k = 0; k < 20; k++)
		unit(common, NULL, 0);
	unit(hopper, arch_specific, 0);
	unit(blackwell, arch_specific, 0);
	unit(blackwell, NULL, 0);	/* sm_121: 1 of 23 -> a few kernels */
	unit(hopper, NULL, 0);
	for (int k = 0; k < 2; k++)
		unit(common, NULL, 0);	/* sm_75/80/100: 22, sm_90: 23 */
	unit(ptx, NULL, 1);
	CHECK_INT(fatbin_parse(img, used, &s, NULL), 0);
	CHECK_INT(s.n, 8);
	/* numeric order: sm_75 before sm_100, PTX last */
	CHECK_STR(fatbin_arch_name(&s.archs[0], name, sizeof(name)), "sm_75");
	CHECK_STR(fatbin_arch_name(&s.archs[s.n - 1], name, sizeof(name)), "compute_120");
	i = find(&s, FATBIN_KIND_ELF, 90, 0);
	CHECK(i != (size_t)-1 && s.archs[i].count == 23 && fatbin_arch_is_full(&s, i));
	i = find(&s, FATBIN_KIND_ELF, 100, 0);
	CHECK(i != (size_t)-1 && s.archs[i].count == 22 && fatbin_arch_is_full(&s, i));
	i = find(&s, FATBIN_KIND_ELF, 90, 'a');
	CHECK(i != (size_t)-1 && s.archs[i].count == 1 && !fatbin_arch_is_full(&s, i));
	i = find(&s, FATBIN_KIND_ELF, 121, 'a');
	CHECK(i != (size_t)-1 && !fatbin_arch_is_full(&s, i));
	i = find(&s, FATBIN_KIND_ELF, 121, 0);
	CHECK(i != (size_t)-1 && !fatbin_arch_is_full(&s, i));
	/* PTX is weighed against PTX: its only arch is a full build */
	i = find(&s, FATBIN_KIND_PTX, 120, 0);
	CHECK(i != (size_t)-1 && fatbin_arch_is_full(&s, i));
	CHECK(!fatbin_arch_is_full(&s, s.n));
	fatbin_summary_release(&s);
}

/* Exactly 25% is a full build. */
static void test_boundary(void)
{
	static const int both[] = { 80, 86, 0 };
	static const int only80[] = { 80, 0 };
	struct fatbin_summary s = FATBIN_SUMMARY_INIT;
	size_t i;

	memset(img, 0, sizeof(img));
	used = 0;
	unit(both, NULL, 0);
	for (int k = 0; k < 3; k++)
		unit(only80, NULL, 0);
	CHECK_INT(fatbin_parse(img, used, &s, NULL), 0);
	i = find(&s, FATBIN_KIND_ELF, 86, 0);
	CHECK(i != (size_t)-1 && s.archs[i].count == 1 && fatbin_arch_is_full(&s, i));
	unit(only80, NULL, 0);
	fatbin_summary_release(&s);
	CHECK_INT(fatbin_parse(img, used, &s, NULL), 0);
	i = find(&s, FATBIN_KIND_ELF, 86, 0);
	CHECK(i != (size_t)-1 && !fatbin_arch_is_full(&s, i));	/* 1 of 5 */
	fatbin_summary_release(&s);
}

/* The measured ratio: sm_100a had 59 entries against 444 for each full
 * build (13%); scaled down to 1 against 8 here.  Not a full build. */
static void test_h200_measured_ratio(void)
{
	static const int full[] = { 100, 0 };
	static const int specific[] = { 100, 0 };
	static const uint64_t arch_specific[] = { 0x100011 };
	struct fatbin_summary s = FATBIN_SUMMARY_INIT;
	size_t i;

	memset(img, 0, sizeof(img));
	used = 0;
	for (int k = 0; k < 8; k++)
		unit(full, NULL, 0);
	unit(specific, arch_specific, 0);
	CHECK_INT(fatbin_parse(img, used, &s, NULL), 0);
	i = find(&s, FATBIN_KIND_ELF, 100, 'a');
	CHECK(i != (size_t)-1 && s.archs[i].count == 1 && !fatbin_arch_is_full(&s, i));
	i = find(&s, FATBIN_KIND_ELF, 100, 0);
	CHECK(i != (size_t)-1 && s.archs[i].count == 8 && fatbin_arch_is_full(&s, i));
	fatbin_summary_release(&s);
}

int main(void)
{
	RUN(test_h200_measured_ratio);
	RUN(test_h200_shape);
	RUN(test_boundary);
	return tap_done();
}
