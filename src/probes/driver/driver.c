/*
 * driver.c - the driver layer's static probe: which libnvidia-ml.so.1 and
 * libcuda.so.1 the loader would pick (loader/ldso.h, the exact emulation of
 * glibc's search), their versions from the real file names, the toolkit's
 * stub libcuda within reach of the search, the kernel module's version, and
 * the CUDA environment variables.  The live part (NVML in a child) is in
 * nvml_live.c.  Reads files only, through core/fs.h.
 */
#include "probes/driver/driver.h"
#include "probes/cuda/cuda_env.h"
#include "inventory/inventory.h"
#include "probes/probe_in.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "loader/ldso.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* "libcuda.so.580.95.05" -> "580.95.05"; NULL for "libcuda.so.1" or "libcuda.so". */
static char *driver_version_from_name(const char *path, const char *base)
{
	const char *name = strrchr(path, '/');
	size_t bl = strlen(base);

	name = name ? name + 1 : path;
	if (strncmp(name, base, bl) != 0 || name[bl] != '.' || !isdigit((unsigned char)name[bl + 1]))
		return NULL;
	name += bl + 1;
	if (!strchr(name, '.'))
		return NULL;	/* just the soname's major */
	return xstrdup(name);
}

/* A path in a CUDA toolkit's stubs directory ("/usr/local/cuda/lib64/stubs/libcuda.so"). */
static int driver_in_stubs(const char *path)
{
	return path && (strstr(path, "/stubs/") != NULL);
}

static void driver_add_stub(struct driver_inventory *d, const char *path, const char *why)
{
	for (size_t i = 0; i < d->nstubs; i++)
		if (!strcmp(d->stubs[i].path, path))
			return;
	XGROW(d->stubs, d->nstubs, d->stubs_cap);
	d->stubs[d->nstubs].path = xstrdup(path);
	d->stubs[d->nstubs].why = xstrdup(why);
	d->nstubs++;
}

static void driver_resolve(const struct gd_ctx *ctx, struct ldso *l, int have_ldso,
			   struct driver_lib *lib, struct driver_inventory *d, int is_cuda)
{
	struct ldso_result r = LDSO_RESULT_INIT;
	struct buf rp = BUF_INIT;
	struct err e = ERR_INIT;

	if (!have_ldso) {
		lib->error = xstrdup("the loader's search could not be set up");
		return;
	}
	if (ldso_resolve(l, lib->soname, NULL, 0, &r, &e) < 0) {
		lib->error = xstrdup(e.msg);
		ldso_result_release(&r);
		return;
	}
	if (r.path) {
		lib->path = xstrdup(r.path);
		lib->how = r.source;
		if (r.realpath)
			lib->realpath = xstrdup(r.realpath);
		else if (fs_resolve(ctx->root, r.path, &rp, &e) == 0)
			lib->realpath = xstrdup(rp.s);
		lib->version = driver_version_from_name(lib->realpath ? lib->realpath : lib->path,
							 is_cuda ? "libcuda.so" : "libnvidia-ml.so");
		lib->compat = lib->realpath && strstr(lib->realpath, "/compat/") != NULL;
		/* WSL2's libcuda.so.1.1 is the Windows driver's file: "1.1" is no driver version. */
		if (platform_path_in_wsl(lib->realpath ? lib->realpath : lib->path)) {
			free(lib->version);
			lib->version = NULL;
		}
		if (is_cuda && (driver_in_stubs(lib->path) || driver_in_stubs(lib->realpath)))
			lib->stub_reason = xasprintf("%s%s%s lies in a CUDA toolkit stubs directory",
						     lib->path,
						     lib->realpath && strcmp(lib->realpath, lib->path)
						     ? " -> " : "",
						     lib->realpath && strcmp(lib->realpath, lib->path)
						     ? lib->realpath : "");
	}
	/* Stubs the search passed over (or would reach for another program). */
	for (size_t i = 0; is_cuda && i < r.ncands; i++) {
		const char *p = r.cands[i].path;

		if (!p || (lib->path && !strcmp(p, lib->path)))
			continue;
		buf_reset(&rp);
		if (driver_in_stubs(p) ||
		    (fs_resolve(ctx->root, p, &rp, NULL) == 0 && driver_in_stubs(rp.s)))
			driver_add_stub(d, p, "a stub libcuda on the loader's search path");
	}
	buf_release(&rp);
	ldso_result_release(&r);
}

/* A directory on LD_LIBRARY_PATH that is a toolkit stubs directory holding libcuda. */
static void driver_scan_ld_path(const struct gd_ctx *ctx, struct driver_inventory *d,
				const char *llp)
{
	char *copy, *save = NULL, *dir;

	if (!llp)
		return;
	copy = xstrdup(llp);
	for (dir = strtok_r(copy, ":;", &save); dir; dir = strtok_r(NULL, ":;", &save)) {
		char **names = NULL;
		size_t n = 0, len = strlen(dir);
		struct buf rp = BUF_INIT;
		int stubdir;

		if (dir[0] != '/')
			continue;
		while (len > 1 && dir[len - 1] == '/')
			dir[--len] = 0;
		stubdir = (len >= 6 && !strcmp(dir + len - 6, "/stubs"));
		if (!stubdir && fs_resolve(ctx->root, dir, &rp, NULL) == 0) {
			size_t rl = rp.len;

			stubdir = rl >= 6 && !strcmp(rp.s + rl - 6, "/stubs");
		}
		buf_release(&rp);
		if (!stubdir || fs_list_dir(ctx->root, dir, &names, &n, NULL) < 0)
			continue;
		for (size_t i = 0; i < n; i++) {
			if (!strncmp(names[i], "libcuda.so", 10)) {
				char *why = xasprintf("LD_LIBRARY_PATH lists %s, a CUDA toolkit stubs "
						      "directory holding %s", dir, names[i]);
				char *p = fs_join(dir, names[i]);

				driver_add_stub(d, p, why);
				free(p);
				free(why);
				break;
			}
		}
		fs_names_free(names, n);
	}
	free(copy);
}

/*
 * A GPU Operator node: the host's loader knows no driver library, the
 * driver container's root at /run/nvidia/driver has them (platform.h), and
 * the container toolkit hands those to every GPU container.  They are the
 * driver the node runs, so the layers above judge (and load) them.
 */
static void driver_from_operator(const struct gd_ctx *ctx, const struct platform_inventory *p,
				 struct driver_lib *lib, int is_cuda)
{
	const char *file = is_cuda ? p->operator_libcuda : p->operator_nvml;
	struct buf rp = BUF_INIT;

	if (lib->path || !file)
		return;
	lib->path = xstrdup(file);
	if (fs_resolve(ctx->root, file, &rp, NULL) == 0)
		lib->realpath = xstrdup(rp.s);
	lib->version = driver_version_from_name(lib->realpath ? lib->realpath : lib->path,
						 is_cuda ? "libcuda.so" : "libnvidia-ml.so");
	lib->how = LDSO_PATH;
	lib->operator_root = 1;
	free(lib->error);
	lib->error = NULL;
	buf_release(&rp);
}

/* The kernel layer's reading (its static probe runs before ours): one reading per fact. */
static void driver_module_version(const struct kernel_inventory *k, struct driver_inventory *d)
{
	if (k->module_version) {
		d->kernel_module_version = xstrdup(k->module_version);
		d->kernel_module_source = k->module_version_source;
	}
}

/* driver.h's precedence; NVML's answer is added by the live probe when both are unknown. */
static void driver_version_pick(struct driver_inventory *d)
{
	if (d->cuda.version) {
		d->version = xstrdup(d->cuda.version);
		d->version_source = xstrdup(d->cuda.realpath ? d->cuda.realpath :
					    d->cuda.path ? d->cuda.path : "libcuda.so.1");
	} else if (d->kernel_module_version) {
		d->version = xstrdup(d->kernel_module_version);
		d->version_source = xstrdup(d->kernel_module_source);
	}
}

void probe_driver(const struct probe_in *in, struct inventory *inv)
{
	const struct gd_ctx *ctx = in->ctx;
	struct driver_inventory *d = &inv->driver;
	const char *llp = in->env.ld_library_path;

	if (d->probed)
		return;
	d->probed = 1;
	d->ld_library_path = xstrdup_or_null(llp);
	/* The shared loader itself: this runs before the scan thread starts. */
	driver_resolve(ctx, in->loader, in->loader != NULL, &d->nvml, d, 0);
	driver_resolve(ctx, in->loader, in->loader != NULL, &d->cuda, d, 1);
	driver_from_operator(ctx, &inv->platform, &d->nvml, 0);
	driver_from_operator(ctx, &inv->platform, &d->cuda, 1);
	driver_scan_ld_path(ctx, d, llp);
	driver_module_version(&inv->kernel, d);
	driver_version_pick(d);
	cuda_env_scan(d);
	fabricmanager_probe(ctx->root, inv->hw.nnvswitches, &d->fm);
}
