/*
 * explain_json.c - the gpudoctor.explain/1 document (docs/json-schema.md).
 * The JSON writer escapes every string; values from the log that are not
 * valid UTF-8 are made so first.
 */
#include "explain/explain.h"

#include "core/json.h"
#include "core/xalloc.h"
#include "report/report.h"

#include <stdlib.h>
#include <string.h>

/* Replace bytes that are not valid UTF-8 with U+FFFD. */
static char *utf8_clean(const char *s)
{
	struct buf b = BUF_INIT;
	const unsigned char *p = (const unsigned char *)s;

	if (!s)
		return NULL;
	while (*p) {
		unsigned char c = *p;
		size_t n = 0;

		if (c < 0x80) {
			buf_addc(&b, (char)c);
			p++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3;
		for (size_t k = 1; k <= n; k++)
			if ((p[k] & 0xc0) != 0x80)
				n = 0;
		/* overlong and surrogate forms */
		if (n == 2 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0)))
			n = 0;
		if (n == 3 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90)))
			n = 0;
		if (!n) {
			buf_puts(&b, "\xef\xbf\xbd");
			p++;
			continue;
		}
		buf_add(&b, p, n + 1);
		p += n + 1;
	}
	return buf_detach(&b);
}

static void jstr(struct json *j, const char *key, const char *val)
{
	char *c = utf8_clean(val);

	json_str(j, key, c);
	free(c);
}

static const char *class_name(enum lr_class c)
{
	switch (c) {
	case LR_CAUSE: return "cause";
	case LR_SCOPE: return "scope";
	case LR_BENIGN: return "benign";
	}
	return "?";
}

static void render_frames(struct json *j, const char *frames)
{
	json_arr_begin(j, "frames");
	for (const char *p = frames; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *one = xstrndup(p, n);

		jstr(j, NULL, one);
		free(one);
		p = nl ? nl + 1 : p + n;
	}
	json_arr_end(j);
}

static void render_item(struct json *j, const struct xitem *it)
{
	const struct logmatch_hit *h = it->hit;
	const struct logrule *r = h->rule;

	json_obj_begin(j, NULL);
	json_str(j, "rule", r->id);
	json_str(j, "class", class_name(it->cls));
	json_str(j, "layer", it->layer >= 0 ? layer_name((enum layer_id)it->layer) : NULL);
	json_int(j, "first_line", h->first);
	json_int(j, "last_line", h->last);
	json_int(j, "count", h->count);
	json_arr_begin(j, "lines");
	for (size_t i = 0; i < h->nlines; i++)
		json_int(j, NULL, h->lines[i]);
	json_arr_end(j);
	jstr(j, "text", h->text);
	render_frames(j, h->frames);
	json_str(j, "says", r->says);
	json_str(j, "source", r->source);
	json_obj_begin(j, "captures");
	for (size_t k = 0; k < r->ncaps; k++)
		if (strcmp(r->capnames[k], "-"))
			jstr(j, r->capnames[k], h->caps[k]);
	json_obj_end(j);
	json_obj_begin(j, "decoded");
	for (size_t k = 0; k < r->ncaps; k++)
		if (it->decoded[k])
			jstr(j, r->capnames[k], it->decoded[k]);
	json_obj_end(j);
	json_arr_begin(j, "causes");
	for (size_t c = 0; c < it->ncauses; c++) {
		const struct xcause *xc = &it->causes[c];

		json_obj_begin(j, NULL);
		json_str(j, "cause", xc->id);
		json_str(j, "layer", xc->layer >= 0 ? layer_name((enum layer_id)xc->layer) : NULL);
		json_str(j, "title", xc->title);
		json_str(j, "confirmation", xconf_name(xc->conf));
		json_arr_begin(j, "evidence");
		for (size_t e = 0; e < xc->nevidence; e++)
			jstr(j, NULL, xc->evidence[e]);
		json_arr_end(j);
		jstr(j, "fix", xc->fix);
		json_bool(j, "fix_is_for_this_machine", xc->fix_is_machine);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

void explain_render_json(const struct explanation *x, struct buf *out)
{
	struct json j;

	json_init(&j, 1);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpudoctor.explain/1");
	json_str(&j, "kb_as_of", x->kb_as_of[0] ? x->kb_as_of : NULL);
	json_obj_begin(&j, "input");
	jstr(&j, "name", x->input);
	json_int(&j, "lines", x->input_lines);
	json_int(&j, "normalised_lines", x->lines_seen);
	json_int(&j, "unlisted_matches", x->dropped);
	json_obj_end(&j);
	json_obj_begin(&j, "confirmation");
	json_bool(&j, "ran", x->live);
	jstr(&j, "note", x->live_note);
	json_obj_end(&j);
	json_arr_begin(&j, "matches");
	for (size_t i = 0; i < x->n; i++)
		render_item(&j, &x->items[i]);
	json_arr_end(&j);
	json_obj_begin(&j, "result");
	json_int(&j, "stack_matches", (long long)x->ncause_items);
	json_int(&j, "scope_matches", (long long)x->nscope_items);
	json_int(&j, "benign_matches", (long long)x->nbenign_items);
	json_bool(&j, "explained", x->ncause_items || x->nscope_items);
	{
		const char *lowest = NULL;

		for (size_t i = 0; i < x->n && !lowest; i++)
			if (x->items[i].cls == LR_CAUSE && x->items[i].ncauses)
				lowest = x->items[i].causes[0].id;
		json_str(&j, "lowest_cause", lowest);
		json_str(&j, "most_specific_cause", x->primary ? x->primary->id : NULL);
	}
	json_int(&j, "exit", explanation_exit(x));
	json_obj_end(&j);
	json_obj_end(&j);
	buf_add(out, j.out.s, j.out.len);
	buf_addc(out, '\n');
	json_release(&j);
}
