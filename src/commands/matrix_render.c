/*
 * matrix_render.c - print a `gpudoctor matrix` answer as text or JSON
 * (gpudoctor.matrix/2, docs/json-schema.md and docs/schema/matrix.schema.json).
 */
#include "commands/matrix.h"
#include "core/termesc.h"
#include "core/json.h"

#include <stdio.h>
#include <string.h>

static const char *yesno(int ok)
{
	return ok == 1 ? "yes" : ok == 0 ? "no" : "maybe";
}

void matrix_render_text(const struct kb *kb, const struct matrix_result *r)
{
	for (size_t i = 0; i < r->nfacts; i++)
		printf("%-22s %s\n", r->facts[i].key, tesc(r->facts[i].value));
	if (r->nitems)
		printf("\n");
	if (r->nitems && r->verdict == 0)
		printf("the combination does not work (see the notes); each answer below is judged on its own,\n"
		       "and a \"yes\" among them is excluded from the answer:\n\n");
	for (size_t i = 0; i < r->nitems; i++) {
		const struct matrix_item *it = &r->items[i];
		const char *url = it->source ? kb_source_url(kb, it->source) : NULL;

		printf("%-5s %s%s %s%s\n", yesno(it->ok), it->scenario == MATRIX_NEWER_DRIVER ?
		       "with newer driver: " : "", tesc(it->what), it->version[0] ? tesc(it->version) : "none",
		       it->known_failure ? " (known failure)" : "");
		if (it->why[0])
			printf("      %s\n", tesc(it->why));
		if (it->install[0])
			printf("      install: %s\n", tesc(it->install));
		if (url || it->table)
			printf("      source: %s%s%s%s\n", it->table ? it->table : "", url && it->table ? ", " : "",
			       url ? url : "", r->verdict == 0 && it->ok == 1 ? "  (excluded)" : "");
	}
	for (size_t i = 0; i < r->nnotes; i++)
		printf("%snote: %s\n", i == 0 ? "\n" : "", tesc(r->notes[i]));
	if (r->verdict >= 0)
		printf("\nanswer: %s\n", r->verdict ? "yes, this combination works" :
		       "no, this combination does not work (reasons above)");
}

/*
 * An answer's sources as a list: the deciding fact's ids, then the table
 * row's, each once.  The knowledge base joins ids with ';' ("wheel:torch-2.9.1;
 * pypi:torch"); each becomes {"id", "url"}, url null when sources.tsv has none.
 */
static void sources_list(struct json *j, const struct kb *kb, const struct matrix_item *it)
{
	const char *ids[2] = { it->source, it->row_source };
	char seen[16][128];
	size_t nseen = 0;

	json_arr_begin(j, "sources");
	for (size_t k = 0; k < 2; k++)
		for (const char *p = ids[k]; p && *p; ) {
			size_t n = strcspn(p, ";"), dup = 0;

			if (n && n < sizeof(seen[0]) && nseen < 16) {
				memcpy(seen[nseen], p, n);
				seen[nseen][n] = '\0';
				for (size_t i = 0; i < nseen; i++)
					dup |= !strcmp(seen[i], seen[nseen]);
				if (!dup) {
					json_obj_begin(j, NULL);
					json_str(j, "id", seen[nseen]);
					json_str(j, "url", kb_source_url(kb, seen[nseen]));
					json_obj_end(j);
					nseen++;
				}
			}
			p += n;
			if (*p == ';')
				p++;
		}
	json_arr_end(j);
}

void matrix_render_json(const struct kb *kb, const struct matrix_query *q, const struct matrix_result *r)
{
	struct json j;

	json_init(&j, 1);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpudoctor.matrix/2");
	json_str(&j, "kb_as_of", kb_as_of(kb));
	json_obj_begin(&j, "query");
	json_str(&j, "tf", q->tf);
	json_str(&j, "torch", q->torch);
	json_str(&j, "jax", q->jax);
	json_str(&j, "cuda", q->cuda);
	json_str(&j, "driver", q->driver);
	json_str(&j, "gpu", q->gpu);
	json_str(&j, "cc", q->cc);
	json_str(&j, "pci", q->pci);
	json_str(&j, "cupy", q->cupy);
	json_bool(&j, "nccl", q->nccl);
	json_bool(&j, "solve", q->solve);
	json_obj_end(&j);
	json_tribool(&j, "verdict", r->verdict);
	json_arr_begin(&j, "facts");
	for (size_t i = 0; i < r->nfacts; i++) {
		json_obj_begin(&j, NULL);
		json_str(&j, "key", r->facts[i].key);
		json_str(&j, "value", r->facts[i].value);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "answers");
	for (size_t i = 0; i < r->nitems; i++) {
		const struct matrix_item *it = &r->items[i];

		json_obj_begin(&j, NULL);
		json_str(&j, "what", it->what);
		json_str(&j, "version", it->version[0] ? it->version : NULL);
		json_tribool(&j, "ok", it->ok);
		/* the situation the answer holds in, its requirements as fields
		 * (matrix/1 packed them into `what`) */
		json_str(&j, "scenario", it->scenario == MATRIX_NEWER_DRIVER ? "with a newer driver" : "as queried");
		json_obj_begin(&j, "requires");
		json_str(&j, "driver_min", it->needs_driver[0] ? it->needs_driver : NULL);
		json_obj_end(&j);
		json_str(&j, "why", it->why[0] ? it->why : NULL);
		json_str(&j, "install", it->install[0] ? it->install : NULL);
		json_str(&j, "table", it->table);
		sources_list(&j, kb, it);
		json_bool(&j, "known_failure", it->known_failure);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "notes");
	for (size_t i = 0; i < r->nnotes; i++)
		json_str(&j, NULL, r->notes[i]);
	json_arr_end(&j);
	json_obj_end(&j);
	fputs(j.out.s, stdout);
	fputc('\n', stdout);
	json_release(&j);
}

void matrix_kb_info(const struct kb *kb, const char *kb_dir, int json)
{
	struct json j;

	if (!json) {
		printf("knowledge base: %s\n", kb_dir ? tesc(kb_dir) : "embedded");
		for (size_t i = 0; i < kb_table_count(kb); i++) {
			struct kb_table_info ti;

			kb_table_info(kb, i, &ti);
			printf("  %-16s %6zu rows  as of %-10s  %s\n", ti.name, ti.rows,
			       ti.as_of ? tesc(ti.as_of) : "unknown", tesc(ti.origin));
		}
		return;
	}
	json_init(&j, 1);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpudoctor.kb-info/1");
	json_str(&j, "kb_as_of", kb_as_of(kb));
	json_str(&j, "kb_dir", kb_dir);
	json_arr_begin(&j, "tables");
	for (size_t i = 0; i < kb_table_count(kb); i++) {
		struct kb_table_info ti;

		kb_table_info(kb, i, &ti);
		json_obj_begin(&j, NULL);
		json_str(&j, "name", ti.name);
		json_int(&j, "rows", (long long)ti.rows);
		json_str(&j, "as_of", ti.as_of);
		json_str(&j, "origin", ti.origin);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	fputs(j.out.s, stdout);
	fputc('\n', stdout);
	json_release(&j);
}
