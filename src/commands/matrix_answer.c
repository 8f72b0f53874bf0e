/*
 * matrix_answer.c - answer a `gpudoctor matrix` query from the knowledge
 * base: facts about what was given (GPU, driver, CUDA, a release), verdicts
 * with their chain of reasons, and the newest TF / PyTorch / JAX that fit.
 * This file reads the query and describes the GPU and driver given; the
 * verdicts on a named release are matrix_ask.c's, the newest that fit
 * matrix_newest.c's, the items and facts they add matrix_items.c's
 * (matrix_parts.h).
 */
#include "commands/matrix.h"
#include "commands/matrix_parts.h"
#include "core/fs.h"
#include "core/strmap.h"
#include "core/version.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void describe_driver(const struct kb *kb, const char *d, int dc, struct matrix_result *r)
{
	int rep = kb_driver_cuda_version(kb, d), newest = kb_cuda_newest_for_driver(kb, d);
	struct version dv;

	if (rep > 0)
		mx_fact(r, "driver", "%s (R%s) reports CUDA %d.%d", d, d, rep / 1000, rep % 1000 / 10);
	else
		mx_fact(r, "driver", "%s (branch not in the knowledge base)", d);
	/* cut the branch from "%s (R%s)" -> first part only */
	if (version_parse(d, &dv) == 0)
		snprintf(r->facts[r->nfacts - 1].value, sizeof(r->facts[0].value),
			 rep > 0 ? "%s (R%ld) reports CUDA %d.%d" : "%s (R%ld: branch not in the knowledge base)",
			 d, dv.part[0], rep / 1000, rep % 1000 / 10);
	if (newest > 0)
		mx_fact(r, "newest toolkit", "CUDA %d.%d is the newest toolkit whose own minimum driver %s meets",
		     newest / 1000, newest % 1000 / 10, d);
	for (int major = 11; major <= 13; major++) {
		struct kb_verdict v;
		const char *floor = kb_cuda_compat_floor(kb, major);
		char key[32];

		if (!floor)
			continue;
		snprintf(key, sizeof(key), "CUDA %d.x", major);
		if (kb_driver_runs_cuda(kb, d, major * 1000, dc, &v) == 1)
			mx_fact(r, key, "yes (any %d.x runtime under minor-version compatibility from %s)", major, floor);
		else
			mx_fact(r, key, "no: needs >= %s", floor);
	}
}

/* Kepler's last driver is R470 etc.: a newer driver cannot drive an old GPU. */
static void driver_vs_gpu(const struct kb *kb, const char *d, int ma, int mi, struct matrix_result *r)
{
	const struct kb_arch *a = kb_arch_info(kb, ma, mi);
	struct version dv;

	if (!a || a->last_branch < 0 || version_parse(d, &dv) < 0)
		return;
	if (dv.part[0] > a->last_branch) {
		mx_note(r, "driver %s is newer than R%d, the last driver branch for %s (sm_%d%d): it does not support "
		     "this GPU", d, a->last_branch, a->arch ? a->arch : "this GPU", ma, mi);
		r->verdict = 0;
	} else if (dv.part[0] == a->last_branch) {
		mx_note(r, "R%d is the last driver branch for %s (sm_%d%d): this GPU cannot use a newer driver, so "
		     "frameworks that need a newer one are out of reach", a->last_branch,
		     a->arch ? a->arch : "this GPU", ma, mi);
	}
}

static void branch_notes(const struct kb *kb, const char *d, struct matrix_result *r)
{
	struct version dv;
	char archs[128] = "";
	size_t used = 0;

	if (version_parse(d, &dv) < 0)
		return;
	for (int ma = 3; ma <= 7; ma++)
		for (int mi = 0; mi <= 9; mi++) {
			const struct kb_arch *a = kb_arch_info(kb, ma, mi);

			if (a && a->last_branch == dv.part[0] && used + 8 < sizeof(archs))
				used += (size_t)snprintf(archs + used, sizeof(archs) - used, "%s%d.%d",
							 used ? ", " : "", ma, mi);
		}
	if (used)
		mx_note(r, "R%ld is the last driver branch for compute capability %s: those GPUs cannot move to a "
		     "newer driver", dv.part[0], archs);
}

static void describe_gpu(const struct kb *kb, const struct kb_gpu *g, int ma, int mi, struct matrix_result *r)
{
	const struct kb_arch *a = kb_arch_info(kb, ma, mi);

	if (g) {
		char pci[32] = "no PCI id";

		if (g->device != 0xffffffffu)
			snprintf(pci, sizeof(pci), "%04x:%04x", g->vendor, g->device);
		mx_fact(r, "gpu", "%s (%s), %s, compute capability %d.%d, %s", g->name, pci,
		     g->arch ? g->arch : "architecture unknown", g->cc_major, g->cc_minor,
		     g->klass ? g->klass : "class unknown");
	}
	if (a) {
		char last[32] = "current", br[32] = "current";

		if (a->last_cuda >= 0 && a->last_cuda % 1000 == 999)
			snprintf(last, sizeof(last), "%d.x", a->last_cuda / 1000);
		else if (a->last_cuda >= 0)
			snprintf(last, sizeof(last), "%d.%d", a->last_cuda / 1000, a->last_cuda % 1000 / 10);
		if (a->last_branch >= 0)
			snprintf(br, sizeof(br), "R%d", a->last_branch);
		mx_fact(r, "architecture", "sm_%d%d (%s): CUDA %d.%d .. %s; last driver branch %s", ma, mi,
		     a->arch ? a->arch : "?", a->first_cuda / 1000, a->first_cuda % 1000 / 10, last, br);
	} else if (ma >= 0) {
		mx_fact(r, "architecture", "compute capability %d.%d is not in the architecture table", ma, mi);
	}
}

int matrix_answer(const struct kb *kb, const struct matrix_query *q, const struct matrix_machine *m,
		  struct matrix_result *r, struct err *e)
{
	const struct kb_gpu *g = NULL;
	struct mx_env x = { q->driver, -1, -1, -1, -1, -1, NULL };
	int cuda = -1, asked = q->tf || q->torch || q->jax || q->cupy || q->nccl;

	memset(r, 0, sizeof(*r));
	r->verdict = -1;
	if (q->pci) {
		unsigned ven = 0x10de, dev;
		char *end;
		const char *p = strchr(q->pci, ':');

		if (p) {
			ven = (unsigned)strtoul(q->pci, &end, 16);
			if (end != p)
				return err_set(e, "--pci '%s': expected VENDOR:DEVICE in hex, like 10de:2684", q->pci);
			p++;
		} else {
			p = q->pci;
		}
		dev = (unsigned)strtoul(p, &end, 16);
		if (*end || end == p || dev > 0xffff)
			return err_set(e, "--pci '%s': expected VENDOR:DEVICE in hex, like 10de:2684", q->pci);
		if (!(g = kb_gpu_by_pci(kb, ven, dev)))
			mx_note(r, "PCI id %04x:%04x is not in the knowledge base: its compute capability is unknown", ven, dev);
	}
	if (q->gpu) {
		const struct kb_gpu *cand[8];
		size_t nc = kb_gpu_candidates(kb, q->gpu, cand, 8), shown = nc < 8 ? nc : 8;
		const struct kb_gpu *n = nc ? cand[0] : NULL;
		int differ = 0;

		if (!n)
			return err_set(e, "--gpu '%s': no GPU of that name in the knowledge base (try --cc X.Y)", q->gpu);
		for (size_t i = 1; i < shown; i++)
			differ |= cand[i]->cc_major != n->cc_major || cand[i]->cc_minor != n->cc_minor;
		if (nc > 1) {
			/* the candidates, so that an ambiguous name is never answered for the wrong GPU */
			struct buf list = BUF_INIT;

			for (size_t i = 0; i < shown; i++)
				buf_printf(&list, "%s%s (10de:%04x, CC %d.%d)", i ? "; " : "", cand[i]->name,
					   cand[i]->device, cand[i]->cc_major, cand[i]->cc_minor);
			if (nc > shown)
				buf_printf(&list, "; and %zu more", nc - shown);
			if (differ) {
				err_set(e, "--gpu '%s' is ambiguous: %s. Name one (a longer name, or --pci 10de:XXXX)",
					q->gpu, list.s);
				buf_release(&list);
				return -1;
			}
			mx_note(r, "--gpu '%s' also matches other GPUs of the same compute capability: %s", q->gpu, list.s);
			buf_release(&list);
		}
		if (g && (g->cc_major != n->cc_major || g->cc_minor != n->cc_minor)) {
			mx_note(r, "--pci is %s (CC %d.%d) but --gpu matches %s (CC %d.%d)", g->name, g->cc_major,
			     g->cc_minor, n->name, n->cc_major, n->cc_minor);
			r->verdict = 0;
		}
		if (!g)
			g = n;
	}
	if (q->solve && m) {
		if (m->ngpus) {
			const struct kb_gpu *mg = kb_gpu_by_pci(kb, 0x10de, m->device[0]);

			for (size_t i = 0; i < m->ngpus; i++) {
				const struct kb_gpu *o = kb_gpu_by_pci(kb, 0x10de, m->device[i]);
				char key[40];

				snprintf(key, sizeof(key), "machine gpu %zu", i);
				mx_fact(r, key, "10de:%04x %s", m->device[i], o ? o->name : "(not in the knowledge base)");
			}
			if (mg)
				g = mg;
			else
				mx_note(r, "this machine's GPU 10de:%04x is not in the knowledge base", m->device[0]);
		} else {
			mx_note(r, "no NVIDIA GPU found on the PCI bus (/sys/bus/pci/devices)%s",
			     g || q->cc ? ": answering for --gpu/--pci/--cc" : "");
			if (!g && !q->cc) {
				/* nothing runs on a GPU that is not there: never a "yes" */
				mx_fact(r, "machine gpu", "none: this machine has no NVIDIA GPU, so no framework can use "
				     "one here (give --gpu NAME to plan for another machine)");
				r->verdict = 0;
				return 0;
			}
		}
		if (!x.driver) {
			if (m->driver[0]) {
				x.driver = m->driver;
				mx_fact(r, "machine driver", "%s (from %s)", m->driver, m->driver_from);
			} else {
				mx_note(r, "no NVIDIA driver is loaded (/proc/driver/nvidia/version is absent): answering "
				     "without a driver constraint");
			}
		}
	}
	if (g) {
		x.ma = g->cc_major;
		x.mi = g->cc_minor;
		x.dc = g->datacenter;
		x.gpu = g;
	}
	if (q->cc) {
		int a, b;
		char *end;
		long la = strtol(q->cc, &end, 10), lb;

		if (*end != '.' || end == q->cc || la < 1 || la > 99)
			return err_set(e, "--cc '%s': expected a compute capability like 8.9", q->cc);
		lb = strtol(end + 1, &end, 10);
		if (*end || lb < 0 || lb > 9)
			return err_set(e, "--cc '%s': expected a compute capability like 8.9", q->cc);
		a = (int)la;
		b = (int)lb;
		if (g && g->cc_major >= 0 && (g->cc_major != a || g->cc_minor != b)) {
			mx_note(r, "--cc %d.%d contradicts %s, which is compute capability %d.%d", a, b, g->name,
			     g->cc_major, g->cc_minor);
			r->verdict = 0;
		}
		x.ma = a;
		x.mi = b;
	}
	if (q->cuda) {
		if ((cuda = kb_parse_cuda(q->cuda)) < 0)
			return err_set(e, "--cuda '%s': expected a CUDA version like 12.4", q->cuda);
		x.cuda_major = cuda / 1000;
		x.cuda = cuda;
	}
	if (x.driver) {
		struct version dv;

		if (version_parse(x.driver, &dv) < 0 || dv.n < 2)
			return err_set(e, "--driver '%s': expected a driver version like 535.104.05", x.driver);
	}
	if (!asked && !q->cuda && !x.driver && x.ma < 0 && !q->solve)
		return err_set(e, "nothing to answer: give --tf, --torch, --jax, --cupy, --nccl, --cuda, --driver, "
			       "--gpu, --cc, --pci or --solve (see gpudoctor matrix --help)");

	describe_gpu(kb, g, x.ma, x.mi, r);
	if (x.driver) {
		describe_driver(kb, x.driver, x.dc, r);
		if (x.ma >= 0) {
			struct kb_verdict kv = { -1, "", NULL, 0 };
			struct kb_target tg = mx_target(&x);

			driver_vs_gpu(kb, x.driver, x.ma, x.mi, r);
			if (kb_driver_knows_gpu(kb, x.driver, tg.gpu, x.ma, x.mi, &kv) == 0) {
				mx_fact(r, "driver knows gpu", "no: %s", kv.why);
				r->verdict = 0;
			} else {
				mx_fact(r, "driver knows gpu", "%s: %s", kv.ok == 1 ? "yes" : "unknown", kv.why);
			}
		}
		else
			branch_notes(kb, x.driver, r);
	}
	if (cuda > 0) {
		struct kb_verdict v;

		mx_min_driver_fact(kb, "cuda driver", cuda, r);
		if (x.driver) {
			kb_driver_runs_cuda(kb, x.driver, cuda, x.dc, &v);
			mx_fact(r, "driver runs cuda", "%s: %s", v.ok == 1 ? "yes" : v.ok == 0 ? "no" : "unknown", v.why);
			mx_judge(r, v.ok);
		}
		if (x.ma >= 0) {
			const struct kb_arch *a = kb_arch_info(kb, x.ma, x.mi);

			if (a && (a->first_cuda > cuda || (a->last_cuda >= 0 && cuda > a->last_cuda))) {
				mx_note(r, "CUDA %d.%d does not support compute capability %d.%d (sm_%d%d needs CUDA %d.%d%s)",
				     cuda / 1000, cuda % 1000 / 10, x.ma, x.mi, x.ma, x.mi, a->first_cuda / 1000,
				     a->first_cuda % 1000 / 10, a->last_cuda >= 0 ? " up to its last toolkit" : " or newer");
				r->verdict = 0;
			} else if (a) {
				mx_judge(r, 1);
			}
		}
	}
	if (q->tf && mx_ask_tf(kb, q->tf, &x, cuda, r, e) < 0)
		return -1;
	if (q->torch && mx_ask_torch(kb, q->torch, &x, r, e) < 0)
		return -1;
	if (q->jax && mx_ask_jax(kb, q->jax, &x, r, e) < 0)
		return -1;
	if (q->cupy && mx_ask_cupy(kb, q->cupy, &x, r, e) < 0)
		return -1;
	if (q->nccl && kb_fact(kb, "nccl.origin"))
		mx_fact(r, "nccl", "%s (source: %s)", kb_fact(kb, "nccl.origin"),
		     kb_source_url(kb, "nccl-origin") ? kb_source_url(kb, "nccl-origin") : "nccl-origin");
	if (!asked) {
		mx_newest_all(kb, &x, r, MATRIX_AS_QUERIED);
		if (x.driver && (q->solve || x.ma >= 0))
			mx_upgrade_unlocks(kb, &x, r);
	}
	return 0;
}
