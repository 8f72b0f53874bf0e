/* cuda_env.c - CUDA's environment variables; see cuda_env.h. */
#include "probes/cuda/cuda_env.h"
#include "probes/driver/driver.h"
#include "core/xalloc.h"

#include <stdlib.h>
#include <string.h>

enum env_kind {
	ENV_INFO,	/* recorded, never flagged */
	ENV_BOOL,	/* flagged when set to anything but "" or "0" */
	ENV_PATH,	/* flagged when non-empty */
};

/* One row per variable; effect = why it is flagged (CUDA Programming Guide 5.2). */
static const struct {
	const char *name;
	enum env_kind kind;
	const char *effect;
} env_table[] = {
	{ "CUDA_VISIBLE_DEVICES", ENV_INFO, NULL },
	{ "NVIDIA_VISIBLE_DEVICES", ENV_INFO, NULL },
	{ "CUDA_DEVICE_ORDER", ENV_INFO, NULL },
	{ "CUDA_LAUNCH_BLOCKING", ENV_BOOL,
	  "every kernel launch waits for the GPU (for debugging only): programs run much slower" },
	{ "CUDA_INJECTION64_PATH", ENV_PATH,
	  "CUDA loads this library into every CUDA program (profilers, tracers): overhead, or crashes when it is stale" },
	{ "CUDA_FORCE_PTX_JIT", ENV_BOOL,
	  "CUDA ignores the GPU code in every binary and JIT-compiles its PTX: slow start-up, and binaries without PTX fail" },
	{ "CUDA_DISABLE_PTX_JIT", ENV_BOOL,
	  "PTX JIT compilation is off: binaries that only carry PTX for this GPU fail with 'no kernel image'" },
	{ "CUDA_CACHE_DISABLE", ENV_BOOL,
	  "the JIT cache is off: every start JIT-compiles PTX again" },
	{ "CUDA_ENABLE_COREDUMP_ON_EXCEPTION", ENV_BOOL,
	  "a GPU exception writes a GPU core dump (slow, large files)" },
	{ "CUDA_ENABLE_CPU_COREDUMP_ON_EXCEPTION", ENV_BOOL,
	  "a GPU exception also dumps the CPU process core" },
	{ "CUDA_DEVICE_WAITS_ON_EXCEPTION", ENV_BOOL,
	  "a GPU exception makes the GPU wait for a debugger to attach instead of failing: jobs hang" },
	{ "CUDA_MODULE_LOADING", ENV_INFO, NULL },
	{ "CUDA_DEVICE_MAX_CONNECTIONS", ENV_INFO, NULL },
	{ "CUDA_CACHE_PATH", ENV_INFO, NULL },
	{ "CUDA_CACHE_MAXSIZE", ENV_INFO, NULL },
	{ "CUDA_MPS_PIPE_DIRECTORY", ENV_INFO, NULL },
	{ "CUDA_MPS_LOG_DIRECTORY", ENV_INFO, NULL },
	{ "NVIDIA_DRIVER_CAPABILITIES", ENV_INFO, NULL },
};

void cuda_env_scan(struct driver_inventory *d)
{
	for (size_t i = 0; i < sizeof(env_table) / sizeof(env_table[0]); i++) {
		const char *v = getenv(env_table[i].name);
		struct driver_envvar *ev;
		int flagged = 0;

		if (!v)
			continue;
		if (env_table[i].kind == ENV_BOOL)
			flagged = *v && strcmp(v, "0") != 0;
		else if (env_table[i].kind == ENV_PATH)
			flagged = *v != 0;
		XGROW(d->env, d->nenv, d->env_cap);
		ev = &d->env[d->nenv++];
		ev->name = env_table[i].name;
		ev->value = xstrdup(v);
		ev->flagged = flagged;
		ev->effect = flagged ? env_table[i].effect : NULL;
	}
}
