/*
 * termre_int.h - what termre_compile.c builds and termre.c runs: a term
 * row's regex as chains of parts joined by gaps, each part a program for
 * the backtracking machine, forwards and backwards (termre.h).  Internal
 * to those two files.
 */
#ifndef GD_TERMRE_INT_H
#define GD_TERMRE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "explain/termre.h"

#define TR_MAX_PARTS 32
#define TR_MAX_CHAINS 16
#define TR_MAX_CHAIN_PARTS 8

enum tr_op { TR_SET, TR_JMP, TR_SPLIT, TR_ALTN, TR_BOL, TR_EOL, TR_WB, TR_MATCH };

struct tr_inst {
	uint8_t op;
	int32_t x, y;	/* SET: set index; JMP: target; SPLIT: first, second; ALTN: table offset in altv */
};

struct tr_prog {
	struct tr_inst *in;
	size_t n, cap;
	/*
	 * ALTN tables: at x, 258 offsets into altv; the pcs to try when the
	 * next byte (the previous one, backwards) is c are altv[altv[x+c] ..
	 * altv[x+c+1]), c = 256 at the text's edge.
	 */
	int32_t *altv;
	size_t naltv, altcap;
	/*
	 * The visit table remembers join points only: an instruction that a
	 * jump, a split or an alternation leads to (and the first).  Any other
	 * is reached only by falling through from the one before it, which
	 * moved by a fixed step, so it is tried once when that one is.
	 */
	int32_t *slot;		/* per instruction: its row in the visit table, -1 when not a join */
	size_t nslots;
	/*
	 * Where a pass may start: a match can be empty (len0), can be the one
	 * byte c (one[c]), or begins with the bytes c0 c1 (bit c1 of
	 * pair[c0]); backwards, the last byte and the one before it.
	 */
	int len0;
	uint8_t first[256];	/* one[c] or any bit in pair[c] */
	uint8_t one[256];
	uint8_t pair[256][32];
};

struct tr_part {
	uint64_t hash;		/* of key */
	long fixed;		/* the one length every match has, -1: several; then starts are ends shifted */
	int nfirst;		/* bytes a match can begin with: the fewer, the cheaper a pass */
	char *key;		/* 'i' or 'c' (case) and the part's text: the identity cached positions go by */
	uint8_t (*sets)[32];	/* byte sets, case folding applied */
	size_t nsets;
	struct tr_prog fwd, bwd;
};

struct tr_chain {
	int part[TR_MAX_CHAIN_PARTS];
	long gap[TR_MAX_CHAIN_PARTS];	/* the N of ".{0,N}" after part i */
	size_t nparts;
};

struct termre {
	struct tr_part parts[TR_MAX_PARTS];
	size_t nparts;
	struct tr_chain chains[TR_MAX_CHAINS];
	size_t nchains;
};

static inline int tr_in_set(const uint8_t *set, unsigned c)
{
	return (set[c >> 3] >> (c & 7)) & 1;
}

/* ---- the tree a regex is read into (termre_parse.c), for termre_prog.c and termre_compile.c ---- */

enum an_type { AN_SET, AN_CAT, AN_ALT, AN_REP, AN_BOL, AN_EOL, AN_WB };

struct tr_anode {
	uint8_t type;
	uint8_t dot;		/* a SET written '.' */
	int set;
	int kid0, nkids;	/* CAT, ALT: kids[kid0 ..]; REP: kids[kid0] */
	int min, max;		/* REP; max -1: no bound */
	const char *s, *e;	/* the source text of a piece */
};

struct tr_parser {
	const char *p, *end;
	int icase;
	int check_only;		/* termre_check(): read and split, build no program */
	const char *why;
	int depth;
	struct tr_anode *n;
	size_t nn, ncap;
	int *kids;
	size_t nk, kcap;
	uint8_t (*sets)[32];
	size_t nsets, scap;
};

#define TR_MAX_NODES 4096
#define TR_MAX_DEPTH 32

int termre_parse(struct tr_parser *P);		/* the root node, or -1 and P->why */
int termre_parse_fail(struct tr_parser *P, const char *why);	/* -1, the first reason kept */
int termre_parse_node(struct tr_parser *P, int type);
int termre_parse_kids(struct tr_parser *P, const int *k, size_t n);	/* k may lie in P->kids */

int termre_prog_build(struct tr_parser *P, struct tr_prog *g, int id, int rev);
int termre_prog_factor(struct tr_parser *P, int id, int rev);	/* the node to compile, or -1 */
long termre_prog_fixed_len(const struct tr_parser *P, int id);

#endif
