/*
 * elf.h - reading shared objects without reading them whole.
 *
 * elf_open() maps the file and validates the ELF header, the program headers
 * and the dynamic section against the file size; it reads nothing else until
 * asked (cuDNN's engine libraries are hundreds of MB).  64-bit x86-64 and
 * aarch64 objects are understood; a truncated, 32-bit, wrong-machine or
 * non-ELF file is an error with a reason (err->msg), never a crash.
 *
 *	struct elf_file ef;
 *	if (elf_open("/usr/lib/x86_64-linux-gnu/libcuda.so.1", &ef, &e) < 0)
 *		report(e.msg);
 *	printf("%s needs %zu libraries\n", ef.soname, ef.nneeded);
 *	if (elf_has_symbol(&ef, "cuInit") == 1) ...
 *	elf_close(&ef);
 */
#ifndef GD_ELF_H
#define GD_ELF_H

#include <stddef.h>
#include <stdint.h>

#include "core/err.h"

enum elf_problem {
	ELF_OK,
	ELF_NOT_ELF,		/* no ELF magic */
	ELF_TRUNCATED,		/* an offset or size points past the end of the file */
	ELF_WRONG_CLASS,	/* 32-bit */
	ELF_WRONG_MACHINE,	/* neither x86-64 nor aarch64, or not the host's */
	ELF_NOT_SHARED,		/* not ET_DYN */
	ELF_UNREADABLE,		/* open/mmap failed (errno in err->code) */
	ELF_MALFORMED,		/* inconsistent tables */
};

struct elf_file {
	char *path;			/* as given to elf_open */
	const unsigned char *map;	/* the whole file, mapped read-only */
	size_t size;
	enum elf_problem problem;	/* why elf_open failed, ELF_OK otherwise */
	uint16_t machine;		/* EM_X86_64 (62) or EM_AARCH64 (183) */
	uint16_t type;			/* ET_DYN, ET_EXEC */
	/* From the dynamic section; NULL / 0 when absent. */
	char *soname;
	char **needed;
	size_t nneeded;
	char *rpath;			/* DT_RPATH, unexpanded */
	char *runpath;			/* DT_RUNPATH, unexpanded */
	uint64_t flags, flags_1;	/* DT_FLAGS, DT_FLAGS_1 */
	char *interp;			/* PT_INTERP of executables */
	size_t bytes_touched;		/* bytes of the file this reader looked at */
	/* private: offsets the lookups need */
	uint64_t dynsym_off, dynstr_off, dynstr_size, gnu_hash_off, versym_off, verdef_off;
	size_t verdefnum;
	uint64_t load_bias_vaddr;	/* p_vaddr - p_offset of the first PT_LOAD */
	uint64_t hash_off;		/* DT_HASH, the fallback when there is no DT_GNU_HASH */
	uint64_t phoff;			/* program headers, validated against size */
	size_t phnum;
	unsigned char elf_class;	/* EI_CLASS as found (ELFCLASS32 when WRONG_CLASS) */
};

/*
 * 0, or -1 with ef->problem saying why.  After a failure ef keeps path,
 * problem, machine, type and elf_class (what was read before the problem) and
 * nothing else; elf_close() is safe (and harmless) in both cases.
 * ET_EXEC objects are accepted too (the executable at the end of a chain).
 */
int elf_open(const char *path, struct elf_file *ef, struct err *e);
void elf_close(struct elf_file *ef);

/* 1 when the dynamic symbol table defines name (via DT_GNU_HASH), 0 when not, -1 on error. */
int elf_has_symbol(struct elf_file *ef, const char *name);
/* Version definitions (DT_VERDEF names, e.g. "libcudnn.so.9"); caller frees the array and strings. */
int elf_version_defs(struct elf_file *ef, char ***names, size_t *n, struct err *e);
/* A section by name (e.g. ".nv_fatbin"); data points into the mapping. 0 found, -1 not found/error. */
int elf_section(struct elf_file *ef, const char *name, const unsigned char **data, size_t *size);

const char *elf_problem_name(enum elf_problem p);

/* Lower-level helpers for callers that walk tables themselves. */
/* File offset of a virtual address through the PT_LOAD segments, -1 when unmapped. */
int64_t elf_vaddr_to_off(const struct elf_file *ef, uint64_t vaddr);
/* The string at DT_STRTAB + idx (bounds-checked, NUL inside the table), or NULL. */
const char *elf_dynstr(struct elf_file *ef, uint64_t idx);

#endif
