/*
 * logtable.h - read what a tool prints as a table over several lines and
 * say, in one derived line, what its numbers mean together.
 *
 * explain's rules match one line at a time, but some evidence is in no
 * single line: the ratio of two cells of two matrices.  logtable sits between the
 * normaliser and the next stage (logjoin), passes every line on unchanged,
 * and after the table it reads has ended emits one more line that a rule of
 * explain.tsv can match:
 *
 *  - CUDA's p2pBandwidthLatencyTest prints a unidirectional bandwidth
 *    matrix with P2P disabled (copies staged through host memory) and one
 *    with P2P enabled.  A pair of GPUs whose P2P-enabled bandwidth is under
 *    half its staged bandwidth sends peer writes on a path worse than host
 *    memory: ACS redirecting them to the root complex, or an IOMMU
 *    translating them.  The derived line names the worst pair:
 *	"[gpudoctor] p2pBandwidthLatencyTest: GPU0 -> GPU1 with P2P enabled: 2.60 GB/s,
 *	 with P2P disabled: 13.15 GB/s (...)"
 *  - nccl-tests (all_reduce_perf and its siblings) print a result table,
 *    one row per message size, and end it with "# Avg bus bandwidth".  A
 *    log that ends inside that table, after its header, with no failure
 *    line after it, is a run that stopped moving data: the collective of
 *    the next size never finished (users paste such output when the test
 *    hangs).  The derived line says how far it got:
 *	"[gpudoctor] nccl-tests: the log ends inside the result table after
 *	 2 rows (last size 2048 bytes), without its 'Avg bus bandwidth' line (...)"
 *
 *  - nvidia-smi -q prints a GPU's temperatures as "GPU Current Temp : 56 C"
 *    and its limits as "GPU Slowdown Temp" and "GPU Max Operating Temp", one
 *    per line in the GPU's Temperature section.  A current temperature at a
 *    limit (within 1 C of the max operating temperature, where the clock
 *    control holds it, or at the slowdown temperature) is a GPU held down
 *    thermally, though no single line says so:
 *	"[gpudoctor] nvidia-smi -q: GPU temperature 56 C is at its max operating
 *	 temperature 57 C (...)"
 *
 * The derived line carries the input line numbers of the table it read.
 * Input is hostile: cells are bounded (LT_MAX_GPUS), numbers are parsed
 * with bounds, and anything that is not a row of the table ends it.
 *
 *	struct logtable t;
 *	logtable_init(&t, logjoin_line_cb, &join);
 *	lognorm_init(&n, logtable_line_cb, &t);  ... feed, finish ...
 *	logtable_finish(&t);		// a table that ended the log
 *	logtable_release(&t);
 */
#ifndef GD_LOGTABLE_H
#define GD_LOGTABLE_H

#include "core/buf.h"
#include "explain/lognorm.h"

#define LT_MAX_GPUS 16

enum lt_p2p_state { LT_P2P_NONE, LT_P2P_DISABLED, LT_P2P_ENABLED };

struct logtable {
	lognorm_fn next;
	void *next_arg;
	/* p2pBandwidthLatencyTest's unidirectional matrices, GB/s; < 0 unknown */
	enum lt_p2p_state p2p;
	double dis[LT_MAX_GPUS][LT_MAX_GPUS];
	double en[LT_MAX_GPUS][LT_MAX_GPUS];
	long p2p_first, p2p_last;
	/* nccl-tests' result table: open after its header until its summary */
	int nt_open;
	long nt_rows;
	long long nt_last_size;
	long nt_first, nt_last;
	/* nvidia-smi -q's Temperature section of one GPU, degrees C; < 0 unknown */
	int tp_cur, tp_slow, tp_maxop, tp_said;
	long tp_first;
	struct buf out;
};

void logtable_init(struct logtable *t, lognorm_fn next, void *next_arg);
void logtable_line_cb(const struct lognorm_line *l, void *arg);
void logtable_finish(struct logtable *t);
void logtable_release(struct logtable *t);

#endif
