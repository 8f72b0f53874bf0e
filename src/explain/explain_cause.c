/*
 * explain_cause.c - `gpudoctor explain CAUSE-ID`: a catalogue entry as
 * documentation (title, layer, why it happens, how to verify it, the fix,
 * the sources), in text or JSON.
 */
#include "explain/explain.h"

#include "core/json.h"
#include "knowledge/causes.h"
#include "report/report.h"

#include <string.h>

static void field(struct buf *out, const char *label, const char *s)
{
	buf_printf(out, "%-8s ", label);
	for (const char *p = s ? s : "-"; *p; p++) {
		buf_addc(out, *p);
		if (*p == '\n')
			buf_puts(out, "         ");
	}
	buf_addc(out, '\n');
}

int explain_render_cause(const char *id, int as_json, struct buf *out)
{
	const struct cause *c = cause_get(cause_from_id(id));

	if (!c)
		return -1;
	if (as_json) {
		struct json j;

		json_init(&j, 1);
		json_obj_begin(&j, NULL);
		json_str(&j, "schema", "gpudoctor.cause/1");
		json_str(&j, "cause", c->id);
		json_str(&j, "layer", layer_name(c->layer));
		json_str(&j, "title", c->title);
		json_str(&j, "why", c->why);
		json_str(&j, "verify", c->verify);
		json_str(&j, "fix", c->fix);
		json_str(&j, "sources", c->sources);
		json_obj_end(&j);
		buf_add(out, j.out.s, j.out.len);
		buf_addc(out, '\n');
		json_release(&j);
		return 0;
	}
	buf_printf(out, "%s (%s layer)\n", c->id, layer_name(c->layer));
	field(out, "title", c->title);
	field(out, "why", c->why);
	field(out, "verify", c->verify);
	field(out, "fix", c->fix);
	field(out, "sources", c->sources);
	return 0;
}
