/*
 * containers.c - the containers layer's probe; see containers.h.
 *
 * Order: are we in a container (files first; the environment only on the
 * live machine, since under --root it is not the tree's), the toolkit's
 * reading of our environment, the NVIDIA nodes in /dev (and their
 * /dev/char links), the cgroup v1 device list, the driver libraries in the
 * library directories (bind mounts per /proc/self/mountinfo), /dev/shm,
 * RLIMIT_MEMLOCK, then the host side (containers_host.c).  The
 * environment and the loader's search come from the probe_in (probe_in.h),
 * as for every static probe: nothing here calls getenv() or reads
 * ld.so.conf.
 */
#include "probes/containers/containers.h"
#include "core/buf.h"
#include "core/child.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/kv.h"
#include "core/xalloc.h"
#include "inventory/inventory.h"
#include "probes/probe_in.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>

#define SMALL_FILE (256 * 1024)

/* ---- the probe ---- */

static void add_marker(struct buf *m, const char *fmt, const char *arg)
{
	if (m->len)
		buf_puts(m, "; ");
	buf_printf(m, fmt, arg);
}

static void set_engine(struct containers_inventory *c, enum ctr_engine e)
{
	if (c->engine == CTR_ENGINE_UNKNOWN)
		c->engine = e;
}

/* A line of /proc/N/cgroup that names a container manager. */
static enum ctr_engine cgroup_engine(const char *text, size_t len, struct buf *which)
{
	static const struct {
		const char *needle;
		enum ctr_engine e;
	} pats[] = {
		{ "/kubepods", CTR_ENGINE_KUBERNETES }, { "/docker", CTR_ENGINE_DOCKER },
		{ "libpod", CTR_ENGINE_PODMAN }, { "/containerd", CTR_ENGINE_CONTAINERD },
		{ "/lxc", CTR_ENGINE_LXC }, { "/machine.slice/systemd-nspawn", CTR_ENGINE_NSPAWN },
	};
	size_t pos = 0;

	while (pos < len) {
		size_t eol = pos;

		while (eol < len && text[eol] != '\n')
			eol++;
		for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++)
			if (memmem(text + pos, eol - pos, pats[i].needle, strlen(pats[i].needle))) {
				buf_add(which, text + pos, eol - pos < 160 ? eol - pos : 160);
				return pats[i].e;
			}
		pos = eol + 1;
	}
	return CTR_ENGINE_UNKNOWN;
}

/*
 * /.dockerenv is a file of the image: a VM or machine whose root was made
 * from a container image carries it too (this project's own machines do).
 * So it counts only with a sign of a running container beside it: the
 * other markers, a container cgroup, the engine's environment, or a
 * mountinfo with / on overlay or the engine's bind-mounted /etc files.
 * Without a readable mountinfo (a fixture tree) it is believed.
 */
static void detect(const struct probe_in *in, struct containers_inventory *c)
{
	const struct gd_ctx *ctx = in->ctx;
	static const char *const cgroup_files[] = { "/proc/1/cgroup", "/proc/self/cgroup" };
	struct buf m = BUF_INIT, b = BUF_INIT;
	int dockerenv = fs_exists(ctx->root, "/.dockerenv"), strong = 0, mi_read = 0;
	char why[300] = "";

	if (fs_exists(ctx->root, "/run/.containerenv")) {
		add_marker(&m, "%s exists", "/run/.containerenv");
		/* podman writes engine="podman-4.3.1" into it (for --privileged, at least) */
		if (fs_read_file(ctx->root, "/run/.containerenv", SMALL_FILE, &b, NULL) == 0) {
			const char *s = strstr(b.s, "engine=\"");

			if (s) {
				const char *e = strchr(s + 8, '"');

				if (e && e - s - 8 < 64)
					c->engine_detail = xstrndup(s + 8, (size_t)(e - s - 8));
			}
		}
		set_engine(c, CTR_ENGINE_PODMAN);
		c->marker_file = "/run/.containerenv";
		strong = 1;
	}
	for (size_t i = 0; i < sizeof(cgroup_files) / sizeof(cgroup_files[0]); i++) {
		struct buf which = BUF_INIT;
		enum ctr_engine e;

		buf_reset(&b);
		if (fs_read_file(ctx->root, cgroup_files[i], SMALL_FILE, &b, NULL) < 0)
			continue;
		e = cgroup_engine(b.s, b.len, &which);
		if (e != CTR_ENGINE_UNKNOWN) {
			buf_printf(&m, "%s%s: %s", m.len ? "; " : "", cgroup_files[i], which.s);
			set_engine(c, e);
			if (!c->marker_file)
				c->marker_file = cgroup_files[i];
			strong = 1;
			buf_release(&which);
			break;
		}
		buf_release(&which);
	}
	/* The runtime's environment describes only the live machine. */
	if (!strcmp(ctx->root, "/")) {
		const char *ce = probe_env_get(&in->env, "container");
		const char *k8s = probe_env_get(&in->env, "KUBERNETES_SERVICE_HOST");

		if (ce && *ce) {
			add_marker(&m, "container=%s in the environment", ce);
			if (!c->marker_file)
				c->marker_file = "/proc/self/environ";
			strong = 1;
			if (!strcmp(ce, "podman"))
				set_engine(c, CTR_ENGINE_PODMAN);
			else if (!strcmp(ce, "docker"))
				set_engine(c, CTR_ENGINE_DOCKER);
			else if (!strcmp(ce, "lxc"))
				set_engine(c, CTR_ENGINE_LXC);
			else if (!strcmp(ce, "systemd-nspawn"))
				set_engine(c, CTR_ENGINE_NSPAWN);
		}
		if (k8s && *k8s && (m.len || dockerenv)) {
			add_marker(&m, "KUBERNETES_SERVICE_HOST=%s", k8s);
			if (!c->marker_file)
				c->marker_file = "/proc/self/environ";
			c->engine = CTR_ENGINE_KUBERNETES;	/* the pod spec decides, not the engine */
		}
	}
	buf_reset(&b);
	if (fs_read_file(ctx->root, "/proc/self/mountinfo", 4 * 1024 * 1024, &b, NULL) == 0) {
		mi_read = 1;
		if (ctr_mountinfo_container_sign(b.s, b.len, why, sizeof(why))) {
			add_marker(&m, "/proc/self/mountinfo: %s", why);
			if (!c->marker_file)
				c->marker_file = "/proc/self/mountinfo";
			strong = 1;
		}
	}
	if (dockerenv) {
		if (strong || !mi_read) {
			add_marker(&m, "%s exists", "/.dockerenv");
			set_engine(c, CTR_ENGINE_DOCKER);
			c->marker_file = "/.dockerenv";	/* the file people know */
		} else {
			c->markers_ignored = xstrdup("/.dockerenv exists, but / is not an overlay and "
						     "/etc/hosts is not bind-mounted "
						     "(/proc/self/mountinfo): a machine made from a "
						     "container image, not a running container");
		}
	}
	c->in_container = m.len > 0;
	c->markers = m.len ? buf_detach(&m) : NULL;
	buf_release(&m);
	buf_release(&b);
}

static const char *env_get_arg(const char *name, void *arg)
{
	return probe_env_get(arg, name);
}

static int starts_with(const char *s, const char *p)
{
	return !strncmp(s, p, strlen(p));
}

static void probe_nodes(const struct gd_ctx *ctx, struct containers_inventory *c)
{
	char **names = NULL;
	size_t n = 0;
	struct buf link = BUF_INIT, want = BUF_INIT, got = BUF_INIT;

	if (fs_list_dir(ctx->root, "/dev", &names, &n, NULL) < 0)
		return;
	for (size_t i = 0; i < n && c->nnodes < 256; i++) {
		struct ctr_node *nd;
		struct stat st;
		char *path;

		if (!starts_with(names[i], "nvidia"))
			continue;
		path = fs_join("/dev", names[i]);
		if (fs_stat(ctx->root, path, &st) < 0 || S_ISDIR(st.st_mode)) {
			free(path);
			continue;
		}
		XGROW(c->nodes, c->nnodes, c->nodes_cap);
		nd = &c->nodes[c->nnodes++];
		memset(nd, 0, sizeof(*nd));
		nd->path = path;
		nd->is_chr = S_ISCHR(st.st_mode) ? 1 : 0;
		nd->major = nd->is_chr ? (long)major(st.st_rdev) : -1;
		nd->minor = nd->is_chr ? (long)minor(st.st_rdev) : -1;
		nd->open_errno = -1;
		nd->char_link = -1;
		if (nd->is_chr) {
			/* /dev/char/MAJ:MIN -> ../nvidia0: what runc's systemd driver looks for */
			buf_reset(&link);
			buf_printf(&link, "/dev/char/%ld:%ld", nd->major, nd->minor);
			buf_reset(&want);
			buf_reset(&got);
			if (fs_resolve(ctx->root, path, &want, NULL) == 0 &&
			    fs_resolve(ctx->root, link.s, &got, NULL) == 0)
				nd->char_link = !strcmp(want.s, got.s);
			else
				nd->char_link = 0;
		}
	}
	fs_names_free(names, n);
	buf_release(&link);
	buf_release(&want);
	buf_release(&got);
}

static void probe_cgroup_devices(const struct gd_ctx *ctx, struct containers_inventory *c)
{
	static const char file[] = "/sys/fs/cgroup/devices/devices.list";
	struct buf b = BUF_INIT;

	if (fs_read_file(ctx->root, file, SMALL_FILE, &b, NULL) == 0) {
		c->devices_cgroup_v1 = 1;
		c->cgroup_allows_nvidia = ctr_devices_list_allows(b.s, b.len, 195);
		c->cgroup_devices_evidence = xasprintf("%s %s c 195:* (the NVIDIA nodes' major)",
						       file, c->cgroup_allows_nvidia ? "allows" :
						       "has no entry allowing");
	}
	buf_release(&b);
}

static int driver_family(const char *name)
{
	return starts_with(name, "libcuda.so.") || starts_with(name, "libnvidia-ml.so.") ||
	       starts_with(name, "libnvidia-ptxjitcompiler.so.");
}

static void add_lib(const struct gd_ctx *ctx, struct containers_inventory *c, const char *dir,
		    const char *name, int compat, const struct buf *mountinfo)
{
	struct ctr_lib *l;
	struct stat st;
	char ver[64];
	char *path = fs_join(dir, name);

	/* files only: the links (libcuda.so.1) point at them */
	if (fs_lstat(ctx->root, path, &st) < 0 || !S_ISREG(st.st_mode) || c->nlibs >= 256) {
		free(path);
		return;
	}
	XGROW(c->libs, c->nlibs, c->libs_cap);
	l = &c->libs[c->nlibs++];
	memset(l, 0, sizeof(*l));
	l->path = path;
	l->name = xstrdup(name);
	l->version = ctr_driver_lib_version(name, ver, sizeof(ver)) == 0 ? xstrdup(ver) : NULL;
	l->bind_mounted = c->mountinfo ? ctr_mountinfo_has(mountinfo->s, mountinfo->len, path) : -1;
	l->compat = compat;
	l->on_loader_path = -1;
}

/* The same directory, a trailing '/' aside ("/usr/local/cuda/compat/"). */
static int same_dir(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);

	while (alen > 1 && a[alen - 1] == '/')
		alen--;
	while (blen > 1 && b[blen - 1] == '/')
		blen--;
	return alen == blen && !strncmp(a, b, alen);
}

/*
 * Is dir on the loader's search: an entry of LD_LIBRARY_PATH (':' or ';'
 * separated, as ld.so splits it), or a directory of ld.so.conf with its
 * includes, as the probe_in's loader read them?  1/0; -1 when the loader
 * could not be set up.
 */
static int on_loader_path(const struct probe_in *in, const char *dir)
{
	const char *llp = in->env.ld_library_path;

	if (!in->loader)
		return -1;
	for (const char *s = llp; s && *s;) {
		size_t n = strcspn(s, ":;");

		if (n && same_dir(s, n, dir))
			return 1;
		s += n + (s[n] != '\0');
	}
	for (size_t i = 0; i < in->loader->nconf_dirs; i++)
		if (same_dir(in->loader->conf_dirs[i], strlen(in->loader->conf_dirs[i]), dir))
			return 1;
	return 0;
}

static void probe_libs(const struct probe_in *in, struct containers_inventory *c)
{
	const struct gd_ctx *ctx = in->ctx;
	static const char *const dirs[] = {
		"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64",
		"/usr/lib/aarch64-linux-gnu", "/lib/aarch64-linux-gnu", "/usr/lib",
		"/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib/wsl/lib",
	};
	struct buf mi = BUF_INIT, real = BUF_INIT;
	char **seen = NULL;
	size_t nseen = 0;
	char **names = NULL;
	size_t n = 0;

	if (fs_read_file(ctx->root, "/proc/self/mountinfo", 4 * 1024 * 1024, &mi, NULL) == 0)
		c->mountinfo = 1;
	for (size_t d = 0; d < sizeof(dirs) / sizeof(dirs[0]); d++) {
		int dup = 0;

		/* /lib -> usr/lib on merged-/usr systems: list each real directory once */
		buf_reset(&real);
		if (fs_resolve(ctx->root, dirs[d], &real, NULL) < 0 || !fs_is_dir(ctx->root, real.s))
			continue;
		for (size_t k = 0; k < nseen; k++)
			dup |= !strcmp(seen[k], real.s);
		if (dup)
			continue;
		seen = xrealloc(seen, (nseen + 1) * sizeof(char *));
		seen[nseen++] = xstrdup(real.s);
		if (fs_list_dir(ctx->root, real.s, &names, &n, NULL) < 0)
			continue;
		for (size_t i = 0; i < n; i++)
			if (driver_family(names[i]))
				add_lib(ctx, c, real.s, names[i], 0, &mi);
		fs_names_free(names, n);
		names = NULL;
	}
	/* cuda-compat: /usr/local/cuda/compat and /usr/local/cuda-X.Y/compat */
	if (fs_list_dir(ctx->root, "/usr/local", &names, &n, NULL) == 0) {
		for (size_t i = 0; i < n; i++) {
			char **libs = NULL;
			size_t nl = 0;
			char *dir;

			if (strcmp(names[i], "cuda") && !starts_with(names[i], "cuda-"))
				continue;
			dir = xasprintf("/usr/local/%s/compat", names[i]);
			if (fs_list_dir(ctx->root, dir, &libs, &nl, NULL) == 0) {
				int onpath = on_loader_path(in, dir);

				for (size_t k = 0; k < nl; k++) {
					if (!starts_with(libs[k], "libcuda.so."))
						continue;
					add_lib(ctx, c, dir, libs[k], 1, &mi);
					if (c->nlibs && c->libs[c->nlibs - 1].compat)
						c->libs[c->nlibs - 1].on_loader_path = onpath;
				}
				fs_names_free(libs, nl);
			}
			free(dir);
		}
		fs_names_free(names, n);
	}
	for (size_t k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
	buf_release(&mi);
	buf_release(&real);
}

static void probe_shm_memlock(const struct gd_ctx *ctx, struct containers_inventory *c)
{
	struct buf b = BUF_INIT;
	char **names = NULL;
	size_t n = 0;

	if (!strcmp(ctx->root, "/")) {
		struct statvfs sv;

		if (statvfs("/dev/shm", &sv) == 0) {
			c->shm_bytes = (long long)sv.f_blocks * (long long)sv.f_frsize;
			c->shm_source = "statvfs /dev/shm";
		}
	}
	if (c->shm_bytes < 0 && fs_read_file(ctx->root, "/proc/self/mounts", 4 * 1024 * 1024, &b, NULL) == 0) {
		c->shm_bytes = ctr_parse_shm_size(b.s, b.len);
		if (c->shm_bytes >= 0)
			c->shm_source = "/proc/self/mounts";
	}
	buf_reset(&b);
	if (fs_read_file(ctx->root, "/proc/self/limits", SMALL_FILE, &b, NULL) == 0 &&
	    ctr_parse_limits_memlock(b.s, b.len, &c->memlock_soft, &c->memlock_hard) < 0)
		c->memlock_soft = c->memlock_hard = -1;
	if (fs_list_dir(ctx->root, "/dev/infiniband", &names, &n, NULL) == 0) {
		for (size_t i = 0; i < n; i++)
			c->rdma_devices += starts_with(names[i], "uverbs");
		fs_names_free(names, n);
	}
	buf_release(&b);
}

void probe_containers(const struct probe_in *in, struct inventory *inv)
{
	const struct gd_ctx *ctx = in->ctx;
	struct containers_inventory *c = &inv->containers;
	static const char *const smi[] = { "/usr/bin/nvidia-smi", "/usr/local/nvidia/bin/nvidia-smi" };

	c->probed = 1;
	detect(in, c);
	/* an unpacked image has no kernel view of its own: nothing was injected into it */
	c->image_root = strcmp(ctx->root, "/") && !fs_exists(ctx->root, "/proc/modules") &&
			!fs_is_dir(ctx->root, "/sys/bus/pci/devices");
	ctr_env_resolve(env_get_arg, (void *)&in->env, in->env.envp, &c->env);
	probe_nodes(ctx, c);
	probe_cgroup_devices(ctx, c);
	probe_libs(in, c);
	for (size_t i = 0; i < sizeof(smi) / sizeof(smi[0]) && !c->nvidia_smi; i++)
		if (fs_exists(ctx->root, smi[i]))
			c->nvidia_smi = xstrdup(smi[i]);
	probe_shm_memlock(ctx, c);
	probe_containers_host(in, c);
}

/*
 * Inside a container on the live machine: may we open the nodes?  A device
 * cgroup that lost its NVIDIA entries (the host's systemd re-applied the
 * unit's cgroup after `systemctl daemon-reload`) refuses open() with EPERM
 * although the nodes are there with good modes.  open() of an NVIDIA node
 * can wait on the driver, so it runs in a child with the deadline.
 */
void probe_containers_live(const struct gd_ctx *ctx, struct inventory *inv)
{
	struct containers_inventory *c = &inv->containers;
	const char **args;
	struct child_result r = CHILD_RESULT_INIT;
	size_t na = 0;

	if (strcmp(ctx->root, "/") || !c->in_container || !c->nnodes)
		return;
	args = xcalloc(c->nnodes + 1, sizeof(*args));
	/* only the nodes CUDA itself opens (not nvidia-modeset, -caps, -nvswitch) */
	for (size_t i = 0; i < c->nnodes; i++) {
		const char *b = c->nodes[i].path + 5;	/* past "/dev/" */
		int digits = b[6] != '\0';

		for (const char *d = b + 6; *d && digits; d++)
			digits = *d >= '0' && *d <= '9';
		if (c->nodes[i].is_chr == 1 && (!strcmp(b, "nvidiactl") || !strcmp(b, "nvidia-uvm") ||
						digits))
			args[na++] = c->nodes[i].path;
	}
	if (na && child_run_probe(ctx, "devopen", args, NULL, &r, NULL) == 0 && r.outcome == CHILD_OK) {
		for (size_t i = 0; i < c->nnodes; i++) {
			const char *v = kv_getf(&r.kv, "%s", c->nodes[i].path);

			if (v)
				c->nodes[i].open_errno = atoi(v);
		}
	}
	child_result_release(&r);
	free(args);
}
