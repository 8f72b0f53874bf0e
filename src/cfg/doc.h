/*
 * doc.h - a small tree read from JSON or from the block-YAML subset that
 * configuration files use (CDI specs, Docker's daemon.json).
 *
 * Both inputs are hostile: the parsers are bounded (DOC_MAX_DEPTH levels,
 * DOC_MAX_NODES nodes, the input length the caller read) and report the
 * line of the first thing they do not understand.  Scalars keep their text;
 * the reader decides what a value means ("true", "1.2").  Anchors, aliases,
 * tags and multi-document streams are not YAML that CDI files use: an alias
 * is read as the plain text "*name", a second document ends the input.
 *
 *	struct doc d;
 *	if (doc_parse_yaml(text, len, &d, &e) == 0) {
 *		const char *kind = doc_str(doc_get(&d, "kind"));
 *		...
 *		doc_release(&d);
 *	}
 */
#ifndef GD_DOC_H
#define GD_DOC_H

#include <stddef.h>

#include "core/err.h"

#define DOC_MAX_DEPTH 48
#define DOC_MAX_NODES 200000

enum doc_type { DOC_NULL, DOC_SCALAR, DOC_MAP, DOC_LIST };

struct doc {
	enum doc_type type;
	char *key;		/* the key when this node is a map entry, else NULL */
	char *str;		/* DOC_SCALAR: the text (quotes and escapes resolved) */
	int quoted;		/* the scalar was quoted: "null" is then a string */
	int line;		/* 1-based line of the node in the input */
	struct doc *kids;	/* DOC_MAP entries (with key) or DOC_LIST items */
	size_t n, cap;
};

/* JSON (RFC 8259, with YAML's unquoted flow scalars also accepted). */
int doc_parse_json(const char *text, size_t len, struct doc *out, struct err *e);
/* Block YAML: mappings, sequences, plain/quoted/block scalars, flow [] and {}. */
int doc_parse_yaml(const char *text, size_t len, struct doc *out, struct err *e);
void doc_release(struct doc *d);

/* The value of key in a map (last one wins, as YAML loaders do), or NULL. */
const struct doc *doc_get(const struct doc *map, const char *key);
/* The text of a scalar, or NULL for anything else (and for NULL). */
const char *doc_str(const struct doc *d);
/* Number of items of a list (0 for anything else). */
size_t doc_len(const struct doc *d);
/* Item i of a list or entry i of a map, NULL when out of range. */
const struct doc *doc_at(const struct doc *d, size_t i);
/* A scalar read as a boolean: 1 true/yes/on, 0 false/no/off, -1 neither. */
int doc_bool(const struct doc *d);

/* Internal: shared by the two parsers. */
struct doc_parser {
	const char *s;
	size_t len, pos;
	size_t nodes;
	struct err *e;
};
struct doc *doc_add_kid(struct doc *parent);
int doc_count_node(struct doc_parser *p);
/* Line number (1-based) of an offset. */
int doc_line_of(const struct doc_parser *p, size_t off);
/*
 * Parse one flow value (JSON value, or YAML [..], {..}, quoted or plain
 * scalar) at p->pos into out; on return p->pos is past it.  in_flow: plain
 * scalars end at , ] } (else at the end of the line or " #").
 */
int doc_parse_flow(struct doc_parser *p, struct doc *out, int depth, int in_flow);
/* A quoted scalar at p->pos ('"' or '\''), its text into *out. */
int doc_parse_quoted(struct doc_parser *p, char **out);

#endif
