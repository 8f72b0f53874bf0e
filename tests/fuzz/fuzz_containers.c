/*
 * fuzz_containers.c - libFuzzer target for the containers layer's readers:
 * a CDI spec (YAML and JSON), the NVIDIA Container Toolkit's config.toml,
 * Docker's daemon.json, containerd's config.toml, and the /proc parsers
 * (/proc/self/limits, /proc/self/mounts and mountinfo for /dev/shm and the
 * signs of a container, a cgroup
 * v1 devices.list).  The first byte picks the reader; the rest is the text,
 * in an exactly-sized heap buffer without a NUL (ASan catches over-reads).
 * The toolkit-environment resolver gets the text split into variables.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 */
#include "probes/containers/containers.h"
#include "rules/ctr_require.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void free_host(struct ctr_host *h)
{
	free(h->toolkit_mode);
	for (size_t i = 0; i < h->nspec_dirs; i++)
		free(h->spec_dirs[i]);
	free(h->spec_dirs);
	for (size_t i = 0; i < h->ndocker_runtimes; i++)
		free(h->docker_runtimes[i]);
	free(h->docker_runtimes);
	free(h->docker_default_runtime);
	free(h->containerd_default_runtime);
	memset(h, 0, sizeof(*h));
}

/* The text as "NAME=value" lines, for ctr_env_resolve. */
struct envtext {
	char *s;
	size_t n;
};

static const char *env_get(const char *name, void *arg)
{
	const struct envtext *t = arg;
	size_t nl = strlen(name);

	for (char *line = t->s; line && line < t->s + t->n;) {
		char *eol = memchr(line, '\n', (size_t)(t->s + t->n - line));

		if (eol)
			*eol = '\0';
		if (!strncmp(line, name, nl) && line[nl] == '=')
			return line + nl + 1;
		line = eol ? eol + 1 : NULL;
	}
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctr_host h;
	struct cdi_spec spec;
	struct err e = ERR_INIT;
	char *text;
	size_t n;
	long long a, b;

	if (size < 1)
		return 0;
	n = size - 1;
	text = malloc(n ? n : 1);
	if (!text)
		return 0;
	memcpy(text, data + 1, n);
	memset(&h, 0, sizeof(h));
	memset(&spec, 0, sizeof(spec));
	switch (data[0] % 9) {
	case 0:
		(void)ctr_read_cdi_spec("nvidia.yaml", text, n, &spec);
		break;
	case 1:
		(void)ctr_read_cdi_spec("nvidia.json", text, n, &spec);
		break;
	case 2:
		(void)ctr_read_toolkit_config(text, n, &h, &e);
		break;
	case 3:
		(void)ctr_read_docker_daemon(text, n, &h, &e);
		break;
	case 4:
		(void)ctr_read_containerd_config(text, n, &h, &e);
		break;
	case 5:
		(void)ctr_parse_limits_memlock(text, n, &a, &b);
		break;
	case 6:
		(void)ctr_parse_shm_size(text, n);
		(void)ctr_mountinfo_has(text, n, "/usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05");
		{
			char why[64];

			(void)ctr_mountinfo_container_sign(text, n, why, sizeof(why));
		}
		break;
	case 7:
		(void)ctr_devices_list_allows(text, n, 195);
		break;
	case 8: {
		/* a NUL-terminated copy: environment values are C strings */
		struct envtext t = { malloc(n + 1), n };
		struct ctr_env env;
		struct ctr_require_facts facts = { "13.0", "580.95.05", "9.0", "tesla" };
		char caps[128], failed[64];
		char *envp[2] = { NULL, NULL };

		if (t.s) {
			memcpy(t.s, text, n);
			t.s[n] = '\0';
			/* the whole text as one NVIDIA_REQUIRE_ value and as a predicate */
			envp[0] = strchr(t.s, '\n') ? NULL : t.s;
			(void)ctr_require_eval(t.s, &facts, failed, sizeof(failed));
			ctr_env_resolve(env_get, &t, envp, &env);
			(void)ctr_caps_str(env.caps, caps, sizeof(caps));
			(void)ctr_visible_name(env.visible);
			ctr_env_release(&env);
			free(t.s);
		}
		break;
	}
	}
	cdi_spec_release(&spec);
	free_host(&h);
	free(text);
	return 0;
}
