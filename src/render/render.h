/*
 * render.h - presenting a report: text for people, JSON for programs.
 *
 * Renderers only format what the report and inventory hold; they never probe
 * or decide.  Both write into a struct buf so that main() can check that the
 * whole output reached stdout.
 */
#ifndef GD_RENDER_H
#define GD_RENDER_H

#include "core/buf.h"

struct gd_ctx;
struct inventory;
struct report;
struct kb;

void render_text(const struct gd_ctx *ctx, const struct report *rep,
		 const struct inventory *inv, struct buf *out);
/* The gpudoctor.check/1 document. */
void render_json(const struct gd_ctx *ctx, const struct kb *kb, const struct report *rep,
		 const struct inventory *inv, struct buf *out);

/* The GitHub-ready markdown block (check --format markdown). */
void render_markdown(const struct gd_ctx *ctx, const struct report *rep,
		     const struct inventory *inv, struct buf *out);

#endif
