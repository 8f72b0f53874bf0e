/*
 * plan_machine.c - what `gpudoctor plan` needs to know of the machine.
 * Most of it comes from the inventory the static probes filled (GPUs,
 * kernel modules, Secure Boot, the loaded driver, toolkits, /usr/local/cuda,
 * LD_LIBRARY_PATH, Python environments, installed frameworks); the rest is
 * read here through core/fs (inside --root): a DKMS/MOK
 * signing key, and the marks a .run install or driver packages leave.
 * Everything read is data, never executed.
 */
#include "plan/plan.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "inventory/inventory.h"
#include "rules/fw_verdict.h"

#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* The distribution is the platform probe's fact (os-release, read once for
 * every command); plan keeps its own copies because it outlives nothing but
 * is released on its own. */
static void read_os(const struct inventory *inv, struct plan_machine *m)
{
	const struct platform_inventory *p = &inv->platform;

	m->os_id = dup_or_null(p->os_id);
	m->os_version = dup_or_null(p->os_version_id);
	m->os_like = dup_or_null(p->os_id_like);
	m->os_pretty = dup_or_null(p->os_pretty);
}

/* The first of `paths` that exists inside root, or NULL. */
static char *first_existing(const struct gd_ctx *ctx, const char *const *paths)
{
	for (; *paths; paths++)
		if (fs_exists(ctx->root, *paths))
			return xstrdup(*paths);
	return NULL;
}

static void read_driver_origin(const struct gd_ctx *ctx, struct plan_machine *m)
{
	static const char *const keys[] = {
		"/var/lib/dkms/mok.pub", "/var/lib/shim-signed/mok/MOK.der", "/var/lib/dkms/mok.key", NULL
	};
	static const char *const runs[] = {
		"/usr/bin/nvidia-uninstall", "/var/log/nvidia-installer.log", NULL
	};
	static const char *const pkgs[] = {
		"/usr/share/doc/cuda-drivers", "/usr/share/licenses/nvidia-driver", NULL
	};
	struct buf b = BUF_INIT;

	m->mok_key = first_existing(ctx, keys);
	m->run_marker = first_existing(ctx, runs);
	m->run_installer = m->run_marker != NULL;
	m->package_marker = first_existing(ctx, pkgs);
	/* dpkg's database names the packages it installed */
	if (!m->package_marker && fs_read_file(ctx->root, "/var/lib/dpkg/status", 64u << 20, &b, NULL) == 0 &&
	    (strstr(b.s, "\nPackage: nvidia-driver-") || strstr(b.s, "\nPackage: cuda-drivers") ||
	     strstr(b.s, "\nPackage: nvidia-open") || strstr(b.s, "\nPackage: libnvidia-compute-")))
		m->package_marker = xstrdup("/var/lib/dpkg/status");
	m->driver_packages = m->package_marker != NULL;
	buf_release(&b);
}

/* Does LD_LIBRARY_PATH list dir? */
static int on_llp(const char *llp, const char *dir)
{
	size_t n = strlen(dir);

	for (const char *p = llp; p && *p;) {
		size_t k = strcspn(p, ":");

		if (k == n && !strncmp(p, dir, n))
			return 1;
		p += k + (p[k] == ':');
	}
	return 0;
}

static void read_libs(const struct inventory *inv, struct plan_machine *m)
{
	const struct libraries_inventory *l = &inv->libs;

	m->cuda_link = l->cuda_link;
	m->cuda_link_target = dup_or_null(l->cuda_link_target);
	m->cuda_link_version = dup_or_null(l->cuda_link_version);
	for (size_t i = 0; i < l->ntoolkits && m->ntoolkits < PLAN_MAX; i++) {
		m->toolkits[m->ntoolkits] = xstrdup(l->toolkits[i].path);
		m->toolkit_versions[m->ntoolkits] = dup_or_null(l->toolkits[i].version);
		m->ntoolkits++;
	}
	m->ld_library_path = dup_or_null(l->ld_library_path ? l->ld_library_path : inv->driver.ld_library_path);
	/* a conda cuDNN that LD_LIBRARY_PATH puts before the framework's own */
	for (size_t i = 0; i < l->n; i++) {
		const struct lib_copy *c = &l->copies[i];
		int dup = 0;

		if (!c->family || strncmp(c->family, "cudnn", 5) || !c->dir || !on_llp(m->ld_library_path, c->dir))
			continue;
		if (!((c->origin && !strcmp(c->origin, "conda")) || strstr(c->dir, "conda") ||
		      (c->owner && strstr(c->owner, "conda"))))
			continue;
		for (size_t k = 0; k < m->nconda_cudnn; k++)
			dup |= !strcmp(m->conda_cudnn_dirs[k], c->dir);
		if (!dup) {
			XGROW(m->conda_cudnn_dirs, m->nconda_cudnn, m->conda_cudnn_cap);
			m->conda_cudnn_dirs[m->nconda_cudnn++] = xstrdup(c->dir);
		}
	}
}

static void read_python(const struct inventory *inv, struct plan_machine *m)
{
	for (size_t i = 0; i < inv->pyenvs.n && m->npythons < PLAN_MAX; i++) {
		const struct pyenv *e = &inv->pyenvs.envs[i];

		if (e->kind && !strcmp(e->kind, "conda") && e->active && !m->conda_active && e->prefix)
			m->conda_active = xstrdup(e->prefix);
		if (!e->python || !e->python_version)
			continue;
		m->pythons[m->npythons].path = xstrdup(e->python);
		m->pythons[m->npythons].version = xstrdup(e->python_version);
		m->pythons[m->npythons].kind = e->kind;
		m->npythons++;
	}
	/* A venv's base interpreter (pyvenv.cfg home) is a system Python of the
	 * venv's version, even when its own prefix was not listed (no site dir). */
	for (size_t i = 0; i < inv->pyenvs.n && m->npythons < PLAN_MAX; i++) {
		const struct pyenv *e = &inv->pyenvs.envs[i];
		int dup = 0;

		if (!e->base_python || !e->python_version)
			continue;
		for (size_t k = 0; k < m->npythons; k++)
			dup |= !strcmp(m->pythons[k].path, e->base_python) && !strcmp(m->pythons[k].kind, "system");
		if (dup)
			continue;
		m->pythons[m->npythons].path = xstrdup(e->base_python);
		m->pythons[m->npythons].version = xstrdup(e->python_version);
		m->pythons[m->npythons].kind = "system";
		m->npythons++;
	}
	for (size_t i = 0; i < inv->fw.n && m->nfws < PLAN_MAX; i++) {
		const struct fw_entry *f = &inv->fw.fws[i];

		if (!f->name || !f->version)
			continue;
		m->fws[m->nfws].name = f->name;
		m->fws[m->nfws].version = xstrdup(f->version);
		m->fws[m->nfws].prefix = dup_or_null(f->env_prefix);
		m->fws[m->nfws].python = dup_or_null(f->python);
		m->fws[m->nfws].cuda_build = f->is_cuda_build;
		/* the rules' verdict on the install (rules/fw_verdict.h) */
		m->fws[m->nfws].prediction = fw_prediction_id(fw_predict(f, NULL));
		m->nfws++;
	}
}

void plan_machine_read(const struct gd_ctx *ctx, const struct inventory *inv, struct plan_machine *m)
{
	memset(m, 0, sizeof(*m));
	read_os(inv, m);
	for (size_t i = 0; i < inv->hw.ngpus && m->ngpus < PLAN_MAX; i++)
		if (inv->hw.gpus[i].device >= 0)
			m->device[m->ngpus++] = (unsigned)inv->hw.gpus[i].device;
	if (inv->hw.ngpus)
		m->gpu_driver_bound = dup_or_null(inv->hw.gpus[0].driver);
	m->in_container = inv->containers.in_container == 1;
	m->container_markers = dup_or_null(inv->containers.markers);
	m->nouveau_loaded = inv->kernel.mods[KMOD_NOUVEAU].loaded;
	if (m->gpu_driver_bound && !strcmp(m->gpu_driver_bound, "nouveau"))
		m->nouveau_loaded = 1;
	m->nvidia_loaded = inv->kernel.mods[KMOD_NVIDIA].loaded;
	m->secure_boot = inv->kernel.secure_boot;
	m->secure_boot_evidence = dup_or_null(inv->kernel.secure_boot_evidence);
	if (inv->kernel.sys_version) {
		m->driver = xstrdup(inv->kernel.sys_version);
		m->driver_from = xstrdup("/sys/module/nvidia/version");
	} else if (inv->kernel.proc_version) {
		m->driver = xstrdup(inv->kernel.proc_version);
		m->driver_from = xstrdup("/proc/driver/nvidia/version");
	}
	read_driver_origin(ctx, m);
	read_libs(inv, m);
	read_python(inv, m);
}

void plan_machine_release(struct plan_machine *m)
{
	free(m->os_id);
	free(m->os_version);
	free(m->os_like);
	free(m->os_pretty);
	free(m->gpu_driver_bound);
	free(m->container_markers);
	free(m->secure_boot_evidence);
	free(m->mok_key);
	free(m->driver);
	free(m->driver_from);
	free(m->run_marker);
	free(m->package_marker);
	free(m->cuda_link_target);
	free(m->cuda_link_version);
	for (size_t i = 0; i < m->ntoolkits; i++) {
		free(m->toolkits[i]);
		free(m->toolkit_versions[i]);
	}
	free(m->ld_library_path);
	free(m->conda_active);
	for (size_t i = 0; i < m->nconda_cudnn; i++)
		free(m->conda_cudnn_dirs[i]);
	free(m->conda_cudnn_dirs);
	for (size_t i = 0; i < m->npythons; i++) {
		free(m->pythons[i].path);
		free(m->pythons[i].version);
	}
	for (size_t i = 0; i < m->nfws; i++) {
		free(m->fws[i].version);
		free(m->fws[i].prefix);
		free(m->fws[i].python);
	}
	memset(m, 0, sizeof(*m));
}
