/*
 * ldcache.c - parse ld.so.cache (old, new and combined formats) and look
 * sonames up exactly as elf/dl-cache.c does.  See ldcache.h.
 */
#include "loader/ldcache.h"
#include "core/le.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

#define OLD_MAGIC "ld.so-1.7.0"		/* 11 bytes, then uint32 nlibs at offset 12 */
#define NEW_MAGIC "glibc-ld.so.cache1.1"	/* 20 bytes */
#define OLD_HDR 16			/* magic[11] + pad + nlibs */
#define OLD_ENTRY 12			/* flags, key, value */
#define NEW_HDR 48
#define NEW_ENTRY 24			/* flags, key, value, osversion, hwcap */
#define EXT_MAGIC 0xeaa42174u		/* (uint32_t)-358342284 */
#define ISA_LEVEL_MASK 0x3ffu

const char *ldcache_format_name(enum ldcache_format f)
{
	switch (f) {
	case LDCACHE_OLD: return "old (ld.so-1.7.0)";
	case LDCACHE_NEW: return "new (glibc-ld.so.cache1.1)";
	case LDCACHE_COMPAT: return "compat (old + new)";
	}
	return "unknown";
}

const char *ldcache_flags_name(int32_t flags)
{
	switch (flags) {
	case 0x0001: return "ELF";
	case 0x0003: return "libc6";
	case 0x0303: return "libc6,x86-64";
	case 0x0803: return "libc6,x32";
	case 0x0a03: return "libc6,AArch64";
	case 0x0103: return "libc6,IA-64";
	case 0x0503: return "libc6,64bit";
	default: return "unknown";
	}
}

int ldcache_libcmp(const char *p1, const char *p2)
{
	while (*p1) {
		int d1 = *p1 >= '0' && *p1 <= '9', d2 = *p2 >= '0' && *p2 <= '9';

		if (d1 && d2) {
			/* Numeric runs; long ones saturate instead of overflowing. */
			unsigned long long v1 = 0, v2 = 0;

			while (*p1 >= '0' && *p1 <= '9') {
				if (v1 < 100000000000ULL)
					v1 = v1 * 10 + (unsigned)(*p1 - '0');
				p1++;
			}
			while (*p2 >= '0' && *p2 <= '9') {
				if (v2 < 100000000000ULL)
					v2 = v2 * 10 + (unsigned)(*p2 - '0');
				p2++;
			}
			if (v1 != v2)
				return v1 < v2 ? -1 : 1;
		} else if (d1) {
			return 1;
		} else if (d2) {
			return -1;
		} else if (*p1 != *p2) {
			return (unsigned char)*p1 - (unsigned char)*p2;
		} else {
			p1++;
			p2++;
		}
	}
	return -(int)(unsigned char)*p2;
}

/* The string at base + off within [0, size), NUL-terminated inside; NULL otherwise. */
static const char *str_at(const unsigned char *base, size_t size, uint64_t off)
{
	if (off >= size)
		return NULL;
	return memchr(base + off, '\0', size - (size_t)off) ? (const char *)base + off : NULL;
}

void ldcache_free(struct ldcache *c)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < c->n; i++) {
		free(c->entries[i].key);
		free(c->entries[i].value);
	}
	free(c->entries);
	for (i = 0; i < c->nhwcaps; i++)
		free(c->hwcaps[i]);
	free(c->hwcaps);
	free(c->generator);
	free(c->path);
	free(c);
}

static int bad(struct ldcache *c, struct err *e, const char *why)
{
	int r = err_set(e, "%s: not a valid ld.so.cache: %s", c->path, why);

	ldcache_free(c);
	return r;
}

/* The extension directory of a new table at file offset hdr (dl-cache.h cache_extension_load). */
static void parse_extensions(struct ldcache *c, const unsigned char *d, size_t size, size_t hdr)
{
	uint32_t off = le32(d + hdr + 32), count;

	if (off == 0 || off % 4 || (uint64_t)off + 8 > size || le32(d + off) != EXT_MAGIC)
		return;
	count = le32(d + off + 4);
	if ((uint64_t)count * 16 > size - off - 8)
		return;
	for (uint32_t i = 0; i < count; i++) {
		const unsigned char *s = d + off + 8 + (size_t)i * 16;
		uint32_t tag = le32(s), so = le32(s + 8), ss = le32(s + 12);

		if ((uint64_t)so + ss > size)
			return;
		if (tag == 0 && ss > 0 && !c->generator) {
			c->generator = xstrndup((const char *)d + so, ss);
		} else if (tag == 1 && ss > 0 && so % 4 == 0 && ss % 4 == 0 && !c->hwcaps) {
			c->nhwcaps = ss / 4;
			c->hwcaps = xcalloc(c->nhwcaps, sizeof(*c->hwcaps));
			for (size_t k = 0; k < c->nhwcaps; k++) {
				/* Offsets are relative to the new header, like the entries'. */
				const char *nm = str_at(d + hdr, size - hdr, le32(d + so + k * 4));

				c->hwcaps[k] = xstrdup(nm ? nm : "");
			}
		}
	}
}

static int parse_new(struct ldcache *c, const unsigned char *d, size_t size, size_t hdr,
		     struct err *e)
{
	uint32_t nlibs;
	unsigned char endian;
	const unsigned char *base = d + hdr;
	size_t bsize = size - hdr;

	if (bsize < NEW_HDR)
		return bad(c, e, "new header truncated");
	nlibs = le32(base + 20);
	endian = base[28];
	if ((bsize - NEW_HDR) / NEW_ENTRY < nlibs)
		return bad(c, e, "more entries than the file holds");
	if (endian != 0 && (endian & 3) != 2)
		return bad(c, e, "not little-endian");
	parse_extensions(c, d, size, hdr);
	c->entries = xcalloc(nlibs ? nlibs : 1, sizeof(*c->entries));
	for (uint32_t i = 0; i < nlibs; i++) {
		const unsigned char *en = base + NEW_HDR + (size_t)i * NEW_ENTRY;
		struct ldcache_entry *x = &c->entries[c->n];
		const char *k = str_at(base, bsize, le32(en + 4)), *v = str_at(base, bsize, le32(en + 8));

		if (!k || !v)
			return bad(c, e, "string offset outside the file");
		x->flags = (int32_t)le32(en);
		x->hwcap = le64(en + 16);
		x->key = xstrdup(k);
		x->value = xstrdup(v);
		if (((x->hwcap >> 32) & ~(uint64_t)ISA_LEVEL_MASK) == (LDCACHE_HWCAP_EXTENSION >> 32)) {
			uint32_t idx = (uint32_t)x->hwcap;

			x->isa_level = (unsigned)((x->hwcap >> 32) & ISA_LEVEL_MASK);
			if (idx < c->nhwcaps)
				x->hwcaps_subdir = c->hwcaps[idx];
		}
		c->n++;
	}
	return 0;
}

int ldcache_parse(const unsigned char *d, size_t size, const char *path,
		  struct ldcache **out, struct err *e)
{
	struct ldcache *c = xcalloc(1, sizeof(*c));

	*out = NULL;
	c->path = xstrdup(path ? path : "ld.so.cache");
	if (size > NEW_HDR && !memcmp(d, NEW_MAGIC, 20)) {
		c->format = LDCACHE_NEW;
		if (parse_new(c, d, size, 0, e) < 0)
			return -1;
	} else if (size > OLD_HDR && !memcmp(d, OLD_MAGIC, 11)) {
		uint32_t nlibs = le32(d + 12);
		size_t strs, hdr;

		if ((size - OLD_HDR) / OLD_ENTRY < nlibs)
			return bad(c, e, "more entries than the file holds");
		strs = OLD_HDR + (size_t)nlibs * OLD_ENTRY;
		hdr = (strs + 7) & ~(size_t)7;
		c->nold = nlibs;
		if (size >= hdr + NEW_HDR && !memcmp(d + hdr, NEW_MAGIC, 20)) {
			c->format = LDCACHE_COMPAT;
			if (parse_new(c, d, size, hdr, e) < 0)
				return -1;
		} else {
			c->format = LDCACHE_OLD;
			c->entries = xcalloc(nlibs ? nlibs : 1, sizeof(*c->entries));
			for (uint32_t i = 0; i < nlibs; i++) {
				const unsigned char *en = d + OLD_HDR + (size_t)i * OLD_ENTRY;
				const char *k = str_at(d + strs, size - strs, le32(en + 4));
				const char *v = str_at(d + strs, size - strs, le32(en + 8));

				if (!k || !v)
					return bad(c, e, "string offset outside the file");
				c->entries[c->n].flags = (int32_t)le32(en);
				c->entries[c->n].key = xstrdup(k);
				c->entries[c->n].value = xstrdup(v);
				c->n++;
			}
		}
	} else {
		return bad(c, e, "no ld.so.cache magic");
	}
	*out = c;
	return 0;
}

int ldcache_load(const char *root, const char *abs, struct ldcache **out, struct err *e)
{
	struct buf b = BUF_INIT;
	int r;

	*out = NULL;
	if (fs_read_file(root, abs, 64u << 20, &b, e) < 0) {
		buf_release(&b);
		return -1;
	}
	r = ldcache_parse((const unsigned char *)b.s, b.len, abs, out, e);
	buf_release(&b);
	return r;
}

/* Priority of a glibc-hwcaps subdir for this CPU: 1 best, 0 unusable. */
static size_t hw_priority(const struct ldcache_hw *hw, const char *subdir)
{
	if (!hw || !subdir)
		return 0;
	for (size_t i = 0; i < hw->nsubdirs; i++)
		if (!strcmp(hw->subdirs[i], subdir))
			return i + 1;
	return 0;
}

const struct ldcache_entry *ldcache_lookup(const struct ldcache *c, const char *soname,
					   int32_t want_flags, const struct ldcache_hw *hw)
{
	long left = 0, right, middle;
	const struct ldcache_entry *best = NULL;
	size_t best_prio = 0;
	int has_hwcap = c && c->format != LDCACHE_OLD;

	if (!c || c->n == 0)
		return NULL;
	right = (long)c->n - 1;
	while (left <= right) {
		int cmp;

		middle = (left + right) / 2;
		cmp = ldcache_libcmp(soname, c->entries[middle].key);
		if (cmp == 0) {
			/* Back up to the first entry of this name, then walk forward. */
			while (middle > 0 && ldcache_libcmp(soname, c->entries[middle - 1].key) == 0)
				middle--;
			for (; middle < (long)c->n; middle++) {
				const struct ldcache_entry *x = &c->entries[middle];
				int named = 0;

				if (ldcache_libcmp(soname, x->key) != 0)
					break;
				if (x->flags != want_flags)
					continue;
				if (has_hwcap) {
					named = ((x->hwcap >> 32) & ~(uint64_t)ISA_LEVEL_MASK) ==
						(LDCACHE_HWCAP_EXTENSION >> 32);
					if (named && (!hw || x->isa_level > hw->isa_level))
						continue;
					/* Named entries come first; a plain one ends the search. */
					if (!named && best)
						break;
					if (!named && x->hwcap != 0)
						continue;	/* legacy hwcaps: removed in glibc 2.37 */
					if (named) {
						size_t p = hw_priority(hw, x->hwcaps_subdir);

						if (p == 0 || (best && p >= best_prio))
							continue;
						best_prio = p;
					}
				}
				best = x;
				if (!named)
					break;
			}
			break;
		}
		/* ldconfig sorts the table in descending libcmp order. */
		if (cmp < 0)
			left = middle + 1;
		else
			right = middle - 1;
	}
	return best;
}
