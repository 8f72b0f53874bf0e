/*
 * fw_jax.c - JAX and CuPy in one site directory.
 *
 * JAX: jaxlib is the CPU core; CUDA comes from a plugin (jax-cuda12-plugin /
 * jax-cuda13-plugin with its -pjrt package).  The plugin preloads the
 * nvidia-* wheels' libraries by path (site-packages/nvidia/<x>/lib,
 * jax-ml/jax's _load_nvidia_libraries), and only what is not there is left to
 * the loader.  Minimum cuDNN and CUDA come from the knowledge base's JAX rows.
 *
 * CuPy: cupy-cudaXXx names the CUDA major it was built for; its runtime
 * module's DT_NEEDED (and libcudart of that major) are resolved with the
 * module as requester.  CuPy has no CPU fallback: a missing library breaks it.
 * CuPy >= 14 (Requires-Dist cuda-pathfinder; read from cupy-cuda13x 14.2.0
 * and cuda-pathfinder 1.9.1): the CUDA runtime is linked statically into
 * cupy_backends/cuda/api/runtime*.so (no DT_NEEDED libcudart), and
 * cupy_backends/cuda/libs/__init__.py calls
 * cuda.pathfinder.load_nvidia_dynamic_lib() for cublas, cusolver, cusparse,
 * curand, nccl ... before importing the module that needs them; pathfinder
 * looks in site-packages nvidia/cu13/lib then nvidia/<component>/lib, then
 * $CONDA_PREFIX/{lib64,lib}, then the system loader (a ctypes dlopen by
 * soname: no requester RUNPATH), then $CUDA_PATH or else $CUDA_HOME
 * {lib64,lib} (cuda-pathfinder 1.9.1 search_steps.py EARLY_FIND_STEPS,
 * load_with_system_search, LATE_FIND_STEPS).  Those libraries are loaded on
 * first use, so a missing one breaks only that part (warn, not broken).  Not
 * modelled: pathfinder's search of every sys.path site directory (only this
 * one), the per-library roots (CUDNN_PATH, NCCL_HOME) and its "already
 * loaded by someone else" shortcut, which depends on import order.
 */
#include "probes/frameworks/fw_internal.h"
#include "probes/probe_in.h"

#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "loader/fatbin.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static const enum fw_role jax_libs[] = {
	FW_ROLE_CUDART, FW_ROLE_CUBLAS, FW_ROLE_CUBLASLT, FW_ROLE_CUFFT, FW_ROLE_CUSOLVER, FW_ROLE_CUSPARSE,
};

static void fw_jax_lib(struct fw_site *s, struct fw_entry *fw, const char *soname,
		       enum fw_role role, int required)
{
	char *pre = fw_site_wheel_lib(s, soname);
	const char *chain[] = { fw->main_lib };

	if (pre)
		fw_lib_at_path(s, fw, soname, role, required, pre);
	else
		fw_resolve_lib(s, fw, soname, role, required, 1, chain, fw->main_lib ? 1 : 0);
	free(pre);
}

void fw_probe_jax(struct fw_site *s, struct frameworks_inventory *inv,
		  const struct pyenv_list *envs, size_t env)
{
	const struct distinfo_dist *jaxlib = distinfo_find(&s->idx, "jaxlib");
	const struct distinfo_dist *jax = distinfo_find(&s->idx, "jax");
	const struct distinfo_dist *plug = NULL;
	const char *plugin = NULL;
	int major = -1;
	struct fw_entry *fw;

	if (!jaxlib && !jax)
		return;
	if ((plug = distinfo_find(&s->idx, "jax-cuda13-plugin")) != NULL) {
		plugin = "cuda13";
		major = 13;
	} else if ((plug = distinfo_find(&s->idx, "jax-cuda12-plugin")) != NULL) {
		plugin = "cuda12";
		major = 12;
	}
	fw = fw_entry_new(inv, envs, env, s->idx.dir, FW_JAX);
	fw->dist = xstrdup(jaxlib ? jaxlib->norm : jax->norm);
	fw->version = xstrdup_or_null(jaxlib ? jaxlib->version : jax->version);
	fw_note_wheels(s, fw);
	if (!jaxlib && !fw->error)
		fw->error = xstrdup("jax is installed without jaxlib: import fails");
	if (plug) {
		const struct kb_jax *row = s->kb ? kb_jax_release(s->kb, fw->version, plugin) : NULL;
		char *pdir = xasprintf("jax_plugins/xla_%s/xla_cuda_plugin.so", plugin);

		fw->plugin = xasprintf("%s %s", plug->norm, plug->version ? plug->version : "?");
		fw->is_cuda_build = 1;
		fw->flavour = xstrdup("cuda");
		fw->cuda_major = major;
		if (row) {
			if (row->cuda_min > 0) {
				fw->cuda_version = row->cuda_min;
				fw->cuda_build = xasprintf("%d.%d", row->cuda_min / 1000,
							   row->cuda_min % 1000 / 10);
			}
			fw->cudnn_required = xstrdup_or_null(row->cudnn_min);
			fw->cudnn_required_source = "JAX's minimum cuDNN";
		}
		fw->main_lib = fw_site_file(s, pdir);
		free(pdir);
		if (!fw->main_lib && !fw->error)
			fw->error = xasprintf("the %s PJRT plugin (jax-%s-pjrt) is not installed",
					      plugin, plugin);
		fw_resolve_lib(s, fw, "libcuda.so.1", FW_ROLE_DRIVER, 1, 1,
			       (const char *const *)&fw->main_lib, fw->main_lib ? 1 : 0);
		for (size_t i = 0; i < sizeof(jax_libs) / sizeof(jax_libs[0]); i++) {
			const char *so = s->kb ? kb_soname(s->kb, major, fw_role_id(jax_libs[i])) : NULL;

			if (so)
				fw_jax_lib(s, fw, so, jax_libs[i], 1);
		}
		{
			const char *so = s->kb ? kb_soname(s->kb, 9, "cudnn") : NULL;

			fw->cudnn_major = 9;
			if (so) {
				size_t at = fw->nlibs;

				fw_jax_lib(s, fw, so, FW_ROLE_CUDNN, 1);
				fw_resolve_cudnn_subs(s, fw, &fw->libs[at], 9);
			}
			so = s->kb ? kb_soname(s->kb, major, "nccl") : NULL;
			if (so)
				fw_jax_lib(s, fw, so, FW_ROLE_NCCL, 0);
		}
		if (fw->main_lib)
			fw_archs_from_fatbin(s, fw, fw->main_lib, NULL);
	} else if (jaxlib && jaxlib->version && strstr(jaxlib->version, "cuda")) {
		/* jaxlib 0.4.x "+cuda12.cudnn89" wheels carried CUDA themselves */
		fw->is_cuda_build = 1;
		fw->flavour = xstrdup("cuda");
		fw->error = xstrdup("a jaxlib with CUDA inside (before the plugins): libraries not resolved");
	} else {
		fw->is_cuda_build = 0;
		fw->flavour = xstrdup("cpu");
	}
	fw->needed_fatal = 0;
}

/* prefix/lib64/soname or prefix/lib/soname, the layout pathfinder tries. */
static char *fw_pathfinder_under(struct fw_site *s, const char *prefix, const char *soname)
{
	static const char *const rel[] = { "lib64", "lib" };

	if (!prefix || prefix[0] != '/')
		return NULL;
	for (size_t i = 0; i < 2; i++) {
		char *p = xasprintf("%s/%s/%s", prefix, rel[i], soname);

		if (fs_exists(s->root, p))
			return p;
		free(p);
	}
	return NULL;
}

/* cuda-pathfinder's load_nvidia_dynamic_lib(), step by step (see the top). */
static void fw_pathfinder_lib(struct fw_site *s, struct fw_entry *fw, const char *soname,
			      enum fw_role role)
{
	char *hit = fw_site_wheel_lib(s, soname);
	struct fw_lib *l;
	const char *cuda_path;

	if (hit) {
		l = fw_lib_at_path(s, fw, soname, role, 0, hit);
		l->source = "cuda-pathfinder";
		free(hit);
		return;
	}
	hit = fw_pathfinder_under(s, s->env->conda_prefix, soname);
	if (hit) {
		l = fw_lib_at_path(s, fw, soname, role, 0, hit);
		l->source = "cuda-pathfinder:CONDA_PREFIX";
		free(hit);
		return;
	}
	l = fw_resolve_lib(s, fw, soname, role, 0, 1, NULL, 0);
	if (l->path)
		return;
	/* CUDA_PATH wins when both are set, even when CUDA_HOME would have it */
	cuda_path = s->env->cuda_path;
	if (cuda_path && *cuda_path) {
		hit = fw_pathfinder_under(s, cuda_path, soname);
		if (hit)
			fw_lib_set_path(s, fw, l, hit, "cuda-pathfinder:CUDA_PATH");
	} else {
		hit = fw_pathfinder_under(s, s->env->cuda_home, soname);
		if (hit)
			fw_lib_set_path(s, fw, l, hit, "cuda-pathfinder:CUDA_HOME");
	}
	free(hit);
}

/* cupy-cuda12x -> 12, cupy-cuda117 -> 11, cupy-cuda102 -> 10. */
static int fw_cupy_major(const char *norm)
{
	const char *d = norm + strlen("cupy-cuda");
	size_t n = 0;

	while (isdigit((unsigned char)d[n]))
		n++;
	if (n == 0)
		return -1;
	if (n == 2 && d[2] == 'x')
		return (d[0] - '0') * 10 + (d[1] - '0');
	if (n == 3)
		return (d[0] - '0') * 10 + (d[1] - '0');
	return -1;
}

static char *fw_cupy_runtime_module(struct fw_site *s)
{
	const char *dirs[] = { "cupy_backends/cuda/api", "cupy/cuda" };

	for (size_t k = 0; k < 2; k++) {
		char *dir = fs_join(s->idx.dir, dirs[k]);
		char **names = NULL;
		size_t n = 0;
		char *hit = NULL;

		if (fs_list_dir(s->root, dir, &names, &n, NULL) == 0) {
			for (size_t i = 0; i < n && !hit; i++)
				if (!strncmp(names[i], "runtime", 7) && strstr(names[i], ".so"))
					hit = fs_join(dir, names[i]);
			fs_names_free(names, n);
		}
		free(dir);
		if (hit)
			return hit;
	}
	return NULL;
}

void fw_probe_cupy(struct fw_site *s, struct frameworks_inventory *inv,
		   const struct pyenv_list *envs, size_t env)
{
	const struct distinfo_dist *d = NULL;
	struct fw_entry *fw;
	char **needed = NULL;
	size_t nneeded = 0;
	int have_cudart = 0;
	char *pathfinder;

	for (size_t i = 0; i < s->idx.n && !d; i++)
		if (!strncmp(s->idx.dists[i].norm, "cupy-cuda", 9) || !strcmp(s->idx.dists[i].norm, "cupy"))
			d = &s->idx.dists[i];
	if (!d)
		return;
	fw = fw_entry_new(inv, envs, env, s->idx.dir, FW_CUPY);
	fw->dist = xstrdup(d->norm);
	fw->version = xstrdup_or_null(d->version);
	fw_note_wheels(s, fw);
	fw->is_cuda_build = 1;
	fw->flavour = xstrdup("cuda");
	if (!strncmp(d->norm, "cupy-cuda", 9))
		fw->cuda_major = fw_cupy_major(d->norm);
	if (fw->cuda_major > 0)
		fw->cuda_build = xasprintf("%d.x", fw->cuda_major);
	fw->main_lib = fw_cupy_runtime_module(s);
	if (!fw->main_lib) {
		fw->error = xstrdup("CuPy's runtime module (cupy_backends/cuda/api/runtime*.so) is missing");
		fw->needed_fatal = 1;
		return;
	}
	fw_elf_dyn(s->root, fw->main_lib, &fw->main_rpath, &fw->main_runpath, &needed, &nneeded);
	for (size_t i = 0; i < nneeded; i++) {
		const char *chain[] = { fw->main_lib };
		const char *so = needed[i];

		if (strncmp(so, "libcu", 4) != 0 && strncmp(so, "libnv", 4) != 0 &&
		    strncmp(so, "libnccl", 7) != 0)
			continue;
		if (!strncmp(so, "libcudart.so", 12))
			have_cudart = 1;
		fw_resolve_lib(s, fw, so, !strncmp(so, "libcuda.so", 10) ? FW_ROLE_DRIVER : FW_ROLE_NEEDED, 1,
			       0, chain, 1);
	}
	fw_strv_free(needed, nneeded);
	pathfinder = fw_requirement(s, d, "cuda-pathfinder", NULL);
	if (pathfinder && !have_cudart && fw->cuda_major > 0 && s->kb) {
		static const enum fw_role pf_libs[] = {
			FW_ROLE_CUBLAS, FW_ROLE_CUSOLVER, FW_ROLE_CUSPARSE, FW_ROLE_CURAND, FW_ROLE_NVRTC,
		};

		for (size_t i = 0; i < sizeof(pf_libs) / sizeof(pf_libs[0]); i++) {
			const char *so = kb_soname(s->kb, fw->cuda_major, fw_role_id(pf_libs[i]));

			if (so)
				fw_pathfinder_lib(s, fw, so, pf_libs[i]);
		}
		if (!fw->load_note)
			fw->load_note = xstrdup("the CUDA runtime is linked into CuPy's runtime module; cuda-pathfinder loads the other CUDA libraries from the nvidia wheels first");
		free(pathfinder);
		fw_note_other_cudart(s, fw);
		fw->needed_fatal = 1;
		return;
	}
	free(pathfinder);
	if (!have_cudart && fw->cuda_major > 0 && s->kb) {
		const char *so = kb_soname(s->kb, fw->cuda_major, "cudart");
		const char *chain[] = { fw->main_lib };

		if (so)
			fw_resolve_lib(s, fw, so, FW_ROLE_CUDART, 1, 1, chain, 1);
	}
	fw_note_other_cudart(s, fw);
	fw->needed_fatal = 1;
}
