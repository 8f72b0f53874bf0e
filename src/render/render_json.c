/* render_json.c - the gpudoctor.check/1 JSON document (schema in docs/json-schema.md). */
#include "render/render.h"
#include "report/report.h"
#include "render/inventory_json.h"
#include "core/ctx.h"
#include "core/json.h"
#include "knowledge/kb.h"

#include <string.h>

void render_json(const struct gd_ctx *ctx, const struct kb *kb, const struct report *rep,
		 const struct inventory *inv, struct buf *out)
{
	struct json j;

	json_init(&j, 1);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpudoctor.check/1");
	json_str(&j, "gpudoctor", GD_VERSION);
	json_str(&j, "kb_as_of", kb_as_of(kb));
	json_str(&j, "root", ctx->root);
	json_str(&j, "status", status_name(rep->status));
	json_arr_begin(&j, "layers");
	for (int l = 0; l < LAYER_COUNT; l++) {
		const struct layer_result *lr = &rep->layers[l];

		json_obj_begin(&j, NULL);
		json_str(&j, "id", layer_name((enum layer_id)l));
		json_str(&j, "status", status_name(lr->status));
		json_str(&j, "summary", lr->summary);
		if (lr->blocked_by >= 0)
			json_str(&j, "blocked_by", layer_name((enum layer_id)lr->blocked_by));
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "findings");
	for (size_t i = 0; i < rep->n; i++) {
		const struct finding *f = &rep->findings[i];

		json_obj_begin(&j, NULL);
		json_str(&j, "id", f->id);
		json_str(&j, "layer", layer_name(f->layer));
		json_str(&j, "status", status_name(f->status));
		json_str(&j, "cause", cause_id_str(f->cause));
		json_str(&j, "title", f->title);
		json_str_array(&j, "evidence", f->evidence, f->nevidence);
		json_str(&j, "fix", f->fix);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	inventory_json(inv, kb, &j);
	/* How long each layer took (static + live + rules), for speed work. */
	json_obj_begin(&j, "timings_ms");
	for (int l = 0; l < LAYER_COUNT; l++)
		json_num(&j, layer_name((enum layer_id)l), rep->layer_ms[l]);
	json_num(&j, "total", rep->total_ms);
	json_obj_end(&j);
	json_obj_end(&j);
	buf_add(out, j.out.s, j.out.len);
	json_release(&j);
}
