/* bench_run.c - the parent side of gpudoctor bench; see bench_run.h. */
#include "bench/bench_run.h"
#include "bench/bench_ceiling.h"
#include "bench/bench_judge.h"
#include "bench/bench_parse.h"
#include "bench/bench_pcie.h"
#include "bench/bench_progress.h"
#include "core/buf.h"
#include "core/child.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"
#include "inventory/inventory.h"
#include "probes/hardware/hardware.h"
#include "probes/probe_in.h"
#include "python/pyenv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

#define BENCH_MAX_ARGS 60

struct bench_args {
	const char *v[BENCH_MAX_ARGS + 1];
	char *owned[BENCH_MAX_ARGS];
	size_t n, nowned;
};

static void bench_arg(struct bench_args *a, const char *s)
{
	if (a->n < BENCH_MAX_ARGS)
		a->v[a->n++] = s;
	a->v[a->n] = NULL;
}

static void bench_arg_owned(struct bench_args *a, char *s)
{
	if (a->n >= BENCH_MAX_ARGS - 1 || a->nowned >= BENCH_MAX_ARGS) {
		free(s);
		return;
	}
	a->owned[a->nowned++] = s;
	bench_arg(a, s);
}

static void bench_args_release(struct bench_args *a)
{
	for (size_t i = 0; i < a->nowned; i++)
		free(a->owned[i]);
	memset(a, 0, sizeof(*a));
}

double bench_child_timeout(const struct gd_ctx *ctx, int quick)
{
	double floor = quick ? 60.0 : 120.0;

	return ctx->timeout > floor ? ctx->timeout : floor;
}

/* Our environment plus the progress fd, for the child. */
static char **bench_envp(int fd)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	env = xcalloc(n + 2, sizeof(*env));
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], BENCH_PROGRESS_ENV "=", sizeof(BENCH_PROGRESS_ENV)))
			env[k++] = environ[i];
	if (fd >= 0)
		env[k++] = xasprintf("%s=%d", BENCH_PROGRESS_ENV, fd);
	env[k] = NULL;
	return env;
}

static void bench_envp_free(char **env, int fd)
{
	size_t n = 0;

	while (env[n])
		n++;
	if (fd >= 0 && n)
		free(env[n - 1]);
	free(env);
}

/* Files in dir whose names start with prefix, as child arguments. */
static void bench_add_matching(const struct gd_ctx *ctx, struct bench_args *a, const char *opt,
			       const char *dir, const char *prefix)
{
	char **names = NULL;
	size_t n = 0;

	if (fs_list_dir(ctx->root, dir, &names, &n, NULL) < 0)
		return;
	for (size_t i = 0; i < n; i++)
		if (!strncmp(names[i], prefix, strlen(prefix)) && strstr(names[i], ".so")) {
			bench_arg(a, opt);
			bench_arg_owned(a, fs_join(dir, names[i]));
		}
	fs_names_free(names, n);
}

/*
 * Where else cuBLAS and a CBLAS may be: the toolkit and Python wheels
 * (nvidia-cublas puts libcublas in nvidia/cublas/lib or nvidia/cu13/lib;
 * numpy bundles scipy-openblas in numpy.libs).  Only on the live machine:
 * the child dlopens these paths itself.
 */
static void bench_candidates(const struct gd_ctx *ctx, const struct bench_opts *o,
			     struct bench_args *gpu, struct bench_args *cpu)
{
	static const char *const cuda_dirs[] = { "/usr/local/cuda/lib64", "/usr/local/cuda/lib", NULL };
	const char *home = getenv("CUDA_HOME");
	struct pyenv_list envs = PYENV_LIST_INIT;
	struct buf dir = BUF_INIT;

	for (size_t i = 0; i < o->ncublas; i++) {
		bench_arg(gpu, "--cublas");
		bench_arg(gpu, o->cublas[i]);
	}
	if (strcmp(ctx->root, "/"))
		return;
	if (home && *home == '/') {
		buf_printf(&dir, "%s/lib64", home);
		bench_add_matching(ctx, gpu, "--cublas", dir.s, "libcublas.so.");
	}
	for (const char *const *d = cuda_dirs; *d; d++)
		bench_add_matching(ctx, gpu, "--cublas", *d, "libcublas.so.");
	if (pyenv_discover(ctx, &envs, NULL) == 0) {
		for (size_t i = 0; i < envs.n; i++)
			for (size_t k = 0; k < envs.envs[i].nsite; k++) {
				const char *site = envs.envs[i].site_dirs[k];
				static const char *const sub[] = { "nvidia/cu13/lib", "nvidia/cublas/lib", "nvidia/cu12/lib", NULL };

				for (const char *const *s = sub; *s; s++) {
					buf_reset(&dir);
					buf_printf(&dir, "%s/%s", site, *s);
					bench_add_matching(ctx, gpu, "--cublas", dir.s, "libcublas.so.");
				}
				buf_reset(&dir);
				buf_printf(&dir, "%s/numpy.libs", site);
				bench_add_matching(ctx, cpu, "--blas", dir.s, "libscipy_openblas");
				bench_add_matching(ctx, cpu, "--blas", dir.s, "libopenblas");
				buf_reset(&dir);
				buf_printf(&dir, "%s/scipy_openblas32/lib", site);
				bench_add_matching(ctx, cpu, "--blas", dir.s, "libscipy_openblas");
			}
	}
	pyenv_list_release(&envs);
	buf_release(&dir);
}

char **bench_cublas_argv(const struct gd_ctx *ctx, const char **given, size_t ngiven)
{
	struct bench_opts o = { .cublas = given, .ncublas = ngiven };
	struct bench_args gpu = { 0 }, cpu = { 0 };
	char **out;

	bench_candidates(ctx, &o, &gpu, &cpu);
	out = xcalloc(gpu.n + 1, sizeof(*out));
	for (size_t i = 0; i < gpu.n; i++)
		out[i] = xstrdup(gpu.v[i]);
	bench_args_release(&gpu);
	bench_args_release(&cpu);
	return out;
}

void bench_argv_free(char **argv)
{
	for (size_t i = 0; argv && argv[i]; i++)
		free(argv[i]);
	free(argv);
}

/* A refusal no other GPU can escape (no driver library, no GPU, cuInit
 * failed): CF_STOPS_BENCH in knowledge/cause_policy.def. */
static int bench_is_whole_run_refusal(enum cause_id cause)
{
	return (cause_flags(cause) & CF_STOPS_BENCH) != 0;
}

/* The GPU's PCI ids and link from sysfs; its datasheet row from the kb. */
static void bench_fill_static(const struct gd_ctx *ctx, const struct kb *kb, struct bench_gpu *g)
{
	const struct kb_gpu *kg = NULL;

	if (g->pci) {
		/* The hardware probe owns PCI sysfs (one reading per fact). */
		struct probe_in in = { .ctx = ctx };
		struct inventory inv;
		const struct hw_pci_fn *f;
		char bdf[16];

		inventory_init(&inv);
		probe_hardware(&in, &inv);
		f = hw_gpu_by_bdf(&inv.hw, bench_pcie_normalize_bdf(g->pci, bdf) == 0 ? bdf : g->pci);
		if (f) {
			bench_pcie_from_probe(f, &g->link);
			if (f->vendor >= 0)
				g->pci_vendor = (unsigned)f->vendor;
			if (f->device >= 0)
				g->pci_device = (unsigned)f->device;
		}
		inventory_release(&inv);
	}
	if (kb && g->pci_vendor)
		kg = kb_gpu_by_pci(kb, g->pci_vendor, g->pci_device);
	bench_ceilings_fill(g, kg);
}

static void bench_child_failed(struct bench_gpu *g, const struct child_result *r, const char *what)
{
	struct buf d = BUF_INIT;

	child_outcome_describe(r, &d);
	free(g->refused_msg);
	g->refused = CAUSE_GPU_COMPUTE_FAILED;
	buf_rtrim(&((struct child_result *)r)->err);
	g->refused_msg = xasprintf("the isolated %s child %s%s%.300s", what, d.s,
				   r->err.len ? "; its stderr: " : "", r->err.len ? r->err.s : "");
	buf_release(&d);
}

static void bench_run_conv(const struct gd_ctx *ctx, const struct bench_opts *o, char **envp,
			   struct bench_gpu *g, double timeout)
{
	struct child_result r = CHILD_RESULT_INIT;
	struct err e = ERR_INIT;
	const char *argv[BENCH_MAX_ARGS + 8];
	char idx[16];
	size_t n = 0;

	snprintf(idx, sizeof(idx), "%d", g->index);
	argv[n++] = ctx->self_exe;
	argv[n++] = "__probe";
	argv[n++] = "bench";
	argv[n++] = "conv";
	argv[n++] = idx;
	if (o->quick)
		argv[n++] = "--quick";
	if (o->conv_shape) {
		argv[n++] = "--shape";
		argv[n++] = o->conv_shape;
	}
	for (size_t i = 0; i < o->ncudnn && n < BENCH_MAX_ARGS; i++) {
		argv[n++] = "--cudnn";
		argv[n++] = o->cudnn[i];
	}
	argv[n] = NULL;
	g->conv.ran = 1;
	if (child_run_argv(argv, envp, timeout, &r, &e) < 0) {
		g->conv.refused = CAUSE_CUDNN_CALL_FAILED;
		g->conv.refused_msg = xasprintf("cannot start the cuDNN child: %s", e.msg);
	} else {
		bench_parse_conv(&r.kv, &g->conv);
		if (r.outcome != CHILD_OK)
			bench_child_death(&r, "cuDNN", CAUSE_CUDNN_HANG, CAUSE_CUDNN_CALL_FAILED, &g->conv.refused,
					  &g->conv.refused_msg);
	}
	child_result_release(&r);
}

static void bench_run_nccl(const struct gd_ctx *ctx, const struct bench_opts *o, char **envp,
			   struct bench_run *run)
{
	struct child_result r = CHILD_RESULT_INIT;
	struct err e = ERR_INIT;
	const char *argv[BENCH_MAX_ARGS + 8];
	size_t n = 0;

	argv[n++] = ctx->self_exe;
	argv[n++] = "__probe";
	argv[n++] = "bench";
	argv[n++] = "nccl";
	if (o->quick)
		argv[n++] = "--quick";
	for (size_t i = 0; i < o->nnccl && n < BENCH_MAX_ARGS; i++) {
		argv[n++] = "--nccl";
		argv[n++] = o->nccl[i];
	}
	argv[n] = NULL;
	run->nccl.ran = 1;
	if (child_run_argv(argv, envp, bench_child_timeout(ctx, o->quick), &r, &e) < 0) {
		run->nccl.refused = CAUSE_NCCL_CALL_FAILED;
		run->nccl.refused_msg = xasprintf("cannot start the NCCL child: %s", e.msg);
	} else {
		bench_parse_nccl(&r.kv, r.err.s, r.err.len, &run->nccl);
		if (r.outcome != CHILD_OK)
			bench_child_death(&r, "NCCL", CAUSE_NCCL_HANG, CAUSE_NCCL_CALL_FAILED, &run->nccl.refused,
					  &run->nccl.refused_msg);
	}
	bench_ceilings_nccl(&run->nccl, run->gpus, run->ngpus);
	{
		struct bench_judge_at at = { .run = BENCH_JUDGE_FULL, .id = "nccl", .gpu = -1, .gpus = -1,
					     .checked = -1, .run_ms = NAN, .child_s = NAN };

		bench_judge_nccl(&run->nccl, &at, &run->nccl.rep);
	}
	child_result_release(&r);
}

static int bench_run_gpu(const struct gd_ctx *ctx, const struct bench_opts *o, const struct kb *kb,
			 const struct bench_args *extra, char **envp, int index, struct bench_run *run,
			 int *count)
{
	struct child_result r = CHILD_RESULT_INIT;
	struct bench_gpu *g = bench_run_add_gpu(run, index);
	struct err e = ERR_INIT;
	char idx[16];
	const char *argv[BENCH_MAX_ARGS + 8];
	size_t n = 0;

	snprintf(idx, sizeof(idx), "%d", index);
	argv[n++] = ctx->self_exe;
	argv[n++] = "__probe";
	argv[n++] = "bench";
	argv[n++] = "gpu";
	argv[n++] = idx;
	if (o->quick)
		argv[n++] = "--quick";
	argv[n++] = "--sys-root";	/* main() would take --root itself */
	argv[n++] = ctx->root;
	for (size_t i = 0; i < extra->n; i++)
		argv[n++] = extra->v[i];
	argv[n] = NULL;
	if (child_run_argv(argv, envp, bench_child_timeout(ctx, o->quick), &r, &e) < 0) {
		g->refused = CAUSE_GPU_COMPUTE_FAILED;
		g->refused_msg = xasprintf("cannot start the bench child: %s", e.msg);
		child_result_release(&r);
		return -1;
	}
	bench_parse_gpu(&r.kv, g);
	*count = (int)kv_get_ll(&r.kv, "gpu.count", -1);
	if (r.outcome != CHILD_OK && g->refused == CAUSE_NONE)
		bench_child_failed(g, &r, "GPU");
	if (g->refused == CAUSE_NONE && !o->no_conv)
		bench_run_conv(ctx, o, envp, g, bench_child_timeout(ctx, o->quick));
	bench_fill_static(ctx, kb, g);
	bench_ceilings_conv(g);
	bench_judge_gpu(g);
	child_result_release(&r);
	return 0;
}

static void bench_run_cpu(const struct gd_ctx *ctx, const struct bench_opts *o,
			  const struct bench_args *extra, char **envp, struct bench_run *run)
{
	struct child_result r = CHILD_RESULT_INIT;
	struct err e = ERR_INIT;
	const char *argv[BENCH_MAX_ARGS + 8];
	size_t n = 0;

	argv[n++] = ctx->self_exe;
	argv[n++] = "__probe";
	argv[n++] = "bench";
	argv[n++] = "cpu";
	if (o->quick)
		argv[n++] = "--quick";
	if (getenv("GPUDOCTOR_BENCH_NO_BLAS"))
		argv[n++] = "--no-blas";
	for (size_t i = 0; i < extra->n; i++)
		argv[n++] = extra->v[i];
	argv[n] = NULL;
	if (child_run_argv(argv, envp, bench_child_timeout(ctx, o->quick), &r, &e) < 0) {
		run->cpu.error = xasprintf("cannot start the CPU baseline child: %s", e.msg);
	} else {
		bench_parse_cpu(&r.kv, &run->cpu);
		if (r.outcome != CHILD_OK) {
			struct buf d = BUF_INIT;

			free(run->cpu.error);
			run->cpu.error = xasprintf("the CPU baseline child %s", child_outcome_describe(&r, &d));
			buf_release(&d);
		}
	}
	child_result_release(&r);
}

void bench_run_all(const struct gd_ctx *ctx, const struct bench_opts *o, struct bench_run *run)
{
	struct bench_args gpu_extra = { 0 }, cpu_extra = { 0 };
	struct kb *kb = NULL;
	double start = child_now();
	char **envp = bench_envp(o->progress_fd);
	int count = -1;

	run->quick = o->quick;
	if (kb_open(ctx->kb_dir, &kb, NULL) < 0)
		kb = NULL;
	bench_candidates(ctx, o, &gpu_extra, &cpu_extra);
	if (bench_run_gpu(ctx, o, kb, &gpu_extra, envp, o->gpu >= 0 ? o->gpu : 0, run, &count) == 0 &&
	    bench_is_whole_run_refusal(run->gpus[0].refused)) {
		/* No usable GPU at all: say so once, measure nothing else. */
		run->refused = run->gpus[0].refused;
		run->refused_msg = xstrdup_or_null(run->gpus[0].refused_msg);
	} else {
		for (int i = 1; o->gpu < 0 && i < count; i++)
			bench_run_gpu(ctx, o, kb, &gpu_extra, envp, i, run, &count);
		if (o->no_nccl)
			;
		else if (o->gpu >= 0)
			run->nccl.skipped = xstrdup("--gpu picks one GPU: collectives need two or more");
		else if (count == 1)
			run->nccl.skipped = xstrdup("this machine has one GPU: collectives need two or more");
		else if (count > 1)
			bench_run_nccl(ctx, o, envp, run);
		if (!o->no_cpu)
			bench_run_cpu(ctx, o, &cpu_extra, envp, run);
		bench_judge_cpu(run);
	}
	bench_progress_clear(o->progress_fd);
	bench_envp_free(envp, o->progress_fd);
	bench_args_release(&gpu_extra);
	bench_args_release(&cpu_extra);
	if (kb)
		kb_close(kb);
	run->seconds = child_now() - start;
}
