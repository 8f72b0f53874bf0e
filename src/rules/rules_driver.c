/*
 * rules_driver.c - verdicts for the driver layer: the driver libraries the
 * loader picks (missing, the toolkit stub, a version other than the kernel
 * module's), NVML (missing, failing, crashing), per-GPU state from NVML (lost,
 * ECC, memory held by others, persistence), and the environment (GPUs
 * hidden, debugging variables), and whether the driver knows each GPU at
 * all (its PCI id from the hardware layer against the knowledge base's
 * first driver per id and last branch per architecture).  Reads inv->driver
 * and the PCI ids of inv->hw.
 */
#include "rules/rules.h"
#include "rules/rules_platform.h"
#include "rules/cuda_visible.h"
#include "core/buf.h"
#include "core/ctx.h"
#include "core/version.h"
#include "core/xalloc.h"
#include "knowledge/causes.h"
#include "knowledge/kb.h"
#include "inventory/inventory.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A GPU's memory held by others above this fraction is worth a warning. */
#define HELD_FRACTION 0.10

static void lib_evidence(struct finding *f, const struct driver_lib *l)
{
	if (l->path)
		finding_evidence(f, "%s -> %s (found via %s)", l->path,
				 l->realpath ? l->realpath : "(unresolved)", l->how ? ldso_source_name(l->how) : "?");
	if (l->version)
		finding_evidence(f, "version from the file name: %s", l->version);
	if (l->error)
		finding_evidence(f, "%s", l->error);
}

static void rules_driver_libs(const struct rules_in *in, struct report *rep)
{
	const struct driver_inventory *d = &in->inv->driver;
	struct finding *f;

	/* libcuda.so.1 */
	if (rules_platform_driver_libcuda(in, rep)) {
		/* WSL: judged against the Windows driver's /usr/lib/wsl/lib */
	} else if (!d->cuda.path) {
		f = report_add(rep, LAYER_DRIVER, "driver.libcuda", CAUSE_LIBCUDA_MISSING, REACH_WORK,
			       "libcuda.so.1 (the CUDA driver library) is not found by the loader");
		finding_evidence(f, "searched LD_LIBRARY_PATH, /etc/ld.so.cache and the default "
				 "directories inside %s", in->ctx->root);
		if (d->cuda.error)
			finding_evidence(f, "%s", d->cuda.error);
		finding_fix_catalogue(f);
	} else if (d->cuda.stub_reason) {
		f = report_add(rep, LAYER_DRIVER, "driver.libcuda", CAUSE_LIBCUDA_STUB_ON_PATH, REACH_WORK,
			       "the libcuda.so.1 the loader picks is the CUDA toolkit's stub");
		lib_evidence(f, &d->cuda);
		finding_evidence(f, "%s", d->cuda.stub_reason);
		finding_evidence(f, "the stub only serves linking; at run time every CUDA call "
				 "fails with CUDA_ERROR_STUB_LIBRARY (34)");
		if (d->ld_library_path)
			finding_evidence(f, "LD_LIBRARY_PATH=%s", d->ld_library_path);
		finding_fix(f, "remove the stub's directory (the evidence names it) from LD_LIBRARY_PATH "
			    "(and any libcuda.so.1 link to the stub), so that the driver's libcuda.so.1 is found");
	} else {
		f = report_ok(rep, LAYER_DRIVER, "driver.libcuda",
			       "libcuda.so.1 %s%s%s", d->cuda.version ? d->cuda.version : "found",
			       d->cuda.compat ? " (forward-compatibility package)" : "",
			       d->cuda.operator_root ? " (GPU Operator driver container)" : "");
		lib_evidence(f, &d->cuda);
		if (d->cuda.operator_root)
			finding_evidence(f, "from the GPU Operator's driver root %s, not the host's "
					 "loader: the container toolkit hands it to GPU pods",
					 PLATFORM_OPERATOR_ROOT);
	}
	/* Stubs the search can reach without being the winner. */
	if (d->nstubs && !d->cuda.stub_reason) {
		f = report_add(rep, LAYER_DRIVER, "driver.libcuda-stub", CAUSE_LIBCUDA_STUB_ON_PATH,
			       REACH_LATENT,
			       "a CUDA toolkit stub libcuda is on the loader's search path");
		for (size_t i = 0; i < d->nstubs; i++)
			finding_evidence(f, "%s: %s", d->stubs[i].path, d->stubs[i].why);
		finding_evidence(f, "a program that loads libcuda.so (not .so.1), or runs where the "
				 "driver's library is missing, gets the stub and fails with "
				 "CUDA_ERROR_STUB_LIBRARY (34)");
		finding_fix_catalogue(f);
	}
	/* libnvidia-ml.so.1: CUDA does not need it, nvidia-smi and monitoring do. */
	if (rules_platform_driver_nvml(in, rep)) {
		/* WSL: the Windows driver provides it */
	} else if (!d->nvml.path) {
		f = report_add(rep, LAYER_DRIVER, "driver.nvml-library", CAUSE_NVML_MISSING, REACH_WORK,
			       "libnvidia-ml.so.1 (NVML) is not found by the loader");
		finding_evidence(f, "searched LD_LIBRARY_PATH, /etc/ld.so.cache and the default "
				 "directories inside %s", in->ctx->root);
		if (d->nvml.error)
			finding_evidence(f, "%s", d->nvml.error);
		finding_fix_catalogue(f);
	} else {
		f = report_ok(rep, LAYER_DRIVER, "driver.nvml-library",
			       "libnvidia-ml.so.1 %s", d->nvml.version ? d->nvml.version : "found");
		lib_evidence(f, &d->nvml);
	}
}

/* Compare every user-space version we know with the kernel module's. */
static void rules_driver_versions(const struct rules_in *in, struct report *rep)
{
	const struct driver_inventory *d = &in->inv->driver;
	const char *kmod = d->kernel_module_version;
	struct {
		const char *what, *version;
	} v[3] = {
		{ "libnvidia-ml.so.1", d->nvml.version },
		{ "libcuda.so.1", d->cuda.compat ? NULL : d->cuda.version },
		{ "NVML (nvmlSystemGetDriverVersion)", d->nvml_live.driver_version },
	};
	struct finding *f;
	int bad = 0, compared = 0;

	if (rules_platform_driver_versions(in, rep))
		return;
	if (!kmod) {
		f = report_skip(rep, LAYER_DRIVER, "driver.version-match",
			       "driver library versions not compared: the kernel module's "
			       "version is unknown");
		finding_evidence(f, "neither /sys/module/nvidia/version nor "
				 "/proc/driver/nvidia/version gave a version");
		return;
	}
	for (int i = 0; i < 3; i++)
		if (v[i].version) {
			compared++;
			if (version_cmp_str(v[i].version, kmod) != 0)
				bad++;
		}
	if (!compared) {
		f = report_skip(rep, LAYER_DRIVER, "driver.version-match",
			       "driver library versions not compared: no version known for "
			       "the user-space libraries");
		finding_evidence(f, "kernel module %s (%s)", kmod, d->kernel_module_source);
		return;
	}
	if (bad) {
		f = report_add(rep, LAYER_DRIVER, "driver.version-match", CAUSE_DRIVER_LIBRARY_MISMATCH,
			       REACH_WORK,
			       "the driver libraries are not the kernel module's version %s", kmod);
	} else {
		f = report_ok(rep, LAYER_DRIVER, "driver.version-match",
			       "driver libraries match the kernel module (%s)", kmod);
	}
	finding_evidence(f, "kernel module: %s (%s)", kmod, d->kernel_module_source);
	for (int i = 0; i < 3; i++)
		if (v[i].version)
			finding_evidence(f, "%s: %s%s", v[i].what, v[i].version,
					 version_cmp_str(v[i].version, kmod) ? "  <- differs" : "");
	if (d->cuda.compat && d->cuda.version)
		finding_evidence(f, "libcuda.so.1 %s comes from a forward-compatibility "
				 "directory (%s); it is meant to differ", d->cuda.version,
				 d->cuda.realpath ? d->cuda.realpath : d->cuda.path);
	if (bad && (d->cuda.operator_root || d->nvml.operator_root)) {
		finding_fix_cmd(f, "kubectl", "-n", "gpu-operator", "delete", "pod", "-l",
				"app=nvidia-driver-daemonset", "--field-selector", "spec.nodeName=", FIX_GLUE,
				FIX_SH, "$(hostname)", NULL);
		finding_fix_note(f, "the GPU Operator's driver container (" PLATFORM_OPERATOR_ROOT ") is not "
				 "the loaded module's version: restarting its pod on this node reloads the "
				 "module; or drain the node and reboot");
	} else if (bad)
		finding_fix_catalogue(f);
}

static void rules_driver_nvml_failed(const struct rules_in *in, struct report *rep)
{
	const struct nvml_info *n = &in->inv->driver.nvml_live;
	struct finding *f;

	switch (n->outcome) {
	case NVML_CHILD_FAILED:
		f = report_add(rep, LAYER_DRIVER, "driver.nvml", CAUSE_NVML_FAILED, REACH_WORK,
			       "the NVML probe %s", n->child_error);
		finding_evidence(f, "the NVML probe %s while loading %s", n->child_error,
				 n->lib ? n->lib : "libnvidia-ml.so.1");
		if (n->child_stderr)
			finding_evidence(f, "its stderr: %s", n->child_stderr);
		finding_fix(f, "nvidia-smi  # does NVML fail the same way? then check dmesg for "
			    "NVRM/Xid messages and reinstall or reboot into the driver");
		return;
	case NVML_DLOPEN_FAILED:
	case NVML_MISSING_SYMBOL:
		f = report_add(rep, LAYER_DRIVER, "driver.nvml", CAUSE_NVML_FAILED, REACH_WORK,
			       "NVML could not be loaded");
		finding_evidence(f, "%s: %s", n->lib ? n->lib : "libnvidia-ml.so.1",
				 n->error ? n->error : "?");
		finding_fix(f, "reinstall the driver's user-space package (the file is damaged or "
			    "not NVML)");
		return;
	case NVML_INIT_FAILED:
		if (n->init_result == 18) {
			f = report_add(rep, LAYER_DRIVER, "driver.nvml", CAUSE_DRIVER_LIBRARY_MISMATCH,
				       REACH_WORK,
				       "NVML: Driver/library version mismatch");
			finding_evidence(f, "%s", n->error);
			if (in->inv->driver.kernel_module_version)
				finding_evidence(f, "kernel module %s",
						 in->inv->driver.kernel_module_version);
			finding_fix_catalogue(f);
			return;
		}
		f = report_add(rep, LAYER_DRIVER, "driver.nvml", CAUSE_NVML_FAILED, REACH_WORK,
			       "NVML did not initialise");
		finding_evidence(f, "%s, loading %s", n->error, n->lib ? n->lib : "?");
		if (n->init_result == 9)
			finding_fix(f, "sudo modprobe nvidia  # NVML says the driver is not loaded");
		else
			finding_fix_catalogue(f);
		return;
	default:
		return;
	}
}

static void gpu_label(const struct nvml_gpu *g, struct buf *b)
{
	buf_reset(b);
	buf_printf(b, "GPU %d (%s, %s)", g->index, g->name ? g->name : "?",
		   g->bus_id ? g->bus_id : "?");
}

static void rules_driver_gpu(const struct rules_in *in, const struct nvml_gpu *g,
			     struct report *rep)
{
	struct buf lb = BUF_INIT, id = BUF_INIT;
	struct finding *f;

	gpu_label(g, &lb);
	if (g->lost) {
		buf_printf(&id, "driver.gpu.%d.lost", g->index);
		f = report_add(rep, LAYER_DRIVER, id.s, CAUSE_GPU_LOST, REACH_WORK,
			       "%s has fallen off the bus", lb.s);
		for (size_t i = 0; i < g->nerrors; i++)
			if (strstr(g->errors[i], ": 15 "))
				finding_evidence(f, "%s", g->errors[i]);
		finding_fix_catalogue(f);
		buf_release(&lb);
		buf_release(&id);
		return;
	}
	/* The per-GPU summary: one line a person compares with nvidia-smi. */
	buf_reset(&id);
	buf_printf(&id, "driver.gpu.%d", g->index);
	f = report_ok(rep, LAYER_DRIVER, id.s, "%s", lb.s);
	if (g->memory_total >= 0 && g->memory_reserved >= 0)
		finding_evidence(f, "memory %lld / %lld MiB used, %lld MiB reserved by the driver "
				 "(nvmlDeviceGetMemoryInfo_v2)", g->memory_used >> 20,
				 g->memory_total >> 20, g->memory_reserved >> 20);
	else if (g->memory_total >= 0)
		finding_evidence(f, "memory %lld / %lld MiB used (nvmlDeviceGetMemoryInfo: counts "
				 "the driver's reserve as used)", g->memory_used >> 20,
				 g->memory_total >> 20);
	if (g->temperature_c >= 0 || !isnan(g->power_w))
		finding_evidence(f, "temperature %d C, power %.0f / %.0f W, utilisation %d%%",
				 g->temperature_c, g->power_w, g->power_limit_w, g->util_gpu);
	finding_evidence(f, "persistence %s, compute mode %d, MIG %s, ECC %s",
			 g->persistence == 1 ? "on" : g->persistence == 0 ? "off" : "unknown",
			 g->compute_mode, g->mig_mode == 1 ? "on" : g->mig_mode == 0 ? "off" : "unknown",
			 g->ecc_mode == 1 ? "on" : g->ecc_mode == 0 ? "off" : "unknown");
	if (g->uuid)
		finding_evidence(f, "%s", g->uuid);

	/* ECC: uncorrectable now, or memory repair waiting for a reset, or failed. */
	if (g->ecc_volatile_unc > 0 || g->remap_pending > 0 || g->remap_failure > 0 ||
	    g->retired_pending == 1 || g->ecc_aggregate_unc > 0) {
		int fail = g->ecc_volatile_unc > 0 || g->remap_pending > 0 ||
			   g->remap_failure > 0 || g->retired_pending == 1;
		char idx[16];

		buf_reset(&id);
		buf_printf(&id, "driver.gpu.%d.ecc", g->index);
		f = report_add(rep, LAYER_DRIVER, id.s, CAUSE_ECC_ERRORS, fail ? REACH_WORK : REACH_LATENT,
			       "%s reports %s memory errors", lb.s,
			       fail ? "uncorrectable" : "past uncorrectable");
		if (g->ecc_volatile_unc > 0)
			finding_evidence(f, "uncorrectable ECC errors since the driver loaded: %lld",
					 g->ecc_volatile_unc);
		if (g->ecc_aggregate_unc > 0)
			finding_evidence(f, "uncorrectable ECC errors over the GPU's lifetime: %lld",
					 g->ecc_aggregate_unc);
		if (g->retired_pending == 1)
			finding_evidence(f, "retired pages pending (nvmlDeviceGetRetiredPagesPendingStatus)");
		if (g->remap_pending > 0)
			finding_evidence(f, "row remapping pending a GPU reset (nvmlDeviceGetRemappedRows: "
					 "%d uncorrectable rows)", g->remap_unc);
		if (g->remap_failure > 0)
			finding_evidence(f, "row remapping failed (nvmlDeviceGetRemappedRows failureOccurred)");
		snprintf(idx, sizeof(idx), "%d", g->index);
		if (fail) {
			finding_fix_cmd(f, "sudo", "nvidia-smi", "-r", "-i", idx, NULL);
			finding_fix_note(f, "drain the GPU first, or reboot; if it recurs, RMA the card");
		} else {
			finding_fix_cmd(f, "nvidia-smi", "-q", "-d", "ECC", "-i", idx, NULL);
			finding_fix_note(f, "watch the counts: rising uncorrectable errors mean RMA");
		}
	}

	/* Memory held by other processes (gpudoctor's NVML child holds none). */
	if (g->memory_total > 0) {
		long long held = 0, limit = (long long)((double)g->memory_total * HELD_FRACTION);

		for (size_t i = 0; i < g->nprocs; i++)
			if (g->procs[i].used_bytes > 0)
				held += g->procs[i].used_bytes;
		if (held > limit) {
			buf_reset(&id);
			buf_printf(&id, "driver.gpu.%d.memory-held", g->index);
			f = report_add(rep, LAYER_DRIVER, id.s, CAUSE_GPU_MEMORY_HELD, REACH_WORK,
				       "other processes hold %lld MiB (%.0f%%) of %s's memory",
				       held >> 20, 100.0 * (double)held / (double)g->memory_total,
				       lb.s);
			for (size_t i = 0; i < g->nprocs; i++)
				finding_evidence(f, "pid %lld (%s): %lld MiB", g->procs[i].pid,
						 g->procs[i].name ? g->procs[i].name : "name unknown",
						 g->procs[i].used_bytes >= 0 ? g->procs[i].used_bytes >> 20 : -1);
			finding_fix_note(f, "stop pid %lld if it should not run (or use another GPU: "
				    "export CUDA_VISIBLE_DEVICES=<free index>)",
				    g->nprocs ? g->procs[0].pid : -1);
		} else if (g->procs_known && g->nprocs == 0 && g->memory_used > limit) {
			buf_reset(&id);
			buf_printf(&id, "driver.gpu.%d.memory-held", g->index);
			f = report_add(rep, LAYER_DRIVER, id.s, CAUSE_GPU_MEMORY_HELD, REACH_WORK,
				       "%lld MiB (%.0f%%) of %s's memory is in use by processes not "
				       "visible here", g->memory_used >> 20,
				       100.0 * (double)g->memory_used / (double)g->memory_total, lb.s);
			finding_evidence(f, "nvmlDeviceGetMemoryInfo: %lld of %lld MiB used; "
					 "nvmlDeviceGetComputeRunningProcesses lists none (another "
					 "container or PID namespace?)", g->memory_used >> 20,
					 g->memory_total >> 20);
			finding_fix(f, "nvidia-smi  # on the host, to see which process holds it");
		}
	}

	/*
	 * Persistence matters on headless compute GPUs (datacenter cards, servers):
	 * there the driver tears the GPU down between programs.  A GPU driving a
	 * display stays initialised anyway, so it is not flagged.
	 */
	if (g->persistence == 0) {
		const struct kb_gpu *k = (in->kb && g->pci_device_id > 0)
			? kb_gpu_by_pci(in->kb, 0x10de, (unsigned)g->pci_device_id) : NULL;
		int datacenter = k ? k->datacenter : -1;

		if (datacenter == 1 || (datacenter < 0 && g->display_mode == 0)) {
			buf_reset(&id);
			buf_printf(&id, "driver.gpu.%d.persistence", g->index);
			f = report_add(rep, LAYER_DRIVER, id.s, CAUSE_PERSISTENCE_MODE_OFF, REACH_WORK,
				       "persistence mode is off on %s", lb.s);
			finding_evidence(f, "nvmlDeviceGetPersistenceMode: disabled; %s",
					 datacenter == 1 ? "a datacenter GPU"
					 : "no display attached (nvmlDeviceGetDisplayMode: disabled)");
			finding_fix_catalogue(f);
		}
	}
	buf_release(&lb);
	buf_release(&id);
}

/* "CUDA 13.0", or "CUDA version unknown" when NVML gave none (or 0). */
static void driver_cuda_version(const struct nvml_info *n, struct buf *b)
{
	buf_reset(b);
	if (n->cuda_version > 0)
		buf_printf(b, "CUDA %d.%d", n->cuda_version / 1000, (n->cuda_version % 1000) / 10);
	else
		buf_puts(b, "CUDA version unknown");
}

static void rules_driver_nvml(const struct rules_in *in, struct report *rep)
{
	const struct driver_inventory *d = &in->inv->driver;
	const struct nvml_info *n = &d->nvml_live;
	struct buf cv = BUF_INIT;
	struct finding *f;

	if (!d->nvml.path)
		return;
	if (!in->live) {
		f = report_skip(rep, LAYER_DRIVER, "driver.nvml",
			       "NVML not queried: %s", in->ctx->no_load
			       ? "--no-load forbids loading libraries"
			       : "blocked by a failed lower layer");
		finding_evidence(f, "would load %s in an isolated child", d->nvml.path);
		return;
	}
	if (n->outcome != NVML_RAN_OK) {
		rules_driver_nvml_failed(in, rep);
		return;
	}
	driver_cuda_version(n, &cv);
	f = report_ok(rep, LAYER_DRIVER, "driver.nvml",
		       "NVML: driver %s, %s, %d GPU%s", n->driver_version ? n->driver_version : "?",
		       cv.s, n->count, n->count == 1 ? "" : "s");
	finding_evidence(f, "loaded %s in %.0f ms", n->lib ? n->lib : "?", n->seconds * 1000.0);
	if (n->cuda_version < 0)
		finding_evidence(f, n->cuda_version_raw == 0
				 ? "nvmlSystemGetCudaDriverVersion returned 0: no CUDA version (NVML "
				   "takes it from the libcuda.so.1 it finds)"
				 : "nvmlSystemGetCudaDriverVersion gave no answer");
	if (n->error)
		finding_evidence(f, "%s", n->error);
	if (n->missing_optional)
		finding_evidence(f, "this NVML lacks: %s", n->missing_optional);
	for (size_t i = 0; i < n->ngpus; i++)
		rules_driver_gpu(in, &n->gpus[i], rep);
	buf_release(&cv);
}

static void rules_driver_env(const struct rules_in *in, struct report *rep)
{
	const struct driver_inventory *d = &in->inv->driver;
	const struct nvml_info *n = &d->nvml_live;
	const struct driver_envvar *cvd = driver_env_get(d, "CUDA_VISIBLE_DEVICES");
	const struct driver_envvar *nvd = driver_env_get(d, "NVIDIA_VISIBLE_DEVICES");
	struct buf why = BUF_INIT, flagged = BUF_INIT;
	struct finding *f;
	int count = n->outcome == NVML_RAN_OK ? n->count : -1;

	if (cvd) {
		const char *uuids[64], *mig[64 * 8];
		size_t nmig = 0;
		int vis;

		for (size_t i = 0; i < n->ngpus && i < 64; i++) {
			uuids[i] = n->gpus[i].uuid;
			for (size_t k = 0; k < n->gpus[i].nmig_uuids && k < 8; k++)
				mig[nmig++] = n->gpus[i].mig_uuids[k];
		}
		vis = cuda_visible_count_mig(cvd->value, count > 64 ? 64 : count, uuids, mig, nmig,
					     &why);
		if (vis == 0) {
			f = report_add(rep, LAYER_DRIVER, "driver.env-visible", CAUSE_GPU_HIDDEN_BY_ENV,
				       REACH_WORK, "CUDA_VISIBLE_DEVICES hides every GPU");
			finding_evidence(f, "CUDA_VISIBLE_DEVICES=\"%s\": %s", cvd->value, why.s);
			if (count >= 0)
				finding_evidence(f, "NVML sees %d GPU%s", count, count == 1 ? "" : "s");
			finding_fix_catalogue(f);
		} else if (why.len) {
			f = report_add(rep, LAYER_DRIVER, "driver.env-visible", CAUSE_GPU_HIDDEN_BY_ENV,
				       REACH_LATENT,
				       "CUDA_VISIBLE_DEVICES hides GPUs it seems to select");
			finding_evidence(f, "CUDA_VISIBLE_DEVICES=\"%s\": %s; %d GPU%s stay visible",
					 cvd->value, why.s, vis, vis == 1 ? "" : "s");
			finding_fix_note(f, "export CUDA_VISIBLE_DEVICES=<indices that exist, 0..%d>",
				    count > 0 ? count - 1 : 0);
		} else {
			f = report_ok(rep, LAYER_DRIVER, "driver.env-visible",
				       "CUDA_VISIBLE_DEVICES=\"%s\" selects %s", cvd->value,
				       vis < 0 ? "GPUs (count unknown)" : vis == 1 ? "1 GPU" : "GPUs");
			if (vis > 0 && count >= 0)
				finding_evidence(f, "%d of %d GPUs visible to CUDA", vis, count);
		}
	}
	if (nvd && (!*nvd->value || !strcmp(nvd->value, "void") || !strcmp(nvd->value, "none"))) {
		f = report_add(rep, LAYER_DRIVER, "driver.env-nvidia-visible", CAUSE_GPU_HIDDEN_BY_ENV,
			       REACH_LATENT,
			       "NVIDIA_VISIBLE_DEVICES=\"%s\" gives containers no GPU", nvd->value);
		finding_evidence(f, "the NVIDIA container runtime reads NVIDIA_VISIBLE_DEVICES when a "
				 "container starts: \"void\" or empty injects nothing, \"none\" only "
				 "the driver libraries");
		finding_fix(f, "start the container with NVIDIA_VISIBLE_DEVICES=all (or --gpus all)");
	}
	for (size_t i = 0; i < d->nenv; i++)
		if (d->env[i].flagged)
			buf_printf(&flagged, "%s%s", flagged.len ? " " : "", d->env[i].name);
	if (flagged.len) {
		f = report_add(rep, LAYER_DRIVER, "driver.env-debug", CAUSE_CUDA_DEBUG_ENV_SET, REACH_WORK,
			       "CUDA debugging variables are set: %s", flagged.s);
		for (size_t i = 0; i < d->nenv; i++)
			if (d->env[i].flagged)
				finding_evidence(f, "%s=%s: %s", d->env[i].name, d->env[i].value,
						 d->env[i].effect);
		finding_evidence(f, "meanings: NVIDIA CUDA Programming Guide, \"CUDA Environment "
				 "Variables\"");
		{
			const char **words = xcalloc(d->nenv + 2, sizeof(*words));
			size_t nw = 0;

			words[nw++] = "unset";
			for (size_t i = 0; i < d->nenv; i++)
				if (d->env[i].flagged)
					words[nw++] = d->env[i].name;
			finding_fix_argv(f, words);
			free(words);
		}
	}
	buf_release(&why);
	buf_release(&flagged);
}

/*
 * The version part of the summary: "580.159.04 (libcuda, NVML and the kernel
 * module agree)", or each source's version when they differ.
 */
static void summary_versions(const struct driver_inventory *d, struct buf *b)
{
	const char *nvml = d->nvml_live.driver_version ? d->nvml_live.driver_version
			   : d->nvml.version;
	struct {
		const char *what, *version;
	} v[3] = {
		{ "libcuda", d->cuda.compat ? NULL : d->cuda.version },
		{ "NVML", nvml },
		{ "the kernel module", d->kernel_module_version },
	};
	const char *first = NULL, *names[3];
	int n = 0, differ = 0;

	for (int i = 0; i < 3; i++) {
		if (!v[i].version)
			continue;
		if (!first)
			first = v[i].version;
		else if (version_cmp_str(v[i].version, first) != 0)
			differ = 1;
		names[n++] = v[i].what;
	}
	if (!n) {
		buf_puts(b, "driver version unknown");
	} else if (differ) {
		buf_puts(b, "versions differ:");
		for (int i = 0, k = 0; i < 3; i++)
			if (v[i].version)
				buf_printf(b, "%s %s %s", k++ ? "," : "", v[i].what, v[i].version);
	} else if (n == 1) {
		buf_printf(b, "%s (from %s only)", first, names[0]);
	} else {
		buf_printf(b, "%s (%s%s%s and %s agree)", first, names[0], n == 3 ? ", " : "",
			   n == 3 ? names[1] : "", names[n - 1]);
	}
	if (d->cuda.compat && d->cuda.version)
		buf_printf(b, ", libcuda %s from a forward-compatibility package", d->cuda.version);
}

/* The driver does not list the GPU's id but supports its chip: it binds the
 * GPU, without NVIDIA's support (docs/knowledge.md, "Supported lists"). */
static void rules_driver_unlisted_gpu(const struct rules_in *in, struct report *rep, const struct hw_pci_fn *p,
				      const struct kb_gpu *g, const struct kb_verdict *v)
{
	const char *drv = in->inv->driver.version, *first = kb_gpu_first_driver(in->kb, g), *url;
	const char *last = kb_gpu_last_driver(in->kb, g->device);
	struct buf id = BUF_INIT;
	struct finding *f;

	buf_printf(&id, "driver.knows-gpu.%s", p->bdf);
	f = report_add(rep, LAYER_DRIVER, id.s, CAUSE_GPU_NOT_OFFICIALLY_SUPPORTED, REACH_WORK,
		       "driver %s does not list GPU %s (%s, PCI id 10de:%04x): not officially supported", drv,
		       p->bdf, g->name, g->device);
	buf_release(&id);
	finding_evidence(f, "/sys/bus/pci/devices/%s: 10de:%04lx (%s, chip %s)", p->bdf, p->device, g->name,
			 g->chip ? g->chip : "?");
	finding_evidence(f, "%s", v->why);
	url = v->source ? kb_source_url(in->kb, v->source) : NULL;
	if (v->source)
		finding_evidence(f, "source: %s%s%s", v->source, url ? " " : "", url ? url : "");
	if (last && version_cmp_str(drv, last) > 0)
		/* NVIDIA stopped listing the id: no newer driver will */
		finding_fix_note(f, "nothing is needed for the GPU to work; for a pairing NVIDIA supports, use the "
				 "R%.*s branch, the last that lists 10de:%04x (%s)", (int)strcspn(last, "."), last,
				 g->device, last);
	else
		finding_fix_note(f, "install a driver that lists 10de:%04x (%s or newer), e.g. the distribution's "
				 "current nvidia-driver package", g->device, first ? first : "the current release");
}

/*
 * Does the driver bind each NVIDIA GPU?  The first driver per PCI device id
 * (gpu_drivers.tsv), else per architecture, and the architecture's last
 * branch (kb_driver_knows_gpu).  A no is a failure on the path of all work:
 * the driver that runs does not bind the GPU.  An unknown says nothing.
 */
static void rules_driver_knows_gpus(const struct rules_in *in, struct report *rep)
{
	const struct hw_inventory *hw = &in->inv->hw;
	const char *drv = in->inv->driver.version;

	if (!drv || !in->kb)
		return;
	for (size_t i = 0; i < hw->ngpus; i++) {
		const struct hw_pci_fn *p = &hw->gpus[i];
		const struct kb_gpu *g = p->vendor == 0x10de && p->device >= 0
			? kb_gpu_by_pci(in->kb, 0x10de, (unsigned)p->device) : NULL;
		const struct kb_arch *a = g ? kb_arch_info(in->kb, g->cc_major, g->cc_minor) : NULL;
		const char *names = g ? kb_gpu_driver_names(in->kb, g->device) : NULL;
		const char *url, *first;
		struct kb_verdict v;
		struct version dv;
		int too_new, nlen;
		struct buf id = BUF_INIT;
		struct finding *f;

		memset(&v, 0, sizeof(v));
		if (!g)
			continue;
		if (kb_driver_knows_gpu(in->kb, drv, g, -1, -1, &v) != 0) {
			if (v.ok == -1 && v.via == KB_VIA_UNLISTED)
				rules_driver_unlisted_gpu(in, rep, p, g, &v);
			continue;
		}
		too_new = a && a->last_branch >= 0 && version_parse(drv, &dv) == 0 && dv.part[0] > a->last_branch;
		nlen = names ? (int)strcspn(names, "|") : (int)strlen(g->name);
		buf_printf(&id, "driver.knows-gpu.%s", p->bdf);
		if (too_new)
			f = report_add(rep, LAYER_DRIVER, id.s, CAUSE_DRIVER_TOO_NEW_FOR_GPU, REACH_WORK,
				       "driver %s no longer supports GPU %s (%.*s, %s): R%d was the last branch for it",
				       drv, p->bdf, nlen, names ? names : g->name, a->arch ? a->arch : "?",
				       a->last_branch);
		else
			f = report_add(rep, LAYER_DRIVER, id.s, CAUSE_DRIVER_TOO_OLD_FOR_GPU, REACH_WORK,
				       "driver %s does not know GPU %s (%.*s, PCI id 10de:%04x)", drv, p->bdf, nlen,
				       names ? names : g->name, g->device);
		buf_release(&id);
		finding_evidence(f, "/sys/bus/pci/devices/%s: 10de:%04lx (%s, sm_%d%d), bound to %s", p->bdf, p->device,
				 g->name, g->cc_major, g->cc_minor, p->driver ? p->driver : "no driver");
		finding_evidence(f, "driver %s (%s)", drv, in->inv->driver.version_source ?
				 in->inv->driver.version_source : "?");
		finding_evidence(f, "%s", v.why);
		url = v.source ? kb_source_url(in->kb, v.source) : NULL;
		if (v.source)
			finding_evidence(f, "source: %s%s%s", v.source, url ? " " : "", url ? url : "");
		first = kb_gpu_first_driver(in->kb, g);
		if (too_new)
		{
			char pkg[40];

			snprintf(pkg, sizeof(pkg), "nvidia-driver-%d", a->last_branch);
			finding_fix_cmd(f, "sudo", "apt-get", "install", pkg, FIX_AND, "sudo", "apt-mark", "hold",
					pkg, NULL);
			finding_fix_note(f, "R%d is the last driver branch for %s; hold it", a->last_branch,
					 a->arch ? a->arch : "this architecture");
		}
		else
			finding_fix_note(f, "install NVIDIA driver %s or newer (the first that lists 10de:%04x), e.g. "
					 "the distribution's current nvidia-driver package", first ? first : "?",
					 g->device);
	}
}

/* One line for the layer: versions, CUDA version, GPU count (or what was not run). */
static void rules_driver_summary(const struct rules_in *in, struct report *rep)
{
	const struct driver_inventory *d = &in->inv->driver;
	const struct nvml_info *n = &d->nvml_live;
	struct buf b = BUF_INIT, cv = BUF_INIT;

	if (!d->cuda.path)
		buf_puts(&b, "libcuda.so.1 not found");
	else if (d->cuda.stub_reason)
		buf_puts(&b, "libcuda.so.1 is the CUDA toolkit's stub");
	else
		summary_versions(d, &b);
	if (!d->nvml.path) {
		buf_puts(&b, "; NVML not found");
	} else if (!in->live) {
		buf_printf(&b, "; NVML not queried (%s)", in->ctx->no_load ? "--no-load"
			   : "a lower layer failed");
	} else if (n->outcome == NVML_RAN_OK) {
		driver_cuda_version(n, &cv);
		if (n->count >= 0)
			buf_printf(&b, ", %s, %d GPU%s", cv.s, n->count, n->count == 1 ? "" : "s");
		else
			buf_printf(&b, ", %s, GPU count unknown", cv.s);
	} else {
		buf_puts(&b, "; NVML failed");
	}
	report_set_summary(rep, LAYER_DRIVER, "%s", b.s);
	buf_release(&b);
	buf_release(&cv);
}

void rules_driver(const struct rules_in *in, struct report *rep)
{
	rules_driver_libs(in, rep);
	rules_platform_operator(in, rep);
	rules_driver_nvml(in, rep);
	rules_driver_versions(in, rep);
	rules_driver_env(in, rep);
	rules_driver_knows_gpus(in, rep);
	rules_mig(in, rep);
	rules_fabric(in, rep);
	rules_driver_summary(in, rep);
}
