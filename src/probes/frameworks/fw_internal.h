/*
 * fw_internal.h - shared between the frameworks probe's files (frameworks.c,
 * fw_resolve.c, fw_tf.c, fw_torch.c, fw_jax.c, fw_live.c).  Not for other
 * layers: they read struct frameworks_inventory.
 */
#ifndef GD_FW_INTERNAL_H
#define GD_FW_INTERNAL_H

#include "probes/frameworks/frameworks.h"
#include "python/distinfo.h"
#include "python/pyenv.h"

struct err;
struct gd_ctx;
struct kb;
struct probe_env;
struct ldso;

/* One site directory being examined. */
struct fw_site {
	const struct gd_ctx *ctx;
	const char *root;
	struct ldso *ldso;		/* NULL when the loader emulation could not start */
	const struct kb *kb;
	const struct probe_env *env;	/* CONDA_PREFIX, CUDA_PATH, CUDA_HOME (probe_in.h) */
	struct distinfo_site idx;
	/* RECORDs of the nvidia-* wheels, read on first need */
	int records_read;
	char **rec_paths;		/* "nvidia/cu13/lib/libcudart.so.13" */
	char **rec_owner;		/* "nvidia-cuda-runtime 13.0.96" (shared strings not owned) */
	size_t nrec, rec_cap;
	char **owners;			/* owned owner strings */
	size_t nowners, owners_cap;
};

/* A new entry in inv->fw with the environment's fields filled. */
struct fw_entry *fw_entry_new(struct frameworks_inventory *fw, const struct pyenv_list *envs,
			      size_t env, const char *site_dir, enum fw_kind kind);

/* Resolve soname as chain[0] (loaded by chain[1..]) would, add it to fw->libs. */
struct fw_lib *fw_resolve_lib(struct fw_site *s, struct fw_entry *fw, const char *soname,
			      enum fw_role role, int required, int dlopened,
			      const char *const *chain, size_t n);
/* site/nvidia/<x>/lib/<soname> when an nvidia wheel of this site has it. */
char *fw_site_wheel_lib(struct fw_site *s, const char *soname);
/* Point l at a file found by path, not by the loader; source says how. */
void fw_lib_set_path(struct fw_site *s, const struct fw_entry *fw, struct fw_lib *l,
		     const char *path, const char *source);
/* A library found by path (JAX's preload of nvidia wheels). */
struct fw_lib *fw_lib_at_path(struct fw_site *s, struct fw_entry *fw, const char *soname,
			      enum fw_role role, int required, const char *path);
/* cuDNN's shim loads its sub-libraries with itself as requester. */
void fw_resolve_cudnn_subs(struct fw_site *s, struct fw_entry *fw, const struct fw_lib *shim,
			   int cudnn_major);
/* When fw's libcudart is not found: which other CUDA major's libcudart the loader finds. */
void fw_note_other_cudart(struct fw_site *s, struct fw_entry *fw);
/* fw->archs (full builds) and fw->archs_partial from lib's fat binaries; -1 + e when unreadable. */
int fw_archs_from_fatbin(struct fw_site *s, struct fw_entry *fw, const char *lib, struct err *e);
/* The DT_RPATH / DT_RUNPATH / DT_NEEDED of a machine path; 0 or -1. */
int fw_elf_dyn(const char *root, const char *path, char **rpath, char **runpath,
	       char ***needed, size_t *nneeded);
void fw_strv_free(char **v, size_t n);
/* nvidia-* wheels in the site directory into fw->wheels. */
void fw_note_wheels(struct fw_site *s, struct fw_entry *fw);
/* Version of an installed distribution, or NULL. */
const char *fw_dist_version(const struct fw_site *s, const char *name);
/* Requires-Dist specifier of dep in dist's METADATA (extra may be NULL); caller frees. */
char *fw_requirement(const struct fw_site *s, const struct distinfo_dist *d, const char *dep,
		     const char *extra);
/* Machine path of a file in the site dir if it exists, else NULL. */
char *fw_site_file(const struct fw_site *s, const char *rel);

void fw_probe_tensorflow(struct fw_site *s, struct frameworks_inventory *inv,
			 const struct pyenv_list *envs, size_t env);
void fw_probe_torch(struct fw_site *s, struct frameworks_inventory *inv,
		    const struct pyenv_list *envs, size_t env);
void fw_probe_jax(struct fw_site *s, struct frameworks_inventory *inv,
		  const struct pyenv_list *envs, size_t env);
void fw_probe_cupy(struct fw_site *s, struct frameworks_inventory *inv,
		   const struct pyenv_list *envs, size_t env);

#endif
