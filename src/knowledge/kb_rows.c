/*
 * kb_rows.c - each table's rows into the typed arrays of kb_internal.h
 * (kb_conv.h): one kb_conv_NAME() per table, which checks its columns by
 * name and converts each row with kb_cells.c.  kb.c runs them in the order
 * of enum kb_tab (its converters[]).
 */
#include "knowledge/kb_internal.h"
#include "knowledge/kb_conv.h"
#include "core/buf.h"
#include "core/version.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define COLS(...) const char *const names[] = { __VA_ARGS__ }; \
	int col[sizeof(names) / sizeof(names[0])]; \
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) \
		if (kbc_need_col(c, names[k], &col[k]) < 0) return -1

int kb_conv_sources(struct conv *c)
{
	COLS("id", "url", "note");
	(void)col;
	for (c->row = 0; c->row < c->t->nrows; c->row++)
		for (size_t k = 0; k < c->row; k++)
			if (!strcmp(c->t->rows[k].cell[0], c->t->rows[c->row].cell[0]))
				return err_set(c->e, "%s:%d: source id '%s' is defined twice",
					       c->t->name, c->t->rows[c->row].line,
					       c->t->rows[c->row].cell[0]);
	return 0;
}

int kb_conv_facts(struct conv *c)
{
	const char *s;

	COLS("key", "value", "source");
	for (c->row = 0; c->row < c->t->nrows; c->row++)
		if (kbc_get_source(c, col[2], &s) < 0)
			return -1;
	return 0;
}

int kb_conv_tf(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("version", "python", "compiler", "build_tool", "cudnn", "cuda", "archs",
	     "archs_conf", "install", "source");
	/* added later: optional, so that older --kb directories still load */
	int pip_col = kb_table_col(c->t, "pip_cudnn");

	kb->tf = xcalloc(c->t->nrows + 1, sizeof(*kb->tf));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_tf *r = &kb->tf[kb->ntf];

		if (kbc_get_version(c, col[0], 0, &r->version) < 0 ||
		    kbc_get_version(c, col[4], 0, &r->cudnn) < 0 ||
		    kbc_get_cuda(c, col[5], 0, &r->cuda_version) < 0 ||
		    kbc_get_source(c, col[9], &r->source) < 0)
			return -1;
		r->python = kbc_str(c, col[1]);
		r->compiler = kbc_str(c, col[2]);
		r->build_tool = kbc_str(c, col[3]);
		r->cuda = kbc_str(c, col[5]);
		r->archs = kbc_str(c, col[6]);
		r->archs_conf = kbc_str(c, col[7]);
		r->install = kbc_str(c, col[8]);
		r->pip_cudnn = pip_col >= 0 ? kbc_str(c, pip_col) : NULL;
		if (r->pip_cudnn && strncmp(r->pip_cudnn, "==", 2) && strncmp(r->pip_cudnn, ">=", 2))
			return kbc_bad(c, pip_col, "a requirement like ==9.3.0.75 or >=9.3.0.75,<10");
		kb->ntf++;
	}
	return 0;
}

int kb_conv_torch(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("version", "python", "variant", "cuda", "cudnn", "archs", "default", "channel",
	     "conf", "source");
	kb->torch = xcalloc(c->t->nrows + 1, sizeof(*kb->torch));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_torch *r = &kb->torch[kb->ntorch];
		const char *ch;

		if (kbc_get_version(c, col[0], 0, &r->version) < 0 ||
		    kbc_get_cuda(c, col[3], 0, &r->cuda_version) < 0 ||
		    kbc_get_version(c, col[4], 1, &r->cudnn) < 0 ||
		    kbc_get_tri(c, col[6], &r->is_default) < 0 ||
		    kbc_get_source(c, col[9], &r->source) < 0)
			return -1;
		r->python = kbc_str(c, col[1]);
		r->variant = kbc_str(c, col[2]);
		if (!r->variant || kb_parse_cuda(r->variant) < 0)
			return kbc_bad(c, col[2], "a CUDA variant like cu126");
		r->archs = kbc_str(c, col[5]);
		ch = kbc_str(c, col[7]);
		if (!ch || (strcmp(ch, "stable") && strcmp(ch, "experimental")))
			return kbc_bad(c, col[7], "stable or experimental");
		r->stable = !strcmp(ch, "stable");
		r->conf = kbc_str(c, col[8]);
		kb->ntorch++;
	}
	return 0;
}

int kb_conv_jax(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("jax_from", "jax_to", "plugin", "cuda_min", "cudnn_min", "cudnn_max",
	     "min_driver", "min_cc", "archs", "install", "source");
	kb->jax = xcalloc(c->t->nrows + 1, sizeof(*kb->jax));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_jax *r = &kb->jax[kb->njax];

		if (kbc_get_version(c, col[0], 0, &r->jax_from) < 0 ||
		    kbc_get_version(c, col[1], 1, &r->jax_to) < 0 ||
		    kbc_get_cuda(c, col[3], 0, &r->cuda_min) < 0 ||
		    kbc_get_version(c, col[4], 1, &r->cudnn_min) < 0 ||
		    kbc_get_version(c, col[5], 1, &r->cudnn_max) < 0 ||
		    kbc_get_version(c, col[6], 1, &r->min_driver) < 0 ||
		    kbc_get_cc(c, col[7], &r->min_cc_major, &r->min_cc_minor) < 0 ||
		    kbc_get_source(c, col[10], &r->source) < 0)
			return -1;
		r->plugin = kbc_str(c, col[2]);
		r->archs = kbc_str(c, col[8]);
		r->install = kbc_str(c, col[9]);
		if (!r->plugin || !r->install)
			return kbc_bad(c, r->plugin ? col[9] : col[2], "known");
		kb->njax++;
	}
	return 0;
}

int kb_conv_cuda(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("toolkit", "release", "linux_min", "windows_min", "conf", "source");
	kb->cuda = xcalloc(c->t->nrows + 1, sizeof(*kb->cuda));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_cuda_release *r = &kb->cuda[kb->ncuda];

		if (kbc_get_cuda(c, col[0], 0, &r->cuda_version) < 0 ||
		    kbc_get_version(c, col[2], 1, &r->linux_min) < 0 ||
		    kbc_get_version(c, col[3], 1, &r->windows_min) < 0 ||
		    kbc_get_source(c, col[5], &r->source) < 0)
			return -1;
		r->toolkit = kbc_str(c, col[0]);
		r->release = kbc_str(c, col[1]);
		r->conf = kbc_str(c, col[4]);
		if (!r->release)
			return kbc_bad(c, col[1], "GA, RC or 'Update N'");
		kb->ncuda++;
	}
	return 0;
}

int kb_conv_compat(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("major", "linux_min", "windows_min", "source");
	kb->compat = xcalloc(c->t->nrows + 1, sizeof(*kb->compat));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_compat *r = &kb->compat[kb->ncompat];

		if (kbc_get_int(c, col[0], 0, &r->major) < 0 ||
		    kbc_get_version(c, col[1], 0, &r->linux_min) < 0 ||
		    kbc_get_version(c, col[2], 1, &r->windows_min) < 0 ||
		    kbc_get_source(c, col[3], &r->source) < 0)
			return -1;
		kb->ncompat++;
	}
	return 0;
}

int kb_conv_branches(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("branch", "cuda", "eol", "conf", "source");
	kb->branches = xcalloc(c->t->nrows + 1, sizeof(*kb->branches));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_branch *r = &kb->branches[kb->nbranches];

		if (kbc_get_int(c, col[0], 0, &r->branch) < 0 ||
		    kbc_get_cuda(c, col[1], 0, &r->cuda_version) < 0 ||
		    kbc_get_source(c, col[4], &r->source) < 0)
			return -1;
		kb->nbranches++;
	}
	return 0;
}

int kb_conv_archs(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("sm", "arch", "first_cuda", "last_cuda", "last_branch", "conf", "source");
	int fd_col = kb_table_col(c->t, "first_driver");	/* optional (older --kb directories) */

	kb->archs = xcalloc(c->t->nrows + 1, sizeof(*kb->archs));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_arch *r = &kb->archs[kb->narchs];
		const char *last;

		if (kbc_get_cc(c, col[0], &r->cc_major, &r->cc_minor) < 0 ||
		    kbc_get_cuda(c, col[2], 0, &r->first_cuda) < 0 ||
		    kbc_get_int(c, col[4], 1, &r->last_branch) < 0 ||
		    (fd_col >= 0 && kbc_get_version(c, fd_col, 1, &r->first_driver) < 0) ||
		    kbc_get_source(c, col[6], &r->source) < 0)
			return -1;
		if (r->cc_major < 0)
			return kbc_bad(c, col[0], "a compute capability like 8.9");
		last = kbc_str(c, col[3]);
		r->last_cuda = -1;
		if (last && !strchr(last, '.'))	/* "12": every 12.x */
			r->last_cuda = atoi(last) * 1000 + 999;
		else if (last && (r->last_cuda = kb_parse_cuda(last)) < 0)
			return kbc_bad(c, col[3], "a CUDA version like 12 or 10.2");
		r->arch = kbc_str(c, col[1]);
		r->conf = kbc_str(c, col[5]);
		kb->narchs++;
	}
	return 0;
}

int kb_conv_cudnn(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("cudnn", "cuda_from", "cuda_to", "linux_min", "windows_min", "cc_min", "cc_max",
	     "libs", "source");
	kb->cudnn = xcalloc(c->t->nrows + 1, sizeof(*kb->cudnn));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_cudnn *r = &kb->cudnn[kb->ncudnn];
		int a, b;

		if (kbc_get_version(c, col[0], 0, &r->version) < 0 ||
		    kbc_get_cuda(c, col[1], 1, &r->cuda_from) < 0 ||
		    kbc_get_cuda(c, col[2], 1, &r->cuda_to) < 0 ||
		    kbc_get_version(c, col[3], 1, &r->linux_min) < 0 ||
		    kbc_get_version(c, col[4], 1, &r->windows_min) < 0 ||
		    kbc_get_source(c, col[8], &r->source) < 0)
			return -1;
		if (kbc_get_cc(c, col[5], &a, &b) < 0)
			return -1;
		r->cc_min = a < 0 ? -1 : a * 10 + b;
		if (kbc_get_cc(c, col[6], &a, &b) < 0)
			return -1;
		r->cc_max = a < 0 ? -1 : a * 10 + b;
		r->libs = kbc_str(c, col[7]);
		kb->ncudnn++;
	}
	return 0;
}

int kb_conv_sonames(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("major", "lib", "soname", "conf", "source");
	kb->sonames = xcalloc(c->t->nrows + 1, sizeof(*kb->sonames));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_soname_row *r = &kb->sonames[kb->nsonames];

		if (!strcmp(c->t->rows[c->row].cell[col[0]], "*"))
			r->major = -1;
		else if (kbc_get_int(c, col[0], 0, &r->major) < 0)
			return -1;
		if (kbc_get_source(c, col[4], &r->source) < 0)
			return -1;
		r->lib = kbc_str(c, col[1]);
		r->soname = kbc_str(c, col[2]);
		r->conf = kbc_str(c, col[3]);
		if (!r->lib || !r->soname)
			return kbc_bad(c, r->lib ? col[2] : col[1], "known");
		kb->nsonames++;
	}
	return 0;
}

int kb_conv_gpus(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("vendor", "device", "name", "chip", "arch", "cc", "mem_gb", "bw_gbs", "fp32",
	     "fp16", "bf16", "class", "specs_conf", "source");
	kb->gpus = xcalloc(c->t->nrows + 1, sizeof(*kb->gpus));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_gpu *r = &kb->gpus[kb->ngpus];
		const char *v = kbc_str(c, col[0]), *d = kbc_str(c, col[1]);
		char *end;

		if (!v || strlen(v) != 4 || (r->vendor = (unsigned)strtoul(v, &end, 16), *end))
			return kbc_bad(c, col[0], "a 4-digit hex vendor id");
		if (!d)
			r->device = 0xffffffffu;	/* no PCI function (Jetson) */
		else if (strlen(d) != 4 || (r->device = (unsigned)strtoul(d, &end, 16), *end))
			return kbc_bad(c, col[1], "a 4-digit hex device id or -");
		if (kbc_get_cc(c, col[5], &r->cc_major, &r->cc_minor) < 0 ||
		    kbc_get_double(c, col[6], &r->mem_gb) < 0 ||
		    kbc_get_double(c, col[7], &r->bw_gbs) < 0 ||
		    kbc_get_double(c, col[8], &r->fp32_tflops) < 0 ||
		    kbc_get_double(c, col[9], &r->fp16_tflops) < 0 ||
		    kbc_get_double(c, col[10], &r->bf16_tflops) < 0 ||
		    kbc_get_source(c, col[13], &r->source) < 0)
			return -1;
		r->mem_gib = r->mem_gb;
		r->name = kbc_str(c, col[2]);
		if (!r->name)
			return kbc_bad(c, col[2], "known");
		r->chip = kbc_str(c, col[3]);
		r->arch = kbc_str(c, col[4]);
		r->klass = kbc_str(c, col[11]);
		r->specs_conf = kbc_str(c, col[12]);
		if (!r->klass)
			r->datacenter = -1;
		else if (!strcmp(r->klass, "datacenter") || !strcmp(r->klass, "jetson"))
			r->datacenter = 1;
		else if (!strcmp(r->klass, "geforce") || !strcmp(r->klass, "workstation"))
			r->datacenter = 0;
		else
			return kbc_bad(c, col[11], "datacenter, geforce, workstation, jetson or -");
		kb->ngpus++;
	}
	return 0;
}

int kb_conv_gpudrv(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("device", "first_driver", "backports", "last_driver", "names", "source");
	kb->gpudrv = xcalloc(c->t->nrows + 1, sizeof(*kb->gpudrv));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_gpudrv *r = &kb->gpudrv[kb->ngpudrv];
		const char *d = kbc_str(c, col[0]), *b;
		char *end;

		if (!d || strlen(d) != 4 || (r->device = (unsigned)strtoul(d, &end, 16), *end))
			return kbc_bad(c, col[0], "a 4-digit hex device id");
		if (kbc_get_version(c, col[1], 1, &r->first_driver) < 0 || kbc_get_version(c, col[3], 1, &r->last_driver) < 0 ||
		    kbc_get_source(c, col[5], &r->source) < 0)
			return -1;
		/* every backport is a driver version */
		for (b = r->backports = kbc_str(c, col[2]); b && *b;) {
			size_t n = strcspn(b, ";");
			char one[32];
			struct version v;

			if (n == 0 || n >= sizeof(one))
				return kbc_bad(c, col[2], "a ';' list of driver versions");
			memcpy(one, b, n);
			one[n] = '\0';
			if (version_parse(one, &v) < 0)
				return kbc_bad(c, col[2], "a ';' list of driver versions");
			b += n + (b[n] == ';');
		}
		r->names = kbc_str(c, col[4]);
		kb->ngpudrv++;
	}
	return 0;
}

int kb_conv_failures(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("framework", "from", "to", "cc_min", "cc_max", "what", "source");
	kb->failures = xcalloc(c->t->nrows + 1, sizeof(*kb->failures));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_failure *r = &kb->failures[kb->nfailures];
		int a, b;

		if (kbc_get_version(c, col[1], 0, &r->from) < 0 || kbc_get_version(c, col[2], 0, &r->to) < 0 ||
		    kbc_get_source(c, col[6], &r->source) < 0)
			return -1;
		if (kbc_get_cc(c, col[3], &a, &b) < 0 || a < 0)
			return a < 0 ? kbc_bad(c, col[3], "a compute capability") : -1;
		r->cc_min = a * 10 + b;
		if (kbc_get_cc(c, col[4], &a, &b) < 0 || a < 0)
			return a < 0 ? kbc_bad(c, col[4], "a compute capability") : -1;
		r->cc_max = a * 10 + b;
		r->framework = kbc_str(c, col[0]);
		r->what = kbc_str(c, col[5]);
		if (!r->framework || !r->what)
			return kbc_bad(c, r->framework ? col[5] : col[0], "known");
		kb->nfailures++;
	}
	return 0;
}

int kb_conv_cupy(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("cupy", "package", "cuda_from", "cuda_to", "python", "install", "source");
	kb->cupy = xcalloc(c->t->nrows + 1, sizeof(*kb->cupy));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_cupy *r = &kb->cupy[kb->ncupy];

		if (kbc_get_version(c, col[0], 0, &r->cupy) < 0 || kbc_get_cuda(c, col[2], 0, &r->cuda_from) < 0 ||
		    kbc_get_cuda(c, col[3], 0, &r->cuda_to) < 0 || kbc_get_source(c, col[6], &r->source) < 0)
			return -1;
		r->package = kbc_str(c, col[1]);
		r->python = kbc_str(c, col[4]);
		r->install = kbc_str(c, col[5]);
		if (!r->package || !r->install)
			return kbc_bad(c, r->package ? col[5] : col[1], "known");
		kb->ncupy++;
	}
	return 0;
}

int kb_conv_xid(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("xid", "name", "meaning", "action", "nvidia_immediate", "nvidia_investigatory",
	     "source");
	kb->xids = xcalloc(c->t->nrows + 1, sizeof(*kb->xids));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_xid *r = &kb->xids[kb->nxids];

		if (kbc_get_int(c, col[0], 0, &r->xid) < 0 || kbc_get_source(c, col[6], &r->source) < 0)
			return -1;
		for (size_t k = 0; k < kb->nxids; k++)
			if (kb->xids[k].xid == r->xid)
				return kbc_bad(c, col[0], "a new XID (it is listed twice)");
		if (kb_xid_action_parse(kbc_str(c, col[3]), &r->action) < 0)
			return kbc_bad(c, col[3], "none, restart-app, reset-gpu, reboot, drain or inspect-hw");
		r->name = kbc_str(c, col[1]);
		r->meaning = kbc_str(c, col[2]);
		if (!r->name || !r->meaning)
			return kbc_bad(c, r->name ? col[2] : col[1], "known");
		r->nvidia_immediate = kbc_str(c, col[4]);
		r->nvidia_investigatory = kbc_str(c, col[5]);
		kb->nxids++;
	}
	return 0;
}
