/*
 * containers_env.c - NVIDIA_VISIBLE_DEVICES, NVIDIA_DRIVER_CAPABILITIES and
 * NVIDIA_REQUIRE_* read with the NVIDIA Container Toolkit's own rules
 * (NVIDIA/nvidia-container-toolkit @d34b3046):
 *
 *  - legacy image: CUDA_VERSION set and NVIDIA_REQUIRE_CUDA empty or unset
 *    (internal/config/image/cuda_image.go, IsLegacy);
 *  - devices: unset in a legacy image means "all"; unset, empty or "void"
 *    means no GPU container (nothing is injected); "none" injects the driver
 *    but no GPU; "all" every GPU; else a comma list (devicesFromEnvvars,
 *    NewVisibleDevices in devices.go);
 *  - capabilities: unset in a legacy image means all of them; unset or
 *    empty means the default "utility,compute"; else the list, where "all"
 *    means every one, and a name outside compute, compat32, graphics,
 *    utility, video, display, ngx makes the hook refuse to start the
 *    container (cmd/nvidia-container-runtime-hook/container_config.go,
 *    getDriverCapabilities; capabilities.go).
 *
 * Docker's --gpus sets NVIDIA_VISIBLE_DEVICES (and, with capabilities=,
 * NVIDIA_DRIVER_CAPABILITIES) itself (moby daemon/nvidia_linux.go).
 */
#include "probes/containers/containers.h"
#include "core/buf.h"
#include "core/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The items of a comma list, trimmed, empty ones skipped; calls fn for each. */
static void each_item(const char *list, void (*fn)(const char *item, size_t n, void *arg),
		      void *arg)
{
	const char *s = list;

	while (s && *s) {
		const char *e = strchr(s, ',');
		const char *a = s, *b = e ? e : s + strlen(s);

		while (a < b && (*a == ' ' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (b > a)
			fn(a, (size_t)(b - a), arg);
		s = e ? e + 1 : NULL;
	}
}

struct dev_scan {
	size_t n;
	int void_;
	int first;	/* the first of "all" / "none" in the list: 'a', 'n' or 0 */
};

static void dev_item(const char *item, size_t n, void *arg)
{
	struct dev_scan *d = arg;

	d->n++;
	if (n == 3 && !memcmp(item, "all", 3) && !d->first)
		d->first = 'a';
	else if (n == 4 && !memcmp(item, "none", 4) && !d->first)
		d->first = 'n';
	else if (n == 4 && !memcmp(item, "void", 4))
		d->void_ = 1;
}

struct cap_scan {
	unsigned caps;
	int all;
	struct buf unknown;
};

static void cap_item(const char *item, size_t n, void *arg)
{
	struct cap_scan *c = arg;
	unsigned bit;

	if (n == 3 && !memcmp(item, "all", 3)) {
		c->all = 1;
		return;
	}
	bit = ctr_cap_bit(item, n);
	if (bit) {
		c->caps |= bit;
		return;
	}
	if (c->unknown.len)
		buf_addc(&c->unknown, ',');
	buf_add(&c->unknown, item, n);
}

static void add_require(struct ctr_env *out, const char *s)
{
	if (out->nrequires >= 32)
		return;
	out->requires = xrealloc(out->requires, (out->nrequires + 1) * sizeof(char *));
	out->requires[out->nrequires++] = xstrdup(s);
}

/* "12.8.1" -> "cuda>=12.8", as GetRequirements does for legacy images. */
static void legacy_require(struct ctr_env *out)
{
	unsigned long major, minor = 0;
	char *end;

	major = strtoul(out->cuda_version, &end, 10);
	if (end == out->cuda_version || major > 1000)
		return;
	if (*end == '.')
		minor = strtoul(end + 1, NULL, 10);
	if (minor > 1000)
		return;
	{
		char buf[64];

		snprintf(buf, sizeof(buf), "CUDA_VERSION=cuda>=%lu.%lu", major, minor);
		add_require(out, buf);
	}
}

void ctr_env_resolve(const char *(*get)(const char *name, void *arg), void *arg,
		     char *const *envp, struct ctr_env *out)
{
	struct dev_scan d = { 0, 0, 0 };

	memset(out, 0, sizeof(*out));
	out->visible_raw = get("NVIDIA_VISIBLE_DEVICES", arg);
	out->caps_raw = get("NVIDIA_DRIVER_CAPABILITIES", arg);
	out->cuda_version = get("CUDA_VERSION", arg);
	out->require_cuda = get("NVIDIA_REQUIRE_CUDA", arg);
	out->disable_require = get("NVIDIA_DISABLE_REQUIRE", arg);
	out->legacy = out->cuda_version && *out->cuda_version &&
		      (!out->require_cuda || !*out->require_cuda);
	/* NVIDIA_DISABLE_REQUIRE: strconv.ParseBool's true spellings */
	out->require_disabled = out->disable_require &&
		(!strcmp(out->disable_require, "1") || !strcmp(out->disable_require, "t") ||
		 !strcmp(out->disable_require, "T") || !strcmp(out->disable_require, "true") ||
		 !strcmp(out->disable_require, "TRUE") || !strcmp(out->disable_require, "True"));
	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], "NVIDIA_REQUIRE_", 15) &&
		    strncmp(envp[i], "NVIDIA_REQUIRE_JETPACK", 22) && strchr(envp[i], '='))
			add_require(out, envp[i]);
	if (out->legacy)
		legacy_require(out);

	/*
	 * devices: "void" anywhere (or nothing) wins (devicesFromEnvvars); then
	 * the first "all" or "none" in the list (NewVisibleDevices)
	 */
	each_item(out->visible_raw, dev_item, &d);
	if (!out->visible_raw && out->legacy)
		out->visible = CTR_VIS_ALL;
	else if (d.n == 0 || d.void_)
		out->visible = CTR_VIS_VOID;
	else if (d.first == 'a')
		out->visible = CTR_VIS_ALL;
	else if (d.first == 'n')
		out->visible = CTR_VIS_NONE;
	else
		out->visible = CTR_VIS_LIST;
	out->ndevices = out->visible == CTR_VIS_LIST ? d.n : 0;

	/* capabilities */
	if (!out->caps_raw && out->legacy) {
		out->caps = CTR_CAP_ALL;
		out->caps_from = 2;
	} else if (!out->caps_raw || !*out->caps_raw) {
		out->caps = CTR_CAP_UTILITY | CTR_CAP_COMPUTE;
		out->caps_from = 0;
	} else {
		struct cap_scan c = { 0, 0, BUF_INIT };

		each_item(out->caps_raw, cap_item, &c);
		out->caps = c.all ? CTR_CAP_ALL : c.caps;
		out->caps_from = 1;
		if (c.unknown.len && !c.all)
			out->caps_unknown = buf_detach(&c.unknown);
		buf_release(&c.unknown);
	}
}
