/*
 * kb.c - open the knowledge base: read each table (from --kb DIR when the
 * file is there, else the embedded copy), check it, and convert its rows to
 * the typed arrays of kb_internal.h.  Every error names the file and line.
 */
#include "knowledge/kb_internal.h"
#include "core/buf.h"
#include "core/version.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define KB_FILE_MAX (16u << 20)

const char *const kb_table_names[KB_NTABLES] = {
	"sources.tsv", "facts.tsv", "tf.tsv", "torch.tsv", "jax.tsv", "cuda.tsv",
	"cuda_compat.tsv", "branches.tsv", "archs.tsv", "cudnn.tsv", "sonames.tsv", "gpus.tsv",
	"gpu_drivers.tsv", "failures.tsv", "cupy.tsv",
	"xid.tsv",
};

extern const char kb_data_sources[], kb_data_facts[], kb_data_tf[], kb_data_torch[],
	kb_data_jax[], kb_data_cuda[], kb_data_cuda_compat[], kb_data_branches[],
	kb_data_archs[], kb_data_cudnn[], kb_data_sonames[], kb_data_gpus[],
	kb_data_gpu_drivers[], kb_data_failures[], kb_data_cupy[], kb_data_xid[];

const char *kb_embedded(int i)
{
	static const char *const data[KB_NTABLES] = {
		kb_data_sources, kb_data_facts, kb_data_tf, kb_data_torch, kb_data_jax,
		kb_data_cuda, kb_data_cuda_compat, kb_data_branches, kb_data_archs,
		kb_data_cudnn, kb_data_sonames, kb_data_gpus, kb_data_gpu_drivers, kb_data_failures,
		kb_data_cupy, kb_data_xid,
	};
	return i >= 0 && i < KB_NTABLES ? data[i] : NULL;
}

const char *kb_cell(const struct kb_table *t, size_t row, int col)
{
	const char *s = t->rows[row].cell[col];

	return strcmp(s, "-") ? s : NULL;
}

int kb_parse_cc(const char *s, int *major, int *minor)
{
	char *end;
	long a, b;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	a = strtol(s, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]))
		return -1;
	b = strtol(end + 1, &end, 10);
	if (*end || a > 99 || b > 9)
		return -1;
	*major = (int)a;
	*minor = (int)b;
	return 0;
}

int kb_parse_cuda(const char *s)
{
	struct version v;
	size_t n;

	if (!s)
		return -1;
	while (*s == ' ')
		s++;
	if (!strncasecmp(s, "cu", 2) && isdigit((unsigned char)s[2])) {
		n = strspn(s + 2, "0123456789");
		if (s[2 + n] || (n != 2 && n != 3))
			return -1;
		return atoi(s + 2) / 10 * 1000 + atoi(s + 2) % 10 * 10;
	}
	if (version_parse(s, &v) < 0 || v.part[0] > 99999)
		return -1;
	if (v.n == 1 && v.part[0] >= 1000)
		return (int)v.part[0];
	if (v.part[0] > 99 || v.part[1] > 99)
		return -1;
	return (int)(v.part[0] * 1000 + v.part[1] * 10);
}

/* ---- reading ---- */

static int read_whole(const char *path, struct buf *out, struct err *e)
{
	FILE *f = fopen(path, "rb");
	char chunk[8192];
	size_t n;

	if (!f)
		return err_set_errno(e, "cannot open '%s'", path);
	buf_reset(out);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		buf_add(out, chunk, n);
		if (out->len > KB_FILE_MAX) {
			fclose(f);
			return err_set(e, "%s: larger than %u bytes", path, KB_FILE_MAX);
		}
	}
	if (ferror(f)) {
		fclose(f);
		return err_set_errno(e, "cannot read '%s'", path);
	}
	fclose(f);
	return 0;
}

static int load_table(const char *dir, int i, struct kb_table *t, struct err *e)
{
	const char *name = kb_table_names[i];

	if (dir) {
		char *path = xasprintf("%s/%s", dir, name);
		struct stat st;
		int r = 0;

		if (stat(path, &st) == 0) {
			struct buf b = BUF_INIT;

			if (!S_ISREG(st.st_mode))
				r = err_set(e, "%s: not a regular file", path);
			else if ((r = read_whole(path, &b, e)) == 0)
				r = kb_table_parse(name, path, b.s ? b.s : "", b.len, t, e);
			buf_release(&b);
			free(path);
			return r;
		}
		free(path);
	}
	return kb_table_parse(name, "embedded", kb_embedded(i), strlen(kb_embedded(i)), t, e);
}

/* ---- converting rows ---- */

struct conv {
	struct kb *kb;
	struct kb_table *t;
	size_t row;
	struct err *e;
};

static int need_col(struct conv *c, const char *name, int *col)
{
	*col = kb_table_col(c->t, name);
	if (*col < 0)
		return err_set(c->e, "%s: the header has no column '%s'", c->t->name, name);
	return 0;
}

static int bad(struct conv *c, int col, const char *what)
{
	return err_set(c->e, "%s:%d: column '%s': '%s' is not %s", c->t->name,
		       c->t->rows[c->row].line, c->t->cols[col], c->t->rows[c->row].cell[col], what);
}

static const char *str(struct conv *c, int col)
{
	return kb_cell(c->t, c->row, col);
}

static int get_int(struct conv *c, int col, int unknown_ok, int *out)
{
	const char *s = str(c, col);
	char *end;
	long v;

	if (!s) {
		if (!unknown_ok)
			return bad(c, col, "a number (it may not be unknown)");
		*out = -1;
		return 0;
	}
	errno = 0;
	v = strtol(s, &end, 10);
	if (*end || errno || v < 0 || v > 1000000)
		return bad(c, col, "a number");
	*out = (int)v;
	return 0;
}

static int get_double(struct conv *c, int col, double *out)
{
	const char *s = str(c, col);
	char *end;

	*out = -1.0;
	if (!s) {
		*out = __builtin_nan("");
		return 0;
	}
	*out = strtod(s, &end);
	if (*end || !(*out >= 0 && *out < 1e7))
		return bad(c, col, "a number");
	return 0;
}

static int get_cuda(struct conv *c, int col, int unknown_ok, int *out)
{
	const char *s = str(c, col);

	*out = -1;
	if (!s)
		return unknown_ok ? 0 : bad(c, col, "a CUDA version (it may not be unknown)");
	if ((*out = kb_parse_cuda(s)) < 0)
		return bad(c, col, "a CUDA version like 12.4");
	return 0;
}

static int get_version(struct conv *c, int col, int unknown_ok, const char **out)
{
	struct version v;

	*out = str(c, col);
	if (!*out)
		return unknown_ok ? 0 : bad(c, col, "a version (it may not be unknown)");
	if (version_parse(*out, &v) < 0)
		return bad(c, col, "a dotted version number");
	return 0;
}

static int get_cc(struct conv *c, int col, int *major, int *minor)
{
	const char *s = str(c, col);

	*major = *minor = -1;
	if (!s)
		return 0;
	if (kb_parse_cc(s, major, minor) < 0)
		return bad(c, col, "a compute capability like 8.9");
	return 0;
}

static int get_tri(struct conv *c, int col, int *out)
{
	const char *s = str(c, col);

	if (!s)
		*out = -1;
	else if (!strcmp(s, "1"))
		*out = 1;
	else if (!strcmp(s, "0"))
		*out = 0;
	else
		return bad(c, col, "1, 0 or -");
	return 0;
}

/* Every id of "a;b;c" must be in sources.tsv. */
static int get_source(struct conv *c, int col, const char **out)
{
	const char *s = c->t->rows[c->row].cell[col], *p = s;
	const struct kb_table *src = &c->kb->tab[KB_SOURCES];

	*out = s;
	while (*p) {
		size_t n = strcspn(p, ";"), i;

		for (i = 0; i < src->nrows; i++)
			if (strlen(src->rows[i].cell[0]) == n && !strncmp(src->rows[i].cell[0], p, n))
				break;
		if (i == src->nrows || n == 0)
			return err_set(c->e, "%s:%d: source id '%.*s' is not in sources.tsv",
				       c->t->name, c->t->rows[c->row].line, (int)n, p);
		p += n;
		if (*p == ';')
			p++;
	}
	return 0;
}

#define COLS(...) const char *const names[] = { __VA_ARGS__ }; \
	int col[sizeof(names) / sizeof(names[0])]; \
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) \
		if (need_col(c, names[k], &col[k]) < 0) return -1

static int conv_sources(struct conv *c)
{
	COLS("id", "url", "note");
	(void)col;
	for (c->row = 0; c->row < c->t->nrows; c->row++)
		for (size_t k = 0; k < c->row; k++)
			if (!strcmp(c->t->rows[k].cell[0], c->t->rows[c->row].cell[0]))
				return err_set(c->e, "%s:%d: source id '%s' is defined twice",
					       c->t->name, c->t->rows[c->row].line,
					       c->t->rows[c->row].cell[0]);
	return 0;
}

static int conv_facts(struct conv *c)
{
	const char *s;

	COLS("key", "value", "source");
	for (c->row = 0; c->row < c->t->nrows; c->row++)
		if (get_source(c, col[2], &s) < 0)
			return -1;
	return 0;
}

static int conv_tf(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("version", "python", "compiler", "build_tool", "cudnn", "cuda", "archs",
	     "archs_conf", "install", "source");
	/* added later: optional, so that older --kb directories still load */
	int pip_col = kb_table_col(c->t, "pip_cudnn");

	kb->tf = xcalloc(c->t->nrows + 1, sizeof(*kb->tf));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_tf *r = &kb->tf[kb->ntf];

		if (get_version(c, col[0], 0, &r->version) < 0 ||
		    get_version(c, col[4], 0, &r->cudnn) < 0 ||
		    get_cuda(c, col[5], 0, &r->cuda_version) < 0 ||
		    get_source(c, col[9], &r->source) < 0)
			return -1;
		r->python = str(c, col[1]);
		r->compiler = str(c, col[2]);
		r->build_tool = str(c, col[3]);
		r->cuda = str(c, col[5]);
		r->archs = str(c, col[6]);
		r->archs_conf = str(c, col[7]);
		r->install = str(c, col[8]);
		r->pip_cudnn = pip_col >= 0 ? str(c, pip_col) : NULL;
		if (r->pip_cudnn && strncmp(r->pip_cudnn, "==", 2) && strncmp(r->pip_cudnn, ">=", 2))
			return bad(c, pip_col, "a requirement like ==9.3.0.75 or >=9.3.0.75,<10");
		kb->ntf++;
	}
	return 0;
}

static int conv_torch(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("version", "python", "variant", "cuda", "cudnn", "archs", "default", "channel",
	     "conf", "source");
	kb->torch = xcalloc(c->t->nrows + 1, sizeof(*kb->torch));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_torch *r = &kb->torch[kb->ntorch];
		const char *ch;

		if (get_version(c, col[0], 0, &r->version) < 0 ||
		    get_cuda(c, col[3], 0, &r->cuda_version) < 0 ||
		    get_version(c, col[4], 1, &r->cudnn) < 0 ||
		    get_tri(c, col[6], &r->is_default) < 0 ||
		    get_source(c, col[9], &r->source) < 0)
			return -1;
		r->python = str(c, col[1]);
		r->variant = str(c, col[2]);
		if (!r->variant || kb_parse_cuda(r->variant) < 0)
			return bad(c, col[2], "a CUDA variant like cu126");
		r->archs = str(c, col[5]);
		ch = str(c, col[7]);
		if (!ch || (strcmp(ch, "stable") && strcmp(ch, "experimental")))
			return bad(c, col[7], "stable or experimental");
		r->stable = !strcmp(ch, "stable");
		r->conf = str(c, col[8]);
		kb->ntorch++;
	}
	return 0;
}

static int conv_jax(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("jax_from", "jax_to", "plugin", "cuda_min", "cudnn_min", "cudnn_max",
	     "min_driver", "min_cc", "archs", "install", "source");
	kb->jax = xcalloc(c->t->nrows + 1, sizeof(*kb->jax));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_jax *r = &kb->jax[kb->njax];

		if (get_version(c, col[0], 0, &r->jax_from) < 0 ||
		    get_version(c, col[1], 1, &r->jax_to) < 0 ||
		    get_cuda(c, col[3], 0, &r->cuda_min) < 0 ||
		    get_version(c, col[4], 1, &r->cudnn_min) < 0 ||
		    get_version(c, col[5], 1, &r->cudnn_max) < 0 ||
		    get_version(c, col[6], 1, &r->min_driver) < 0 ||
		    get_cc(c, col[7], &r->min_cc_major, &r->min_cc_minor) < 0 ||
		    get_source(c, col[10], &r->source) < 0)
			return -1;
		r->plugin = str(c, col[2]);
		r->archs = str(c, col[8]);
		r->install = str(c, col[9]);
		if (!r->plugin || !r->install)
			return bad(c, r->plugin ? col[9] : col[2], "known");
		kb->njax++;
	}
	return 0;
}

static int conv_cuda(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("toolkit", "release", "linux_min", "windows_min", "conf", "source");
	kb->cuda = xcalloc(c->t->nrows + 1, sizeof(*kb->cuda));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_cuda_release *r = &kb->cuda[kb->ncuda];

		if (get_cuda(c, col[0], 0, &r->cuda_version) < 0 ||
		    get_version(c, col[2], 1, &r->linux_min) < 0 ||
		    get_version(c, col[3], 1, &r->windows_min) < 0 ||
		    get_source(c, col[5], &r->source) < 0)
			return -1;
		r->toolkit = str(c, col[0]);
		r->release = str(c, col[1]);
		r->conf = str(c, col[4]);
		if (!r->release)
			return bad(c, col[1], "GA, RC or 'Update N'");
		kb->ncuda++;
	}
	return 0;
}

static int conv_compat(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("major", "linux_min", "windows_min", "source");
	kb->compat = xcalloc(c->t->nrows + 1, sizeof(*kb->compat));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_compat *r = &kb->compat[kb->ncompat];

		if (get_int(c, col[0], 0, &r->major) < 0 ||
		    get_version(c, col[1], 0, &r->linux_min) < 0 ||
		    get_version(c, col[2], 1, &r->windows_min) < 0 ||
		    get_source(c, col[3], &r->source) < 0)
			return -1;
		kb->ncompat++;
	}
	return 0;
}

static int conv_branches(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("branch", "cuda", "eol", "conf", "source");
	kb->branches = xcalloc(c->t->nrows + 1, sizeof(*kb->branches));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_branch *r = &kb->branches[kb->nbranches];

		if (get_int(c, col[0], 0, &r->branch) < 0 ||
		    get_cuda(c, col[1], 0, &r->cuda_version) < 0 ||
		    get_source(c, col[4], &r->source) < 0)
			return -1;
		kb->nbranches++;
	}
	return 0;
}

static int conv_archs(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("sm", "arch", "first_cuda", "last_cuda", "last_branch", "conf", "source");
	int fd_col = kb_table_col(c->t, "first_driver");	/* optional (older --kb directories) */

	kb->archs = xcalloc(c->t->nrows + 1, sizeof(*kb->archs));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_arch *r = &kb->archs[kb->narchs];
		const char *last;

		if (get_cc(c, col[0], &r->cc_major, &r->cc_minor) < 0 ||
		    get_cuda(c, col[2], 0, &r->first_cuda) < 0 ||
		    get_int(c, col[4], 1, &r->last_branch) < 0 ||
		    (fd_col >= 0 && get_version(c, fd_col, 1, &r->first_driver) < 0) ||
		    get_source(c, col[6], &r->source) < 0)
			return -1;
		if (r->cc_major < 0)
			return bad(c, col[0], "a compute capability like 8.9");
		last = str(c, col[3]);
		r->last_cuda = -1;
		if (last && !strchr(last, '.'))	/* "12": every 12.x */
			r->last_cuda = atoi(last) * 1000 + 999;
		else if (last && (r->last_cuda = kb_parse_cuda(last)) < 0)
			return bad(c, col[3], "a CUDA version like 12 or 10.2");
		r->arch = str(c, col[1]);
		r->conf = str(c, col[5]);
		kb->narchs++;
	}
	return 0;
}

static int conv_cudnn(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("cudnn", "cuda_from", "cuda_to", "linux_min", "windows_min", "cc_min", "cc_max",
	     "libs", "source");
	kb->cudnn = xcalloc(c->t->nrows + 1, sizeof(*kb->cudnn));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_cudnn *r = &kb->cudnn[kb->ncudnn];
		int a, b;

		if (get_version(c, col[0], 0, &r->version) < 0 ||
		    get_cuda(c, col[1], 1, &r->cuda_from) < 0 ||
		    get_cuda(c, col[2], 1, &r->cuda_to) < 0 ||
		    get_version(c, col[3], 1, &r->linux_min) < 0 ||
		    get_version(c, col[4], 1, &r->windows_min) < 0 ||
		    get_source(c, col[8], &r->source) < 0)
			return -1;
		if (get_cc(c, col[5], &a, &b) < 0)
			return -1;
		r->cc_min = a < 0 ? -1 : a * 10 + b;
		if (get_cc(c, col[6], &a, &b) < 0)
			return -1;
		r->cc_max = a < 0 ? -1 : a * 10 + b;
		r->libs = str(c, col[7]);
		kb->ncudnn++;
	}
	return 0;
}

static int conv_sonames(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("major", "lib", "soname", "conf", "source");
	kb->sonames = xcalloc(c->t->nrows + 1, sizeof(*kb->sonames));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_soname_row *r = &kb->sonames[kb->nsonames];

		if (!strcmp(c->t->rows[c->row].cell[col[0]], "*"))
			r->major = -1;
		else if (get_int(c, col[0], 0, &r->major) < 0)
			return -1;
		if (get_source(c, col[4], &r->source) < 0)
			return -1;
		r->lib = str(c, col[1]);
		r->soname = str(c, col[2]);
		r->conf = str(c, col[3]);
		if (!r->lib || !r->soname)
			return bad(c, r->lib ? col[2] : col[1], "known");
		kb->nsonames++;
	}
	return 0;
}

static int conv_gpus(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("vendor", "device", "name", "chip", "arch", "cc", "mem_gb", "bw_gbs", "fp32",
	     "fp16", "bf16", "class", "specs_conf", "source");
	kb->gpus = xcalloc(c->t->nrows + 1, sizeof(*kb->gpus));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_gpu *r = &kb->gpus[kb->ngpus];
		const char *v = str(c, col[0]), *d = str(c, col[1]);
		char *end;

		if (!v || strlen(v) != 4 || (r->vendor = (unsigned)strtoul(v, &end, 16), *end))
			return bad(c, col[0], "a 4-digit hex vendor id");
		if (!d)
			r->device = 0xffffffffu;	/* no PCI function (Jetson) */
		else if (strlen(d) != 4 || (r->device = (unsigned)strtoul(d, &end, 16), *end))
			return bad(c, col[1], "a 4-digit hex device id or -");
		if (get_cc(c, col[5], &r->cc_major, &r->cc_minor) < 0 ||
		    get_double(c, col[6], &r->mem_gb) < 0 ||
		    get_double(c, col[7], &r->bw_gbs) < 0 ||
		    get_double(c, col[8], &r->fp32_tflops) < 0 ||
		    get_double(c, col[9], &r->fp16_tflops) < 0 ||
		    get_double(c, col[10], &r->bf16_tflops) < 0 ||
		    get_source(c, col[13], &r->source) < 0)
			return -1;
		r->mem_gib = r->mem_gb;
		r->name = str(c, col[2]);
		if (!r->name)
			return bad(c, col[2], "known");
		r->chip = str(c, col[3]);
		r->arch = str(c, col[4]);
		r->klass = str(c, col[11]);
		r->specs_conf = str(c, col[12]);
		if (!r->klass)
			r->datacenter = -1;
		else if (!strcmp(r->klass, "datacenter") || !strcmp(r->klass, "jetson"))
			r->datacenter = 1;
		else if (!strcmp(r->klass, "geforce") || !strcmp(r->klass, "workstation"))
			r->datacenter = 0;
		else
			return bad(c, col[11], "datacenter, geforce, workstation, jetson or -");
		kb->ngpus++;
	}
	return 0;
}

static int conv_gpudrv(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("device", "first_driver", "backports", "last_driver", "names", "source");
	kb->gpudrv = xcalloc(c->t->nrows + 1, sizeof(*kb->gpudrv));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_gpudrv *r = &kb->gpudrv[kb->ngpudrv];
		const char *d = str(c, col[0]), *b;
		char *end;

		if (!d || strlen(d) != 4 || (r->device = (unsigned)strtoul(d, &end, 16), *end))
			return bad(c, col[0], "a 4-digit hex device id");
		if (get_version(c, col[1], 1, &r->first_driver) < 0 || get_version(c, col[3], 1, &r->last_driver) < 0 ||
		    get_source(c, col[5], &r->source) < 0)
			return -1;
		/* every backport is a driver version */
		for (b = r->backports = str(c, col[2]); b && *b;) {
			size_t n = strcspn(b, ";");
			char one[32];
			struct version v;

			if (n == 0 || n >= sizeof(one))
				return bad(c, col[2], "a ';' list of driver versions");
			memcpy(one, b, n);
			one[n] = '\0';
			if (version_parse(one, &v) < 0)
				return bad(c, col[2], "a ';' list of driver versions");
			b += n + (b[n] == ';');
		}
		r->names = str(c, col[4]);
		kb->ngpudrv++;
	}
	return 0;
}

static int conv_failures(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("framework", "from", "to", "cc_min", "cc_max", "what", "source");
	kb->failures = xcalloc(c->t->nrows + 1, sizeof(*kb->failures));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_failure *r = &kb->failures[kb->nfailures];
		int a, b;

		if (get_version(c, col[1], 0, &r->from) < 0 || get_version(c, col[2], 0, &r->to) < 0 ||
		    get_source(c, col[6], &r->source) < 0)
			return -1;
		if (get_cc(c, col[3], &a, &b) < 0 || a < 0)
			return a < 0 ? bad(c, col[3], "a compute capability") : -1;
		r->cc_min = a * 10 + b;
		if (get_cc(c, col[4], &a, &b) < 0 || a < 0)
			return a < 0 ? bad(c, col[4], "a compute capability") : -1;
		r->cc_max = a * 10 + b;
		r->framework = str(c, col[0]);
		r->what = str(c, col[5]);
		if (!r->framework || !r->what)
			return bad(c, r->framework ? col[5] : col[0], "known");
		kb->nfailures++;
	}
	return 0;
}

static int conv_cupy(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("cupy", "package", "cuda_from", "cuda_to", "python", "install", "source");
	kb->cupy = xcalloc(c->t->nrows + 1, sizeof(*kb->cupy));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_cupy *r = &kb->cupy[kb->ncupy];

		if (get_version(c, col[0], 0, &r->cupy) < 0 || get_cuda(c, col[2], 0, &r->cuda_from) < 0 ||
		    get_cuda(c, col[3], 0, &r->cuda_to) < 0 || get_source(c, col[6], &r->source) < 0)
			return -1;
		r->package = str(c, col[1]);
		r->python = str(c, col[4]);
		r->install = str(c, col[5]);
		if (!r->package || !r->install)
			return bad(c, r->package ? col[5] : col[1], "known");
		kb->ncupy++;
	}
	return 0;
}

static int conv_xid(struct conv *c)
{
	struct kb *kb = c->kb;

	COLS("xid", "name", "meaning", "action", "nvidia_immediate", "nvidia_investigatory",
	     "source");
	kb->xids = xcalloc(c->t->nrows + 1, sizeof(*kb->xids));
	for (c->row = 0; c->row < c->t->nrows; c->row++) {
		struct kb_xid *r = &kb->xids[kb->nxids];

		if (get_int(c, col[0], 0, &r->xid) < 0 || get_source(c, col[6], &r->source) < 0)
			return -1;
		for (size_t k = 0; k < kb->nxids; k++)
			if (kb->xids[k].xid == r->xid)
				return bad(c, col[0], "a new XID (it is listed twice)");
		if (kb_xid_action_parse(str(c, col[3]), &r->action) < 0)
			return bad(c, col[3], "none, restart-app, reset-gpu, reboot, drain or inspect-hw");
		r->name = str(c, col[1]);
		r->meaning = str(c, col[2]);
		if (!r->name || !r->meaning)
			return bad(c, r->name ? col[2] : col[1], "known");
		r->nvidia_immediate = str(c, col[4]);
		r->nvidia_investigatory = str(c, col[5]);
		kb->nxids++;
	}
	return 0;
}

static int (*const converters[KB_NTABLES])(struct conv *c) = {
	conv_sources, conv_facts, conv_tf, conv_torch, conv_jax, conv_cuda, conv_compat,
	conv_branches, conv_archs, conv_cudnn, conv_sonames, conv_gpus, conv_gpudrv, conv_failures,
	conv_cupy, conv_xid,
};

int kb_open(const char *dir, struct kb **out, struct err *e)
{
	struct kb *kb = xcalloc(1, sizeof(*kb));
	struct stat st;

	*out = NULL;
	if (dir && (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode))) {
		free(kb);
		return err_set(e, "--kb '%s': not a directory", dir);
	}
	for (int i = 0; i < KB_NTABLES; i++) {
		struct conv c = { kb, &kb->tab[i], 0, e };

		if (load_table(dir, i, &kb->tab[i], e) < 0 || converters[i](&c) < 0) {
			kb_close(kb);
			return -1;
		}
	}
	*out = kb;
	return 0;
}

void kb_close(struct kb *kb)
{
	if (!kb)
		return;
	for (int i = 0; i < KB_NTABLES; i++)
		kb_table_release(&kb->tab[i]);
	free(kb->tf);
	free(kb->torch);
	free(kb->jax);
	free(kb->cuda);
	free(kb->compat);
	free(kb->branches);
	free(kb->archs);
	free(kb->cudnn);
	free(kb->sonames);
	free(kb->gpus);
	free(kb->gpudrv);
	free(kb->failures);
	free(kb->cupy);
	free(kb->xids);
	free(kb);
}

size_t kb_table_count(const struct kb *kb)
{
	(void)kb;
	return KB_NTABLES;
}

const char *kb_as_of(const struct kb *kb)
{
	const char *oldest = NULL;

	for (size_t i = 0; kb && i < KB_NTABLES; i++) {
		if (!kb->tab[i].as_of)
			return NULL;
		if (!oldest || strcmp(kb->tab[i].as_of, oldest) < 0)
			oldest = kb->tab[i].as_of;
	}
	return oldest;
}

void kb_table_info(const struct kb *kb, size_t i, struct kb_table_info *out)
{
	const struct kb_table *t = &kb->tab[i < KB_NTABLES ? i : 0];

	out->name = t->name;
	out->origin = t->origin;
	out->as_of = t->as_of;
	out->rows = t->nrows;
}
