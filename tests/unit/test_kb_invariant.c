/*
 * test_kb_invariant.c - the version contract never says "yes" to a
 * combination that fails (issue 9).
 *
 * test_invariant walks the whole product of the tables: every GPU x every
 * driver the tables name (toolkit minimums, minor-version floors, each GPU's
 * first driver, and the last release of each of those branches) x every
 * TensorFlow, PyTorch (release x variant) and JAX (plugin row x released
 * version) row, and checks that a "yes" implies, through the public rule
 * functions:
 *   1. the driver knows the GPU;
 *   2. the driver runs the CUDA the build needs (and JAX's documented floor);
 *   3. the build has SASS for the GPU, or PTX the driver can JIT;
 *   4. the cuDNN that the install command brings has code for the GPU;
 *   5. no recorded known failure applies.
 * The other cases test each class through the same public functions with
 * real cases from the sources (cited).
 */
#include "knowledge/kb.h"
#include "core/version.h"
#include "tap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct kb *kb;

static const struct kb_gpu *pci(unsigned dev)
{
	return kb_gpu_by_pci(kb, 0x10de, dev);
}

/* ---- the invariant over the product of the tables ---- */

#define MAXDRV 256

static const char *drivers[MAXDRV];
static char latebuf[MAXDRV][24];
static size_t ndrivers;

static void add_driver(const char *d)
{
	if (!d || ndrivers >= MAXDRV)
		return;
	for (size_t i = 0; i < ndrivers; i++)
		if (!strcmp(drivers[i], d))
			return;
	drivers[ndrivers++] = d;
}

static void collect_drivers(void)
{
	size_t base;

	for (size_t i = 0; i < kb_cuda_count(kb); i++)
		add_driver(kb_cuda_at(kb, i)->linux_min);
	for (int m = 10; m <= 13; m++)
		add_driver(kb_cuda_compat_floor(kb, m));
	for (size_t i = 0; i < kb_gpu_count(kb); i++)
		add_driver(kb_gpu_first_driver(kb, kb_gpu_at(kb, i)));
	/* and the last release of each branch seen ("580.999.99") */
	base = ndrivers;
	for (size_t i = 0; i < base && ndrivers < MAXDRV; i++) {
		struct version v;

		if (version_parse(drivers[i], &v) < 0)
			continue;
		snprintf(latebuf[i], sizeof(latebuf[i]), "%ld.999.99", v.part[0]);
		add_driver(latebuf[i]);
	}
}

static long checks, yeses, violations;

/* What a "yes" was for, formatted only when it is reported: formatting it for
 * each of the ~370k yes answers took a fifth of the walk. */
struct what {
	const char *fmt, *a, *b;
};

static void violation(const struct what *w, const struct kb_gpu *g, const char *drv, const char *rule,
		      const char *why)
{
	char what[96];

	violations++;
	if (violations > 20)
		return;
	snprintf(what, sizeof(what), w->fmt, w->a, w->b ? w->b : "");
	printf("#   yes for %s on %s (10de:%04x) with driver %s, but %s: %s\n", what, g->name, g->device,
		       drv, rule, why);
}

/* The five conditions of a "yes". */
static void check_yes(const struct what *what, const char *framework, const char *version, int cuda,
		      const char *archs, const char *min_driver, const struct kb_gpu *g, const char *drv,
		      const struct kb_fit *f)
{
	struct kb_verdict v;

	yeses++;
	checks += 5;
	if (kb_driver_knows_gpu(kb, drv, g, g->cc_major, g->cc_minor, &v) != 1)
		violation(what, g, drv, "the driver does not know the GPU", v.why);
	if (kb_driver_runs_cuda(kb, drv, cuda, g->datacenter, &v) != 1 ||
	    (min_driver && version_cmp_str(drv, min_driver) < 0))
		violation(what, g, drv, "the driver does not run its CUDA", v.why);
	{
		const char *list[1] = { archs };

		if (!archs || kb_arch_runs(list, 1, g->cc_major, g->cc_minor, &v) != 1)
			violation(what, g, drv, "no SASS or PTX for the GPU", archs ? v.why : "archs unknown");
		else if (v.via == KB_VIA_PTX && kb_ptx_jit_runs(kb, drv, cuda, &v) != 1)
			violation(what, g, drv, "the driver cannot JIT the PTX", v.why);
	}
	if (!f->cudnn[0] || kb_cudnn_runs_on(kb, f->cudnn, g->cc_major, g->cc_minor, &v) != 1)
		violation(what, g, drv, "the cuDNN of the install command has no code for it",
			  f->cudnn[0] ? v.why : "cuDNN unknown");
	if (kb_known_failure(kb, framework, version, g->cc_major, g->cc_minor))
		violation(what, g, drv, "a known failure applies", version);
}

/* GPUs that behave the same (CC, class, which drivers know them) are walked once:
 * a fit depends on the GPU only through these. */
struct gclass {
	const struct kb_gpu *g;
	signed char knows[MAXDRV];
};

static void classify(const struct kb_gpu *g, struct gclass *c)
{
	c->g = g;
	for (size_t d = 0; d < ndrivers; d++)
		c->knows[d] = (signed char)kb_driver_knows_gpu(kb, drivers[d], g, -1, -1, NULL);
}

static int same_class(const struct gclass *a, const struct gclass *b)
{
	if (a->g->cc_major != b->g->cc_major || a->g->cc_minor != b->g->cc_minor ||
	    a->g->datacenter != b->g->datacenter)
		return 0;
	return !memcmp(a->knows, b->knows, ndrivers);
}

static void walk_gpu(const struct kb_gpu *g, const size_t *dlist, size_t nd)
{
	const char *rel = kb_fact(kb, "jax.releases");

	for (size_t di = 0; di < nd; di++) {
		size_t d = dlist[di];
		struct kb_target t = { drivers[d], g, g->cc_major, g->cc_minor, g->datacenter };
		struct kb_fit f;
		struct what what;

		for (size_t i = 0; i < kb_tf_count(kb); i++) {
			const struct kb_tf *tf = kb_tf_at(kb, i);

			if (kb_tf_fit(kb, tf, &t, &f) == 1) {
				what = (struct what){ "TensorFlow %s", tf->version, NULL };
				check_yes(&what, "tensorflow", tf->version, tf->cuda_version, tf->archs, NULL, g,
					  drivers[d], &f);
			}
		}
		for (size_t i = 0; i < kb_torch_count(kb); i++) {
			const struct kb_torch *p = kb_torch_at(kb, i);

			if (kb_torch_fit(kb, p, &t, &f) == 1) {
				what = (struct what){ "PyTorch %s+%s", p->version, p->variant };
				check_yes(&what, "torch", p->version, p->cuda_version, p->archs, NULL, g, drivers[d], &f);
			}
		}
		for (size_t i = 0; i < kb_cupy_count(kb); i++) {
			const struct kb_cupy *c = kb_cupy_at(kb, i);
			const struct kb_arch *a = kb_arch_info(kb, g->cc_major, g->cc_minor);
			struct kb_verdict v;

			if (kb_cupy_fit(kb, c, &t, &f) != 1)
				continue;
			/* run-time compiled: the GPU needs a driver that knows it and runs the CUDA, and
			 * an architecture that CUDA major supports */
			yeses++;
			checks += 3;
			what = (struct what){ "CuPy %s (%s)", c->cupy, c->package };
			if (kb_driver_knows_gpu(kb, drivers[d], g, -1, -1, &v) != 1)
				violation(&what, g, drivers[d], "the driver does not know the GPU", v.why);
			if (kb_driver_runs_cuda(kb, drivers[d], c->cuda_to, g->datacenter, &v) != 1)
				violation(&what, g, drivers[d], "the driver does not run its CUDA", v.why);
			if (!a || a->first_cuda > c->cuda_to || (a->last_cuda >= 0 && a->last_cuda < c->cuda_to))
				violation(&what, g, drivers[d], "its CUDA does not support the architecture", "");
		}
		for (size_t i = 0; i < kb_jax_count(kb); i++) {
			const struct kb_jax *j = kb_jax_at(kb, i);
			const char *p = rel;

			/* the row's newest (NULL) and every released version it serves */
			if (kb_jax_fit(kb, j, NULL, &t, &f) == 1) {
				what = (struct what){ "JAX %s+ (%s)", j->jax_from, j->plugin };
				check_yes(&what, "jax", j->jax_to ? j->jax_to : j->jax_from, j->cuda_min, j->archs,
					  j->min_driver, g, drivers[d], &f);
			}
			while (p && *p) {
				char ver[16];
				size_t n = strcspn(p, " ");

				snprintf(ver, sizeof(ver), "%.*s", (int)(n < 15 ? n : 15), p);
				p += n + (p[n] == ' ');
				if (kb_jax_release(kb, ver, j->plugin) != j)
					continue;
				if (kb_jax_fit(kb, j, ver, &t, &f) == 1) {
					what = (struct what){ "JAX %s (%s)", ver, j->plugin };
					check_yes(&what, "jax", ver, j->cuda_min, j->archs, j->min_driver, g,
						  drivers[d], &f);
				}
			}
		}
	}
}

/* Drivers that behave the same for a GPU class are walked once.  A fit sees the
 * driver only through four public predicates (kb_fit.c's common()): does it
 * know the GPU, does it run CUDA c (per datacenter class), can it JIT PTX of
 * CUDA c, is it at least a row's documented minimum.  Two drivers with the
 * same answers to all of them, for every CUDA version and minimum the rows
 * name, get the same verdict for every row; fits_agree() re-checks that on
 * every 8th class by walking a second member of each group. */
#define MAXPRED 256

static int cudas[MAXPRED / 2];
static size_t ncudas;
static const char *mins[32];
static size_t nmins;
static signed char dsig[2][MAXDRV][MAXPRED];
static size_t npred;

static void add_cuda(int c)
{
	if (c < 0 || ncudas >= MAXPRED / 2 - 1)
		return;
	for (size_t i = 0; i < ncudas; i++)
		if (cudas[i] == c)
			return;
	cudas[ncudas++] = c;
}

static void collect_predicates(void)
{
	for (size_t i = 0; i < kb_tf_count(kb); i++)
		add_cuda(kb_tf_at(kb, i)->cuda_version);
	for (size_t i = 0; i < kb_torch_count(kb); i++)
		add_cuda(kb_torch_at(kb, i)->cuda_version);
	for (size_t i = 0; i < kb_cupy_count(kb); i++) {
		add_cuda(kb_cupy_at(kb, i)->cuda_from);
		add_cuda(kb_cupy_at(kb, i)->cuda_to);
	}
	for (size_t i = 0; i < kb_jax_count(kb); i++) {
		const char *m = kb_jax_at(kb, i)->min_driver;
		size_t k;

		add_cuda(kb_jax_at(kb, i)->cuda_min);
		for (k = 0; m && k < nmins; k++)
			if (!strcmp(mins[k], m))
				break;
		if (m && k == nmins && nmins < sizeof(mins) / sizeof(mins[0]))
			mins[nmins++] = m;
	}
	npred = 2 * ncudas + nmins;
	for (int dc = 0; dc < 2; dc++)
		for (size_t d = 0; d < ndrivers; d++) {
			size_t k = 0;

			for (size_t c = 0; c < ncudas; c++) {
				dsig[dc][d][k++] = (signed char)kb_driver_runs_cuda(kb, drivers[d], cudas[c], dc, NULL);
				dsig[dc][d][k++] = (signed char)kb_ptx_jit_runs(kb, drivers[d], cudas[c], NULL);
			}
			for (size_t m = 0; m < nmins; m++)
				dsig[dc][d][k++] = (signed char)(version_cmp_str(drivers[d], mins[m]) >= 0);
		}
}

/* Group the drivers of class c: rep[] gets one driver per group, alt[] a second
 * member where the group has one (else the representative again). */
static size_t driver_groups(const struct gclass *c, size_t *rep, size_t *alt)
{
	int dc = c->g->datacenter ? 1 : 0;
	size_t n = 0;

	for (size_t d = 0; d < ndrivers; d++) {
		size_t k;

		for (k = 0; k < n; k++)
			if (c->knows[rep[k]] == c->knows[d] && !memcmp(dsig[dc][rep[k]], dsig[dc][d], npred))
				break;
		if (k < n) {
			if (alt[k] == rep[k])
				alt[k] = d;
			continue;
		}
		rep[n] = alt[n] = d;
		n++;
	}
	return n;
}

/* Every row's verdict for GPU g with driver d, as a string of ok values. */
static void fits_of(const struct kb_gpu *g, size_t d, char *out, size_t cap)
{
	struct kb_target t = { drivers[d], g, g->cc_major, g->cc_minor, g->datacenter };
	struct kb_fit f;
	size_t n = 0;

	for (size_t i = 0; i < kb_tf_count(kb) && n + 1 < cap; i++)
		out[n++] = (char)('1' + kb_tf_fit(kb, kb_tf_at(kb, i), &t, &f));
	for (size_t i = 0; i < kb_torch_count(kb) && n + 1 < cap; i++)
		out[n++] = (char)('1' + kb_torch_fit(kb, kb_torch_at(kb, i), &t, &f));
	for (size_t i = 0; i < kb_cupy_count(kb) && n + 1 < cap; i++)
		out[n++] = (char)('1' + kb_cupy_fit(kb, kb_cupy_at(kb, i), &t, &f));
	for (size_t i = 0; i < kb_jax_count(kb) && n + 1 < cap; i++)
		out[n++] = (char)('1' + kb_jax_fit(kb, kb_jax_at(kb, i), NULL, &t, &f));
	out[n] = '\0';
}

static long disagreements;

static void fits_agree(const struct kb_gpu *g, size_t a, size_t b)
{
	char fa[512], fb[512];

	fits_of(g, a, fa, sizeof(fa));
	fits_of(g, b, fb, sizeof(fb));
	if (strcmp(fa, fb) && ++disagreements <= 5)
		printf("#   drivers %s and %s were grouped for %s but their verdicts differ: %s / %s\n",
		       drivers[a], drivers[b], g->name, fa, fb);
}

static void test_invariant(void)
{
	struct gclass *seen = calloc(kb_gpu_count(kb), sizeof(*seen)), cur;
	size_t nseen = 0, walked = 0, pairs = 0, rep[MAXDRV], alt[MAXDRV];

	collect_drivers();
	collect_predicates();
	CHECK(ndrivers > 60);
	CHECK(npred > 20);
	for (size_t i = 0; seen && i < kb_gpu_count(kb); i++) {
		const struct kb_gpu *g = kb_gpu_at(kb, i);
		size_t k;

		if (g->cc_major < 0)
			continue;
		walked++;
		classify(g, &cur);
		for (k = 0; k < nseen; k++)
			if (same_class(&seen[k], &cur))
				break;
		if (k < nseen)
			continue;
		seen[nseen++] = cur;
		{
			size_t n = driver_groups(&cur, rep, alt);

			pairs += n;
			walk_gpu(g, rep, n);
			for (size_t j = 0; nseen % 8 == 1 && j < n; j++)
				if (alt[j] != rep[j])
					fits_agree(g, rep[j], alt[j]);
		}
	}
	printf("# invariant: %zu GPUs (%zu classes) x %zu drivers (%zu class x driver-group pairs over %zu "
	       "predicates) x %zu TF + %zu torch + %zu JAX + %zu CuPy rows: %ld yes answers, %ld conditions "
	       "checked, %ld violations, %ld grouping disagreements\n", walked, nseen, ndrivers, pairs, npred,
	       kb_tf_count(kb), kb_torch_count(kb), kb_jax_count(kb), kb_cupy_count(kb), yeses, checks, violations,
	       disagreements);
	CHECK(walked > 500);
	CHECK(yeses > 1000);
	CHECK_INT(violations, 0);
	CHECK_INT(disagreements, 0);
	free(seen);
}

/* ---- class 1: the first driver of each GPU ---- */

static void test_first_driver(void)
{
	struct kb_verdict v;
	struct kb_target t = { "515.65.01", pci(0x2704), -1, -1, 0 };
	struct kb_fit f;

	/* RTX 4080 (2704) first listed at 525.47.04 in open-gpu-kernel-modules; absent in R515 */
	CHECK_INT(kb_driver_knows_gpu(kb, "515.65.01", pci(0x2704), -1, -1, &v), 0);
	CHECK(strstr(v.why, "525.47.04") != NULL);
	CHECK_INT(kb_driver_knows_gpu(kb, "525.60.11", pci(0x2704), -1, -1, &v), 1);
	/* RTX 4090 (2684): absent at 515.43.04, present at 520.56.06 (facts.md section 11) */
	CHECK_INT(kb_driver_knows_gpu(kb, "515.43.04", pci(0x2684), -1, -1, &v), 0);
	CHECK_INT(kb_driver_knows_gpu(kb, "520.56.06", pci(0x2684), -1, -1, &v), 1);
	/* L4 (27b8) on R470: Ada needs R520 at least */
	CHECK_INT(kb_driver_knows_gpu(kb, "470.256.02", pci(0x27b8), -1, -1, &v), 0);
	/* B200 (2901) at 570.86.15; RTX 5090 (2b85) absent in 565.57.01 */
	CHECK_INT(kb_driver_knows_gpu(kb, "565.57.01", pci(0x2b85), -1, -1, &v), 0);
	CHECK_INT(kb_driver_knows_gpu(kb, "570.124.04", pci(0x2b85), -1, -1, &v), 1);
	CHECK_INT(kb_driver_knows_gpu(kb, "570.86.15", pci(0x2901), -1, -1, &v), 1);
	/* H20-3e (232c): backported to 535.216.03 and 550.40.80, main line from 565.77 */
	CHECK_INT(kb_driver_knows_gpu(kb, "535.216.03", pci(0x232c), -1, -1, &v), 1);
	/* between them the id is not listed, but GH100 is supported: "not
	 * officially supported" (unknown, never yes), not refused (issue 21) */
	CHECK_INT(kb_driver_knows_gpu(kb, "545.29.06", pci(0x232c), -1, -1, &v), -1);
	CHECK_INT(v.via, KB_VIA_UNLISTED);
	CHECK_INT(kb_driver_knows_gpu(kb, "550.40.07", pci(0x232c), -1, -1, &v), -1);
	CHECK_INT(v.via, KB_VIA_UNLISTED);
	/* H200 SXM (2335, first listed 550.40.65) on R535: GH100 listed since 520.56.06 */
	CHECK_INT(kb_driver_knows_gpu(kb, "535.104.05", pci(0x2335), -1, -1, &v), -1);
	CHECK_INT(v.via, KB_VIA_UNLISTED);
	/* 10de:2336 "H100 80GB HBM2e", listed by 525.47.07 and 525.85.05 only */
	CHECK_INT(kb_driver_knows_gpu(kb, "525.85.05", pci(0x2336), -1, -1, &v), 1);
	CHECK_INT(kb_driver_knows_gpu(kb, "580.95.05", pci(0x2336), -1, -1, &v), -1);
	CHECK_INT(v.via, KB_VIA_UNLISTED);
	/* the first-release rule: no id of AD102 is listed before 520.56.06 */
	CHECK_INT(kb_driver_knows_gpu(kb, "515.43.04", pci(0x2684), -1, -1, &v), 0);
	CHECK_INT(kb_driver_knows_gpu(kb, "550.100", pci(0x232c), -1, -1, &v), 1);
	CHECK_INT(kb_driver_knows_gpu(kb, "580.95.05", pci(0x232c), -1, -1, &v), 1);
	/* an old GPU: the architecture's first driver (T4: Turing, CUDA 10.0's 410.48) */
	CHECK_STR(kb_gpu_first_driver(kb, pci(0x1eb8)), "410.48");
	CHECK_INT(kb_driver_knows_gpu(kb, "450.80.02", pci(0x1eb8), -1, -1, &v), 1);
	/* Pascal after its last branch (R580) */
	CHECK_INT(kb_driver_knows_gpu(kb, "590.44.01", pci(0x15f8), -1, -1, &v), 0);
	/* by compute capability alone */
	CHECK_INT(kb_driver_knows_gpu(kb, "515.65.01", NULL, 8, 9, &v), 0);
	/* and the framework answer follows: TF 2.15 on an RTX 4080 with R515 is no */
	CHECK_INT(kb_tf_fit(kb, kb_tf_release(kb, "2.15"), &t, &f), 0);
	CHECK(strstr(f.v.why, "525.47.04") != NULL);
}

/* ---- class 2: PTX JIT needs a driver >= the toolkit that produced the PTX ---- */

static void test_ptx_rule(void)
{
	struct kb_verdict v;
	struct kb_fit f;
	struct kb_target t = { "550.54.15", pci(0x2330), -1, -1, 1 };

	/* TF 2.21 (CUDA 12.5.1) has only compute_90 PTX for Hopper: needs >= 555.42.02 (facts.md 11) */
	CHECK_INT(kb_ptx_jit_runs(kb, "550.54.15", 12050, &v), 0);
	CHECK_INT(kb_ptx_jit_runs(kb, "555.42.02", 12050, &v), 1);
	CHECK_INT(kb_tf_fit(kb, kb_tf_release(kb, "2.21"), &t, &f), 0);
	CHECK(strstr(f.v.why, "555.42.02") != NULL);
	t.driver = "555.42.02";
	CHECK_INT(kb_tf_fit(kb, kb_tf_release(kb, "2.21"), &t, &f), 1);
	/* TF 2.15's compute_80 PTX from CUDA 12.2 on an H100 with R535 */
	t.driver = "535.104.05";
	CHECK_INT(kb_tf_fit(kb, kb_tf_release(kb, "2.15"), &t, &f), 1);
	/* SASS needs no JIT: torch 2.14+cu126 (sm_90) under minor-version compatibility */
	CHECK_INT(kb_torch_fit(kb, kb_torch_release(kb, "2.14", "cu126"), &t, &f), 1);
}

/* ---- class 3: a framework on an architecture newer than its toolkit, through PTX ---- */

static void test_known_failures(void)
{
	struct kb_fit f;
	struct kb_target t = { "580.95.05", pci(0x2b85), -1, -1, 0 };
	const struct kb_failure *k;

	/* tensorflow/tensorflow#111958: 2.21.0 on sm_120, "PTX version 8.5 does not support target" */
	k = kb_known_failure(kb, "tensorflow", "2.21.0", 12, 0);
	CHECK(k && strstr(k->source, "tf-issue-111958"));
	CHECK_INT(kb_tf_fit(kb, kb_tf_release(kb, "2.21"), &t, &f), 0);
	CHECK(f.failure != NULL && strstr(f.v.why, "known failure") != NULL);
	/* #90291: 2.18 on Blackwell (B200) */
	t.gpu = pci(0x2901);
	CHECK_INT(kb_tf_fit(kb, kb_tf_release(kb, "2.18"), &t, &f), 0);
	/* #101746: 2.16.2 */
	CHECK(kb_known_failure(kb, "tensorflow", "2.16.2", 10, 0) != NULL);
	CHECK(kb_known_failure(kb, "tensorflow", "2.21.0", 9, 0) == NULL);
	/* TF 2.15 on Blackwell: PTX from CUDA 12.2, older than sm_120: never a yes */
	t.gpu = pci(0x2b85);
	CHECK(kb_tf_fit(kb, kb_tf_release(kb, "2.15"), &t, &f) != 1);
	/* while torch cu128 has sm_120 SASS */
	CHECK_INT(kb_torch_fit(kb, kb_torch_release(kb, "2.9", "cu128"), &t, &f), 1);
}

/* ---- class 4: what pip installs today ---- */

static void test_pip_cudnn(void)
{
	struct kb_verdict v;
	struct kb_fit f;
	struct kb_target t = { "570.124.06", pci(0x15f8), -1, -1, 1 };	/* Tesla P100 */

	/* pip index versions nvidia-cudnn-cu12 (2026-11-30): newest 9.28.0.42 */
	CHECK_STR(kb_pip_resolve(kb, "nvidia-cudnn-cu12", ">=9.3.0.75,<10"), "9.28.0.42");
	CHECK_STR(kb_pip_resolve(kb, "nvidia-cudnn-cu12", "==9.3.0.75"), "9.3.0.75");
	CHECK_STR(kb_pip_resolve(kb, "nvidia-cudnn-cu12", ">=8.9,<9"), "8.9.7.29");
	/* cuDNN 9.11+ has no pre-Turing code (conda-forge/jaxlib-feedstock#330) */
	CHECK_INT(kb_cudnn_runs_on(kb, "9.28.0.42", 6, 0, &v), 0);
	CHECK_INT(kb_cudnn_runs_on(kb, "9.11.0.98", 7, 0, &v), 0);
	CHECK_INT(kb_cudnn_runs_on(kb, "9.10.2.21", 6, 0, &v), 1);
	CHECK_INT(kb_cudnn_runs_on(kb, "9.28.0.42", 9, 0, &v), 1);
	/* TF 2.21 [and-cuda] pins >=9.3.0.75,<10: on a P100 the command pins 9.10.2.21 */
	CHECK_INT(kb_tf_fit(kb, kb_tf_release(kb, "2.21"), &t, &f), 1);
	CHECK(strstr(f.install, "\"nvidia-cudnn-cu12==9.10.2.21\"") != NULL);
	CHECK_STR(f.cudnn, "9.10.2.21");
	/* TF 2.19 pins ==9.3.0.75 exactly: no pin needed, 9.3 has Pascal code */
	CHECK_INT(kb_tf_fit(kb, kb_tf_release(kb, "2.19"), &t, &f), 1);
	CHECK(strstr(f.install, "nvidia-cudnn") == NULL);
	/* jax[cuda12] >= 0.11.2 needs cuDNN >= 9.10.2.21: the pin still fits */
	CHECK_INT(kb_jax_fit(kb, kb_jax_release(kb, "0.12.0", "cuda12"), "0.12.0", &t, &f), 1);
	CHECK(strstr(f.install, "nvidia-cudnn-cu12==9.10.2.21") != NULL);
	/* on an H100 nothing is pinned */
	t.gpu = pci(0x2330);
	CHECK_INT(kb_tf_fit(kb, kb_tf_release(kb, "2.21"), &t, &f), 1);
	CHECK(strstr(f.install, "nvidia-cudnn") == NULL);
	CHECK_STR(f.cudnn, "9.28.0.42");
}

/* ---- class 5: per-variant arch lists of PyTorch ---- */

static void test_torch_archs(void)
{
	struct kb_fit f;
	struct kb_target t = { "560.35.03", pci(0x1b80), -1, -1, 0 };	/* GTX 1080, CC 6.1 */

	for (size_t i = 0; i < kb_torch_count(kb); i++)
		CHECK(kb_torch_at(kb, i)->archs != NULL);
	/* torch 2.7 cu128 starts at sm_75 (facts.md 11); cu126 has sm_60 */
	CHECK_INT(kb_torch_fit(kb, kb_torch_release(kb, "2.7", "cu128"), &t, &f), 0);
	CHECK_INT(kb_torch_fit(kb, kb_torch_release(kb, "2.7", "cu126"), &t, &f), 1);
	/* 2.10 cu128 keeps Volta (torch.cuda.get_arch_list() in pytorch/pytorch#182250), 2.11 drops it */
	t.gpu = pci(0x1db1);
	t.driver = "570.124.06";
	CHECK_INT(kb_torch_fit(kb, kb_torch_release(kb, "2.10", "cu128"), &t, &f), 1);
	CHECK_INT(kb_torch_fit(kb, kb_torch_release(kb, "2.11", "cu128"), &t, &f), 0);
	/* no "probably runs" left anywhere */
	CHECK(strstr(f.v.why, "probably") == NULL);
}

/* ---- class 6: JAX releases and their cuDNN ---- */

static void test_jax_releases(void)
{
	CHECK_INT(kb_jax_released(kb, "0.4.30"), 1);
	CHECK_INT(kb_jax_released(kb, "0.12.0"), 1);
	CHECK_INT(kb_jax_released(kb, "0.4.99"), 0);
	CHECK_INT(kb_jax_released(kb, "0.4.3"), 0);	/* a prefix of 0.4.30 is not a release */
	/* four-part releases are releases (PyPI, issue 21) */
	CHECK_INT(kb_jax_released(kb, "0.12.0.1"), 1);
	CHECK_INT(kb_jax_released(kb, "0.9.0.1"), 1);
	CHECK_INT(kb_jax_released(kb, "0.12.0.2"), 0);
	CHECK_STR(kb_jax_release(kb, "0.4.29", "cuda12")->cudnn_min, "9.0");
	CHECK_STR(kb_jax_release(kb, "0.4.26", "cuda12")->cudnn_max, "9");
}

/* ---- the short names and the names nvidia-smi prints ---- */

static void test_names(void)
{
	static const struct { const char *name; unsigned dev; } cases[] = {
		{ "NVIDIA GeForce RTX 3090", 0x2204 }, { "NVIDIA A10G", 0x2237 }, { "Tesla T4", 0x1eb8 },
		{ "NVIDIA L40S", 0x26b9 }, { "NVIDIA H100 80GB HBM3", 0x2330 },
		{ "Tesla V100-SXM2-32GB", 0x1db5 }, { "NVIDIA A100-SXM4-80GB", 0x20b2 }, { "T4", 0x1eb8 },
		{ "A100", 0x20b0 }, { "V100", 0x1db1 },
		/* an exact name beats a prefix; the current id wins (issue 21) */
		{ "GTX 1080", 0x1b80 }, { "GTX 1080 Ti", 0x1b06 }, { "NVIDIA GeForce GTX 1080", 0x1b80 },
		{ "H100", 0x2339 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct kb_gpu *g = kb_gpu_by_name(kb, cases[i].name);

		CHECK(g != NULL);
		if (g && g->device != cases[i].dev)
			printf("#   %s -> %s (10de:%04x), expected 10de:%04x\n", cases[i].name, g->name, g->device,
			       cases[i].dev);
		CHECK(g && g->device == cases[i].dev);
	}
}

/* ---- Python per distribution release (issue 21) ----
 *
 * A separate dimension of the product: every release's Python column x every
 * distribution release.  What kb_python_packaged() names must be a package
 * the release ships (its facts.tsv list), inside the release's range, and
 * the newest such; a release the kb does not know gets -1, never a guess. */

static const char *const repos[] = {
	"debian11", "debian12", "debian13", "ubuntu2004", "ubuntu2204", "ubuntu2404", "ubuntu2604",
	"rhel8", "rhel9", "rhel10", "fedora42",
};

/* The newest version of the fact's list in [lo, hi], by a reading of its own. */
static int newest_listed(const char *list, int lo, int hi, char *pkg, size_t size)
{
	int best = 0;

	for (const char *p = list; p && *p;) {
		int ma, mi, n = 0;
		char name[64];

		if (sscanf(p, "%d.%d:%63[^ ]%n", &ma, &mi, name, &n) != 3 || n == 0)
			break;
		if (ma * 100 + mi >= lo && ma * 100 + mi <= hi && ma * 100 + mi > best) {
			best = ma * 100 + mi;
			snprintf(pkg, size, "%s", name);
		}
		p += n;
		while (*p == ' ')
			p++;
	}
	return best;
}

static void check_python_range(const char *what, const char *range)
{
	int lo, hi;

	if (kb_python_range(range, &lo, &hi) < 0) {
		printf("#   %s: Python range '%s' does not parse\n", what, range ? range : "(null)");
		CHECK(0);
		return;
	}
	for (size_t r = 0; r < sizeof(repos) / sizeof(repos[0]); r++) {
		char key[64], pkg[64] = "", want[64] = "";
		const char *list;
		int got, expect;

		snprintf(key, sizeof(key), "python.packages.%s", repos[r]);
		list = kb_fact(kb, key);
		got = kb_python_packaged(kb, repos[r], lo, hi, pkg, sizeof(pkg));
		if (!list) {
			if (got != -1)
				printf("#   %s on %s: an unknown release answered %d\n", what, repos[r], got);
			CHECK(got == -1);
			continue;
		}
		expect = newest_listed(list, lo, hi, want, sizeof(want));
		if (got != expect || (got > 0 && strcmp(pkg, want)))
			printf("#   %s (%s) on %s: got %d %s, expected %d %s\n", what, range, repos[r], got, pkg,
			       expect, want);
		CHECK(got == expect && (got == 0 || !strcmp(pkg, want)));
	}
}

static void test_python_packages(void)
{
	int lo, hi;
	char pkg[64];

	for (size_t i = 0; i < kb_tf_count(kb); i++)
		check_python_range(kb_tf_at(kb, i)->version, kb_tf_at(kb, i)->python);
	for (size_t i = 0; i < kb_torch_count(kb); i++)
		check_python_range(kb_torch_at(kb, i)->version, kb_torch_at(kb, i)->python);
	for (size_t i = 0; i < kb_cupy_count(kb); i++)
		check_python_range(kb_cupy_at(kb, i)->package, kb_cupy_at(kb, i)->python);
	/* the audit's cases: Debian 12 has python3.11 only */
	CHECK_INT(kb_python_packaged(kb, "debian12", 310, 314, pkg, sizeof(pkg)), 311);
	CHECK_STR(pkg, "python3.11");
	CHECK_INT(kb_python_packaged(kb, "debian12", 312, 399, pkg, sizeof(pkg)), 0);
	CHECK_INT(kb_python_packaged(kb, "debian12", 309, 312, pkg, sizeof(pkg)), 311);
	CHECK_INT(kb_python_packaged(kb, "rhel8", 309, 312, pkg, sizeof(pkg)), 312);
	CHECK_STR(pkg, "python3.12");
	CHECK_INT(kb_python_packaged(kb, "rhel8", 308, 309, pkg, sizeof(pkg)), 309);
	CHECK_STR(pkg, "python39");
	CHECK_INT(kb_python_range("3.11+", &lo, &hi), 0);
	CHECK_INT(lo, 311);
	CHECK_INT(kb_python_range("3.7, 3.9-3.12", &lo, &hi), 0);
	CHECK_INT(lo * 1000 + hi, 309312);
	CHECK_INT(kb_python_range("2.7", &lo, &hi), -1);
}

int main(void)
{
	struct err e = ERR_INIT;

	if (kb_open(NULL, &kb, &e) < 0) {
		printf("not ok 1 - kb_open: %s\n1..1\n", e.msg);
		return 1;
	}
	RUN(test_first_driver);
	RUN(test_ptx_rule);
	RUN(test_known_failures);
	RUN(test_pip_cudnn);
	RUN(test_torch_archs);
	RUN(test_jax_releases);
	RUN(test_names);
	RUN(test_python_packages);
	RUN(test_invariant);
	kb_close(kb);
	return tap_done();
}
