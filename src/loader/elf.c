/*
 * elf.c - a bounds-checked reader of 64-bit little-endian ELF shared objects.
 *
 * The file is mapped read-only and only the ranges needed are looked at:
 * the ELF header, the program headers, the dynamic section, the strings it
 * names, and the hash-table probes of a symbol lookup.  Every offset and size
 * taken from the file is checked against the file size before it is used, so
 * hostile or truncated files become an elf_problem, never a crash.
 * bytes_touched adds up the ranges looked at, to show in verbose mode that a
 * library of hundreds of MB was not read whole.
 */
#include "loader/elf.h"
#include "core/le.h"
#include "core/xalloc.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* 1 when [off, off+len) lies inside the file (overflow-safe). */
static int elf_in_file(const struct elf_file *ef, uint64_t off, uint64_t len)
{
	return off <= ef->size && len <= ef->size - off;
}

const char *elf_problem_name(enum elf_problem p)
{
	switch (p) {
	case ELF_OK: return "ok";
	case ELF_NOT_ELF: return "not an ELF file";
	case ELF_TRUNCATED: return "truncated";
	case ELF_WRONG_CLASS: return "wrong ELF class (32-bit)";
	case ELF_WRONG_MACHINE: return "wrong machine";
	case ELF_NOT_SHARED: return "not a shared object or executable";
	case ELF_UNREADABLE: return "unreadable";
	case ELF_MALFORMED: return "malformed";
	}
	return "unknown";
}

static int elf_fail(struct elf_file *ef, enum elf_problem p, struct err *e, const char *why)
{
	ef->problem = p;
	return err_set(e, "%s: %s%s%s", ef->path, elf_problem_name(p), why ? ": " : "",
		       why ? why : "");
}

/* File offset of a virtual address, through the PT_LOAD segments; -1 if unmapped. */
int64_t elf_vaddr_to_off(const struct elf_file *ef, uint64_t vaddr)
{
	for (size_t i = 0; i < ef->phnum; i++) {
		const unsigned char *ph = ef->map + ef->phoff + i * 56;
		uint64_t va, off, fsz;

		if (le32(ph) != PT_LOAD)
			continue;
		off = le64(ph + 8);
		va = le64(ph + 16);
		fsz = le64(ph + 32);
		if (vaddr >= va && vaddr - va < fsz) {
			uint64_t r = vaddr - va + off;

			return r <= ef->size ? (int64_t)r : -1;
		}
	}
	return -1;
}

/* The NUL-terminated string at dynstr + idx, or NULL when out of bounds. */
const char *elf_dynstr(struct elf_file *ef, uint64_t idx)
{
	const char *s, *nul;
	uint64_t max;

	if (!ef->dynstr_off || idx >= ef->dynstr_size)
		return NULL;
	max = ef->dynstr_size - idx;
	s = (const char *)ef->map + ef->dynstr_off + idx;
	nul = memchr(s, '\0', (size_t)max);
	if (!nul)
		return NULL;
	ef->bytes_touched += (size_t)(nul - s) + 1;
	return s;
}

static int elf_read_interp(struct elf_file *ef, const unsigned char *ph, struct err *e)
{
	uint64_t off = le64(ph + 8), sz = le64(ph + 32);
	const char *s;

	if (!elf_in_file(ef, off, sz) || sz == 0)
		return elf_fail(ef, ELF_TRUNCATED, e, "PT_INTERP past the end of the file");
	s = (const char *)ef->map + off;
	if (!memchr(s, '\0', (size_t)sz))
		return elf_fail(ef, ELF_MALFORMED, e, "PT_INTERP is not a string");
	ef->interp = xstrdup(s);
	ef->bytes_touched += (size_t)sz;
	return 0;
}

/* Resolve a DT_ address to a file offset or fail. */
static int elf_dyn_addr(struct elf_file *ef, uint64_t vaddr, uint64_t *off, const char *what,
			struct err *e)
{
	int64_t o = elf_vaddr_to_off(ef, vaddr);

	if (o < 0) {
		char why[96];

		snprintf(why, sizeof(why), "%s address 0x%llx is outside the loaded segments",
			 what, (unsigned long long)vaddr);
		return elf_fail(ef, ELF_MALFORMED, e, why);
	}
	*off = (uint64_t)o;
	return 0;
}

static int elf_read_dynamic(struct elf_file *ef, uint64_t off, uint64_t sz, struct err *e)
{
	uint64_t strtab = 0, strsz = 0, symtab = 0, gnuhash = 0, hash = 0, versym = 0, verdef = 0;
	uint64_t soname = UINT64_MAX, rpath = UINT64_MAX, runpath = UINT64_MAX;
	uint64_t *needed = NULL;
	size_t nneeded = 0, cap = 0, n, i;
	int ret = -1;

	if (!elf_in_file(ef, off, sz))
		return elf_fail(ef, ELF_TRUNCATED, e, "dynamic section past the end of the file");
	n = (size_t)(sz / 16);
	for (i = 0; i < n; i++) {
		const unsigned char *d = ef->map + off + i * 16;
		int64_t tag = (int64_t)le64(d);
		uint64_t val = le64(d + 8);

		ef->bytes_touched += 16;
		if (tag == DT_NULL)
			break;
		switch (tag) {
		case DT_STRTAB: strtab = val; break;
		case DT_STRSZ: strsz = val; break;
		case DT_SYMTAB: symtab = val; break;
		case DT_GNU_HASH: gnuhash = val; break;
		case DT_HASH: hash = val; break;
		case DT_VERSYM: versym = val; break;
		case DT_VERDEF: verdef = val; break;
		case DT_VERDEFNUM: ef->verdefnum = (size_t)val; break;
		case DT_SONAME: soname = val; break;
		case DT_RPATH: rpath = val; break;
		case DT_RUNPATH: runpath = val; break;
		case DT_FLAGS: ef->flags = val; break;
		case DT_FLAGS_1: ef->flags_1 = val; break;
		case DT_NEEDED:
			XGROW(needed, nneeded, cap);
			needed[nneeded++] = val;
			break;
		default:
			break;
		}
	}
	if (!strtab) {
		if (nneeded || soname != UINT64_MAX || rpath != UINT64_MAX || runpath != UINT64_MAX) {
			elf_fail(ef, ELF_MALFORMED, e, "dynamic section without DT_STRTAB");
			goto out;
		}
		ret = 0;
		goto out;
	}
	if (elf_dyn_addr(ef, strtab, &ef->dynstr_off, "DT_STRTAB", e) < 0)
		goto out;
	if (!elf_in_file(ef, ef->dynstr_off, strsz)) {
		elf_fail(ef, ELF_TRUNCATED, e, "string table past the end of the file");
		goto out;
	}
	ef->dynstr_size = strsz;
	if (symtab && elf_dyn_addr(ef, symtab, &ef->dynsym_off, "DT_SYMTAB", e) < 0)
		goto out;
	if (gnuhash && elf_dyn_addr(ef, gnuhash, &ef->gnu_hash_off, "DT_GNU_HASH", e) < 0)
		goto out;
	if (hash && elf_dyn_addr(ef, hash, &ef->hash_off, "DT_HASH", e) < 0)
		goto out;
	if (versym && elf_dyn_addr(ef, versym, &ef->versym_off, "DT_VERSYM", e) < 0)
		goto out;
	if (verdef && elf_dyn_addr(ef, verdef, &ef->verdef_off, "DT_VERDEF", e) < 0)
		goto out;

#define DYNSTR(dst, idx, what) do { \
	const char *s_ = elf_dynstr(ef, (idx)); \
	if (!s_) { \
		elf_fail(ef, ELF_MALFORMED, e, what " is outside the string table"); \
		goto out; \
	} \
	(dst) = xstrdup(s_); \
} while (0)
	if (soname != UINT64_MAX)
		DYNSTR(ef->soname, soname, "DT_SONAME");
	if (rpath != UINT64_MAX)
		DYNSTR(ef->rpath, rpath, "DT_RPATH");
	if (runpath != UINT64_MAX)
		DYNSTR(ef->runpath, runpath, "DT_RUNPATH");
	if (nneeded) {
		ef->needed = xcalloc(nneeded, sizeof(*ef->needed));
		for (i = 0; i < nneeded; i++) {
			DYNSTR(ef->needed[i], needed[i], "DT_NEEDED");
			ef->nneeded = i + 1;
		}
	}
#undef DYNSTR
	ret = 0;
out:
	free(needed);
	return ret;
}

static int elf_open_checked(const char *path, struct elf_file *ef, struct err *e)
{
	const unsigned char *h;
	uint64_t dyn_off = 0, dyn_sz = 0;
	int have_dyn = 0, fd;
	struct stat st;
	void *m;

	memset(ef, 0, sizeof(*ef));
	ef->path = xstrdup(path);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ef->problem = ELF_UNREADABLE;
		return err_set_errno(e, "cannot open '%s'", path);
	}
	if (fstat(fd, &st) < 0) {
		ef->problem = ELF_UNREADABLE;
		err_set_errno(e, "cannot stat '%s'", path);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return elf_fail(ef, ELF_NOT_ELF, e, "not a regular file");
	}
	ef->size = (size_t)st.st_size;
	if (ef->size == 0) {
		close(fd);
		return elf_fail(ef, ELF_TRUNCATED, e, "empty file");
	}
	m = mmap(NULL, ef->size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		ef->problem = ELF_UNREADABLE;
		err_set_errno(e, "cannot map '%s'", path);
		close(fd);
		ef->size = 0;
		return -1;
	}
	close(fd);
	ef->map = m;
	h = ef->map;

	if (ef->size < 4 || memcmp(h, ELFMAG, SELFMAG) != 0) {
		ef->bytes_touched = ef->size < 4 ? ef->size : 4;
		return elf_fail(ef, ELF_NOT_ELF, e, "no ELF magic");
	}
	if (ef->size < EI_NIDENT) {
		ef->bytes_touched = ef->size;
		return elf_fail(ef, ELF_TRUNCATED, e, "file too short");
	}
	ef->elf_class = h[EI_CLASS];
	if (h[EI_CLASS] != ELFCLASS64) {
		ef->bytes_touched = EI_NIDENT;
		return elf_fail(ef, ELF_WRONG_CLASS, e, h[EI_CLASS] == ELFCLASS32 ? "ELFCLASS32" : "bad EI_CLASS");
	}
	if (ef->size < sizeof(Elf64_Ehdr)) {
		ef->bytes_touched = ef->size;
		return elf_fail(ef, ELF_TRUNCATED, e, "file too short");
	}
	ef->bytes_touched = sizeof(Elf64_Ehdr);
	if (h[EI_DATA] != ELFDATA2LSB)
		return elf_fail(ef, ELF_WRONG_MACHINE, e, "big-endian");
	ef->machine = le16(h + 18);
	ef->type = le16(h + 16);
	if (h[EI_VERSION] != EV_CURRENT || le32(h + 20) != EV_CURRENT)
		return elf_fail(ef, ELF_MALFORMED, e, "bad ELF version");
	if (ef->machine != EM_X86_64 && ef->machine != EM_AARCH64) {
		char why[48];

		snprintf(why, sizeof(why), "e_machine %u", ef->machine);
		return elf_fail(ef, ELF_WRONG_MACHINE, e, why);
	}
	if (ef->type != ET_DYN && ef->type != ET_EXEC)
		return elf_fail(ef, ELF_NOT_SHARED, e, "only ET_DYN and ET_EXEC are loadable");
	ef->phoff = le64(h + 32);
	ef->phnum = le16(h + 56);
	if (ef->phnum && le16(h + 54) != sizeof(Elf64_Phdr))
		return elf_fail(ef, ELF_MALFORMED, e, "e_phentsize is not 56");
	if (!elf_in_file(ef, ef->phoff, (uint64_t)ef->phnum * sizeof(Elf64_Phdr)))
		return elf_fail(ef, ELF_TRUNCATED, e, "program headers past the end of the file");
	ef->bytes_touched += ef->phnum * sizeof(Elf64_Phdr);
	for (size_t i = 0; i < ef->phnum; i++) {
		const unsigned char *ph = ef->map + ef->phoff + i * sizeof(Elf64_Phdr);
		uint32_t t = le32(ph);

		if (t == PT_LOAD && !ef->load_bias_vaddr && i == 0)
			ef->load_bias_vaddr = le64(ph + 16) - le64(ph + 8);
		if (t == PT_DYNAMIC && !have_dyn) {
			have_dyn = 1;
			dyn_off = le64(ph + 8);
			dyn_sz = le64(ph + 32);
		} else if (t == PT_INTERP && !ef->interp) {
			if (elf_read_interp(ef, ph, e) < 0)
				return -1;
		}
	}
	if (have_dyn && elf_read_dynamic(ef, dyn_off, dyn_sz, e) < 0)
		return -1;
	ef->problem = ELF_OK;
	return 0;
}

int elf_open(const char *path, struct elf_file *ef, struct err *e)
{
	if (elf_open_checked(path, ef, e) == 0)
		return 0;
	/* Keep only what explains the failure. */
	{
		struct elf_file keep = *ef;

		keep.path = NULL;
		elf_close(&keep);
		ef->map = NULL;
		ef->soname = ef->rpath = ef->runpath = ef->interp = NULL;
		ef->needed = NULL;
		ef->nneeded = 0;
	}
	if (ef->problem == ELF_OK)
		ef->problem = ELF_MALFORMED;
	return -1;
}

void elf_close(struct elf_file *ef)
{
	size_t i;

	if (ef->map)
		munmap((void *)ef->map, ef->size);
	for (i = 0; i < ef->nneeded; i++)
		free(ef->needed[i]);
	free(ef->needed);
	free(ef->soname);
	free(ef->rpath);
	free(ef->runpath);
	free(ef->interp);
	free(ef->path);
	memset(ef, 0, sizeof(*ef));
}

/* Symbol i of .dynsym: 1 when it is defined and named name, 0 otherwise, -1 on a bad table. */
static int elf_sym_matches(struct elf_file *ef, uint64_t i, const char *name)
{
	uint64_t off;
	const unsigned char *sym;
	const char *s;

	if (!ef->dynsym_off || i > (ef->size / sizeof(Elf64_Sym)))
		return -1;
	off = ef->dynsym_off + i * sizeof(Elf64_Sym);
	if (!elf_in_file(ef, off, sizeof(Elf64_Sym)))
		return -1;
	sym = ef->map + off;
	ef->bytes_touched += sizeof(Elf64_Sym);
	if (le16(sym + 6) == SHN_UNDEF)
		return 0;
	s = elf_dynstr(ef, le32(sym));
	if (!s)
		return -1;
	return strcmp(s, name) == 0;
}

static uint32_t elf_gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static uint32_t elf_sysv_hash(const char *s)
{
	uint32_t h = 0, g;

	for (; *s; s++) {
		h = (h << 4) + (unsigned char)*s;
		g = h & 0xf0000000;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

static int elf_lookup_gnu(struct elf_file *ef, const char *name)
{
	const unsigned char *t;
	uint64_t off = ef->gnu_hash_off, bloom_off, buckets_off, chains_off, word;
	uint32_t nbuckets, symoffset, bloom_size, shift, h = elf_gnu_hash(name), b;

	if (!elf_in_file(ef, off, 16))
		return -1;
	t = ef->map + off;
	nbuckets = le32(t);
	symoffset = le32(t + 4);
	bloom_size = le32(t + 8);
	shift = le32(t + 12);
	ef->bytes_touched += 16;
	if (nbuckets == 0 || bloom_size == 0)
		return nbuckets == 0 ? 0 : -1;
	bloom_off = off + 16;
	buckets_off = bloom_off + (uint64_t)bloom_size * 8;
	chains_off = buckets_off + (uint64_t)nbuckets * 4;
	if (!elf_in_file(ef, bloom_off, (uint64_t)bloom_size * 8 + (uint64_t)nbuckets * 4))
		return -1;
	word = le64(ef->map + bloom_off + ((h / 64) % bloom_size) * 8);
	ef->bytes_touched += 8;
	if (!((word >> (h % 64)) & (word >> ((h >> (shift & 63)) % 64)) & 1))
		return 0;
	b = le32(ef->map + buckets_off + (uint64_t)(h % nbuckets) * 4);
	ef->bytes_touched += 4;
	if (b == 0 || b < symoffset)
		return 0;
	for (uint64_t i = b;; i++) {
		uint64_t coff = chains_off + (i - symoffset) * 4;
		uint32_t c;

		if (!elf_in_file(ef, coff, 4))
			return -1;
		c = le32(ef->map + coff);
		ef->bytes_touched += 4;
		if ((c | 1) == (h | 1)) {
			int m = elf_sym_matches(ef, i, name);

			if (m != 0)
				return m;
		}
		if (c & 1)
			return 0;
	}
}

static int elf_lookup_sysv(struct elf_file *ef, const char *name)
{
	uint64_t off = ef->hash_off;
	uint32_t nbucket, nchain, y;
	size_t guard = 0;

	if (!elf_in_file(ef, off, 8))
		return -1;
	nbucket = le32(ef->map + off);
	nchain = le32(ef->map + off + 4);
	ef->bytes_touched += 8;
	if (nbucket == 0)
		return 0;
	if (!elf_in_file(ef, off + 8, ((uint64_t)nbucket + nchain) * 4))
		return -1;
	y = le32(ef->map + off + 8 + (uint64_t)(elf_sysv_hash(name) % nbucket) * 4);
	while (y != STN_UNDEF) {
		int m;

		if (y >= nchain || ++guard > nchain)
			return -1;
		m = elf_sym_matches(ef, y, name);
		if (m != 0)
			return m;
		y = le32(ef->map + off + 8 + ((uint64_t)nbucket + y) * 4);
		ef->bytes_touched += 4;
	}
	return 0;
}

int elf_has_symbol(struct elf_file *ef, const char *name)
{
	if (!ef->map || ef->problem != ELF_OK)
		return -1;
	if (ef->gnu_hash_off)
		return elf_lookup_gnu(ef, name);
	if (ef->hash_off)
		return elf_lookup_sysv(ef, name);
	return ef->dynsym_off ? -1 : 0;
}

int elf_version_defs(struct elf_file *ef, char ***names, size_t *n, struct err *e)
{
	uint64_t off = ef->verdef_off;
	size_t cap = 0;

	*names = NULL;
	*n = 0;
	if (!ef->map || ef->problem != ELF_OK)
		return err_set(e, "%s: not opened", ef->path ? ef->path : "(null)");
	if (!off)
		return 0;
	for (size_t i = 0; i < ef->verdefnum; i++) {
		const unsigned char *vd;
		uint32_t aux, next;
		const char *s;

		if (!elf_in_file(ef, off, 20))
			goto bad;
		vd = ef->map + off;
		ef->bytes_touched += 20;
		if (le16(vd) != 1)	/* vd_version */
			goto bad;
		aux = le32(vd + 12);
		next = le32(vd + 16);
		if (le16(vd + 6) > 0) {	/* vd_cnt: the first aux names this version */
			if (aux > ef->size || !elf_in_file(ef, off + aux, 8))
				goto bad;
			ef->bytes_touched += 8;
			s = elf_dynstr(ef, le32(ef->map + off + aux));
			if (!s)
				goto bad;
			XGROW(*names, *n, cap);
			(*names)[(*n)++] = xstrdup(s);
		}
		if (next == 0)
			break;
		off += next;
	}
	return 0;
bad:
	for (size_t i = 0; i < *n; i++)
		free((*names)[i]);
	free(*names);
	*names = NULL;
	*n = 0;
	return err_set(e, "%s: malformed version definitions", ef->path);
}

int elf_section(struct elf_file *ef, const char *name, const unsigned char **data, size_t *size)
{
	const unsigned char *h = ef->map, *sh0, *strsh;
	uint64_t shoff, shnum, shstrndx, stroff, strsize;

	*data = NULL;
	*size = 0;
	if (!h || ef->problem != ELF_OK)
		return -1;
	shoff = le64(h + 40);
	shnum = le16(h + 60);
	shstrndx = le16(h + 62);
	if (shoff == 0 || le16(h + 58) != sizeof(Elf64_Shdr) || !elf_in_file(ef, shoff, sizeof(Elf64_Shdr)))
		return -1;
	sh0 = ef->map + shoff;
	/* Large section counts live in section header 0 (SHN_XINDEX scheme). */
	if (shnum == 0)
		shnum = le64(sh0 + 32);
	if (shstrndx == SHN_XINDEX)
		shstrndx = le32(sh0 + 40);
	if (shnum > ef->size / sizeof(Elf64_Shdr) || shstrndx >= shnum ||
	    !elf_in_file(ef, shoff, shnum * sizeof(Elf64_Shdr)))
		return -1;
	ef->bytes_touched += (size_t)shnum * sizeof(Elf64_Shdr);
	strsh = sh0 + shstrndx * sizeof(Elf64_Shdr);
	stroff = le64(strsh + 24);
	strsize = le64(strsh + 32);
	if (!elf_in_file(ef, stroff, strsize))
		return -1;
	for (uint64_t i = 0; i < shnum; i++) {
		const unsigned char *sh = sh0 + i * sizeof(Elf64_Shdr);
		uint32_t nm = le32(sh);
		uint64_t off, sz;
		size_t len = strlen(name);

		if (nm >= strsize || strsize - nm < len + 1)
			continue;
		ef->bytes_touched += len + 1;
		if (memcmp(ef->map + stroff + nm, name, len + 1) != 0)
			continue;
		off = le64(sh + 24);
		sz = le64(sh + 32);
		if (le32(sh + 4) == SHT_NOBITS)
			sz = 0;
		if (!elf_in_file(ef, off, sz))
			return -1;
		*data = ef->map + off;
		*size = (size_t)sz;
		return 0;
	}
	return -1;
}
