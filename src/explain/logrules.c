/*
 * logrules.c - loading and compiling explain's rule table; the literal
 * matcher.  See logrules.h for the table's format.
 * over 700 lines: the rows, their conditions and the named evidence sets
 * share one private pool of literals (add_ev, find_set); split, each part
 * would need it exported.
 */
#include "explain/logrules.h"
#include "explain/rulecheck.h"
#include "explain/termre.h"

#include "core/buf.h"
#include "core/xalloc.h"
#include "knowledge/causes.h"
#include "report/report.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const char gd_explain_tsv[];

static const char *const cols[] = { "id", "prio", "class", "match", "pattern", "anchor",
				    "captures", "causes", "layer", "says", "source" };
enum { C_ID, C_PRIO, C_CLASS, C_MATCH, C_PATTERN, C_ANCHOR, C_CAPTURES, C_CAUSES, C_LAYER,
       C_SAYS, C_SOURCE, C_N };

static int is_name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}

static int add_capname(struct logrule *r, const char *name, size_t len, struct err *e,
		       const char *file)
{
	if (r->ncaps >= LR_MAX_CAPS)
		return err_set(e, "%s:%d: rule %s: more than %d captures", file, r->line, r->id,
			       LR_MAX_CAPS);
	for (size_t i = 0; i < len && !(len == 1 && name[0] == '-'); i++)
		if (!is_name_char(name[i]))
			return err_set(e, "%s:%d: rule %s: capture name '%.*s' is not [a-z0-9_]+", file,
				       r->line, r->id, (int)len, name);
	r->capnames[r->ncaps++] = xstrndup(name, len);
	return 0;
}

/* {name} or {name:type} at p (pointing at '{'); length of it or 0. */
static size_t capture_at(const char *p, const char *end, size_t *nlen, enum lr_cap_type *type,
			 int *typed)
{
	const char *q = p + 1, *colon = NULL;

	while (q < end && is_name_char(*q))
		q++;
	if (q == p + 1)
		return 0;
	*nlen = (size_t)(q - p - 1);
	*typed = 0;
	*type = LR_CAP_ANY;
	if (q < end && *q == ':') {
		static const char *const names[] = { "any", "word", "int", "hex", "rest" };

		colon = ++q;
		while (q < end && *q >= 'a' && *q <= 'z')
			q++;
		for (size_t i = 0; i < 5; i++)
			if ((size_t)(q - colon) == strlen(names[i]) && !memcmp(colon, names[i], (size_t)(q - colon))) {
				*type = (enum lr_cap_type)i;
				*typed = 1;
			}
		if (!*typed)
			return 0;
	}
	if (q >= end || *q != '}')
		return 0;
	return (size_t)(q + 1 - p);
}

static int compile_lit(struct logrule *r, struct err *e, const char *file)
{
	const char *p = r->pattern, *end = p + strlen(p), *lit = p;
	size_t best = 0;
	const char *best_s = NULL;
	int typed[LR_MAX_SEGS];

	while (p <= end) {
		size_t nlen = 0, clen = 0;
		enum lr_cap_type type = LR_CAP_ANY;
		int ty = 0;

		if (p < end && *p == '{')
			clen = capture_at(p, end, &nlen, &type, &ty);
		if (p == end || clen) {
			if (p > lit) {
				if (r->nsegs >= LR_MAX_SEGS)
					return err_set(e, "%s:%d: rule %s: pattern too long", file, r->line, r->id);
				r->segs[r->nsegs] = (struct lr_seg){ lit, (size_t)(p - lit), -1, LR_CAP_ANY };
				typed[r->nsegs++] = 0;
				if ((size_t)(p - lit) > best) {
					best = (size_t)(p - lit);
					best_s = lit;
				}
			}
			if (p == end)
				break;
			if (r->nsegs && r->segs[r->nsegs - 1].cap >= 0)
				return err_set(e, "%s:%d: rule %s: two captures touch", file, r->line, r->id);
			if (r->nsegs >= LR_MAX_SEGS)
				return err_set(e, "%s:%d: rule %s: pattern too long", file, r->line, r->id);
			if (add_capname(r, p + 1, nlen, e, file) < 0)
				return -1;
			r->segs[r->nsegs] = (struct lr_seg){ NULL, 0, (int)r->ncaps - 1, type };
			typed[r->nsegs++] = ty;
			p += clen;
			lit = p;
			continue;
		}
		p++;
	}
	if (!best_s)
		return err_set(e, "%s:%d: rule %s: a literal pattern needs literal text", file, r->line,
			       r->id);
	/* untyped captures at either end take one word */
	if (r->segs[0].cap >= 0 && !typed[0])
		r->segs[0].type = LR_CAP_WORD;
	if (r->segs[r->nsegs - 1].cap >= 0 && !typed[r->nsegs - 1])
		r->segs[r->nsegs - 1].type = LR_CAP_WORD;
	if (r->segs[0].cap >= 0 && r->segs[0].type == LR_CAP_REST)
		return err_set(e, "%s:%d: rule %s: a leading capture cannot be rest", file, r->line, r->id);
	r->anchor = xstrndup(best_s, best);
	for (char *a = r->anchor; *a; a++)
		*a = (char)tolower((unsigned char)*a);
	return 0;
}

static int compile_term(struct logrule *r, const char *anchor, const char *caps, int icase, struct err *e,
			const char *file);

static int compile_re(struct logrule *r, const char *anchor, const char *caps, int icase,
		      struct err *e, const char *file)
{
	int rc;

	if (!anchor || !*anchor)
		return err_set(e, "%s:%d: rule %s: a regex rule needs an anchor", file, r->line, r->id);
	if (logrule_is_term(r))
		return compile_term(r, anchor, caps, icase, e, file);
	rc = regcomp(&r->re, r->pattern, REG_EXTENDED | (icase ? REG_ICASE : 0));
	if (rc) {
		char msg[160];

		regerror(rc, &r->re, msg, sizeof(msg));
		return err_set(e, "%s:%d: rule %s: bad regex: %s", file, r->line, r->id, msg);
	}
	r->re_ok = 1;
	r->anchor = xstrdup(anchor);
	for (char *a = r->anchor; *a; a++)
		*a = (char)tolower((unsigned char)*a);
	if (caps) {
		const char *p = caps;

		while (*p) {
			const char *c = strchr(p, ',');
			size_t l = c ? (size_t)(c - p) : strlen(p);

			if (add_capname(r, p, l, e, file) < 0)
				return -1;
			p += l + (c ? 1 : 0);
		}
	}
	if (r->ncaps > r->re.re_nsub)
		return err_set(e, "%s:%d: rule %s: %zu capture names for %zu groups", file, r->line, r->id,
			       r->ncaps, (size_t)r->re.re_nsub);
	return 0;
}

/*
 * A term row runs on its own matcher (termre.h); its regex stays the
 * specification, compiled by regcomp only when termre declines a window
 * (logrule_term_regex).  glibc's regcomp of the tier's gapped patterns
 * (".{0,80}" twice, ignoring case) cost 1 to 10 ms a row at every start-up,
 * more than all the tier's matching on an ordinary log (round 13: the
 * library rows pushed explain's start-up past the hostile tests' budget).
 */
static int compile_term(struct logrule *r, const char *anchor, const char *caps, int icase, struct err *e,
			const char *file)
{
	const char *why;

	if (caps)
		return err_set(e, "%s:%d: rule %s: a term row captures nothing", file, r->line, r->id);
	if (termre_compile(r->pattern, icase, &r->tm, &why) < 0)
		return err_set(e, "%s:%d: rule %s: the vocabulary tier cannot run this regex: %s", file, r->line,
			       r->id, why);
	r->icase = icase;
	r->anchor = xstrdup(anchor);
	for (char *a = r->anchor; *a; a++)
		*a = (char)tolower((unsigned char)*a);
	return 0;
}

int logrule_term_regex(struct logrule *r)
{
	if (r->re_ok)
		return 0;
	if (regcomp(&r->re, r->pattern, REG_EXTENDED | (r->icase ? REG_ICASE : 0)) != 0)
		return -1;	/* termre_compile accepted it: not reached with a table rulecheck passed */
	r->re_ok = 1;
	return 0;
}

static int parse_layer(const char *s)
{
	for (int l = 0; l < LAYER_COUNT; l++)
		if (!strcmp(layer_name((enum layer_id)l), s))
			return l;
	return -2;
}

static int rule_cmp(const void *a, const void *b)
{
	const struct logrule *x = a, *y = b;

	if (x->prio != y->prio)
		return x->prio < y->prio ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static const char *cell(const struct kb_table *t, size_t row, int c)
{
	return strcmp(t->rows[row].cell[c], "-") ? t->rows[row].cell[c] : NULL;
}

/* Named evidence sets: "#@evset<TAB>name<TAB>lit|lit<TAB>why and source" comment lines (the
 * TSV readers skip comments, so the file stays a plain table); "@name" in a condition stands for
 * the set's literals.  A set holds literals only: none starts with '@' (a set may not refer to
 * another), '+' or '!', none holds '?' or ';' (it cannot define the rule). */
static const struct lr_evset *find_set(const struct logrules *rs, const char *name, size_t l)
{
	for (size_t k = 0; k < rs->nsets; k++)
		if (strlen(rs->sets[k].name) == l && !memcmp(rs->sets[k].name, name, l))
			return &rs->sets[k];
	return NULL;
}

static int parse_sets(struct logrules *rs, const char *text, size_t len, struct err *e)
{
	const char *p = text, *end = text + len;
	int line = 0;

	for (; p < end; line++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p)), *le = nl ? nl : end;
		const char *next = nl ? nl + 1 : end;
		static const char tag[] = "#@evset\t";
		const char *name, *lits, *t1, *t2, *q;
		struct lr_evset *s;
		size_t n;

		if ((size_t)(le - p) < sizeof(tag) - 1 || memcmp(p, tag, sizeof(tag) - 1)) {
			p = next;
			continue;
		}
		name = p + sizeof(tag) - 1;
		t1 = memchr(name, '\t', (size_t)(le - name));
		t2 = t1 ? memchr(t1 + 1, '\t', (size_t)(le - t1 - 1)) : NULL;
		if (!t1 || !t2 || t2 == t1 + 1 || (size_t)(le - t2 - 1) < 1)
			return err_set(e, "explain.tsv:%d: an evidence set is '#@evset<TAB>name<TAB>"
				       "literals<TAB>why and source'", line + 1);
		if (t1 == name || (size_t)(t1 - name) >= sizeof(s->name))
			return err_set(e, "explain.tsv:%d: an evidence set needs a name of 1 to %zu "
				       "characters", line + 1, sizeof(s->name) - 1);
		for (q = name; q < t1; q++)
			if (!islower((unsigned char)*q) && !isdigit((unsigned char)*q) && *q != '-')
				return err_set(e, "explain.tsv:%d: evidence set names are a-z, 0-9 and "
					       "'-'", line + 1);
		if (find_set(rs, name, (size_t)(t1 - name)))
			return err_set(e, "explain.tsv:%d: evidence set @%.*s is defined twice",
				       line + 1, (int)(t1 - name), name);
		if (rs->nsets >= LR_MAX_EVSETS)
			return err_set(e, "explain.tsv:%d: more than %d evidence sets", line + 1,
				       LR_MAX_EVSETS);
		for (lits = t1 + 1, n = 1, q = lits; q < t2; q++) {
			n += *q == '|';
			if (*q == '?' || *q == ';' || *q == '\r' ||
			    ((*q == '@' || *q == '+' || *q == '!') && (q == lits || q[-1] == '|')))
				return err_set(e, "explain.tsv:%d: evidence set @%.*s: a set holds literals "
					       "only (no '?', ';', no literal starting '@' (another set), "
					       "'+' or '!')", line + 1, (int)(t1 - name), name);
			if (*q == '|' && (q == lits || q + 1 == t2 || q[1] == '|'))
				return err_set(e, "explain.tsv:%d: evidence set @%.*s has an empty literal",
					       line + 1, (int)(t1 - name), name);
		}
		if (n > LR_MAX_EVLITS)
			return err_set(e, "explain.tsv:%d: evidence set @%.*s has more than %d literals",
				       line + 1, (int)(t1 - name), name, LR_MAX_EVLITS);
		s = &rs->sets[rs->nsets++];
		memcpy(s->name, name, (size_t)(t1 - name));
		s->name[t1 - name] = 0;
		s->lits = xstrndup(lits, (size_t)(t2 - lits));
		p = next;
	}
	return 0;
}

/* One literal (lower-cased) into rs->ev, once; its index into the condition. */
static int add_ev(struct logrules *rs, struct lr_cond *c, const char *s, size_t l)
{
	char *lit;
	size_t k;

	if (!l || c->nev >= LR_MAX_EVLITS)
		return -1;
	lit = xstrndup(s, l);
	for (char *t = lit; *t; t++)
		*t = (char)tolower((unsigned char)*t);
	if (strmap_get(&rs->evidx, lit, &k)) {
		free(lit);
	} else {
		if (rs->nev >= LR_MAX_EVIDENCE) {
			free(lit);
			return -1;
		}
		k = rs->nev;
		rs->ev[rs->nev++] = lit;
		strmap_put(&rs->evidx, lit, k);
	}
	if ((c->nev & (c->nev - 1)) == 0)	/* 0, 1, 2, 4, ...: grow by doubling */
		c->ev = xrealloc(c->ev, (c->nev ? 2 * c->nev : 1) * sizeof(*c->ev));
	c->ev[c->nev++] = (int)k;
	return 0;
}

/* A named set's literals as an "if" condition; an absent set leaves it empty. */
static int set_cond(struct logrules *rs, struct lr_cond *c, const char *name)
{
	const struct lr_evset *set = find_set(rs, name, strlen(name));

	c->kind = LR_COND_IF;
	for (const char *q = set ? set->lits : NULL; q;) {
		size_t ql = strcspn(q, "|");

		if (add_ev(rs, c, q, ql) < 0)
			return -1;
		q = q[ql] ? q + ql + 1 : NULL;
	}
	return 0;
}

/*
 * "lit|lit", "+lit|lit" or "!lit|lit" after a cause's '?': each literal (lower-cased)
 * is entered once in rs->ev, the condition keeps the indices; "@name" is a set's literals.
 */
static int parse_cond(struct logrules *rs, struct lr_cond *c, const char *s,
		      const struct logrule *r, const char *cause, struct err *e)
{
	c->kind = LR_COND_GUESS;
	if (*s == '!' || *s == '+') {
		c->kind = *s == '!' ? LR_COND_UNLESS : LR_COND_IF;
		s++;
	}
	for (;;) {
		size_t l = strcspn(s, "|");

		if (l && *s == '@') {
			const struct lr_evset *set = find_set(rs, s + 1, l - 1);
			const char *q;

			if (!set)
				return err_set(e, "%s:%d: rule %s: cause '%s': no evidence set '%.*s'",
					       rs->table.name, r->line, r->id, cause, (int)l, s);
			for (q = set->lits;;) {
				size_t ql = strcspn(q, "|");

				if (add_ev(rs, c, q, ql) < 0)
					return err_set(e, "%s:%d: rule %s: cause '%s': more than %d "
						       "literals with set '%.*s', or more than %d in all",
						       rs->table.name, r->line, r->id, cause,
						       LR_MAX_EVLITS, (int)l, s, LR_MAX_EVIDENCE);
				if (!q[ql])
					break;
				q += ql + 1;
			}
		} else if (add_ev(rs, c, s, l) < 0) {
			return err_set(e, "%s:%d: rule %s: bad condition on cause '%s' (an empty literal, "
				       "more than %d literals, or more than %d in all)", rs->table.name,
				       r->line, r->id, cause, LR_MAX_EVLITS, LR_MAX_EVIDENCE);
		}
		if (!s[l])
			return 0;
		s += l + 1;
	}
}

static int compile_row(struct logrules *rs, size_t i, const int *c, struct err *e)
{
	const struct kb_table *t = &rs->table;
	struct logrule *r = &rs->v[rs->n];
	const char *cls = t->rows[i].cell[c[C_CLASS]], *m = t->rows[i].cell[c[C_MATCH]];
	const char *causes = cell(t, i, c[C_CAUSES]), *layer = t->rows[i].cell[c[C_LAYER]];
	const char *file = t->name, *why;
	char *end;
	long prio;

	memset(r, 0, sizeof(*r));
	r->line = t->rows[i].line;
	r->row = (int)i;
	r->id = t->rows[i].cell[c[C_ID]];
	r->pattern = t->rows[i].cell[c[C_PATTERN]];
	r->says = cell(t, i, c[C_SAYS]);
	r->source = cell(t, i, c[C_SOURCE]);
	rs->n++;		/* released with the others even when it fails below */
	if (rulecheck_row(r->id, m[0] == 'r' ? r->pattern : NULL, &why) < 0)
		return err_set(e, "%s:%d: a rule refused: %s", file, r->line, why);
	errno = 0;
	prio = strtol(t->rows[i].cell[c[C_PRIO]], &end, 10);
	if (*end || errno || prio < 0 || prio > 1000000)
		return err_set(e, "%s:%d: rule %s: prio is not a number", file, r->line, r->id);
	r->prio = (int)prio;
	if (!strcmp(cls, "cause"))
		r->cls = LR_CAUSE;
	else if (!strcmp(cls, "scope"))
		r->cls = LR_SCOPE;
	else if (!strcmp(cls, "benign"))
		r->cls = LR_BENIGN;
	else
		return err_set(e, "%s:%d: rule %s: class must be cause, scope or benign", file, r->line,
			       r->id);
	r->layer = !strcmp(layer, "-") ? -1 : parse_layer(layer);
	if (r->layer == -2)
		return err_set(e, "%s:%d: rule %s: unknown layer '%s'", file, r->line, r->id, layer);
	if (r->cls == LR_CAUSE) {
		/* "-": the layer of the first cause, as the catalogue says */
		const char *p = causes;

		if (!p)
			return err_set(e, "%s:%d: rule %s: a cause rule needs causes", file, r->line, r->id);
		if (!strcmp(p, "@errcode")) {
			if (r->layer < 0)
				return err_set(e, "%s:%d: rule %s: an @errcode rule needs a layer", file,
					       r->line, r->id);
			r->by_code = 1;
			p += strlen(p);
		}
		while (*p) {
			const char *sc = strchr(p, ';');
			size_t l = sc ? (size_t)(sc - p) : strlen(p);
			char id[512], *q, *x;	/* x: a guess's exception, "id?lits?!lits" */

			if (!l || l >= sizeof(id) || r->ncauses >= LR_MAX_CAUSES)
				return err_set(e, "%s:%d: rule %s: bad causes list", file, r->line, r->id);
			memcpy(id, p, l);
			id[l] = 0;
			if ((q = strchr(id, '?')) != NULL) {
				*q++ = 0;
				if ((x = strchr(q, '?')) &&
				    (*q == '!' || x[1] != '!' || strchr(x + 1, '?')))
					return err_set(e, "%s:%d: rule %s: cause '%s': only a guess or '?+' "
						       "takes a second condition, '?!lit|lit'", file, r->line, r->id, id);
				if ((x && (*x++ = 0, parse_cond(rs, &r->except[r->ncauses], x, r, id, e) < 0)) ||
				    parse_cond(rs, &r->cond[r->ncauses], q, r, id, e) < 0)
					return -1;
			}
			if (cause_from_id(id) == CAUSE_NONE)
				return err_set(e, "%s:%d: rule %s: '%s' is not a cause id of the catalogue",
					       file, r->line, r->id, id);
			r->causes[r->ncauses++] = cause_from_id(id);
			p += l + (sc ? 1 : 0);
		}
		if (r->layer < 0)
			r->layer = (int)cause_get(r->causes[0])->layer;
	} else if (causes) {
		return err_set(e, "%s:%d: rule %s: only cause rules name causes", file, r->line, r->id);
	}
	if (!strcmp(m, "lit")) {
		r->kind = LR_LIT;
		return compile_lit(r, e, file);
	}
	if (!strcmp(m, "re") || !strcmp(m, "rei")) {
		r->kind = LR_RE;
		return compile_re(r, cell(t, i, c[C_ANCHOR]), cell(t, i, c[C_CAPTURES]), m[2] == 'i', e,
				  file);
	}
	if (!strcmp(m, "exc")) {
		r->kind = LR_EXC;
		return 0;
	}
	return err_set(e, "%s:%d: rule %s: match must be lit, re, rei or exc", file, r->line, r->id);
}

int logrules_parse(const char *origin, const char *text, size_t len, struct logrules *r,
		   struct err *e)
{
	int c[C_N];

	memset(r, 0, sizeof(*r));
	r->origin = origin;
	if (kb_table_parse("explain.tsv", origin, text, len, &r->table, e) < 0)
		return -1;
	if (parse_sets(r, text, len, e) < 0)
		goto fail;
	for (int i = 0; i < C_N; i++)
		if ((c[i] = kb_table_col(&r->table, cols[i])) < 0) {
			err_set(e, "explain.tsv: no column '%s'", cols[i]);
			goto fail;
		}
	r->v = xcalloc(r->table.nrows + 1, sizeof(*r->v));
	for (size_t i = 0; i < r->table.nrows; i++) {
		if (compile_row(r, i, c, e) < 0)
			goto fail;
		for (size_t k = 0; k + 1 < r->n; k++)
			if (!strcmp(r->v[k].id, r->v[r->n - 1].id)) {
				err_set(e, "explain.tsv:%d: rule id %s is used twice", r->v[r->n - 1].line,
					r->v[k].id);
				goto fail;
			}
	}
	qsort(r->v, r->n, sizeof(*r->v), rule_cmp);
	if (set_cond(r, &r->cudart_old, "cudart-old") < 0 || set_cond(r, &r->cudart_new, "cudart-new") < 0) {
		err_set(e, "explain.tsv: evidence sets @cudart-old, @cudart-new: too many literals");
		goto fail;
	}
	return 0;
fail:
	logrules_release(r);
	return -1;
}

int logrules_load(const char *dir, struct logrules *r, struct err *e)
{
	if (dir) {
		char path[4096];
		struct buf b = BUF_INIT;
		int fd, ret;

		snprintf(path, sizeof(path), "%s/explain.tsv", dir);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			char chunk[65536];
			ssize_t got;

			while ((got = read(fd, chunk, sizeof(chunk))) > 0 && b.len < (64u << 20))
				buf_add(&b, chunk, (size_t)got);
			close(fd);
			if (got < 0) {
				buf_release(&b);
				return err_set_errno(e, "cannot read '%s'", path);
			}
			ret = logrules_parse(path, buf_cstr(&b), b.len, r, e);
			/* the table copied the text */
			buf_release(&b);
			if (ret == 0)
				r->origin = r->table.origin;
			return ret;
		}
		if (errno != ENOENT)
			return err_set_errno(e, "cannot open '%s'", path);
	}
	return logrules_parse("embedded", gd_explain_tsv, strlen(gd_explain_tsv), r, e);
}

void logrules_release(struct logrules *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].anchor);
		for (size_t k = 0; k < r->v[i].ncaps; k++)
			free(r->v[i].capnames[k]);
		if (r->v[i].re_ok)
			regfree(&r->v[i].re);
		termre_free(r->v[i].tm);
	}
	/* one past n too: a row whose parse failed holds the conditions read so far */
	for (size_t i = 0; r->v && i <= r->n; i++)
		for (size_t k = 0; k < LR_MAX_CAUSES; k++) {
			free(r->v[i].cond[k].ev);
			free(r->v[i].except[k].ev);
		}
	free(r->v);
	free(r->cudart_old.ev);
	free(r->cudart_new.ev);
	strmap_release(&r->evidx);
	for (size_t k = 0; k < r->nev; k++)
		free(r->ev[k]);
	for (size_t k = 0; k < r->nsets; k++)
		free(r->sets[k].lits);
	kb_table_release(&r->table);
	memset(r, 0, sizeof(*r));
}

const struct logrule *logrules_find(const struct logrules *r, const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].id, id))
			return &r->v[i];
	return NULL;
}

/* ---- the literal matcher ---- */

static int word_char(char c)
{
	return c != ' ' && c != '\t' && c != '\'' && c != '"' && c != '`' && c != '\0';
}

static int cap_ok(enum lr_cap_type t, const char *s, size_t len)
{
	if (!len)
		return 0;
	switch (t) {
	case LR_CAP_ANY:
	case LR_CAP_REST:
		return 1;
	case LR_CAP_WORD:
		for (size_t i = 0; i < len; i++)
			if (!word_char(s[i]))
				return 0;
		return 1;
	case LR_CAP_INT:
		for (size_t i = 0; i < len; i++)
			if (s[i] < '0' || s[i] > '9')
				return 0;
		return 1;
	case LR_CAP_HEX:
		if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
			s += 2;
			len -= 2;
		}
		for (size_t i = 0; i < len; i++)
			if (!isxdigit((unsigned char)s[i]))
				return 0;
		return 1;
	}
	return 0;
}

/* Can a capture of type t extend over c?  (bounds the search) */
static int cap_can_hold(enum lr_cap_type t, char c)
{
	switch (t) {
	case LR_CAP_WORD: return word_char(c);
	case LR_CAP_INT: return c >= '0' && c <= '9';
	case LR_CAP_HEX: return isxdigit((unsigned char)c) || c == 'x' || c == 'X';
	default: return 1;
	}
}

static void trim_word(const char *s, size_t *off, size_t *len)
{
	while (*len && strchr(".,;:)]", s[*off + *len - 1]))
		(*len)--;
	while (*len && strchr("([", s[*off])) {
		(*off)++;
		(*len)--;
	}
}

struct litm {
	const struct logrule *r;
	const char *t;
	size_t len;
	size_t *off, *clen;
	long budget;
};

/* Segments from k on match at text position pos (literal k already placed by the caller when k
 * is a literal found by search).  Returns 1 on success. */
static int match_from(struct litm *m, size_t k, size_t pos)
{
	const struct logrule *r = m->r;

	if (--m->budget < 0)
		return 0;
	if (k == r->nsegs)
		return 1;
	if (r->segs[k].cap < 0) {
		const struct lr_seg *s = &r->segs[k];

		if (m->len - pos < s->len || memcmp(m->t + pos, s->lit, s->len))
			return 0;
		return match_from(m, k + 1, pos + s->len);
	}
	/* a capture */
	{
		const struct lr_seg *c = &r->segs[k];
		size_t ci = (size_t)c->cap;

		if (k + 1 == r->nsegs) {
			size_t end = pos;

			if (c->type == LR_CAP_REST || c->type == LR_CAP_ANY)
				end = m->len;
			else
				while (end < m->len && cap_can_hold(c->type, m->t[end]))
					end++;
			m->off[ci] = pos;
			m->clen[ci] = end - pos;
			if (c->type == LR_CAP_WORD)
				trim_word(m->t, &m->off[ci], &m->clen[ci]);
			while (c->type == LR_CAP_REST && m->clen[ci] && m->t[m->off[ci] + m->clen[ci] - 1] == ' ')
				m->clen[ci]--;
			return m->clen[ci] > 0 && cap_ok(c->type, m->t + m->off[ci], m->clen[ci]);
		}
		{
			const struct lr_seg *next = &r->segs[k + 1];
			size_t from = pos + 1;

			while (from + next->len <= m->len) {
				const char *hit = memmem(m->t + from, m->len - from, next->lit, next->len);
				size_t at;

				if (!hit)
					return 0;
				at = (size_t)(hit - m->t);
				/* the capture must be able to span pos..at */
				for (size_t q = from - 1; q < at; q++)
					if (!cap_can_hold(c->type, m->t[q]))
						return 0;
				if (cap_ok(c->type, m->t + pos, at - pos) && match_from(m, k + 2, at + next->len)) {
					m->off[ci] = pos;
					m->clen[ci] = at - pos;
					return 1;
				}
				if (m->budget < 0)
					return 0;
				from = at + 1;
			}
			return 0;
		}
	}
}

int logrules_lit_match(const struct logrule *r, const char *text, size_t len, size_t *cap_off,
		       size_t *cap_len)
{
	struct litm m = { r, text, len, cap_off, cap_len, 4096 };
	size_t first = r->segs[0].cap >= 0 ? 1 : 0;
	const struct lr_seg *s = &r->segs[first];
	size_t from = 0;

	if (r->kind != LR_LIT || !r->nsegs)
		return 0;
	while (from + s->len <= len) {
		const char *hit = memmem(text + from, len - from, s->lit, s->len);
		size_t at;

		if (!hit)
			return 0;
		at = (size_t)(hit - text);
		if (match_from(&m, first + 1, at + s->len)) {
			if (first) {
				/* the word before the first literal */
				size_t b = at;
				const struct lr_seg *c = &r->segs[0];

				while (b > 0 && cap_can_hold(c->type == LR_CAP_ANY ? LR_CAP_WORD : c->type,
							     text[b - 1]))
					b--;
				cap_off[c->cap] = b;
				cap_len[c->cap] = at - b;
				trim_word(text, &cap_off[c->cap], &cap_len[c->cap]);
				if (!cap_len[c->cap] || !cap_ok(c->type, text + cap_off[c->cap], cap_len[c->cap])) {
					from = at + 1;
					continue;
				}
			}
			return 1;
		}
		if (m.budget < 0)
			return 0;
		from = at + 1;
	}
	return 0;
}
