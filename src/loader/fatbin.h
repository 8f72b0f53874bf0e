/*
 * fatbin.h - which GPU architectures a library carries, read from its
 * embedded fat binaries (the .nv_fatbin section) without cuobjdump.
 *
 * Layout (observed in nvcc 13.0 output and the libraries it builds; NVIDIA
 * does not document it): the section is a sequence of containers, each
 *   u32 magic 0xBA55ED50, u16 version (1), u16 header size (16), u64 size
 * followed by `size` bytes of entries, each
 *   u16 kind (1 PTX, 2 ELF/SASS), u16 version, u32 header size, u64 payload
 *   size, u32 compressed size, u32 (reserved), u16 minor, u16 major,
 *   u32 arch (e.g. 90), u32 name offset, u32 name length, u64 flags, ...
 * and the payload.  Flags: 0x100000 arch-specific ("sm_90a"), 0x200000
 * family-specific ("sm_100f"), 0x2000 / 0x8000 compressed payload.
 * Only headers are read: payloads are skipped by their size, so a 1 GB
 * libtorch_cuda.so costs a few thousand small reads of the mapping.
 *
 *	struct fatbin_summary s = FATBIN_SUMMARY_INIT;
 *	if (fatbin_read_library(root, "/venv/.../libtorch_cuda.so", &s, &e) == 0)
 *		for (size_t i = 0; i < s.n; i++) puts(fatbin_arch_name(&s.archs[i], buf, sizeof buf));
 *	fatbin_summary_release(&s);
 */
#ifndef GD_FATBIN_H
#define GD_FATBIN_H

#include <stddef.h>

#include "core/err.h"

#define FATBIN_MAGIC 0xBA55ED50u
#define FATBIN_KIND_PTX 1
#define FATBIN_KIND_ELF 2

struct fatbin_arch {
	int kind;		/* FATBIN_KIND_PTX or FATBIN_KIND_ELF */
	int sm;			/* 90 for sm_90 / compute_90 */
	char suffix;		/* 0, 'a' or 'f' */
	size_t count;		/* entries with this kind and arch */
};

struct fatbin_summary {
	struct fatbin_arch *archs;	/* distinct, sorted by kind (SASS first) then sm */
	size_t n, cap;
	size_t containers, entries;
	int compressed;		/* some payload is compressed */
	size_t section_size;
	char *problem;		/* why parsing stopped early, or NULL */
};

#define FATBIN_SUMMARY_INIT { NULL, 0, 0, 0, 0, 0, 0, NULL }

/* Walk the containers in data; stops at the first malformed header (problem set). -1 when nothing parsed. */
int fatbin_parse(const unsigned char *data, size_t size, struct fatbin_summary *s,
		 struct err *e);
/* The .nv_fatbin section of the library at machine path `path` (inside root). */
int fatbin_read_library(const char *root, const char *path, struct fatbin_summary *s,
			struct err *e);
void fatbin_summary_release(struct fatbin_summary *s);

/*
 * Full builds vs a few kernels.  A library's fat binaries hold one entry per
 * compilation unit and architecture, so an arch the whole library was built
 * for has about as many entries as the largest; an arch that only some
 * kernels target (FlashAttention's sm_90a, CUTLASS's sm_100a ...) has a
 * handful.  Observed on the H200 (torch 2.11.0+cu130's libtorch_cuda.so):
 * the fatbin lists sm_75 sm_80 sm_86 sm_89 sm_90 sm_90a sm_100 sm_100a
 * sm_103a sm_120 sm_120a sm_121a while torch.cuda.get_arch_list() says
 * sm_75 sm_80 sm_86 sm_90 sm_100 sm_120, and the entry counts are 444 for
 * each of those six against 59 for sm_100a and sm_103a and 1 to 4 for the
 * others (13% at most).  Rule: an arch is a full build when
 * its entries are at least FATBIN_FULL_SHARE_PCT percent of the largest
 * count of the same kind (SASS against SASS, PTX against PTX); the others
 * are "also has a few kernels for ...", and never make a GPU supported.
 */
#define FATBIN_FULL_SHARE_PCT 25

/* 1 when s->archs[i] is a full build by the rule above, 0 when only a few kernels. */
int fatbin_arch_is_full(const struct fatbin_summary *s, size_t i);

/* "sm_90", "sm_90a", "compute_120" into out; returns out. */
const char *fatbin_arch_name(const struct fatbin_arch *a, char *out, size_t n);

#endif
