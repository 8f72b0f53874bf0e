/*
 * probe_in.h - the inputs every static probe shares, built once per command.
 *
 * Besides the machine's files, probes read the environment gpudoctor runs
 * in, the loader's view of the machine (ld.so.cache, ld.so.conf, hwcaps,
 * preloads), the knowledge base and the Python environments.  Each of those
 * is read once, here, by probe_in_init(), and handed to every probe: no
 * probe builds a loader from getenv(), opens the knowledge base or discovers
 * Python environments on its own.  (The driver layer records the CUDA_*
 * variables themselves, a fact of its own: cuda_env.h.)  A command that probes repeatedly (a
 * future `watch`) keeps one probe_in and re-reads only what can change.
 *
 *	struct probe_in in;
 *	probe_in_init(&in, ctx, kb);		// kb may be NULL
 *	probe_hardware(&in, &inv); ... probe_frameworks(&in, &inv);
 *	probe_in_release(&in);			// after the inventory's last use
 *
 * Owner: the command that runs the probes (engine/engine.h).  The
 * hardware, kernel, devices and cuda probes use only `ctx`: a caller that
 * runs only those (matrix --solve, bench) may pass a probe_in with only ctx
 * set, without probe_in_init().
 */
#ifndef GD_PROBE_IN_H
#define GD_PROBE_IN_H

#include "loader/ldso.h"
#include "python/pyenv.h"

struct gd_ctx;
struct kb;

/* The variables of gpudoctor's own environment that probes use; NULL unset. */
struct probe_env {
	const char *ld_library_path;	/* the loader's search, the driver's stubs */
	const char *ld_preload;
	const char *path;		/* nvcc on PATH */
	const char *conda_prefix;	/* the active conda environment's lib/ */
	const char *cuda_path;		/* cuda-pathfinder's CUDA_PATH, else CUDA_HOME */
	const char *cuda_home;
	char *const *envp;		/* the whole environment (NULL: none), for probes
					   that look variables up by name or pattern:
					   the containers layer's NVIDIA_*, container= */
};

struct probe_in {
	const struct gd_ctx *ctx;
	const struct kb *kb;		/* NULL when it could not be opened */
	struct probe_env env;
	/*
	 * The loader with env.ld_library_path in force; NULL when it could not
	 * be set up (loader_error says why).  Variants with another
	 * LD_LIBRARY_PATH come from ldso_init_from(&mine, in->loader, llp).
	 */
	struct ldso *loader;
	char *loader_error;
	struct pyenv_list pyenvs;	/* discovered once (python/pyenv.h) */
	char *pyenvs_error;
};

void probe_env_from_process(struct probe_env *env);
/* The value of variable `name` in env->envp, or NULL (unset, or no envp). */
const char *probe_env_get(const struct probe_env *env, const char *name);
int probe_in_init(struct probe_in *in, const struct gd_ctx *ctx, const struct kb *kb);
void probe_in_release(struct probe_in *in);

#endif
