/*
 * containers_host.c - the host side of the containers layer: which
 * container engines and NVIDIA toolkit programs are installed, what their
 * configuration says, and every CDI spec in the spec directories with the
 * host paths it names checked for existence.  All reads go through core/fs.
 */
#include "probes/containers/containers.h"
#include "core/buf.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "probes/probe_in.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define CONFIG_MAX (1 << 20)
#define CDI_FILES_MAX 64

static const char *const bin_dirs[] = {
	"/usr/bin", "/usr/local/bin", "/usr/sbin", "/usr/local/sbin", "/bin", "/sbin",
	"/snap/bin",
};

/* The machine path of a program in the usual directories (and $PATH when live). */
static char *find_tool(const struct probe_in *in, const char *name)
{
	const struct gd_ctx *ctx = in->ctx;
	const char *path = in->env.path;

	for (size_t i = 0; i < sizeof(bin_dirs) / sizeof(bin_dirs[0]); i++) {
		char *p = fs_join(bin_dirs[i], name);

		if (fs_exists(ctx->root, p) && !fs_is_dir(ctx->root, p))
			return p;
		free(p);
	}
	/* $PATH describes this machine only, not a tree under --root */
	if (strcmp(ctx->root, "/") || !path)
		return NULL;
	for (const char *s = path; *s;) {
		const char *e = strchr(s, ':');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (n && s[0] == '/') {
			char *dir = xstrndup(s, n);
			char *p = fs_join(dir, name);

			free(dir);
			if (fs_exists("/", p) && !fs_is_dir("/", p))
				return p;
			free(p);
		}
		if (!e)
			break;
		s = e + 1;
	}
	return NULL;
}

/* Read a config file: 1 read, 0 absent, -1 unreadable (why in *error). */
static int read_config(const struct gd_ctx *ctx, const char *file, struct buf *b, char **error)
{
	struct err e = ERR_INIT;

	buf_reset(b);
	if (fs_read_file(ctx->root, file, CONFIG_MAX, b, &e) == 0)
		return 1;
	if (e.code == ENOENT || !fs_exists(ctx->root, file))
		return 0;
	*error = xstrdup(e.msg);
	return -1;
}

static void read_toolkit(const struct gd_ctx *ctx, struct ctr_host *h, struct buf *b)
{
	static const char file[] = "/etc/nvidia-container-runtime/config.toml";
	struct err e = ERR_INIT;

	h->toolkit_config = read_config(ctx, file, b, &h->toolkit_config_error);
	if (h->toolkit_config == 1 && ctr_read_toolkit_config(b->s, b->len, h, &e) < 0) {
		h->toolkit_config = -1;
		h->toolkit_config_error = xasprintf("%s: %s", file, e.msg);
	}
}

static void read_docker(const struct gd_ctx *ctx, struct ctr_host *h, struct buf *b)
{
	static const char file[] = "/etc/docker/daemon.json";
	struct err e = ERR_INIT;

	h->docker_config = read_config(ctx, file, b, &h->docker_config_error);
	if (h->docker_config == 1 && ctr_read_docker_daemon(b->s, b->len, h, &e) < 0) {
		h->docker_config = -1;
		h->docker_config_error = xasprintf("%s: %s", file, e.msg);
	}
}

static void read_containerd(const struct gd_ctx *ctx, struct ctr_host *h, struct buf *b)
{
	/* k3s and RKE2 write their own copy; the stock one first */
	static const char *const files[] = {
		"/etc/containerd/config.toml",
		"/var/lib/rancher/k3s/agent/etc/containerd/config.toml",
		"/var/lib/rancher/rke2/agent/etc/containerd/config.toml",
	};
	struct err e = ERR_INIT;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *error = NULL;
		int r = read_config(ctx, files[i], b, &error);

		if (r == 0) {
			free(error);
			continue;
		}
		h->containerd_config_file = xstrdup(files[i]);
		h->containerd_config = r;
		h->containerd_config_error = error;
		if (r == 1 && ctr_read_containerd_config(b->s, b->len, h, &e) < 0) {
			h->containerd_config = -1;
			h->containerd_config_error = xasprintf("%s: %s", files[i], e.msg);
		}
		return;
	}
}

static int has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

static void read_cdi_dir(const struct gd_ctx *ctx, struct ctr_host *h, const char *dir,
			 struct buf *b)
{
	char **names = NULL;
	size_t n = 0;

	if (fs_list_dir(ctx->root, dir, &names, &n, NULL) < 0)
		return;
	for (size_t i = 0; i < n && h->nspecs < CDI_FILES_MAX; i++) {
		struct cdi_spec *s;
		struct err e = ERR_INIT;
		char *file;

		if (!has_suffix(names[i], ".yaml") && !has_suffix(names[i], ".yml") &&
		    !has_suffix(names[i], ".json"))
			continue;
		file = fs_join(dir, names[i]);
		/* /var/run is a link to /run on most machines: read a file once */
		for (size_t k = 0; k < h->nspecs; k++) {
			struct buf r1 = BUF_INIT, r2 = BUF_INIT;
			int same = fs_resolve(ctx->root, file, &r1, NULL) == 0 &&
				   fs_resolve(ctx->root, h->specs[k].file, &r2, NULL) == 0 &&
				   !strcmp(r1.s, r2.s);

			buf_release(&r1);
			buf_release(&r2);
			if (same) {
				free(file);
				file = NULL;
				break;
			}
		}
		if (!file)
			continue;
		XGROW(h->specs, h->nspecs, h->specs_cap);
		s = &h->specs[h->nspecs++];
		memset(s, 0, sizeof(*s));
		s->file = file;
		buf_reset(b);
		if (fs_read_file(ctx->root, file, CONFIG_MAX, b, &e) < 0) {
			s->error = xstrdup(e.msg);
			continue;
		}
		if (ctr_read_cdi_spec(names[i], b->s, b->len, s) < 0)
			continue;
		for (size_t k = 0; k < s->npaths; k++)
			s->paths[k].exists = s->paths[k].path[0] == '/' ?
					     fs_exists(ctx->root, s->paths[k].path) : -1;
	}
	fs_names_free(names, n);
}

void probe_containers_host(const struct probe_in *in, struct containers_inventory *c)
{
	const struct gd_ctx *ctx = in->ctx;
	static const char *const default_dirs[] = { "/etc/cdi", "/var/run/cdi" };
	static const char *const hooks[] = {
		"/usr/share/containers/oci/hooks.d/oci-nvidia-hook.json",
		"/etc/containers/oci/hooks.d/oci-nvidia-hook.json",
	};
	struct ctr_host *h = &c->host;
	struct buf b = BUF_INIT;

	h->nvidia_ctk = find_tool(in, "nvidia-ctk");
	h->nvidia_container_cli = find_tool(in, "nvidia-container-cli");
	h->nvidia_container_runtime = find_tool(in, "nvidia-container-runtime");
	h->nvidia_hook = find_tool(in, "nvidia-container-runtime-hook");
	h->dockerd = find_tool(in, "dockerd");
	h->podman = find_tool(in, "podman");
	h->containerd = find_tool(in, "containerd");
	h->kubelet = find_tool(in, "kubelet");
	h->crio = find_tool(in, "crio");
	read_toolkit(ctx, h, &b);
	read_docker(ctx, h, &b);
	read_containerd(ctx, h, &b);
	for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]) && !h->podman_oci_hook; i++)
		if (fs_exists(ctx->root, hooks[i]))
			h->podman_oci_hook = xstrdup(hooks[i]);
	if (!h->nspec_dirs) {
		h->spec_dirs = xcalloc(2, sizeof(char *));
		for (size_t i = 0; i < 2; i++)
			h->spec_dirs[h->nspec_dirs++] = xstrdup(default_dirs[i]);
	}
	for (size_t i = 0; i < h->nspec_dirs; i++)
		read_cdi_dir(ctx, h, h->spec_dirs[i], &b);
	if (fs_exists(ctx->root, "/sys/fs/cgroup/cgroup.controllers"))
		h->cgroup_version = 2;
	else if (fs_is_dir(ctx->root, "/sys/fs/cgroup/devices"))
		h->cgroup_version = 1;
	else
		h->cgroup_version = -1;
	buf_release(&b);
}
