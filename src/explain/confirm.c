/*
 * confirm.c - judging a log's cause against this machine's facts; see
 * confirm.h.  Reads nothing: the report, the inventory and the soname
 * answers were collected before.
 */
#include "explain/confirm.h"

#include "core/shquote.h"
#include "core/xalloc.h"
#include "explain/logdecode.h"
#include "knowledge/causes.h"
#include "inventory/inventory.h"
#include "report/report.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*
 * The causes that check's rules (src/rules/) can report: for these, a
 * layer judged without the cause means "not reproduced".  Anything else
 * has no test here and stays "cannot tell" unless a captured value says
 * more.  Keep in step with src/rules/ (tests/e2e/test_catalogue.py checks).
 */
static const enum cause_id checkable[] = {
	CAUSE_NO_NVIDIA_GPU, CAUSE_GPU_BOUND_TO_OTHER_DRIVER, CAUSE_PCIE_LINK_DEGRADED, CAUSE_NOUVEAU_LOADED,
	CAUSE_NVIDIA_MODULE_NOT_LOADED, CAUSE_SECURE_BOOT_BLOCKS_MODULE, CAUSE_MODULE_MISSING_FOR_KERNEL,
	CAUSE_UVM_MODULE_NOT_LOADED, CAUSE_DEVICE_NODE_MISSING, CAUSE_DEVICE_NODE_PERMISSION,
	CAUSE_DRIVER_LIBRARY_MISMATCH, CAUSE_LIBCUDA_MISSING, CAUSE_LIBCUDA_STUB_ON_PATH, CAUSE_NVML_MISSING,
	CAUSE_NVML_FAILED, CAUSE_GPU_HIDDEN_BY_ENV, CAUSE_CUDA_DEBUG_ENV_SET, CAUSE_GPU_MEMORY_HELD,
	CAUSE_PERSISTENCE_MODE_OFF, CAUSE_ECC_ERRORS, CAUSE_GPU_LOST, CAUSE_CUDA_INIT_FAILED,
	CAUSE_FABRIC_MANAGER_NOT_RUNNING, CAUSE_COMPAT_LIB_ON_UNSUPPORTED_GPU, CAUSE_GPU_COMPUTE_FAILED,
	CAUSE_CUDA_RUNTIME_MISSING, CAUSE_CUDA_RUNTIME_TOO_NEW_FOR_DRIVER, CAUSE_CUDNN_MISSING,
	CAUSE_CUDNN_VERSION_MISMATCH, CAUSE_CUDNN_INCOMPLETE, CAUSE_LIB_UNREADABLE, CAUSE_LIB_CORRUPT,
	CAUSE_LIB_SHADOWED, CAUSE_LIB_DEPENDENCY_MISSING, CAUSE_CUDA_SYMLINK_BROKEN, CAUSE_LDCACHE_STALE,
	CAUSE_PRELOAD_BROKEN, CAUSE_NCCL_MISSING, CAUSE_FRAMEWORK_CPU_ONLY, CAUSE_FRAMEWORK_CUDA_MISMATCH,
	CAUSE_FRAMEWORK_DRIVER_TOO_OLD, CAUSE_GPU_ARCH_UNSUPPORTED, CAUSE_FRAMEWORK_PYTHON_UNSUPPORTED,
	CAUSE_LIB_OFF_SEARCH_PATH, CAUSE_LIB_ROOT_ONLY, CAUSE_LIB_VERSION_CONFLICT,
	CAUSE_CONTAINER_RUNTIME_MISSING, CAUSE_CONTAINER_TOOLKIT_MISSING, CAUSE_CONTAINER_CONFIG_INVALID,
	CAUSE_CONTAINER_GPU_NOT_REQUESTED, CAUSE_CONTAINER_CAPS_MISSING_COMPUTE,
	CAUSE_CONTAINER_REQUIREMENT_UNSATISFIED, CAUSE_CONTAINER_DEVICE_REVOKED,
	CAUSE_CONTAINER_DRIVER_LIBS_MISMATCH, CAUSE_IMAGE_SHIPS_LIBCUDA, CAUSE_CUDA_COMPAT_UNUSABLE,
	CAUSE_SHM_TOO_SMALL, CAUSE_MEMLOCK_LIMITED, CAUSE_CDI_SPEC_STALE, CAUSE_CDI_SPEC_DUPLICATE_DEVICE,
	CAUSE_DEV_CHAR_LINKS_MISSING, CAUSE_GPU_EXCLUSIVE_BUSY,
	CAUSE_PTX_TOO_NEW_FOR_DRIVER, CAUSE_DRIVER_TOO_OLD_FOR_GPU, CAUSE_DRIVER_TOO_NEW_FOR_GPU,
	CAUSE_GPU_NOT_OFFICIALLY_SUPPORTED,
	CAUSE_CUDNN_NO_KERNEL_FOR_ARCH,
	/* MIG, NVSwitch systems, the PCIe platform (rules_mig.c, rules_fabric.c, rules_pcie.c) */
	CAUSE_MIG_ENABLED_NO_INSTANCES, CAUSE_MIG_MODE_PENDING_RESET, CAUSE_MIG_VISIBLE_DEVICES_PARENT,
	CAUSE_FABRIC_MANAGER_VERSION_MISMATCH, CAUSE_PCIE_ACS_BLOCKS_P2P, CAUSE_PCIE_BAR1_UNMAPPED,
	/* platforms (rules/rules_platform.c) */
	CAUSE_WSL1_NO_GPU, CAUSE_WSL_LINUX_DRIVER_IN_WSL, CAUSE_WSL_LIB_NOT_ON_LOADER_PATH,
	CAUSE_WSL_WINDOWS_DRIVER_TOO_OLD, CAUSE_KERNEL_LOCKDOWN_BLOCKS_MODULE, CAUSE_GPU_OPERATOR_NOT_READY,
	CAUSE_CONDA_CUDA_MIXED,
};

/* Causes a "cannot open shared object file" for a captured soname confirms. */
static const enum cause_id soname_causes[] = {
	CAUSE_CUDNN_MISSING, CAUSE_CUDA_RUNTIME_MISSING, CAUSE_NCCL_MISSING, CAUSE_LIBCUDA_MISSING,
	CAUSE_LIB_DEPENDENCY_MISSING, CAUSE_LIB_OFF_SEARCH_PATH, CAUSE_FRAMEWORK_CUDA_MISMATCH, CAUSE_NVML_MISSING,
};

static int in_list(const enum cause_id *list, size_t n, enum cause_id c)
{
	for (size_t i = 0; i < n; i++)
		if (list[i] == c)
			return 1;
	return 0;
}

int confirm_checkable(enum cause_id cause)
{
	return in_list(checkable, sizeof(checkable) / sizeof(checkable[0]), cause);
}

static void ev(struct xcause *xc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ev(struct xcause *xc, const char *fmt, ...)
{
	va_list ap;

	xc->evidence = xrealloc(xc->evidence, (xc->nevidence + 1) * sizeof(*xc->evidence));
	va_start(ap, fmt);
	xc->evidence[xc->nevidence++] = xvasprintf(fmt, ap);
	va_end(ap);
}

static const char *cap_value(const struct logmatch_hit *h, const char *name)
{
	for (size_t k = 0; h && k < h->rule->ncaps; k++)
		if (!strcmp(h->rule->capnames[k], name) && h->caps[k] && *h->caps[k])
			return h->caps[k];
	return NULL;
}

static void set_fix(struct xcause *xc, const char *fix, int machine)
{
	free(xc->fix);
	xc->fix = fix ? xstrdup(fix) : NULL;
	xc->fix_is_machine = machine && fix;
}

static int by_finding(const struct confirm_in *ci, struct xcause *xc)
{
	for (size_t i = 0; i < ci->rep->n; i++) {
		const struct finding *f = &ci->rep->findings[i];

		if (f->cause != xc->cause ||
		    (f->status != STATUS_WARN && f->status != STATUS_FAIL))
			continue;
		xc->conf = XC_CONFIRMED;
		ev(xc, "check (%s layer): %s", layer_name(f->layer), f->title);
		for (size_t k = 0; k < f->nevidence && k < 3; k++)
			ev(xc, "%s", f->evidence[k]);
		if (f->fix)
			set_fix(xc, f->fix, 1);
		return 1;
	}
	return 0;
}

static int by_soname(const struct confirm_in *ci, const struct logmatch_hit *h, struct xcause *xc)
{
	const char *so = cap_value(h, "soname");

	if (!so || !in_list(soname_causes, sizeof(soname_causes) / sizeof(soname_causes[0]), xc->cause))
		return 0;
	for (size_t i = 0; i < ci->nsonames; i++) {
		const struct confirm_soname *s = &ci->sonames[i];

		if (strcmp(s->soname, so))
			continue;
		if (s->error) {
			ev(xc, "%s: the loader's search could not be emulated here: %s", so, s->error);
			return 0;
		}
		if (s->path) {
			xc->conf = XC_NOT_REPRODUCED;
			ev(xc, "%s: the loader finds %s here (via %s)", so, s->path, s->how ? s->how : "?");
			ev(xc, "the log may come from another machine, container or environment "
			       "(or from a program with its own RPATH)");
			return 1;
		}
		xc->conf = XC_CONFIRMED;
		ev(xc, "%s: not on the loader's path here (LD_LIBRARY_PATH, ld.so.cache, default "
		       "directories)", so);
		for (size_t k = 0; k < s->ncopies && k < 4; k++)
			ev(xc, "found at %s, in a directory the loader does not search", s->copies[k]);
		if (s->ncopies) {
			char *dir = xstrdup(s->copies[0]), *slash = strrchr(dir, '/'), *fix;

			if (slash && slash != dir)
				*slash = 0;
			fix = xasprintf("export LD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}", shq(dir));
			set_fix(xc, fix, 1);
			free(fix);
			free(dir);
		}
		return 1;
	}
	return 0;
}

static int by_pci(const struct confirm_in *ci, const struct logmatch_hit *h, struct xcause *xc)
{
	const char *v = cap_value(h, "pci");
	const struct inventory *inv = ci->inv;
	char bdf[32];

	if (!v || logdecode_pci(v, bdf, sizeof(bdf)) < 0 || !inv->hw.probed || inv->hw.error)
		return 0;
	for (size_t i = 0; i < inv->hw.ngpus; i++) {
		const struct hw_pci_fn *g = &inv->hw.gpus[i];

		if (!g->bdf || strcasecmp(g->bdf, bdf))
			continue;
		ev(xc, "%s is an NVIDIA GPU here (device 0x%04lx, driver %s)", bdf, g->device,
		   g->driver ? g->driver : "none bound");
		for (size_t k = 0; k < inv->driver.nvml_live.ngpus; k++) {
			const struct nvml_gpu *n = &inv->driver.nvml_live.gpus[k];

			if (n->bus_id && strcasestr(n->bus_id, bdf + 5) && n->lost) {
				xc->conf = XC_CONFIRMED;
				ev(xc, "NVML: GPU %d (%s) is lost", n->index, n->name ? n->name : "?");
				return 1;
			}
		}
		return 0;	/* the layer rules decide the rest */
	}
	xc->conf = XC_NOT_REPRODUCED;
	ev(xc, "there is no NVIDIA GPU at %s here (%zu listed): the log comes from another machine",
	   bdf, inv->hw.ngpus);
	return 1;
}

static int by_driver_int(const struct confirm_in *ci, const struct logmatch_hit *h,
			 struct xcause *xc)
{
	const char *v = cap_value(h, "driver_int");
	const struct inventory *inv = ci->inv;
	int here = inv->driver.nvml_live.cuda_version > 0 ? inv->driver.nvml_live.cuda_version :
							       inv->cuda.driver_version;
	long logv;

	if (!v || here <= 0)
		return 0;
	logv = logdecode_number(v);
	if (logv <= 0)
		return 0;
	if (logv == here) {
		xc->conf = XC_CONFIRMED;
		ev(xc, "the driver here also supports CUDA %d.%d at most", here / 1000, (here % 1000) / 10);
		return 1;
	}
	xc->conf = XC_NOT_REPRODUCED;
	ev(xc, "the driver here supports CUDA %d.%d; the log's driver supported %ld.%ld", here / 1000,
	   (here % 1000) / 10, logv / 1000, (logv % 1000) / 10);
	return 1;
}

static int by_cc(const struct confirm_in *ci, const struct logmatch_hit *h, struct xcause *xc)
{
	const char *v = cap_value(h, "sm");
	const struct inventory *inv = ci->inv;
	int a, b, any = 0;
	struct buf here = BUF_INIT;

	if (!v)
		v = cap_value(h, "cc");
	if (!v || xc->cause != CAUSE_GPU_ARCH_UNSUPPORTED || logdecode_cc(v, &a, &b) < 0)
		return 0;
	for (size_t i = 0; i < inv->cuda.ndevices; i++) {
		const struct cuda_device *d = &inv->cuda.devices[i];

		if (d->cc_major < 0)
			continue;
		if (d->cc_major == a && d->cc_minor == b)
			any = 1;
		buf_printf(&here, "%s%s (%d.%d)", here.len ? ", " : "", d->name ? d->name : "GPU",
			   d->cc_major, d->cc_minor);
	}
	if (!here.len) {
		buf_release(&here);
		return 0;
	}
	if (!any) {
		xc->conf = XC_NOT_REPRODUCED;
		ev(xc, "the GPUs here are %s; the log's GPU has compute capability %d.%d", here.s, a, b);
	} else {
		ev(xc, "a GPU here has compute capability %d.%d too: %s", a, b, here.s);
	}
	buf_release(&here);
	return !any;
}

void confirm_cause(const struct confirm_in *ci, const struct logmatch_hit *h, struct xcause *xc)
{
	const struct cause *c = cause_get(xc->cause);
	enum status ls;

	set_fix(xc, c ? c->fix : NULL, 0);
	if (!ci) {
		xc->conf = XC_NOT_CHECKED;
		return;
	}
	xc->conf = XC_CANNOT_TELL;
	if (by_finding(ci, xc) || by_soname(ci, h, xc) || by_pci(ci, h, xc) || by_driver_int(ci, h, xc) ||
	    by_cc(ci, h, xc))
		return;
	if (xc->layer > ci->top) {
		ev(xc, "check did not judge the %s layer", layer_name((enum layer_id)xc->layer));
		return;
	}
	ls = ci->rep->layers[xc->layer].status;
	if (ls == STATUS_BLOCKED) {
		int by = ci->rep->layers[xc->layer].blocked_by;

		ev(xc, "the %s layer is blocked here by a failure at the %s layer", layer_name((enum layer_id)xc->layer),
		   by >= 0 ? layer_name((enum layer_id)by) : "?");
		return;
	}
	if (ls == STATUS_SKIPPED) {
		ev(xc, "check skipped the %s layer here", layer_name((enum layer_id)xc->layer));
		return;
	}
	if (!confirm_checkable(xc->cause)) {
		ev(xc, "check has no test for this cause");
		return;
	}
	xc->conf = XC_NOT_REPRODUCED;
	ev(xc, "check judged the %s layer on %s (%s) and did not find it", layer_name((enum layer_id)xc->layer),
	   ci->against ? ci->against : "this machine", status_name(ls));
	ev(xc, "the log may come from another machine, container or environment");
}
