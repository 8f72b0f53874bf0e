/*
 * libscan.h - the pieces of the libraries probe (internal to probes/lib*.c).
 *
 *   libscan_family.c   which libraries are of interest, file-name parsing
 *   libscan_dirs.c     where copies may live (with an origin and an owner)
 *   libscan_files.c    list one directory, one lib_copy per real file,
 *                      ELF headers, permissions
 *   libversion_static.c  versions from names, version.json/txt,
 *                      cudnn_version.h, dist-info
 *   libscan_resolve.c  the loader emulation's view: winners, reachability,
 *                      missing NEEDED, cuDNN 9 sub-library loads
 *   libscan_conda.c    conda environments' CUDA packages (conda-meta), and
 *                      the package behind each conda copy
 * libraries.c drives them in that order.  The unit tests
 * (tests/unit/test_libraries.c) call the parsers directly.
 */
#ifndef GD_LIBSCAN_H
#define GD_LIBSCAN_H

#include <stddef.h>

#include "core/buf.h"
#include "core/err.h"
#include "core/strmap.h"
#include "probes/libraries/libraries.h"

struct gd_ctx;
struct inventory;
struct probe_in;

/* --- families (libscan_family.c) --- */

struct lib_family {
	const char *name;	/* "cudart": the file is lib<name>.so.* */
	const char *wheel;	/* dist-info stem: nvidia_<wheel>[_cuNN]-VER.dist-info */
	const char *json_key;	/* toolkit version.json key, NULL when none */
	const char *sonames[6];	/* sonames asked of the loader even when no copy is seen */
};

const struct lib_family *libscan_families(size_t *n);
const struct lib_family *libscan_family(const char *name);
/*
 * "libcudnn_graph.so.9.19.0" -> family "cudnn_graph", suffix "9.19.0".
 * Returns the family, or NULL when the name is not lib<family>.so.<digit>...
 * (unversioned .so link-time names are not copies the loader loads).
 */
const struct lib_family *libscan_parse_name(const char *name, const char **suffix);
/* 1 for a cuDNN 9 sub-library family ("cudnn_graph" ...). */
int libscan_is_cudnn_sub(const char *family);
/* The sub-libraries a cuDNN 9 shim of version ver needs (NULL ver: 9.0). */
size_t libscan_cudnn9_subs(const char *ver, const char **out, size_t max);

/* --- directories (libscan_dirs.c) --- */

struct libscan_dir {
	char *path;		/* machine path as listed */
	char *real;		/* resolved (dedup key) */
	const char *origin;	/* see lib_copy.origin */
	char *owner;		/* "system", "toolkit /usr/local/cuda-13.0", wheel site dir... */
	char *site;		/* for wheels: the site-packages dir; else NULL */
	char *toolkit;		/* for toolkits: the toolkit dir; else NULL */
	int in_active;
};

struct libscan_dirs {
	struct libscan_dir *d;
	size_t n, cap;
	struct strmap by_real;		/* d[i].real -> i: adding stays linear */
};

void libscan_dirs_collect(const struct probe_in *in, struct inventory *inv,
			  struct libscan_dirs *out);
/* Add one directory (deduplicated by resolved path); returns its index or -1. */
long libscan_dirs_add(const struct gd_ctx *ctx, struct libscan_dirs *ds, const char *path,
		      const char *origin, const char *owner);
void libscan_dirs_release(struct libscan_dirs *ds);
/*
 * Root-safe access: resolve every link inside the root first (fs_resolve),
 * so that an absolute link in a fixture or image never reaches the host.
 */
int libscan_list(const struct gd_ctx *ctx, const char *abs, char ***names, size_t *n,
		 struct err *e);
int libscan_read(const struct gd_ctx *ctx, const char *abs, size_t max, struct buf *out);
int libscan_exists(const struct gd_ctx *ctx, const char *abs);

/* --- files (libscan_files.c) --- */

/* List dir, add one lib_copy per new real file to inv->libs. */
void libscan_files_scan(const struct gd_ctx *ctx, struct libraries_inventory *li,
			const struct libscan_dir *d);
/* Readability for the user running gpudoctor (see the .c for the rules). */
void libscan_files_access(const struct gd_ctx *ctx, struct lib_copy *c);

/* --- conda (libscan_conda.c) --- */

/* Read each conda environment's conda-meta into li->conda and name the package of each conda copy. */
void libscan_conda(const struct probe_in *in, struct libraries_inventory *li);

/* --- versions (libversion_static.c) --- */

void libversion_static(const struct gd_ctx *ctx, struct libraries_inventory *li,
		       struct lib_copy *c, const struct libscan_dir *d);
/* "13.0.96" from "13.0.96"; NULL when the suffix is a bare major ("13"). */
char *libversion_from_suffix(const char *suffix);
/* CUDNN_MAJOR/MINOR/PATCHLEVEL of a cudnn_version.h text; NULL when absent. */
char *libversion_parse_cudnn_header(const char *text);
/* The "version" of key in a toolkit version.json text; NULL when absent. */
char *libversion_parse_version_json(const char *text, const char *key);
/* "CUDA Version 11.0.228" -> "11.0.228". */
char *libversion_parse_version_txt(const char *text);
/* "nvidia_cudnn_cu13-9.19.0.56.dist-info" with stem "cudnn" -> version (and
 * the package name "nvidia-cudnn-cu13" in *pkg when pkg != NULL). */
char *libversion_parse_dist_info(const char *name, const char *stem, char **pkg);
/* A toolkit's own version: version.json, version.txt, cudart dist-info, dir name. */
void libversion_toolkit(const struct gd_ctx *ctx, const char *dir, char **version,
			const char **source);

/* --- the loader's view (libscan_resolve.c) --- */

struct ldso;

/* Two loader emulations: with the LD_LIBRARY_PATH in force, and without. */
struct libscan_loader {
	struct ldso *base;	/* the probe_in's loader, borrowed; NULL when it failed */
	const char *llp;	/* LD_LIBRARY_PATH in force (probe_in's env), NULL unset */
	struct ldso *main;	/* derived from base with llp; NULL when base is */
	struct ldso *nollp;
	char **llp_dirs;	/* LD_LIBRARY_PATH split */
	size_t nllp;
};

void libscan_loader_init(const struct probe_in *in, struct libraries_inventory *li,
			 struct libscan_loader *ld);
void libscan_loader_release(struct libscan_loader *ld);
/* Directories ld.so.cache (or ld.so.conf without a cache) names for copies of interest. */
void libscan_loader_dirs(const struct gd_ctx *ctx, struct libscan_loader *ld,
			 struct libscan_dirs *ds);
/* Winners, reachability, missing deps, cuDNN sub-library loads. */
void libscan_resolve(const struct gd_ctx *ctx, struct libraries_inventory *li,
		     struct libscan_loader *ld);

/* --- small shared helpers (libraries.c) --- */
void libraries_note(struct libraries_inventory *li, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
struct lib_copy *libraries_add_copy(struct libraries_inventory *li);

#endif
