/* probe_in.c - the probes' shared inputs, read once; see probe_in.h. */
#include "probes/probe_in.h"

#include "core/ctx.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

extern char **environ;

void probe_env_from_process(struct probe_env *env)
{
	/* The machine's environment is ours: gpudoctor runs in it. */
	env->ld_library_path = getenv("LD_LIBRARY_PATH");
	env->ld_preload = getenv("LD_PRELOAD");
	env->path = getenv("PATH");
	env->conda_prefix = getenv("CONDA_PREFIX");
	env->cuda_path = getenv("CUDA_PATH");
	env->cuda_home = getenv("CUDA_HOME");
	env->envp = environ;
}

const char *probe_env_get(const struct probe_env *env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; env->envp && env->envp[i]; i++)
		if (!strncmp(env->envp[i], name, n) && env->envp[i][n] == '=')
			return env->envp[i] + n + 1;
	return NULL;
}

int probe_in_init(struct probe_in *in, const struct gd_ctx *ctx, const struct kb *kb)
{
	struct ldso_env lenv;
	struct err e = ERR_INIT, pe = ERR_INIT;

	memset(in, 0, sizeof(*in));
	in->ctx = ctx;
	in->kb = kb;
	probe_env_from_process(&in->env);
	memset(&lenv, 0, sizeof(lenv));
	lenv.root = ctx->root;
	lenv.ld_library_path = in->env.ld_library_path;
	lenv.preload = in->env.ld_preload;
	in->loader = xcalloc(1, sizeof(*in->loader));
	if (ldso_init(in->loader, &lenv, &e) < 0) {
		in->loader_error = xstrdup(e.msg[0] ? e.msg : "the loader's search could not be set up");
		free(in->loader);
		in->loader = NULL;
	}
	if (pyenv_discover(ctx, &in->pyenvs, &pe) < 0)
		in->pyenvs_error = xstrdup(pe.msg);
	return 0;
}

void probe_in_release(struct probe_in *in)
{
	if (in->loader) {
		ldso_release(in->loader);
		free(in->loader);
	}
	free(in->loader_error);
	pyenv_list_release(&in->pyenvs);
	free(in->pyenvs_error);
	memset(in, 0, sizeof(*in));
}
