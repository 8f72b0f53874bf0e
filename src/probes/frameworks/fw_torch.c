/*
 * fw_torch.c - PyTorch in one site directory: torch/version.py (version,
 * CUDA), the cuDNN the wheel pins (Requires-Dist), libtorch_cuda.so's
 * DT_NEEDED resolved through its own DT_RPATH (which outranks
 * LD_LIBRARY_PATH: docs/h200-results.md), cuDNN's sub-libraries as the shim loads
 * them, and the GPU architectures in libtorch_cuda.so's fat binaries.
 * Those list more archs than torch.cuda.get_arch_list() (on the H200,
 * 2.11.0+cu130 adds sm_89, sm_90a, sm_100a, sm_103a, sm_120a, sm_121a for a
 * few kernels such as FlashAttention's): only archs with >= 25% of the
 * largest arch's entries count as "built for" (fatbin.h), the others are
 * archs_partial, shown but never taken as support for a GPU.
 */
#include "probes/frameworks/fw_internal.h"

#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "loader/fatbin.h"
#include "python/pyfile.h"

#include <stdlib.h>
#include <string.h>

/* The role of a DT_NEEDED of libtorch_cuda.so, by its name. */
static enum fw_role fw_torch_role(const char *so)
{
	static const struct { const char *prefix; enum fw_role role; } roles[] = {
		{ "libcudart.so", FW_ROLE_CUDART }, { "libcublasLt.so", FW_ROLE_CUBLASLT },
		{ "libcublas.so", FW_ROLE_CUBLAS }, { "libcudnn.so", FW_ROLE_CUDNN },
		{ "libnccl.so", FW_ROLE_NCCL }, { "libcufft.so", FW_ROLE_CUFFT },
		{ "libcusparse.so", FW_ROLE_CUSPARSE }, { "libcusolver.so", FW_ROLE_CUSOLVER },
		{ "libcurand.so", FW_ROLE_CURAND }, { NULL, FW_ROLE_NEEDED },
	};

	for (size_t i = 0; roles[i].prefix; i++)
		if (!strncmp(so, roles[i].prefix, strlen(roles[i].prefix)))
			return roles[i].role;
	return FW_ROLE_NEEDED;
}

static int fw_torch_skip(const char *so)
{
	static const char *const sys[] = {
		"libc.so", "libm.so", "libdl.so", "libpthread.so", "librt.so", "libgcc_s.so",
		"libstdc++.so", "ld-linux", NULL
	};

	for (size_t i = 0; sys[i]; i++)
		if (!strncmp(so, sys[i], strlen(sys[i])))
			return 1;
	return 0;
}

/* GPU code in libtorch_cuda.so: full builds and a few kernels (fatbin.h). */
static void fw_torch_archs(struct fw_site *s, struct fw_entry *fw)
{
	struct err e = ERR_INIT;

	if (fw_archs_from_fatbin(s, fw, fw->main_lib, &e) < 0 && !fw->error)
		fw->error = xasprintf("GPU architectures: %s", e.msg);
}

void fw_probe_torch(struct fw_site *s, struct frameworks_inventory *inv,
		    const struct pyenv_list *envs, size_t env)
{
	const struct distinfo_dist *d = distinfo_find(&s->idx, "torch");
	char *vpath = fw_site_file(s, "torch/version.py");
	struct torch_version_py tv;
	struct buf b = BUF_INIT;
	struct err e = ERR_INIT;
	struct fw_entry *fw;
	const char *plus;
	char **needed = NULL;
	size_t nneeded = 0;
	long cudnn_i = -1;

	if (!d && !vpath)
		return;
	fw = fw_entry_new(inv, envs, env, s->idx.dir, FW_TORCH);
	fw->dist = d ? xstrdup(d->norm) : NULL;
	fw->version = d ? xstrdup_or_null(d->version) : NULL;
	fw_note_wheels(s, fw);
	memset(&tv, 0, sizeof(tv));
	if (!vpath) {
		fw->error = xstrdup("torch/version.py is missing");
	} else if (fs_read_file(s->root, vpath, 1 << 16, &b, &e) < 0 ||
		   pyfile_torch_version_parse(b.s, b.len, &tv, &e) < 0) {
		fw->error = xasprintf("%s: %s", vpath, e.msg);
	}
	buf_release(&b);
	fw->build_file = vpath;
	if (tv.version && !fw->version)
		fw->version = xstrdup(tv.version);
	plus = fw->version ? strchr(fw->version, '+') : NULL;
	if (!plus && tv.version)
		plus = strchr(tv.version, '+');
	fw->local_tag = plus ? xstrdup(plus + 1) : NULL;
	if (tv.hip) {
		fw->flavour = xstrdup("rocm");
		fw->is_cuda_build = 0;
	} else if (tv.cuda) {
		fw->flavour = xstrdup("cuda");
		fw->is_cuda_build = 1;
		fw->cuda_build = xstrdup(tv.cuda);
		fw->cuda_version = kb_parse_cuda(tv.cuda);
		fw->cuda_major = fw->cuda_version > 0 ? fw->cuda_version / 1000 : -1;
	} else if (tv.cuda_known) {
		fw->flavour = xstrdup("cpu");
		fw->is_cuda_build = 0;
	}
	torch_version_py_release(&tv);

	if (s->kb && fw->version) {
		const struct kb_torch *row = kb_torch_release(s->kb, fw->version,
			fw->local_tag && !strncmp(fw->local_tag, "cu", 2) ? fw->local_tag : NULL);

		if (row) {
			fw->python_range = xstrdup_or_null(row->python);
			if (fw->is_cuda_build == 1 && row->cudnn && strcmp(row->cudnn, "-") != 0) {
				fw->cudnn_required = xstrdup(row->cudnn);
				fw->cudnn_required_source = "PyTorch's release compatibility matrix";
			}
		}
	}
	if (fw->is_cuda_build != 1) {
		fw->needed_fatal = 1;
		return;
	}
	if (fw->cuda_major > 0) {
		char *dep = xasprintf("nvidia-cudnn-cu%d", fw->cuda_major);
		char *pin = fw_requirement(s, d, dep, NULL);

		if (pin && !strncmp(pin, "==", 2)) {
			fw->cudnn_build = xstrdup(pin + 2);
			free(fw->cudnn_required);
			fw->cudnn_required = xstrdup(pin + 2);
			fw->cudnn_required_source = "the wheel's Requires-Dist pin";
			fw->cudnn_major = atoi(pin + 2);
		}
		free(pin);
		free(dep);
	}

	fw->main_lib = fw_site_file(s, "torch/lib/libtorch_cuda.so");
	if (!fw->main_lib) {
		if (!fw->error)
			fw->error = xstrdup("torch/lib/libtorch_cuda.so is missing from a CUDA build");
		fw->needed_fatal = 1;
		return;
	}
	if (fw_elf_dyn(s->root, fw->main_lib, &fw->main_rpath, &fw->main_runpath, &needed,
		       &nneeded) < 0 && !fw->error)
		fw->error = xasprintf("%s is not a readable ELF library", fw->main_lib);
	for (size_t i = 0; i < nneeded; i++) {
		const char *chain[] = { fw->main_lib };
		struct fw_lib *l;

		if (fw_torch_skip(needed[i]))
			continue;
		l = fw_resolve_lib(s, fw, needed[i], fw_torch_role(needed[i]), 1, 0, chain, 1);
		if (l->role == FW_ROLE_CUDNN)
			cudnn_i = (long)(l - fw->libs);	/* fw->libs moves as it grows */
	}
	fw_strv_free(needed, nneeded);
	{
		const char *chain[] = { fw->main_lib };

		/* libcuda.so.1 is dlopen()ed lazily by the CUDA runtime */
		fw_resolve_lib(s, fw, "libcuda.so.1", FW_ROLE_DRIVER, 1, 1, chain, 1);
		if (cudnn_i >= 0) {
			const char *so = fw->libs[cudnn_i].soname;
			const char *dot = strrchr(so, '.');
			int major = dot ? atoi(dot + 1) : -1;

			if (fw->cudnn_major < 0)
				fw->cudnn_major = major;
			fw_resolve_cudnn_subs(s, fw, &fw->libs[cudnn_i], major);
		}
	}
	fw_torch_archs(s, fw);
	fw_note_other_cudart(s, fw);
	fw->needed_fatal = 1;
}
