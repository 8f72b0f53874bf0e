/*
 * fatbin.c - the GPU architectures of a library's embedded fat binaries
 * (layout in fatbin.h).  The input is untrusted: every header is checked
 * against the section's end before it is read, sizes are checked for
 * overflow, and a bad header ends the walk with a reason, not a crash.
 */
#include "loader/fatbin.h"
#include "core/le.h"

#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "loader/elf.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FATBIN_FLAG_ARCH_SPECIFIC 0x100000u
#define FATBIN_FLAG_FAMILY_SPECIFIC 0x200000u
#define FATBIN_FLAG_COMPRESSED_LZ4 0x2000u
#define FATBIN_FLAG_COMPRESSED_ZSTD 0x8000u
#define FATBIN_ENTRY_MIN 64	/* the fixed part of an entry header */

static void fatbin_note(struct fatbin_summary *s, int kind, int sm, char suffix)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		if (s->archs[i].kind == kind && s->archs[i].sm == sm && s->archs[i].suffix == suffix) {
			s->archs[i].count++;
			return;
		}
	XGROW(s->archs, s->n + 1, s->cap);
	/* insertion keeps SASS before PTX, then ascending arch */
	for (i = s->n; i > 0; i--) {
		const struct fatbin_arch *p = &s->archs[i - 1];
		int before = p->kind == kind ? (p->sm < sm || (p->sm == sm && p->suffix < suffix))
					     : p->kind == FATBIN_KIND_ELF;

		if (before)
			break;
		s->archs[i] = *p;
	}
	s->archs[i].kind = kind;
	s->archs[i].sm = sm;
	s->archs[i].suffix = suffix;
	s->archs[i].count = 1;
	s->n++;
}

static void fatbin_problem(struct fatbin_summary *s, const char *what, size_t off)
{
	if (!s->problem)
		s->problem = xasprintf("%s at offset %zu", what, off);
}

/*
 * The bytes come from memory (tests, fuzzing) or, for a library, from
 * pread() at the section's file offset: walking a 500 MB libtorch_cuda.so's
 * ~3000 headers costs ~3 ms with pread and ~12 ms through page faults of a
 * mapping.
 */
struct fb_src {
	const unsigned char *mem;
	int fd;
	size_t base;		/* file offset of the section */
	size_t size;
};

static int fb_read(const struct fb_src *src, size_t off, unsigned char *buf, size_t n)
{
	if (off > src->size || n > src->size - off)
		return -1;
	if (src->mem) {
		memcpy(buf, src->mem + off, n);
		return 0;
	}
	return pread(src->fd, buf, n, (off_t)(src->base + off)) == (ssize_t)n ? 0 : -1;
}

/* One container's entries in [start, end). */
static void fatbin_entries(const struct fb_src *src, size_t start, size_t end,
			   struct fatbin_summary *s)
{
	size_t off = start;

	while (off < end) {
		unsigned char h[FATBIN_ENTRY_MIN];
		uint16_t kind;
		uint32_t hsize, arch, flags;
		uint64_t psize;
		char suffix = 0;

		if (end - off < FATBIN_ENTRY_MIN || fb_read(src, off, h, sizeof(h)) < 0) {
			fatbin_problem(s, "entry header cut short", off);
			return;
		}
		kind = le16(h);
		hsize = le32(h + 4);
		psize = le64(h + 8);
		arch = le32(h + 28);
		flags = (uint32_t)le64(h + 40);
		if (hsize < FATBIN_ENTRY_MIN || hsize > end - off || psize > end - off - hsize) {
			fatbin_problem(s, "entry sizes past its container", off);
			return;
		}
		if ((kind == FATBIN_KIND_PTX || kind == FATBIN_KIND_ELF) && arch > 0 && arch < 10000) {
			if (flags & FATBIN_FLAG_ARCH_SPECIFIC)
				suffix = 'a';
			else if (flags & FATBIN_FLAG_FAMILY_SPECIFIC)
				suffix = 'f';
			fatbin_note(s, kind, (int)arch, suffix);
			if (flags & (FATBIN_FLAG_COMPRESSED_LZ4 | FATBIN_FLAG_COMPRESSED_ZSTD))
				s->compressed = 1;
		}
		s->entries++;
		off += hsize + (size_t)psize;
	}
}

static int fatbin_walk(const struct fb_src *src, struct fatbin_summary *s, struct err *e)
{
	size_t off = 0, size = src->size;

	s->section_size = size;
	while (off + 16 <= size) {
		unsigned char h[16];
		uint16_t hsize;
		uint64_t fsize;

		if (fb_read(src, off, h, sizeof(h)) < 0) {
			fatbin_problem(s, "unreadable container header", off);
			break;
		}
		if (le32(h) != FATBIN_MAGIC) {
			/* containers are 8-byte aligned; padding between them is zero */
			if (le32(h) == 0) {
				off += 8;
				continue;
			}
			fatbin_problem(s, "no fatbin magic", off);
			break;
		}
		hsize = le16(h + 6);
		fsize = le64(h + 8);
		if (hsize < 16 || hsize > size - off || fsize > size - off - hsize) {
			fatbin_problem(s, "container sizes past the section", off);
			break;
		}
		s->containers++;
		fatbin_entries(src, off + hsize, off + hsize + (size_t)fsize, s);
		off += hsize + (size_t)fsize;
		off = (off + 7) & ~(size_t)7;
	}
	if (s->containers == 0)
		return err_set(e, "no fat binary in %zu bytes%s%s", size, s->problem ? ": " : "",
			       s->problem ? s->problem : "");
	return 0;
}

int fatbin_parse(const unsigned char *data, size_t size, struct fatbin_summary *s,
		 struct err *e)
{
	struct fb_src src = { data, -1, 0, size };

	return fatbin_walk(&src, s, e);
}

int fatbin_read_library(const char *root, const char *path, struct fatbin_summary *s,
			struct err *e)
{
	struct buf full = BUF_INIT;
	struct elf_file ef;
	const unsigned char *data = NULL;
	size_t size = 0;
	struct fb_src src;
	int rc;

	memset(&ef, 0, sizeof(ef));
	if (fs_path_checked(root, path, &full, e) < 0 || elf_open(full.s, &ef, e) < 0) {
		/* a failed elf_open keeps the path for its message: close it too */
		elf_close(&ef);
		buf_release(&full);
		return -1;
	}
	if (elf_section(&ef, ".nv_fatbin", &data, &size) < 0) {
		elf_close(&ef);
		buf_release(&full);
		return err_set(e, "%s has no .nv_fatbin section", path);
	}
	memset(&src, 0, sizeof(src));
	src.base = (size_t)(data - ef.map);
	src.size = size;
	src.fd = open(full.s, O_RDONLY | O_CLOEXEC);
	if (src.fd < 0)
		src.mem = data;	/* fall back to the mapping */
	rc = fatbin_walk(&src, s, e);
	if (src.fd >= 0)
		close(src.fd);
	elf_close(&ef);
	buf_release(&full);
	return rc;
}

void fatbin_summary_release(struct fatbin_summary *s)
{
	free(s->archs);
	free(s->problem);
	memset(s, 0, sizeof(*s));
}

const char *fatbin_arch_name(const struct fatbin_arch *a, char *out, size_t n)
{
	if (a->suffix)
		snprintf(out, n, "%s_%d%c", a->kind == FATBIN_KIND_PTX ? "compute" : "sm", a->sm, a->suffix);
	else
		snprintf(out, n, "%s_%d", a->kind == FATBIN_KIND_PTX ? "compute" : "sm", a->sm);
	return out;
}

int fatbin_arch_is_full(const struct fatbin_summary *s, size_t i)
{
	size_t max = 0;

	if (i >= s->n)
		return 0;
	for (size_t k = 0; k < s->n; k++)
		if (s->archs[k].kind == s->archs[i].kind && s->archs[k].count > max)
			max = s->archs[k].count;
	/* count/max >= PCT/100, in integers */
	return s->archs[i].count * 100 >= max * FATBIN_FULL_SHARE_PCT;
}
