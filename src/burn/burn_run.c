/*
 * burn_run.c - the parent side of `gpudoctor burn`; see burn.h.
 *
 * One poll loop over every GPU child's stdout and watch's NVML sampler
 * child.  A child that prints no tick for BURN_STALL_S seconds (a kernel
 * that never ends, a driver that stopped answering) is killed and its GPU
 * marked hung; every child also has a hard deadline.  SIGINT and SIGTERM
 * are forwarded as SIGTERM to the children, which finish their tick and
 * print their totals: the run stops within seconds with a partial verdict.
 */
#include "burn/burn.h"
#include "bench/bench_refusal.h"
#include "bench/bench_run.h"
#include "core/child.h"
#include "core/ctx.h"
#include "core/kv.h"
#include "core/xalloc.h"
#include "watch/sampler.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BURN_MAX_GPUS 64
#define BURN_STALL_S 60.0	/* no tick for this long: the GPU hangs */
#define BURN_SETUP_S 120.0	/* load, JIT, allocation, the CPU reference */
#define BURN_MIN_DEADLINE 300.0	/* the child's hard deadline beyond its seconds */
#define BURN_ERR_FD 100000	/* poll map: BURN_ERR_FD + i is child i's stderr */

static volatile sig_atomic_t burn_interrupted;

static void burn_on_signal(int sig)
{
	(void)sig;
	burn_interrupted = 1;
}

void burn_run_init(struct burn_run *run)
{
	memset(run, 0, sizeof(*run));
	run->peak_tflops = NAN;
}

void burn_run_release(struct burn_run *run)
{
	for (size_t i = 0; i < run->ngpus; i++)
		free(run->gpus[i].ticks);
	free(run->gpus);
	memset(run, 0, sizeof(*run));
}

/* One GPU child and the partial line it is writing. */
struct burn_proc {
	struct child c;
	struct buf line;
	int running;
	double last_tick;	/* monotonic time of its last tick line */
	size_t seen_ticks;
	int saw_end;		/* the child's "end" line came (we read it ourselves) */
	int err_open;		/* its stderr is read as it comes, or a chatty library
				 * (cuBLAS's debug log) would fill the pipe and block it */
};

static struct burn_tick *burn_tick_at(struct burn_gpu *g, size_t k)
{
	while (g->nticks <= k) {
		struct burn_tick *t;

		if (g->nticks == g->cap) {
			g->cap = g->cap ? g->cap * 2 : 64;
			g->ticks = xrealloc(g->ticks, g->cap * sizeof(*g->ticks));
		}
		t = &g->ticks[g->nticks++];
		memset(t, 0, sizeof(*t));
		t->sm_mhz = t->mem_mhz = t->temp_c = t->power_mw = t->power_limit_mw = -1;
		t->procs = t->reasons = t->ecc_unc = t->remap_pending = -1;
	}
	return &g->ticks[k];
}

static void burn_copy(char *dst, size_t n, const char *src)
{
	snprintf(dst, n, "%s", src);
}

void burn_parse_line(struct burn_gpu *g, const char *line)
{
	const char *eq = strchr(line, '=');
	char key[64];
	const char *v;
	size_t kl;

	if (!eq || (kl = (size_t)(eq - line)) >= sizeof(key))
		return;
	memcpy(key, line, kl);
	key[kl] = 0;
	v = eq + 1;
	if (!strncmp(key, "tick.", 5)) {
		char *end;
		unsigned long k = strtoul(key + 5, &end, 10);
		struct burn_tick *t;

		if (*end != '.' || k > 1000000)
			return;
		t = burn_tick_at(g, k);
		end++;
		if (!strcmp(end, "t"))
			t->t = atof(v);
		else if (!strcmp(end, "tflops"))
			t->tflops = atof(v);
		else if (!strcmp(end, "gemms"))
			t->gemms = strtoull(v, NULL, 10);
		else if (!strcmp(end, "bad_gemms"))
			t->bad_gemms = strtoull(v, NULL, 10);
		else if (!strcmp(end, "max_error"))
			t->max_error = atof(v);
		else if (!strcmp(end, "mem_gbs"))
			t->mem_gbs = atof(v);
		else if (!strcmp(end, "mem_bad"))
			t->mem_bad = strtoull(v, NULL, 10);
		else if (!strcmp(end, "copy_bad"))
			t->copy_bad = strtoull(v, NULL, 10);
		return;
	}
	if (!strcmp(key, "name"))
		burn_copy(g->name, sizeof(g->name), v);
	else if (!strcmp(key, "pci"))
		burn_copy(g->pci, sizeof(g->pci), v);
	else if (!strcmp(key, "refuse")) {
		/* strict: an id outside the catalogue, or no record at all,
		 * is counted and stands as a failed compute */
		struct bench_refusal r;

		if (bench_refusal_parse(v, CAUSE_GPU_COMPUTE_FAILED, &r) < 0)
			g->bad_records++;
		g->refuse = r.cause;
		burn_copy(g->refuse_msg, sizeof(g->refuse_msg), r.msg);
	}
	else if (!strcmp(key, "sdc") && g->nsdc < 5)
		burn_copy(g->sdc[g->nsdc++], sizeof(g->sdc[0]), v);
	else if (!strcmp(key, "membad") && g->nmembad < 5)
		burn_copy(g->membad[g->nmembad++], sizeof(g->membad[0]), v);
	else if (!strcmp(key, "gemms"))
		g->gemms = strtoull(v, NULL, 10);
	else if (!strcmp(key, "bad_gemms"))
		g->bad_gemms = strtoull(v, NULL, 10);
	else if (!strcmp(key, "mem_bad"))
		g->mem_bad = strtoull(v, NULL, 10);
	else if (!strcmp(key, "copy_bad"))
		g->copy_bad = strtoull(v, NULL, 10);
	else if (!strcmp(key, "mem_passes"))
		g->mem_passes = strtoull(v, NULL, 10);
	else if (!strcmp(key, "memtest_bytes"))
		g->memtest_bytes = atof(v);
	else if (!strcmp(key, "gemm_tolerance"))
		g->tolerance = atof(v);
}

/* "0000:65:00.0" and NVML's "00000000:65:00.0" name the same function:
 * domain, bus, device and function compared as numbers (machines with many
 * PCI domains have the same bus number in each). */
static int burn_same_pci(const char *a, const char *b)
{
	unsigned da, ba, sa, fa, db, bb, sb, fb;

	return sscanf(a, "%x:%x:%x.%x", &da, &ba, &sa, &fa) == 4 &&
	       sscanf(b, "%x:%x:%x.%x", &db, &bb, &sb, &fb) == 4 &&
	       da == db && ba == bb && sa == sb && fa == fb;
}

/* The NVML sample of g's GPU, into its latest tick. */
static void burn_attach_sample(const struct kvlist *kv, struct burn_gpu *g)
{
	char key[64];
	long long n = kv_get_ll(kv, "count", -1);
	struct burn_tick *t;

	if (!g->nticks || n <= 0)
		return;
	t = &g->ticks[g->nticks - 1];
	for (long long i = 0; i < n && i < BURN_MAX_GPUS; i++) {
		const char *bus;

		snprintf(key, sizeof(key), "gpu.%lld.bus_id", i);
		bus = kv_get(kv, key);
		if (!bus || !g->pci[0] || !burn_same_pci(bus, g->pci))
			continue;
#define GET(field, name) do { snprintf(key, sizeof(key), "gpu.%lld." name, i); \
		t->field = kv_get_ll(kv, key, -1); } while (0)
		GET(sm_mhz, "sm_clock_mhz");
		GET(mem_mhz, "mem_clock_mhz");
		GET(temp_c, "temperature_c");
		GET(power_mw, "power_mw");
		GET(power_limit_mw, "power_limit_mw");
		/* Processes besides the burn's own child.  Inside a container NVML
		 * reports host pids, so the child's pid is not always found: the
		 * list minus one is the others either way (the child holds a
		 * context from its first tick on). */
		snprintf(key, sizeof(key), "gpu.%lld.proc_count", i);
		t->procs = kv_get_ll(kv, key, -1);
		if (t->procs > 0)
			t->procs--;
		GET(reasons, "clock_reasons");
		GET(ecc_unc, "ecc_volatile_uncorrected");
		GET(remap_pending, "remap_pending");
#undef GET
		return;
	}
}

/* Drain a child's stderr (it is not the protocol); 0 at EOF. */
static int burn_read_err(struct burn_proc *p)
{
	char chunk[4096];
	ssize_t n = read(p->c.errfd, chunk, sizeof(chunk));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	return n > 0;
}

/* Read what a child wrote; parse whole lines.  0 at EOF. */
static int burn_read(struct burn_proc *p, struct burn_gpu *g, double now)
{
	char chunk[4096];
	ssize_t n = read(p->c.outfd, chunk, sizeof(chunk));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	buf_add(&p->line, chunk, (size_t)n);
	for (;;) {
		char *nl = memchr(p->line.s, '\n', p->line.len);
		size_t len;

		if (!nl)
			break;
		*nl = 0;
		len = (size_t)(nl - p->line.s) + 1;
		if (!strcmp(p->line.s, "end"))
			p->saw_end = 1;
		burn_parse_line(g, p->line.s);
		memmove(p->line.s, p->line.s + len, p->line.len - len);
		p->line.len -= len;
		p->line.s[p->line.len] = 0;
	}
	if (g->nticks > p->seen_ticks) {
		p->seen_ticks = g->nticks;
		p->last_tick = now;
	}
	return 1;
}

static void burn_progress(int fd, const struct burn_run *run, double elapsed)
{
	char line[400];
	size_t n = 0;

	if (fd < 0)
		return;
#define CLAMP() do { if (n >= sizeof(line)) n = sizeof(line) - 1; } while (0)
	n += (size_t)snprintf(line + n, sizeof(line) - n, "\rburn %d:%02d/%d:%02d",
			      (int)elapsed / 60, (int)elapsed % 60,
			      (int)run->seconds_asked / 60, (int)run->seconds_asked % 60);
	for (size_t i = 0; i < run->ngpus && i < 4 && n < sizeof(line) - 80; i++) {
		const struct burn_gpu *g = &run->gpus[i];
		const struct burn_tick *t = g->nticks ? &g->ticks[g->nticks - 1] : NULL;

		if (g->refuse != CAUSE_NONE)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "  GPU%d refused", g->index);
		else if (!t)
			n += (size_t)snprintf(line + n, sizeof(line) - n, "  GPU%d starting", g->index);
		else
			n += (size_t)snprintf(line + n, sizeof(line) - n, "  GPU%d %.0f TF %lld MHz %lld C%s",
					      g->index, t->tflops, t->sm_mhz, t->temp_c,
					      g->bad_gemms || g->mem_bad || t->bad_gemms || t->mem_bad ? " ERR" : "");
		CLAMP();
	}
	CLAMP();
	if (run->ngpus > 4 && n < sizeof(line) - 16)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "  +%zu", run->ngpus - 4);
	if (n < sizeof(line) - 8)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "\033[K");
	CLAMP();
#undef CLAMP
	if (write(fd, line, n) < 0)
		return;
}

static int burn_start_child(const struct gd_ctx *ctx, const struct burn_opts *o, char **cublas_args,
			    int index, struct burn_proc *p, struct err *e)
{
	const char *argv[96];
	char idx[16], secs[32], n[16], tick[32], mem[32];
	size_t k = 0;

	snprintf(idx, sizeof(idx), "%d", index);
	snprintf(secs, sizeof(secs), "%.3f", o->seconds);
	snprintf(n, sizeof(n), "%d", o->n > 0 ? o->n : 8192);
	snprintf(tick, sizeof(tick), "%.3f", o->tick > 0 ? o->tick : 1.0);
	snprintf(mem, sizeof(mem), "%.0f", o->mem_mib);
	argv[k++] = ctx->self_exe;
	argv[k++] = "__probe";
	argv[k++] = "burn";
	argv[k++] = idx;
	argv[k++] = "--seconds";
	argv[k++] = secs;
	argv[k++] = "--n";
	argv[k++] = n;
	argv[k++] = "--tick";
	argv[k++] = tick;
	argv[k++] = "--mem-mib";
	argv[k++] = mem;
	for (size_t i = 0; cublas_args && cublas_args[i] && k < 94; i++)
		argv[k++] = cublas_args[i];
	argv[k] = NULL;
	return child_start_argv(argv, NULL, o->seconds + BURN_MIN_DEADLINE, &p->c, e);
}

/* NVML's GPU count, from the sampler's first sample (waits up to 15 s). */
static long long burn_sampler_start(struct sampler *s, double now0)
{
	while (child_now() - now0 < 15.0 && !s->have_sample && !s->init_failed) {
		struct pollfd pf = { .fd = sampler_fd(s), .events = POLLIN };

		if (s->state == SAMPLER_IDLE || s->state == SAMPLER_OFF)
			sampler_tick(s, child_now());
		if (pf.fd < 0 && (pf.fd = sampler_fd(s)) < 0)
			break;
		if (poll(&pf, 1, 200) < 0)
			break;
		sampler_readable(s, child_now());
	}
	return s->init_failed || !s->have_sample ? -1 : kv_get_ll(&s->last, "count", -1);
}

/* How many GPUs CUDA sees: "__probe burn count" in a child (60 s). */
static long long burn_cuda_count(const struct gd_ctx *ctx)
{
	struct child_result r = CHILD_RESULT_INIT;
	struct err e = ERR_INIT;
	const char *argv[] = { ctx->self_exe, "__probe", "burn", "count", "libcuda.so.1", NULL };
	long long n = -1;

	if (child_run_argv(argv, NULL, 60.0, &r, &e) == 0 && r.outcome == CHILD_OK)
		n = kv_get_ll(&r.kv, "count", -1);
	child_result_release(&r);
	return n;
}

int burn_run_all(const struct gd_ctx *ctx, const struct burn_opts *o, struct burn_run *run)
{
	struct sampler s;
	struct burn_proc *procs;
	struct sigaction sa, old_int, old_term;
	double start = child_now(), next_sample, term_sent = 0;
	double stall = o->stall > 0 ? o->stall : BURN_STALL_S, setup = o->stall > 0 ? 2 * o->stall : BURN_SETUP_S;
	char **cublas_args = bench_cublas_argv(ctx, o->cublas, o->ncublas);
	long long count, nvml_count;
	size_t running = 0;

	run->seconds_asked = o->seconds;
	/* Ctrl-C from the start (the sampler's and CUDA's start take seconds);
	 * a signal the caller ignored (nohup) stays ignored. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = burn_on_signal;
	burn_interrupted = 0;
	sigaction(SIGINT, NULL, &old_int);
	sigaction(SIGTERM, NULL, &old_term);
	if (old_int.sa_handler != SIG_IGN)
		sigaction(SIGINT, &sa, NULL);
	if (old_term.sa_handler != SIG_IGN)
		sigaction(SIGTERM, &sa, NULL);
	sampler_init(&s, ctx->self_exe, o->libnvml ? o->libnvml : "libnvidia-ml.so.1", 10.0);
	sampler_tick(&s, start);
	nvml_count = burn_sampler_start(&s, start);
	run->nvml_ok = nvml_count > 0;
	if (!run->nvml_ok) {
		const char *why = kv_get(&s.last, "dlopen_error");

		snprintf(run->nvml_note, sizeof(run->nvml_note), "NVML gave no GPU count (%s): clocks, "
			 "temperatures and ECC are not watched", why ? why : "not loaded or not initialised");
	}
	/* The GPUs are CUDA ordinals (CUDA_VISIBLE_DEVICES applied), as the
	 * children number them: CUDA counts them, NVML only when CUDA cannot. */
	count = burn_cuda_count(ctx);
	if (count <= 0)
		count = nvml_count > 0 ? nvml_count : 1;	/* the child then says why */
	if (o->gpu >= 0 && o->gpu >= count) {
		snprintf(run->error, sizeof(run->error), "there is no GPU %d: CUDA sees %lld", o->gpu, count);
		sampler_release(&s);
		bench_argv_free(cublas_args);
		sigaction(SIGINT, &old_int, NULL);
		sigaction(SIGTERM, &old_term, NULL);
		return -1;
	}
	run->ngpus = o->gpu >= 0 ? 1 : (size_t)(count < BURN_MAX_GPUS ? count : BURN_MAX_GPUS);
	run->gpus = xcalloc(run->ngpus, sizeof(*run->gpus));
	procs = xcalloc(run->ngpus, sizeof(*procs));
	/* All GPUs at once: the node's power and thermal worst case. */
	for (size_t i = 0; i < run->ngpus; i++) {
		struct err e = ERR_INIT;

		run->gpus[i].index = o->gpu >= 0 ? o->gpu : (int)i;
		buf_init(&procs[i].line);
		if (burn_start_child(ctx, o, cublas_args, run->gpus[i].index, &procs[i], &e) < 0) {
			snprintf(run->gpus[i].death, sizeof(run->gpus[i].death), "could not start: %s", e.msg);
			continue;
		}
		procs[i].running = 1;
		procs[i].err_open = 1;
		run->gpus[i].child_pid = procs[i].c.pid;
		procs[i].last_tick = start + setup - stall;
		running++;
	}
	next_sample = start + 1.0;
	while (running) {
		struct pollfd pf[2 * BURN_MAX_GPUS + 1];
		size_t map[2 * BURN_MAX_GPUS + 1], np = 0;
		double now = child_now();

		if (burn_interrupted && !term_sent) {
			run->interrupted = 1;
			term_sent = now;
			for (size_t i = 0; i < run->ngpus; i++)
				if (procs[i].running)
					kill(procs[i].c.pid, SIGTERM);
		}
		for (size_t i = 0; i < run->ngpus; i++) {
			if (procs[i].running) {
				pf[np] = (struct pollfd){ .fd = procs[i].c.outfd, .events = POLLIN };
				map[np++] = i;
			}
			if (procs[i].running && procs[i].err_open) {
				pf[np] = (struct pollfd){ .fd = procs[i].c.errfd, .events = POLLIN };
				map[np++] = BURN_ERR_FD + i;
			}
		}
		if (sampler_fd(&s) >= 0) {
			pf[np] = (struct pollfd){ .fd = sampler_fd(&s), .events = POLLIN };
			map[np++] = (size_t)-1;
		}
		if (poll(pf, np, 250) < 0 && errno != EINTR)
			break;
		now = child_now();
		for (size_t k = 0; k < np; k++) {
			if (!(pf[k].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			if (map[k] != (size_t)-1 && map[k] >= BURN_ERR_FD) {
				if (!burn_read_err(&procs[map[k] - BURN_ERR_FD]))
					procs[map[k] - BURN_ERR_FD].err_open = 0;
				continue;
			}
			if (map[k] == (size_t)-1) {
				double before = s.last_ok;

				sampler_readable(&s, now);
				if (s.last_ok > before)
					for (size_t i = 0; i < run->ngpus; i++)
						burn_attach_sample(&s.last, &run->gpus[i]);
				continue;
			}
			if (!burn_read(&procs[map[k]], &run->gpus[map[k]], now)) {
				struct child_result r = CHILD_RESULT_INIT;
				struct burn_proc *p = &procs[map[k]];
				struct buf why = BUF_INIT;

				child_finish(&p->c, &r);
				/* what came after our last read */
				for (char *line = r.out.s, *nl; line && *line; line = nl + 1) {
					if (!(nl = strchr(line, '\n')))
						break;
					*nl = 0;
					burn_parse_line(&run->gpus[map[k]], line);
				}
				if (r.outcome == CHILD_INCOMPLETE && p->saw_end)
					r.outcome = CHILD_OK;
				if (r.outcome != CHILD_OK)
					snprintf(run->gpus[map[k]].death, sizeof(run->gpus[0].death), "%s",
						 child_outcome_describe(&r, &why));
				if (r.outcome == CHILD_TIMEOUT)
					run->gpus[map[k]].hung = 1;
				buf_release(&why);
				child_result_release(&r);
				p->running = 0;
				running--;
			}
		}
		/* A child whose ticks stopped, or that ignores SIGTERM. */
		for (size_t i = 0; i < run->ngpus; i++) {
			struct burn_proc *p = &procs[i];

			if (p->running && (now - p->last_tick > stall || now > p->c.deadline ||
					   (term_sent && now - term_sent > 15.0))) {
				struct child_result r = CHILD_RESULT_INIT;

				child_cancel(&p->c, &r);
				if (term_sent && now - p->last_tick <= stall) {
					/* asked to stop and slow to: not a GPU fault */
					snprintf(run->gpus[i].death, sizeof(run->gpus[i].death),
						 "did not stop within 15 s of the interrupt and was killed");
				} else {
					snprintf(run->gpus[i].death, sizeof(run->gpus[i].death),
						 "printed no progress for %.0f s and was killed (a kernel or a copy that never ends)",
						 now - p->last_tick);
					run->gpus[i].hung = 1;
				}
				child_result_release(&r);
				p->running = 0;
				running--;
			}
		}
		if (now >= next_sample) {
			sampler_tick(&s, now);
			next_sample = now + 1.0;
			burn_progress(o->progress_fd, run, now - start);
		}
	}
	if (o->progress_fd >= 0 && write(o->progress_fd, "\r\033[K", 4) < 0)
		(void)0;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	if (s.hang)
		snprintf(run->nvml_note, sizeof(run->nvml_note), "NVML stopped answering: %s", s.hang_what);
	sampler_release(&s);
	for (size_t i = 0; i < run->ngpus; i++)
		buf_release(&procs[i].line);
	free(procs);
	bench_argv_free(cublas_args);
	run->seconds_ran = child_now() - start;
	return 0;
}
