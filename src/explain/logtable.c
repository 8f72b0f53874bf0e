/* logtable.c - derived lines from tables printed over several lines; see logtable.h. */
#include "explain/logtable.h"

#include <stdlib.h>
#include <string.h>

static void p2p_clear(double m[LT_MAX_GPUS][LT_MAX_GPUS])
{
	for (int i = 0; i < LT_MAX_GPUS; i++)
		for (int j = 0; j < LT_MAX_GPUS; j++)
			m[i][j] = -1.0;
}

void logtable_init(struct logtable *t, lognorm_fn next, void *next_arg)
{
	memset(t, 0, sizeof(*t));
	t->next = next;
	t->next_arg = next_arg;
	t->p2p = LT_P2P_NONE;
	p2p_clear(t->dis);
	p2p_clear(t->en);
	t->tp_cur = t->tp_slow = t->tp_maxop = -1;
	buf_init(&t->out);
}

void logtable_release(struct logtable *t)
{
	buf_release(&t->out);
}

static void emit(struct logtable *t, long first, long last)
{
	struct lognorm_line dl;

	memset(&dl, 0, sizeof(dl));
	dl.text = buf_cstr(&t->out);
	dl.len = t->out.len;
	dl.first = first;
	dl.last = last;
	dl.count = 1;
	dl.frames = NULL;
	t->next(&dl, t->next_arg);
}

/* Does the line (len bytes) contain the literal? */
static int has(const char *s, size_t len, const char *lit)
{
	size_t n = strlen(lit);

	for (size_t i = 0; n <= len && i + n <= len; i++)
		if (!memcmp(s + i, lit, n))
			return 1;
	return 0;
}

/*
 * A matrix row: "  3   9.70   9.73 354.79" -> row 3 and its cells.  Returns
 * the number of cells (>= 2), or 0 when the line is not a row.
 */
static int p2p_row(const char *s, size_t len, int *row, double cells[LT_MAX_GPUS])
{
	char line[512];
	char *p, *end;
	long r;
	int n = 0;

	if (len == 0 || len >= sizeof(line))
		return 0;
	memcpy(line, s, len);
	line[len] = 0;
	p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return 0;
	r = strtol(p, &end, 10);
	if (end == p || (*end != ' ' && *end != '\t') || r < 0 || r >= LT_MAX_GPUS)
		return 0;
	p = end;
	for (;;) {
		double v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			break;
		if ((*p < '0' || *p > '9') && *p != '.')
			return 0;
		v = strtod(p, &end);
		if (end == p || (*end && *end != ' ' && *end != '\t') || !(v >= 0.0 && v < 1e7))
			return 0;
		if (n < LT_MAX_GPUS)
			cells[n] = v;
		n++;
		p = end;
	}
	*row = (int)r;
	return n >= 2 ? (n > LT_MAX_GPUS ? LT_MAX_GPUS : n) : 0;
}

/* Both matrices read: name the pair whose P2P bandwidth fell furthest under the staged copy. */
static void p2p_judge(struct logtable *t)
{
	int bi = -1, bj = -1;
	double best = 0.5;	/* P2P under half the staged bandwidth */

	for (int i = 0; i < LT_MAX_GPUS; i++)
		for (int j = 0; j < LT_MAX_GPUS; j++) {
			double d = t->dis[i][j], e = t->en[i][j];

			if (i == j || d < 1.0 || e < 0.0)
				continue;
			if (e / d < best) {
				best = e / d;
				bi = i;
				bj = j;
			}
		}
	t->p2p = LT_P2P_NONE;
	if (bi < 0)
		return;
	buf_reset(&t->out);
	buf_printf(&t->out,
		   "[gpudoctor] p2pBandwidthLatencyTest: GPU%d -> GPU%d with P2P enabled: %.2f GB/s, with P2P disabled: %.2f GB/s "
		   "(gpudoctor: peer-to-peer writes are slower than copies staged through host memory)",
		   bi, bj, t->en[bi][bj], t->dis[bi][bj]);
	emit(t, t->p2p_first, t->p2p_last);
}

static void p2p_line(struct logtable *t, const struct lognorm_line *l)
{
	double cells[LT_MAX_GPUS];
	int row, n;

	if (has(l->text, l->len, "Unidirectional P2P=Disabled Bandwidth")) {
		p2p_clear(t->dis);
		p2p_clear(t->en);
		t->p2p = LT_P2P_DISABLED;
		return;
	}
	if (has(l->text, l->len, "Unidirectional P2P=Enabled Bandwidth")) {
		if (t->p2p == LT_P2P_DISABLED) {
			t->p2p = LT_P2P_ENABLED;
			t->p2p_first = l->first;
			t->p2p_last = l->last;
		}
		return;
	}
	if (t->p2p == LT_P2P_NONE)
		return;
	if (has(l->text, l->len, "D\\D"))
		return;		/* the column header */
	n = p2p_row(l->text, l->len, &row, cells);
	if (!n) {
		if (t->p2p == LT_P2P_ENABLED)
			p2p_judge(t);
		t->p2p = LT_P2P_NONE;
		return;
	}
	for (int j = 0; j < n; j++) {
		if (t->p2p == LT_P2P_DISABLED)
			t->dis[row][j] = cells[j];
		else
			t->en[row][j] = cells[j];
	}
	if (t->p2p == LT_P2P_ENABLED)
		t->p2p_last = l->last;
}

/*
 * nccl-tests: the header "(B)    (elements)" opens the table, rows are
 * "  2048   512   float   sum   -1   8.38 ...", "# Avg bus bandwidth" (or
 * "# Out of bounds values") closes it; a failure line ends the run
 * otherwise ("Test NCCL failure", "Test CUDA failure", an NCCL WARN).
 */
static void nt_line(struct logtable *t, const struct lognorm_line *l)
{
	const char *p = l->text, *e = l->text + l->len;

	if (has(l->text, l->len, "(elements)") && has(l->text, l->len, "(B)")) {
		t->nt_open = 1;
		t->nt_rows = 0;
		t->nt_last_size = -1;
		t->nt_first = l->first;
		t->nt_last = l->last;
		return;
	}
	if (!t->nt_open)
		return;
	if (has(l->text, l->len, "Avg bus bandwidth") || has(l->text, l->len, "Out of bounds values") ||
	    has(l->text, l->len, "failure") || has(l->text, l->len, "WARN") || has(l->text, l->len, "rror")) {
		t->nt_open = 0;
		return;
	}
	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (p < e && *p >= '0' && *p <= '9') {
		long long v = 0;
		int digits = 0;

		while (p < e && *p >= '0' && *p <= '9' && digits < 18) {
			v = v * 10 + (*p - '0');
			p++;
			digits++;
		}
		t->nt_rows++;
		t->nt_last_size = v;
		t->nt_last = l->last;
	}
	/* '#' comment lines and NCCL INFO lines (NCCL_DEBUG=INFO) leave the table open */
}

static void nt_judge(struct logtable *t)
{
	if (!t->nt_open)
		return;
	t->nt_open = 0;
	buf_reset(&t->out);
	if (t->nt_rows > 0)
		buf_printf(&t->out,
			   "[gpudoctor] nccl-tests: the log ends inside the result table after %ld rows (last size %lld bytes), "
			   "without its 'Avg bus bandwidth' line (gpudoctor: the collective of the next size did not finish)",
			   t->nt_rows, t->nt_last_size);
	else
		buf_printf(&t->out,
			   "[gpudoctor] nccl-tests: the log ends inside the result table after 0 rows, "
			   "without its 'Avg bus bandwidth' line (gpudoctor: the first collective did not finish)");
	emit(t, t->nt_first, t->nt_last);
}

/* "    GPU Current Temp   : 56 C" -> 56 when the line holds the label; -1 otherwise. */
static int tp_value(const char *s, size_t len, const char *label)
{
	const char *p, *e = s + len;
	int v = 0, digits = 0;

	if (!has(s, len, label))
		return -1;
	p = memchr(s, ':', len);
	if (!p)
		return -1;
	for (p++; p < e && (*p == ' ' || *p == '\t'); p++)
		;
	while (p < e && *p >= '0' && *p <= '9' && digits < 4) {
		v = v * 10 + (*p - '0');
		p++;
		digits++;
	}
	if (!digits || p + 2 > e || p[0] != ' ' || p[1] != 'C')
		return -1;
	return v;
}

/*
 * nvidia-smi -q's Temperature section: once the current temperature and a
 * limit are known, say whether the GPU sits at the limit.  One line per
 * section; "Temperature" (the section's header) and "GPU 0000..." (the next
 * GPU) start a new one.
 */
static void tp_line(struct logtable *t, const struct lognorm_line *l)
{
	const char *p = l->text, *e = l->text + l->len;
	int v;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if ((size_t)(e - p) >= 11 && !memcmp(p, "Temperature", 11) && !memchr(p, ':', (size_t)(e - p))) {
		t->tp_cur = t->tp_slow = t->tp_maxop = -1;
		t->tp_said = 0;
		return;
	}
	/* every line this reads starts with "GPU ": the rest cost nothing more (a 100 MB log stays linear and cheap) */
	if ((size_t)(e - p) < 4 || memcmp(p, "GPU ", 4))
		return;
	if ((size_t)(e - p) >= 8 && !memcmp(p, "GPU 0000", 8)) {
		t->tp_cur = t->tp_slow = t->tp_maxop = -1;
		t->tp_said = 0;
		return;
	}
	if ((v = tp_value(p, (size_t)(e - p), "GPU Current Temp")) >= 0) {
		t->tp_cur = v;
		t->tp_first = l->first;
	} else if ((v = tp_value(p, (size_t)(e - p), "GPU Slowdown Temp")) >= 0) {
		t->tp_slow = v;
	} else if ((v = tp_value(p, (size_t)(e - p), "GPU Max Operating Temp")) >= 0) {
		t->tp_maxop = v;
	} else {
		return;
	}
	if (t->tp_said || t->tp_cur < 0)
		return;
	buf_reset(&t->out);
	if (t->tp_slow > 0 && t->tp_cur >= t->tp_slow)
		buf_printf(&t->out,
			   "[gpudoctor] nvidia-smi -q: GPU temperature %d C is at its slowdown temperature %d C "
			   "(gpudoctor: the GPU is being slowed down to cool)",
			   t->tp_cur, t->tp_slow);
	else if (t->tp_maxop > 0 && t->tp_cur + 1 >= t->tp_maxop)
		buf_printf(&t->out,
			   "[gpudoctor] nvidia-smi -q: GPU temperature %d C is at its max operating temperature %d C "
			   "(gpudoctor: the GPU holds its clocks down to stay under it)",
			   t->tp_cur, t->tp_maxop);
	else
		return;
	t->tp_said = 1;
	emit(t, t->tp_first, l->last);
}

void logtable_line_cb(const struct lognorm_line *l, void *arg)
{
	struct logtable *t = arg;

	t->next(l, t->next_arg);
	p2p_line(t, l);
	nt_line(t, l);
	tp_line(t, l);
}

void logtable_finish(struct logtable *t)
{
	if (t->p2p == LT_P2P_ENABLED)
		p2p_judge(t);
	t->p2p = LT_P2P_NONE;
	nt_judge(t);
}
