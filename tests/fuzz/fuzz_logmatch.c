/*
 * fuzz_logmatch.c - libFuzzer target for explain's matcher: the embedded
 * rules (explain.tsv) through the anchor automaton and the literal and
 * regex matchers over the input as a log (through logtable, which reads
 * p2pBandwidthLatencyTest matrices, nccl-tests tables and nvidia-smi -q
 * temperatures into derived lines, and logjoin, which retries wrapped
 * lines, as explain's pipeline does; every cause condition evaluated), and the
 * literal-pattern compiler
 * and matcher with a pattern taken from the input's first line (the rest
 * is matched against it).  Errors are fine; crashes, leaks, out-of-bounds
 * captures and undefined behaviour are not.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 */
#include "explain/logjoin.h"
#include "explain/logmatch.h"
#include "explain/lognorm.h"
#include "explain/logrules.h"
#include "explain/logtable.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct logrules rules;
static struct logmatch m;	/* the automaton is built once; hits are cleared per input */
static int loaded;

static void check_caps(const struct logmatch *m)
{
	for (size_t i = 0; i < m->nhits; i++)
		for (size_t k = 0; k < m->hits[i].rule->ncaps; k++)
			if (!m->hits[i].caps[k])
				abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lognorm n;
	const char *nl;

	if (!loaded) {
		if (logrules_load(NULL, &rules, NULL) < 0)
			abort();
		logmatch_init(&m, &rules);
		loaded = 1;
	}
	{
		struct logjoin j;
		int held = 0;

		struct logtable t;

		logjoin_init(&j, &m);
		logtable_init(&t, logjoin_line_cb, &j);
		lognorm_init(&n, logtable_line_cb, &t);
		lognorm_feed(&n, (const char *)data, size);
		lognorm_finish(&n);
		logtable_finish(&t);
		logtable_release(&t);
		logjoin_finish(&j);
		logjoin_release(&j);
		for (size_t i = 0; i < rules.n; i++)
			for (size_t c = 0; c < rules.v[i].ncauses; c++)
				held += logmatch_cond_seen(&m, &rules.v[i].cond[c]);
		if (held < 0)
			abort();
	}
	check_caps(&m);
	lognorm_release(&n);
	logmatch_clear(&m);

	/* one literal rule from the first line, matched against the rest */
	nl = memchr(data, '\n', size);
	if (nl && (size_t)(nl - (const char *)data) < 400 && !memchr(data, '\t', (size_t)(nl - (const char *)data))) {
		struct buf t = BUF_INIT;
		struct logrules one;
		const char *rest = nl + 1;
		size_t rlen = size - (size_t)(rest - (const char *)data);

		buf_puts(&t, "id\tprio\tclass\tmatch\tpattern\tanchor\tcaptures\tcauses\tlayer\tsays\tsource\n"
			     "r\t1\tscope\tlit\t");
		buf_add(&t, data, (size_t)(nl - (const char *)data));
		buf_puts(&t, "\t-\t-\t-\t-\t-\t-\n");
		if (strlen(t.s) == t.len && logrules_parse("fuzz", t.s, t.len, &one, NULL) == 0) {
			char *line = malloc(rlen + 1);
			size_t off[LR_MAX_CAPS], len[LR_MAX_CAPS];

			memcpy(line, rest, rlen);
			line[rlen] = 0;
			if (logrules_lit_match(&one.v[0], line, rlen, off, len))
				for (size_t k = 0; k < one.v[0].ncaps; k++)
					if (off[k] > rlen || len[k] > rlen - off[k])
						abort();
			free(line);
			logrules_release(&one);
		}
		buf_release(&t);
	}
	return 0;
}
