/* cuda_env.c - CUDA's environment variables; see cuda_env.h. */
#include "probes/cuda/cuda_env.h"
#include "probes/driver/driver.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

/* Does entry (trimmed) name a GPU?  Index into uuids, or -1. */
static int cuda_env_match(const char *tok, int count, const char *const *uuids)
{
	char *end;
	long idx;
	int hit = -1;

	if (isdigit((unsigned char)tok[0])) {
		idx = strtol(tok, &end, 10);
		if (*end == 0)
			return idx < count ? (int)idx : -1;
		return -1;
	}
	/* "GPU-8932f937" (a unique prefix of a UUID) or "MIG-GPU-.../..." */
	if (!strncasecmp(tok, "MIG-", 4))
		tok += 4;
	if (strncasecmp(tok, "GPU-", 4) != 0 || !uuids)
		return -1;
	for (int i = 0; i < count; i++) {
		size_t n = strcspn(tok, "/");

		if (uuids[i] && !strncasecmp(uuids[i], tok, n)) {
			if (hit >= 0)
				return -1;	/* ambiguous prefix */
			hit = i;
		}
	}
	return hit;
}

int cuda_env_visible(const char *value, int count, const char *const *uuids, struct buf *why)
{
	char *copy, *save = NULL, *tok;
	int visible = 0, seen_unknown = 0;

	buf_reset(why);
	if (!value)
		return count;
	while (isspace((unsigned char)*value))
		value++;
	if (!*value) {
		buf_puts(why, "it is set to an empty value, which hides every GPU");
		return 0;
	}
	copy = xstrdup(value);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *t = tok, *e;
		int m;

		while (isspace((unsigned char)*t))
			t++;
		e = t + strlen(t);
		while (e > t && isspace((unsigned char)e[-1]))
			*--e = 0;
		if (count < 0) {
			/* Without the GPU list only a first entry that can never match is sure. */
			if (visible == 0 && !seen_unknown && !isdigit((unsigned char)*t) &&
			    strncasecmp(t, "GPU-", 4) && strncasecmp(t, "MIG-", 4)) {
				buf_printf(why, "its first entry '%s' is not a GPU index or UUID, "
					   "which hides every GPU", t);
				free(copy);
				return 0;
			}
			seen_unknown = 1;
			continue;
		}
		m = cuda_env_match(t, count, uuids);
		if (m < 0) {
			buf_printf(why, "entry '%s' matches no GPU of the %d present, and CUDA "
				   "ignores it and everything after it", t, count);
			break;
		}
		visible++;
	}
	free(copy);
	return count < 0 ? -1 : visible;
}
