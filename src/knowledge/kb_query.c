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

const struct kb_gpu *kb_gpu_by_name(const struct kb *kb, const char *name)
{
	const struct kb_gpu *best = NULL;
	const char *q = name;

	if (!kb || !name)
		return NULL;
	if (!strncasecmp(q, "nvidia ", 7))
		q += 7;
	while (*q == ' ')
		q++;
	if (!*q)
		return NULL;
	for (size_t i = 0; i < kb->ngpus; i++)
		if (!strcasecmp(kb->gpus[i].name, q))
			return &kb->gpus[i];
	/* Shortest name with every word; prefer a known CC and a real product
	 * name over engineering samples, mobile parts after desktop ones. */
	for (size_t i = 0; i < kb->ngpus; i++) {
		const struct kb_gpu *g = &kb->gpus[i];

		if (!has_words(g->name, q))
			continue;
		if (!best || (best->cc_major < 0 && g->cc_major >= 0) ||
		    ((best->cc_major >= 0) == (g->cc_major >= 0) &&
		     strlen(g->name) < strlen(best->name)))
			best = g;
	}
	return best;
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
