/*
 * fuzz_termre.c - libFuzzer target for the vocabulary tier's matcher
 * (explain/termre.h), differential: its answer must be regexec's.  The
 * first byte picks REG_NOTBOL / REG_NOTEOL; every term row of the embedded
 * table is run over the rest as one window, and, when the input's first
 * line is a regex both termre and regcomp accept, that regex over the rest
 * too (both ignoring case, then both minding it).  A disagreement aborts;
 * so do crashes, leaks and undefined behaviour.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 */
#include "explain/logrules.h"
#include "explain/termre.h"

#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct logrules rules;
static struct termre_scratch scratch;
static int loaded;

static int by_regexec(const regex_t *re, const char *text, size_t len, int notbol, int noteol)
{
	regmatch_t pm[1];

	pm[0].rm_so = 0;
	pm[0].rm_eo = (regoff_t)len;
	return regexec(re, text, 1, pm, REG_STARTEND | (notbol ? REG_NOTBOL : 0) | (noteol ? REG_NOTEOL : 0)) == 0;
}

static void same(const struct termre *t, const regex_t *re, const char *text, size_t len, int notbol, int noteol)
{
	int got;

	termre_scratch_newtext(&scratch);
	got = termre_match(t, text, len, notbol, noteol, &scratch);
	if (got >= 0 && got != by_regexec(re, text, len, notbol, noteol))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text;
	const char *nl;
	char *copy;
	size_t len;
	int notbol, noteol;

	if (!loaded) {
		if (logrules_load(NULL, &rules, NULL) < 0)
			abort();
		termre_scratch_init(&scratch);
		loaded = 1;
	}
	if (size < 1 || size > 4096)
		return 0;
	notbol = data[0] & 1;
	noteol = (data[0] >> 1) & 1;
	/* NUL-terminated: the sanitizers' regexec interceptor reads to a NUL, whatever REG_STARTEND says */
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data + 1, size - 1);
	copy[size - 1] = 0;
	text = copy;
	len = size - 1;
	for (size_t i = 0; i < rules.n; i++)
		if (rules.v[i].tm && logrule_term_regex(&rules.v[i]) == 0)
			same(rules.v[i].tm, &rules.v[i].re, text, len, notbol, noteol);
	nl = memchr(text, '\n', len);
	if (nl && nl > text && (size_t)(nl - text) < 200 && !memchr(text, 0, (size_t)(nl - text))) {
		char *pat = strndup(text, (size_t)(nl - text));
		const char *rest = nl + 1;
		size_t rlen = len - (size_t)(rest - text);

		for (int icase = 0; pat && icase < 2; icase++) {
			struct termre *t;
			const char *why;
			regex_t re;

			if (termre_compile(pat, icase, &t, &why) < 0)
				continue;
			if (regcomp(&re, pat, REG_EXTENDED | (icase ? REG_ICASE : 0)) == 0) {
				same(t, &re, rest, rlen, notbol, noteol);
				regfree(&re);
			}
			termre_free(t);
			termre_scratch_newtext(&scratch);	/* the parts' keys went with t */
		}
		free(pat);
	}
	free(copy);
	return 0;
}
