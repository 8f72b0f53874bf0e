/*
 * test_reqlit.c - the required literals of a regex (explain/reqlit.h) are in
 * every text its regex matches: for every re/rei row of the embedded table,
 * over every line of the dev corpus and the fixtures that regexec matches,
 * and over mutations of those lines (spans cut out, doubled, case flipped);
 * and what the derivation says of constructs one by one.  logmatch skips a
 * row whose factor has no literal in the line, so a factor that a matching
 * text lacks would change explain's answer: this test must find none.
 */
#include "tap.h"

#include "core/err.h"
#include "core/xalloc.h"
#include "explain/logrules.h"
#include "explain/reqlit.h"

#include <ctype.h>
#include <dirent.h>
#include <regex.h>
#include <stdlib.h>

static unsigned long rng = 0x9e3779b97f4a7c15ul;

static unsigned long next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Whether text (len bytes) holds lit, ignoring ASCII case. */
static int has_lit(const char *text, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	for (size_t i = 0; i + n <= len; i++) {
		size_t k = 0;

		while (k < n && tolower((unsigned char)text[i + k]) == (unsigned char)lit[k])
			k++;
		if (k == n)
			return 1;
	}
	return 0;
}

/* Whether text holds a literal of every factor. */
static int holds(const struct reqlit_factor *f, size_t nf, const char *text, size_t len)
{
	for (size_t k = 0; k < nf; k++) {
		size_t i = 0;

		while (i < f[k].n && !has_lit(text, len, f[k].lit[i]))
			i++;
		if (i == f[k].n)
			return 0;
	}
	return 1;
}

/* Whether text holds one of the '|'-separated literals of an anchor. */
static int anchor_in(const char *text, size_t len, const char *anchor)
{
	char one[256];

	while (*anchor) {
		size_t n = strcspn(anchor, "|");

		if (n < sizeof(one)) {
			memcpy(one, anchor, n);
			one[n] = 0;
			if (has_lit(text, len, one))
				return 1;
		} else {
			return 1;
		}
		anchor += n + (anchor[n] == '|');
	}
	return 0;
}

static int matches(const regex_t *re, const char *text, size_t len)
{
	regmatch_t pm[1];

	pm[0].rm_so = 0;
	pm[0].rm_eo = (regoff_t)len;
	return regexec(re, text, 1, pm, REG_STARTEND) == 0;
}

/* The factors printed as "{a|b} {c}", for the known derivations. */
static void show(const char *pattern, char *out, size_t cap)
{
	struct reqlit_factor *f;
	size_t nf, n = 0;

	reqlit_derive(pattern, &f, &nf);
	out[0] = 0;
	for (size_t k = 0; k < nf; k++)
		for (size_t i = 0; i < f[k].n; i++)
			n += (size_t)snprintf(out + n, n < cap ? cap - n : 0, "%s%s%s", i ? "|" : k ? " {" : "{",
					      f[k].lit[i], i + 1 == f[k].n ? "}" : "");
	reqlit_free(f, nf);
}

static void test_constructs(void)
{
	static const char *const cases[][2] = {
		{"abc(def|ghi)", "{abcdef|abcghi}"},
		{"x(abc)?yz", "{xabcyz|xyz}"},
		{"\\bfoo\\b", "{foo}"},
		{"FOO[ -]?bar", "{foo bar|foo-bar|foobar}"},
		{"a[bc]d+e{2,3}fgh", "{fgh}"},		/* "ab|ac": too short to filter */
		{"foo(bar){2,}baz", "{bar} {foo} {baz}"},
		{"(x|y)*zzz", "{zzz}"},
		{"abc|de", ""},				/* a branch with nothing of 3 bytes */
		{"abc.*|def", "{abc|def}"},
		{"[[:alpha:]]+ failed", "{ failed}"},
		{"[^abc]+xyz", "{xyz}"},
		{"\\w+ error", "{ error}"},
		{"(abc", ""},				/* not read: no factor, the row always runs */
		{"a**", ""},
		{"abc{", ""},
		{"(a|b)?", ""},
		{"a{0}bcd", "{bcd}"},
		{"[]x]yzw", "{]yzw|xyzw}"},
		{"\\.so\\.1", "{.so.1}"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char got[512];

		show(cases[i][0], got, sizeof(got));
		if (strcmp(got, cases[i][1]))
			printf("#   %s: got \"%s\", expected \"%s\"\n", cases[i][0], got, cases[i][1]);
		CHECK(!strcmp(got, cases[i][1]));
	}
}

/* A row of too many alternatives (a hostile --kb table) gets no factor, fast; one within the bound gets one. */
static void test_many_alternatives(void)
{
	char *pat = xmalloc(64 * 1024);

	for (int many = 0; many < 2; many++) {
		struct reqlit_factor *f;
		size_t nf, n = 0;
		int branches = many ? REQLIT_MAX_MERGES + 10 : REQLIT_MAX_MERGES / 2;

		for (int i = 0; i < branches; i++)
			n += (size_t)snprintf(pat + n, 64 * 1024 - n, "%sw%dx.*qq%d.*zzz", i ? "|" : "", i, i);
		reqlit_derive(pat, &f, &nf);
		CHECK_INT(nf > 0, !many);
		if (!many && nf)
			CHECK(!strcmp(f[0].lit[0], "zzz"));
		reqlit_free(f, nf);
	}
	free(pat);
}

struct lines {
	char **v;
	size_t n, cap;
};

static void read_dir(const char *dir, struct lines *ls)
{
	DIR *d = opendir(dir);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		char path[4096], line[8192];
		FILE *f;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = 0;
			if (!line[0])
				continue;
			XGROW(ls->v, ls->n, ls->cap);
			ls->v[ls->n++] = xstrdup(line);
		}
		fclose(f);
	}
	closedir(d);
}

/* A copy of s, mutated: a span cut out, doubled, or its case flipped. */
static size_t mutate(const char *s, size_t len, char *out)
{
	size_t a = len ? next_rand() % len : 0, w = 1 + next_rand() % 12, n = 0;

	if (a + w > len)
		w = len - a;
	switch (next_rand() % 3) {
	case 0:
		memcpy(out, s, a);
		memcpy(out + a, s + a + w, len - a - w);
		return len - w;
	case 1:
		memcpy(out, s, a + w);
		memcpy(out + a + w, s + a, len - a);
		return len + w;
	default:
		for (n = 0; n < len; n++)
			out[n] = (char)(n >= a && n < a + w && isalpha((unsigned char)s[n]) ? s[n] ^ 0x20 : s[n]);
		return len;
	}
}

/* Every row: each corpus line it matches holds its factors, and so does each mutation that it still matches. */
static void test_rows_sound(void)
{
	struct logrules r;
	struct lines ls = {NULL, 0, 0};
	size_t with = 0, matched = 0, mutated = 0, bad = 0;
	char *buf = xmalloc(20000);

	read_dir("tests/explain/corpus/dev", &ls);
	read_dir("tests/explain/fixtures", &ls);
	if (ls.n < 1000) {
		free(buf);
		SKIP("run from the repository root: the corpus has %zu lines here", ls.n);
	}
	if (logrules_load(NULL, &r, NULL) < 0) {
		CHECK(0);
		free(buf);
		return;
	}
	for (size_t i = 0; i < r.n; i++) {
		const struct logrule *rule = &r.v[i];
		struct reqlit_factor *f;
		size_t nf, row_matched = 0;
		regex_t re;

		if (rule->kind != LR_RE)
			continue;
		reqlit_derive(rule->pattern, &f, &nf);
		with += nf > 0;
		/* ignoring case for every row: it matches more texts, each must hold the factors */
		if (regcomp(&re, rule->pattern, REG_EXTENDED | REG_ICASE) != 0) {
			CHECK(0);
			reqlit_free(f, nf);
			continue;
		}
		for (size_t l = 0; l < ls.n; l++) {
			const char *t = ls.v[l];
			size_t len = strlen(t);

			/* the anchor first: a line without it is never tried, and regexec is slow */
			if (!anchor_in(t, len, rule->anchor))
				continue;
			if (!matches(&re, t, len))
				continue;
			matched++;
			if (!holds(f, nf, t, len)) {
				if (bad++ < 5)
					printf("#   %s: a matching line lacks a factor: %.200s\n", rule->id, t);
			}
			for (int k = 0; k < 30 && row_matched < 40 && len < 8000; k++) {
				size_t n = mutate(t, len, buf);

				if (matches(&re, buf, n)) {
					mutated++;
					if (!holds(f, nf, buf, n) && bad++ < 5)
						printf("#   %s: a matching mutation lacks a factor: %.200s\n", rule->id, buf);
				}
			}
			row_matched++;
		}
		regfree(&re);
		reqlit_free(f, nf);
	}
	printf("# %zu rows with factors, %zu corpus matches, %zu mutated matches\n", with, matched, mutated);
	CHECK_INT(bad, 0);
	CHECK(with >= 300);	/* the prefilter has something to say of most rows */
	CHECK(matched >= 1000);	/* the texts reach the rows */
	CHECK(mutated >= 5000);
	for (size_t l = 0; l < ls.n; l++)
		free(ls.v[l]);
	free(ls.v);
	free(buf);
	logrules_release(&r);
}

extern const char gd_explain_tsv[];

/*
 * The embedded table's regexes are compiled at first use (logrule_regex()),
 * so a bad one would be silent at start-up: read eagerly here, every row
 * compiles and has as many groups as capture names; and a lazy row gives
 * the same answer as an eager one.
 */
static void test_embedded_compiles(void)
{
	struct logrules eager, lazy;
	struct err e;
	size_t nre = 0, later = 0;

	CHECK(logrules_parse("embedded", gd_explain_tsv, strlen(gd_explain_tsv), &eager, &e) == 0);
	CHECK(logrules_load(NULL, &lazy, &e) == 0);
	CHECK_INT(eager.n, lazy.n);
	for (size_t i = 0; i < eager.n && i < lazy.n; i++) {
		const struct logrule *a = &eager.v[i], *b = &lazy.v[i];
		const regex_t *ra, *rb;
		regmatch_t pa[1], pb[1];

		if (a->kind != LR_RE)
			continue;
		nre++;
		later += b->re_later && !b->re_ok;
		CHECK(a->re_ok && !a->re_later);
		ra = logrule_regex(a);
		rb = logrule_regex(b);
		CHECK(ra && rb && b->re_ok && !b->re_later);
		if (!ra || !rb)
			continue;
		CHECK_INT(ra->re_nsub, rb->re_nsub);
		CHECK((size_t)ra->re_nsub >= a->ncaps);
		/* the pattern's own text: each reads it the same way */
		CHECK_INT(regexec(ra, a->pattern, 1, pa, 0), regexec(rb, b->pattern, 1, pb, 0));
	}
	CHECK(nre >= 300);
	CHECK_INT(later, nre);	/* none compiled before its first use */
	logrules_release(&eager);
	logrules_release(&lazy);
}

static int agree(const regex_t *re, const regex_t *pre, const char *text, size_t len, int flags)
{
	regmatch_t a[1], b[1];

	a[0].rm_so = b[0].rm_so = 0;
	a[0].rm_eo = b[0].rm_eo = (regoff_t)len;
	return (regexec(re, text, 1, a, REG_STARTEND | flags) == 0) ==
	       (regexec(pre, text, 0, b, REG_STARTEND | flags) == 0);
}

/*
 * logrule_presence(): "(.*)REST" matches somewhere exactly when REST does,
 * with and without REG_NOTBOL / REG_NOTEOL; patterns it must leave alone
 * (glibc lets "(.*)^abc" match "x\nabc", where "^abc" does not: row b).
 */
static void test_presence(void)
{
	static const char table[] =
		"id\tprio\tclass\tmatch\tpattern\tanchor\tcaptures\tcauses\tlayer\tsays\tsource\n"
		"a\t10\tscope\tre\t(.*) with CUDA capability (sm_[0-9]+) is not ok\tis not ok\t-,cap\t-\t-\tx\tx\n"
		"b\t10\tscope\trei\t(.*)^abc|def\tabc|def\t-\t-\t-\tx\tx\n"
		"c\t10\tscope\tre\t.*x$\tx\t-\t-\t-\tx\tx\n"
		"e\t10\tscope\tre\t(.*)*x\tx\t-\t-\t-\tx\tx\n"
		"f\t10\tscope\tre\tx(.*)\tx\t-\t-\t-\tx\tx\n"
		"g\t10\tscope\tre\t(.*)\\<abc\tabc\t-\t-\t-\tx\tx\n";
	static const char *const texts[] = {
		"", "x", "ax", "xa", "abc", "zabc", "def", "DEF", "ABC", "q with CUDA capability sm_80 is not ok",
		"with CUDA capability sm_80 is not ok", " with CUDA capability sm_ is not ok", "xyy", "x\nabc",
	};
	struct logrules r;
	struct err e;

	if (logrules_parse("test", table, strlen(table), &r, &e) != 0) {
		printf("# %s\n", e.msg);
		CHECK(0);
		return;
	}
	for (size_t i = 0; i < r.n; i++) {
		const struct logrule *rule = &r.v[i];
		const regex_t *pre = logrule_presence(rule), *re = logrule_regex(rule);
		int expect = strchr("ac", rule->id[0]) != NULL;

		CHECK_INT(pre != NULL, expect);
		for (size_t t = 0; pre && re && t < sizeof(texts) / sizeof(texts[0]); t++)
			for (int fl = 0; fl < 4; fl++)
				if (!agree(re, pre, texts[t], strlen(texts[t]), (fl & 1 ? REG_NOTBOL : 0) | (fl & 2 ? REG_NOTEOL : 0))) {
					printf("#   row %s, text \"%s\", flags %d: the presence regex disagrees\n", rule->id, texts[t], fl);
					CHECK(0);
				}
	}
	logrules_release(&r);
	/* the embedded table's rows, on every corpus line and its windows */
	if (logrules_load(NULL, &r, NULL) == 0) {
		struct lines ls = {NULL, 0, 0};
		size_t npre = 0, checked = 0;

		read_dir("tests/explain/corpus/dev", &ls);
		for (size_t i = 0; i < r.n; i++) {
			const regex_t *pre = logrule_presence(&r.v[i]), *re = logrule_regex(&r.v[i]);

			if (!pre || !re)
				continue;
			npre++;
			for (size_t l = 0; l < ls.n; l++) {
				size_t len = strlen(ls.v[l]), a = len ? next_rand() % len : 0;

				CHECK(agree(re, pre, ls.v[l], len, 0));
				CHECK(agree(re, pre, ls.v[l] + a, len - a, REG_NOTBOL));
				checked++;
			}
		}
		CHECK(npre >= 1);	/* torch-capability-not-compatible */
		CHECK(ls.n == 0 || checked > 1000);
		for (size_t l = 0; l < ls.n; l++)
			free(ls.v[l]);
		free(ls.v);
		logrules_release(&r);
	}
}

int main(void)
{
	RUN(test_constructs);
	RUN(test_many_alternatives);
	RUN(test_embedded_compiles);
	RUN(test_presence);
	RUN(test_rows_sound);
	return tap_done();
}
