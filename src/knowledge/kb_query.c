/* kb_query.c - lookups over the loaded tables; see kb.h. */
#include "knowledge/kb_internal.h"
#include "core/version.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define KB_AT(arr, n) return i < kb->n ? &kb->arr[i] : NULL

size_t kb_tf_count(const struct kb *kb) { return kb->ntf; }
const struct kb_tf *kb_tf_at(const struct kb *kb, size_t i) { KB_AT(tf, ntf); }
size_t kb_torch_count(const struct kb *kb) { return kb->ntorch; }
const struct kb_torch *kb_torch_at(const struct kb *kb, size_t i) { KB_AT(torch, ntorch); }
size_t kb_jax_count(const struct kb *kb) { return kb->njax; }
const struct kb_jax *kb_jax_at(const struct kb *kb, size_t i) { KB_AT(jax, njax); }
size_t kb_cuda_count(const struct kb *kb) { return kb->ncuda; }
const struct kb_cuda_release *kb_cuda_at(const struct kb *kb, size_t i) { KB_AT(cuda, ncuda); }
size_t kb_cudnn_count(const struct kb *kb) { return kb->ncudnn; }
const struct kb_cudnn *kb_cudnn_at(const struct kb *kb, size_t i) { KB_AT(cudnn, ncudnn); }
size_t kb_gpu_count(const struct kb *kb) { return kb->ngpus; }
const struct kb_gpu *kb_gpu_at(const struct kb *kb, size_t i) { KB_AT(gpus, ngpus); }

/* The driver-support row of a PCI device id (kb_combine.c judges with it;
 * it lives here, with the other lookups, so that the lookups need nothing
 * of the combination rules). */
const struct kb_gpudrv *kb_gpudrv_of(const struct kb *kb, unsigned device)
{
	for (size_t i = 0; kb && i < kb->ngpudrv; i++)
		if (kb->gpudrv[i].device == device)
			return &kb->gpudrv[i];
	return NULL;
}

/* A driver's branch: its first number (580 for 580.95.05), or -1. */
static long driver_branch(const char *driver)
{
	struct version v;

	return driver && version_parse(driver, &v) == 0 ? v.part[0] : -1;
}

const char *kb_gpu_last_driver(const struct kb *kb, unsigned device)
{
	const struct kb_gpudrv *r = kb_gpudrv_of(kb, device);

	return r ? r->last_driver : NULL;
}

int kb_gpu_current(const struct kb *kb, const struct kb_gpu *g)
{
	const struct kb_gpudrv *r = g && g->vendor == 0x10de ? kb_gpudrv_of(kb, g->device) : NULL;
	const struct kb_arch *a;

	if (!r)
		return 0;
	if (!r->last_driver)
		return 1;
	/* dropped with its whole architecture (Pascal after R580): still the
	 * product's own id; dropped while the architecture went on: not */
	a = kb_arch_info(kb, g->cc_major, g->cc_minor);
	return a && a->last_branch >= 0 && driver_branch(r->last_driver) >= a->last_branch;
}

const char *kb_gpu_driver_names(const struct kb *kb, unsigned device)
{
	const struct kb_gpudrv *r = kb_gpudrv_of(kb, device);

	return r ? r->names : NULL;
}

const struct kb_gpu *kb_gpu_by_pci(const struct kb *kb, unsigned vendor, unsigned device)
{
	for (size_t i = 0; kb && i < kb->ngpus; i++)
		if (kb->gpus[i].vendor == vendor && kb->gpus[i].device == device)
			return &kb->gpus[i];
	return NULL;
}

/* Does hay contain every space-separated word of needle (case-insensitive)? */
static int has_words(const char *hay, const char *needle)
{
	char word[64];

	while (*needle) {
		size_t n;

		while (*needle == ' ')
			needle++;
		n = strcspn(needle, " ");
		if (!n)
			break;
		if (n >= sizeof(word))
			return 0;
		memcpy(word, needle, n);
		word[n] = '\0';
		if (!strcasestr(hay, word))
			return 0;
		needle += n;
	}
	return 1;
}

/* Does every token of q equal some token of name?  Tokens split on space,
 * '-', '/', '(' and ')', compared case-insensitively: "T4" matches "Tesla T4"
 * but not "T4G", "A100" matches "A100 SXM4 40GB" but not "GA100". */
static int has_tokens(const char *name, const char *q)
{
	static const char sep[] = " -/()";

	while (*q) {
		size_t n;
		int found = 0;

		q += strspn(q, sep);
		n = strcspn(q, sep);
		if (!n)
			break;
		for (const char *p = name; *p && !found;) {
			size_t m;

			p += strspn(p, sep);
			m = strcspn(p, sep);
			if (m == n && !strncasecmp(p, q, n))
				found = 1;
			p += m;
		}
		if (!found)
			return 0;
		q += n;
	}
	return 1;
}

static const char *skip_vendor(const char *s)
{
	if (!strncasecmp(s, "nvidia ", 7))
		s += 7;
	while (*s == ' ')
		s++;
	return s;
}

/* Higher is more the product people mean by a short name. */
static int product_score(const struct kb *kb, const struct kb_gpu *g)
{
	static const char *const minor[] = { "Laptop", "Mobile", "Max-Q", "Engineering", "Sample", "CMP ",
					     "GRID", "DRIVE", "Embedded", "PG5", "SKU" };
	int score = 0;

	if (g->cc_major >= 0)
		score += 16;
	if (g->klass)
		score += 8;
	if (g->device != 0xffffffffu && kb_gpu_driver_names(kb, g->device))
		score += 4;
	if (g->specs_conf)	/* a product with published specs, not an OEM variant */
		score += 2;
	for (size_t i = 0; i < sizeof(minor) / sizeof(minor[0]); i++)
		if (strcasestr(g->name, minor[i]))
			score -= 32;
	return score;
}

static int better(const struct kb *kb, const struct kb_gpu *g, const struct kb_gpu *best)
{
	int a, b;

	if (!best)
		return 1;
	a = product_score(kb, g);
	b = product_score(kb, best);
	if (a != b)
		return a > b;
	return strlen(g->name) < strlen(best->name);
}

/* The names the driver gives a device: exact match of one of them. */
static int driver_name_is(const char *names, const char *q)
{
	while (names && *names) {
		size_t n = strcspn(names, "|");
		const char *nm = names, *s = skip_vendor(nm);

		n -= (size_t)(s - nm);
		if (strlen(q) == n && !strncasecmp(s, q, n))
			return 1;
		names = s + n;
		if (*names == '|')
			names++;
	}
	return 0;
}

/* "GeForce GTX 1080" -> "GTX 1080": the brand word people leave out. */
static const char *skip_brand(const char *s)
{
	static const char *const brand[] = { "GeForce ", "Tesla ", "Quadro " };

	s = skip_vendor(s);
	for (size_t i = 0; i < sizeof(brand) / sizeof(brand[0]); i++)
		if (!strncasecmp(s, brand[i], strlen(brand[i])))
			return s + strlen(brand[i]);
	return s;
}

static int name_exact(const struct kb *kb, const struct kb_gpu *g, const char *q)
{
	return !strcasecmp(g->name, q) || !strcasecmp(skip_brand(g->name), skip_brand(q)) ||
	       (g->device != 0xffffffffu && driver_name_is(kb_gpu_driver_names(kb, g->device), q));
}

/* Best first: still listed by the newest driver, then better(). */
static int before(const struct kb *kb, const struct kb_gpu *g, const struct kb_gpu *h)
{
	int a = kb_gpu_current(kb, g), b = kb_gpu_current(kb, h);

	if (a != b)
		return a > b;
	return better(kb, g, h) && g != h;
}

static size_t add_candidate(const struct kb *kb, const struct kb_gpu *g, const struct kb_gpu **out,
			    size_t n, size_t max)
{
	size_t at = n < max ? n : max;

	/* insertion in order; past max the worst falls off */
	while (at > 0 && before(kb, g, out[at - 1])) {
		if (at < max)
			out[at] = out[at - 1];
		at--;
	}
	if (at < max)
		out[at] = g;
	return n + 1;
}

size_t kb_gpu_candidates(const struct kb *kb, const char *name, const struct kb_gpu **out, size_t max)
{
	const char *q;
	size_t n = 0;
	int current_exact = 0;

	if (!kb || !name)
		return 0;
	q = skip_vendor(name);
	if (!*q)
		return 0;
	for (size_t i = 0; i < kb->ngpus; i++)
		if (name_exact(kb, &kb->gpus[i], q)) {
			n = add_candidate(kb, &kb->gpus[i], out, n, max);
			current_exact |= kb_gpu_current(kb, &kb->gpus[i]) || kb->gpus[i].device == 0xffffffffu ||
					 !kb_gpu_driver_names(kb, kb->gpus[i].device);
		}
	/* an exact name of an id no current driver lists: the current products
	 * of that name are candidates too */
	if (n && current_exact)
		return n;
	for (size_t i = 0; i < kb->ngpus; i++)
		if (!name_exact(kb, &kb->gpus[i], q) && has_tokens(kb->gpus[i].name, q))
			n = add_candidate(kb, &kb->gpus[i], out, n, max);
	if (n)
		return n;
	for (size_t i = 0; i < kb->ngpus; i++)
		if (has_words(kb->gpus[i].name, q))
			n = add_candidate(kb, &kb->gpus[i], out, n, max);
	return n;
}

const struct kb_gpu *kb_gpu_by_name(const struct kb *kb, const char *name)
{
	const struct kb_gpu *best[1];

	return kb_gpu_candidates(kb, name, best, 1) ? best[0] : NULL;
}

/* The branch row of a driver version ("535.104.05" -> R535), or NULL. */
static const struct kb_branch *branch_of(const struct kb *kb, const char *driver)
{
	struct version v;

	if (!kb || version_parse(driver, &v) < 0)
		return NULL;
	for (size_t i = 0; i < kb->nbranches; i++)
		if (kb->branches[i].branch == v.part[0])
			return &kb->branches[i];
	return NULL;
}

int kb_driver_cuda_version(const struct kb *kb, const char *driver_version)
{
	const struct kb_branch *b = branch_of(kb, driver_version);

	return b ? b->cuda_version : -1;
}

const char *kb_driver_branch_source(const struct kb *kb, const char *driver_version)
{
	const struct kb_branch *b = branch_of(kb, driver_version);

	return b ? b->source : NULL;
}

const char *kb_cuda_min_driver(const struct kb *kb, int cuda_version)
{
	const char *best = NULL;

	/* The GA row; a toolkit listed only with updates gives its lowest floor. */
	for (size_t i = 0; kb && i < kb->ncuda; i++) {
		const struct kb_cuda_release *r = &kb->cuda[i];

		if (r->cuda_version != cuda_version || !r->linux_min)
			continue;
		if (!strcmp(r->release, "GA"))
			return r->linux_min;
		if (!best || version_cmp_str(r->linux_min, best) < 0)
			best = r->linux_min;
	}
	return best;
}

const char *kb_cuda_compat_floor(const struct kb *kb, int cuda_major)
{
	for (size_t i = 0; kb && i < kb->ncompat; i++)
		if (kb->compat[i].major == cuda_major)
			return kb->compat[i].linux_min;
	return NULL;
}

int kb_cuda_newest_for_driver(const struct kb *kb, const char *driver_version)
{
	int best = -1;

	for (size_t i = 0; kb && i < kb->ncuda; i++) {
		const struct kb_cuda_release *r = &kb->cuda[i];

		if (r->linux_min && version_cmp_str(driver_version, r->linux_min) >= 0 &&
		    r->cuda_version > best)
			best = r->cuda_version;
	}
	return best;
}

const struct kb_arch *kb_arch_info(const struct kb *kb, int cc_major, int cc_minor)
{
	for (size_t i = 0; kb && i < kb->narchs; i++)
		if (kb->archs[i].cc_major == cc_major && kb->archs[i].cc_minor == cc_minor)
			return &kb->archs[i];
	return NULL;
}

const char *kb_soname(const struct kb *kb, int cuda_major, const char *lib)
{
	for (size_t i = 0; kb && lib && i < kb->nsonames; i++) {
		const struct kb_soname_row *r = &kb->sonames[i];

		if ((r->major == cuda_major || r->major < 0) && !strcmp(r->lib, lib))
			return r->soname;
	}
	return NULL;
}

/* "2.15.1" matches row "2.15.0": same major.minor. */
static int same_minor(const char *a, const char *b)
{
	struct version va, vb;

	if (version_parse(a, &va) < 0 || version_parse(b, &vb) < 0)
		return 0;
	return va.part[0] == vb.part[0] && va.part[1] == vb.part[1];
}

const struct kb_tf *kb_tf_release(const struct kb *kb, const char *version)
{
	for (size_t i = 0; kb && version && i < kb->ntf; i++)
		if (same_minor(kb->tf[i].version, version))
			return &kb->tf[i];
	return NULL;
}

const struct kb_torch *kb_torch_release(const struct kb *kb, const char *version,
					const char *variant)
{
	const struct kb_torch *first = NULL, *stable = NULL;

	for (size_t i = 0; kb && version && i < kb->ntorch; i++) {
		const struct kb_torch *t = &kb->torch[i];

		if (!same_minor(t->version, version))
			continue;
		if (variant) {
			if (!strcasecmp(t->variant, variant))
				return t;
			continue;
		}
		if (t->is_default == 1)
			return t;
		if (!first)
			first = t;
		if (t->stable && (!stable || t->cuda_version > stable->cuda_version))
			stable = t;
	}
	return variant ? NULL : stable ? stable : first;
}

void kb_torch_install(const struct kb_torch *t, char *out, size_t size)
{
	if (t->is_default == 1)
		snprintf(out, size, "pip install \"torch==%s.*\"", t->version);
	else
		snprintf(out, size, "pip install \"torch==%s.*\" --index-url https://download.pytorch.org/whl/%s",
			 t->version, t->variant);
}

const struct kb_jax *kb_jax_release(const struct kb *kb, const char *version, const char *plugin)
{
	for (size_t i = 0; kb && i < kb->njax; i++) {
		const struct kb_jax *j = &kb->jax[i];

		if (plugin && strcmp(j->plugin, plugin))
			continue;
		if (!version)
			return j;
		if (version_cmp_str(version, j->jax_from) >= 0 &&
		    (!j->jax_to || version_cmp_str(version, j->jax_to) <= 0))
			return j;
	}
	return NULL;
}

const char *kb_fact(const struct kb *kb, const char *key)
{
	const struct kb_table *t = kb ? &kb->tab[KB_FACTS] : NULL;

	for (size_t i = 0; t && key && i < t->nrows; i++)
		if (!strcmp(t->rows[i].cell[0], key))
			return kb_cell(t, i, 1);
	return NULL;
}

/* A row's source cell may list several ids ("tf-source-md;wheel:..."): the first that resolves. */
const char *kb_source_url(const struct kb *kb, const char *id)
{
	const struct kb_table *t = kb ? &kb->tab[KB_SOURCES] : NULL;

	while (t && id && *id) {
		size_t n = strcspn(id, ";");

		for (size_t i = 0; i < t->nrows; i++)
			if (strlen(t->rows[i].cell[0]) == n && !strncmp(t->rows[i].cell[0], id, n))
				return kb_cell(t, i, 1);
		id += n;
		if (*id == ';')
			id++;
	}
	return NULL;
}
