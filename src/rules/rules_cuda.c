/*
 * rules_cuda.c - verdicts for the cuda layer: cuInit's CUresult mapped to its
 * cause (curesult.h), the device list, and the embedded PTX kernel's result on
 * every device.  Reads inv->cuda (and the environment the driver layer
 * recorded) only.
 */
#include "rules/rules.h"
#include "core/buf.h"
#include "core/ctx.h"
#include "knowledge/causes.h"
#include "knowledge/curesult.h"
#include "inventory/inventory.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The fix for a CUresult, made for this machine where we can. */
static void cuda_fix(struct finding *f, int code)
{
	if (code == 999)
		finding_fix(f, "lsmod | grep nvidia_uvm || sudo modprobe nvidia_uvm; ls -l /dev/nvidia-uvm "
			    "|| sudo nvidia-modprobe -u -c 0; after suspend/resume: sudo rmmod nvidia_uvm "
			    "&& sudo modprobe nvidia_uvm");
	else if (code == 100)
		finding_fix(f, "ls -l /dev/nvidia*; nvidia-smi -L  # no device nodes or no GPU: "
			    "in a container, run it with --gpus all");
	else if (code == 46)
		finding_fix(f, "nvidia-smi -q -d COMPUTE  # Exclusive_Process with another process, or "
			    "Prohibited: sudo nvidia-smi -c DEFAULT -i N");
	else if (code == 2)
		finding_fix(f, "nvidia-smi  # find the process holding the memory, or use another GPU");
	else
		finding_fix_catalogue(f);
}

static void cuda_result_evidence(struct finding *f, const char *call, int code, const char *lib)
{
	const struct curesult *c = curesult_lookup(code);

	finding_evidence(f, "%s returned %d (%s)%s%s", call, code, curesult_name(code),
			 lib ? ", loading " : "", lib ? lib : "");
	if (c && c->hint)
		finding_evidence(f, "%s", c->hint);
}

static void rules_cuda_init(const struct rules_in *in, struct report *rep)
{
	const struct cuda_inventory *c = &in->inv->cuda;
	const struct driver_envvar *cvd = driver_env_get(&in->inv->driver, "CUDA_VISIBLE_DEVICES");
	const struct curesult *cr = curesult_lookup(c->init_result);
	enum cause_id cause = cr && cr->cause ? cr->cause : CAUSE_CUDA_INIT_FAILED;
	struct finding *f;

	if (c->init_result == 100 && cvd)
		cause = CAUSE_GPU_HIDDEN_BY_ENV;
	f = report_add(rep, LAYER_CUDA, "cuda.init", cause, REACH_WORK, "cuInit failed: %s",
		       curesult_name(c->init_result));
	cuda_result_evidence(f, "cuInit(0)", c->init_result, c->lib);
	if (!isnan(c->init_ms))
		finding_evidence(f, "cuInit took %.1f ms", c->init_ms);
	if (c->driver_version > 0)
		finding_evidence(f, "cuDriverGetVersion: %d.%d", c->driver_version / 1000,
				 (c->driver_version % 1000) / 10);
	if (cvd && c->init_result == 100) {
		finding_evidence(f, "CUDA_VISIBLE_DEVICES=\"%s\"", cvd->value);
		finding_fix_catalogue(f);
		return;
	}
	cuda_fix(f, c->init_result);
}

static void rules_cuda_device(const struct rules_in *in, const struct cuda_device *d,
			      struct report *rep)
{
	const struct cuda_inventory *c = &in->inv->cuda;
	struct buf id = BUF_INIT, lb = BUF_INIT;
	struct finding *f;

	buf_printf(&id, "cuda.device.%d", d->index);
	buf_printf(&lb, "device %d (%s, cc %d.%d, %d SMs, %.1f GiB, %s)", d->index,
		   d->name ? d->name : "?", d->cc_major, d->cc_minor, d->sm_count,
		   d->memory_bytes >= 0 ? (double)d->memory_bytes / (1024.0 * 1024 * 1024) : NAN,
		   d->bus_id ? d->bus_id : "?");
	if (d->kernel_ok == 1) {
		f = report_ok(rep, LAYER_CUDA, id.s,
			       "%s: the PTX kernel ran and its result is exact", lb.s);
		finding_evidence(f, "context %.1f ms, module JIT %.1f ms, copy+kernel+copy %.1f ms",
				 d->context_ms, d->module_ms, d->kernel_ms);
	} else if (d->fail_call) {
		const struct curesult *cr = curesult_lookup(d->fail_result);
		enum cause_id cause = cr && cr->cause ? cr->cause : CAUSE_GPU_COMPUTE_FAILED;

		/* A context or an allocation refused on one GPU: another process
		   holds it (its memory, or its Exclusive_Process context). */
		if (d->fail_result == 2)
			cause = CAUSE_GPU_MEMORY_HELD;
		else if (d->fail_result == 46)
			cause = CAUSE_GPU_EXCLUSIVE_BUSY;

		f = report_add(rep, LAYER_CUDA, id.s, cause, REACH_WORK,
			       "%s: %s failed", lb.s, d->fail_call);
		cuda_result_evidence(f, d->fail_call, d->fail_result, c->lib);
		cuda_fix(f, d->fail_result);
	} else if (d->mismatch) {
		f = report_add(rep, LAYER_CUDA, id.s, CAUSE_GPU_COMPUTE_FAILED, REACH_WORK,
			       "%s: the PTX kernel ran but its result is wrong", lb.s);
		finding_evidence(f, "out[i] = in[i] * a + b: %s", d->mismatch);
		finding_fix_catalogue(f);
	} else {
		f = report_add(rep, LAYER_CUDA, id.s, CAUSE_GPU_COMPUTE_FAILED, REACH_WORK,
			       "%s: the kernel check did not complete", lb.s);
		finding_evidence(f, "the probe reported no kernel result for this device");
		finding_fix_catalogue(f);
	}
	buf_release(&id);
	buf_release(&lb);
}

/* "CUDA 13.0" or "CUDA version unknown", from cuDriverGetVersion. */
static void cuda_version_str(const struct cuda_inventory *c, struct buf *b)
{
	if (c->driver_version > 0)
		buf_printf(b, "CUDA %d.%d", c->driver_version / 1000, (c->driver_version % 1000) / 10);
	else
		buf_puts(b, "CUDA version unknown");
}

/* One line for the layer: what ran and how it ended, or why nothing ran. */
static void rules_cuda_summary(const struct rules_in *in, struct report *rep)
{
	const struct cuda_inventory *c = &in->inv->cuda;
	struct buf b = BUF_INIT;
	size_t bad = 0;

	if (!in->live) {
		buf_printf(&b, "CUDA driver API not exercised (%s)", in->ctx->no_load
			   ? "--no-load" : "a lower layer failed");
	} else if (c->outcome == CUDA_NOT_RUN) {
		buf_puts(&b, "CUDA driver API not exercised: no libcuda.so.1");
	} else if (c->outcome == CUDA_CHILD_FAILED) {
		buf_printf(&b, "the CUDA probe %s", c->child_error ? c->child_error : "failed");
	} else if (c->outcome != CUDA_RAN) {
		buf_puts(&b, "libcuda.so.1 could not be loaded");
	} else if (c->init_result != 0) {
		buf_printf(&b, "cuInit failed: %s (%d)", curesult_name(c->init_result), c->init_result);
	} else if (c->device_count <= 0) {
		cuda_version_str(c, &b);
		buf_puts(&b, ", cuInit ok but no device");
	} else {
		for (size_t i = 0; i < c->ndevices; i++)
			if (c->devices[i].kernel_ok != 1)
				bad++;
		cuda_version_str(c, &b);
		buf_printf(&b, ", %d device%s; ", c->device_count, c->device_count == 1 ? "" : "s");
		if (!bad)
			buf_printf(&b, "the PTX kernel ran exactly on %s", c->ndevices == 1
				   ? "the device" : "every device");
		else
			buf_printf(&b, "the PTX kernel failed on %zu of %zu device%s", bad, c->ndevices,
				   c->ndevices == 1 ? "" : "s");
		if (!isnan(c->init_ms))
			buf_printf(&b, " (cuInit %.0f ms)", c->init_ms);
	}
	report_set_summary(rep, LAYER_CUDA, "%s", b.s);
	buf_release(&b);
}

static void rules_cuda_findings(const struct rules_in *in, struct report *rep);

void rules_cuda(const struct rules_in *in, struct report *rep)
{
	rules_cuda_findings(in, rep);
	rules_cuda_summary(in, rep);
}

static void rules_cuda_findings(const struct rules_in *in, struct report *rep)
{
	const struct cuda_inventory *c = &in->inv->cuda;
	const struct driver_lib *lib = &in->inv->driver.cuda;
	struct finding *f;

	if (!in->live) {
		f = report_skip(rep, LAYER_CUDA, "cuda.init",
			       "CUDA driver API not exercised: %s", in->ctx->no_load
			       ? "--no-load forbids loading libraries"
			       : "blocked by a failed lower layer");
		if (lib->path)
			finding_evidence(f, "would load %s in an isolated child", lib->path);
		return;
	}
	switch (c->outcome) {
	case CUDA_NOT_RUN:
		f = report_skip(rep, LAYER_CUDA, "cuda.init",
			       "CUDA driver API not exercised: no libcuda.so.1 to load");
		finding_evidence(f, "see the driver layer");
		return;
	case CUDA_CHILD_FAILED:
		f = report_add(rep, LAYER_CUDA, "cuda.init", CAUSE_CUDA_INIT_FAILED, REACH_WORK,
			       "the CUDA probe %s", c->child_error);
		finding_evidence(f, "the CUDA probe %s while %s %s", c->child_error,
				 c->init_result >= 0 ? "running kernels with" : "loading or initialising",
				 c->lib ? c->lib : "libcuda.so.1");
		if (c->init_result >= 0)
			finding_evidence(f, "cuInit had returned %d (%s)", c->init_result,
					 curesult_name(c->init_result));
		if (c->child_stderr)
			finding_evidence(f, "its stderr: %s", c->child_stderr);
		finding_fix(f, "sudo dmesg | grep -iE 'NVRM|Xid'  # then reinstall the driver or reboot");
		return;
	case CUDA_DLOPEN_FAILED:
	case CUDA_MISSING_SYMBOL:
		f = report_add(rep, LAYER_CUDA, "cuda.init", CAUSE_CUDA_INIT_FAILED, REACH_WORK,
			       "libcuda.so.1 could not be loaded");
		finding_evidence(f, "%s: %s", c->lib ? c->lib : "libcuda.so.1", c->error ? c->error : "?");
		finding_fix(f, "reinstall the driver's CUDA library (libnvidia-compute-<branch>)");
		return;
	case CUDA_RAN:
		break;
	}
	if (c->init_result != 0) {
		rules_cuda_init(in, rep);
		return;
	}
	if (c->device_count <= 0) {
		f = report_add(rep, LAYER_CUDA, "cuda.init", CAUSE_CUDA_INIT_FAILED, REACH_WORK,
			       "cuInit succeeded but CUDA lists no device");
		if (c->count_result >= 0)
			cuda_result_evidence(f, "cuDeviceGetCount", c->count_result, c->lib);
		else
			finding_evidence(f, "cuDeviceGetCount: %d", c->device_count);
		finding_fix_catalogue(f);
		return;
	}
	{
		struct buf v = BUF_INIT;

		if (c->driver_version > 0)
			buf_printf(&v, "%d.%d", c->driver_version / 1000,
				   (c->driver_version % 1000) / 10);
		else
			buf_puts(&v, "version unknown");
		f = report_ok(rep, LAYER_CUDA, "cuda.init",
			       "cuInit ok in %.0f ms: CUDA driver %s, %d device%s", c->init_ms, v.s,
			       c->device_count, c->device_count == 1 ? "" : "s");
		buf_release(&v);
	}
	finding_evidence(f, "loaded %s", c->lib ? c->lib : "?");
	for (size_t i = 0; i < c->ndevices; i++)
		rules_cuda_device(in, &c->devices[i], rep);
}
