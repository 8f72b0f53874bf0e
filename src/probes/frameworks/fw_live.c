/*
 * fw_live.c - --live: each framework's own interpreter, in an isolated child
 * with the timeout, imports the framework and does one real GPU operation.
 *
 * The script prints key=value lines (import_ok, gpus, cuda, cudnn, archs,
 * device, matmul_ok, error) and "end"; stderr is kept for evidence, known
 * harmless lines are labelled from data/noise.tsv, and the sonames the
 * framework says it could not load ("Could not load dynamic library
 * 'libcudart.so.12'") are collected.  The rules compare all this with the
 * static prediction: a disagreement is shown, never hidden.
 */
#include "probes/frameworks/frameworks.h"
#include "probes/frameworks/fw_internal.h"
#include "inventory/inventory.h"

#include "core/buf.h"
#include "core/child.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/kv.h"
#include "core/xalloc.h"
#include "knowledge/noise.h"

#include <stdlib.h>
#include <string.h>

/* Importing TensorFlow alone can take 10 s on a cold cache. */
#define FW_LIVE_MIN_TIMEOUT 60.0

#define PY_HEAD \
	"import sys\n" \
	"def kv(k, v):\n" \
	"    print('%s=%s' % (k, str(v).replace('\\n', ' ')), flush=True)\n" \
	"try:\n"
#define PY_TAIL \
	"except BaseException as e:\n" \
	"    kv('error', '%s: %s' % (type(e).__name__, e))\n" \
	"print('end', flush=True)\n"

static const char py_tensorflow[] = PY_HEAD
	"    import tensorflow as tf\n"
	"    kv('import_ok', 1)\n"
	"    g = tf.config.list_physical_devices('GPU')\n"
	"    kv('gpus', len(g))\n"
	"    bi = tf.sysconfig.get_build_info()\n"
	"    kv('cuda', bi.get('cuda_version'))\n"
	"    kv('cudnn', bi.get('cudnn_version'))\n"
	"    if g:\n"
	"        kv('device', g[0].name)\n"
	"        with tf.device('/GPU:0'):\n"
	"            a = tf.ones((256, 256))\n"
	"            s = float(tf.reduce_sum(tf.linalg.matmul(a, a)))\n"
	"        kv('matmul_ok', int(s == 256.0 ** 3))\n"
	PY_TAIL;

static const char py_torch[] = PY_HEAD
	"    import torch\n"
	"    kv('import_ok', 1)\n"
	"    kv('cuda', torch.version.cuda)\n"
	"    ok = torch.cuda.is_available()\n"
	"    kv('gpus', torch.cuda.device_count() if ok else 0)\n"
	"    if ok:\n"
	"        kv('archs', ' '.join(torch.cuda.get_arch_list()))\n"
	"        kv('device', torch.cuda.get_device_name(0))\n"
	"        a = torch.ones(256, 256, device='cuda')\n"
	"        kv('matmul_ok', int(float((a @ a).sum()) == 256.0 ** 3))\n"
	"        kv('cudnn', torch.backends.cudnn.version())\n"
	PY_TAIL;

static const char py_jax[] = PY_HEAD
	"    import jax, jax.numpy as jnp\n"
	"    kv('import_ok', 1)\n"
	"    g = [d for d in jax.devices() if d.platform == 'gpu']\n"
	"    kv('gpus', len(g))\n"
	"    if g:\n"
	"        kv('device', g[0].device_kind)\n"
	"        a = jax.device_put(jnp.ones((256, 256)), g[0])\n"
	"        kv('matmul_ok', int(float((a @ a).sum()) == 256.0 ** 3))\n"
	PY_TAIL;

static const char py_cupy[] = PY_HEAD
	"    import cupy\n"
	"    kv('import_ok', 1)\n"
	"    n = cupy.cuda.runtime.getDeviceCount()\n"
	"    kv('gpus', n)\n"
	"    kv('cuda', cupy.cuda.runtime.runtimeGetVersion())\n"
	"    if n:\n"
	"        a = cupy.ones((256, 256), dtype=cupy.float32)\n"
	"        kv('matmul_ok', int(float((a @ a).sum()) == 256.0 ** 3))\n"
	PY_TAIL;

static const char *fw_live_script(enum fw_kind kind)
{
	switch (kind) {
	case FW_TENSORFLOW: return py_tensorflow;
	case FW_TORCH: return py_torch;
	case FW_JAX: return py_jax;
	case FW_CUPY: return py_cupy;
	}
	return NULL;
}

static void fw_live_push(char ***v, size_t *n, size_t *cap, const char *s, size_t len)
{
	XGROW(*v, *n + 1, *cap);
	(*v)[(*n)++] = xstrndup(s, len);
}

/* Label noise, collect "Could not load dynamic library 'X'" sonames, keep the tail. */
static void fw_live_stderr(struct fw_entry *w, const struct buf *err)
{
	const char *s = err->s ? err->s : "";
	size_t tail_from = err->len > 1500 ? err->len - 1500 : 0;

	while (*s) {
		const char *nl = strchr(s, '\n');
		size_t len = nl ? (size_t)(nl - s) : strlen(s);
		char *line = xstrndup(s, len);
		const struct noise_row *n = noise_match(w->name, w->version, line);
		const char *q = strstr(line, "Could not load dynamic library '");

		if (n) {
			char *lab = xasprintf("%s  [%s]", line, n->meaning);

			fw_live_push(&w->live.noise, &w->live.nnoise, &w->live.noise_cap, lab, strlen(lab));
			free(lab);
		}
		if (q) {
			const char *st = q + strlen("Could not load dynamic library '");
			const char *en = strchr(st, '\'');

			if (en)
				fw_live_push(&w->live.missing, &w->live.nmissing, &w->live.missing_cap, st,
					     (size_t)(en - st));
		}
		free(line);
		s += len + (nl ? 1 : 0);
	}
	if (err->len)
		w->live.stderr_tail = xstrdup(err->s + tail_from);
}

static void fw_live_one(const struct gd_ctx *ctx, struct fw_entry *w)
{
	const char *script = fw_live_script(w->kind);
	struct child_result r = CHILD_RESULT_INIT;
	struct buf py = BUF_INIT, d = BUF_INIT;
	struct err e = ERR_INIT;
	double timeout = ctx->timeout > FW_LIVE_MIN_TIMEOUT ? ctx->timeout : FW_LIVE_MIN_TIMEOUT;
	const char *argv[4];
	const char *v;

	if (!script || !w->python)
		return;
	fs_path(ctx->root, w->python, &py);
	argv[0] = py.s;
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = NULL;
	w->live.ran = 1;
	if (child_run_argv(argv, NULL, timeout, &r, &e) < 0) {
		w->live.outcome = xasprintf("could not start %s: %s", py.s, e.msg);
		buf_release(&py);
		child_result_release(&r);
		return;
	}
	w->live.seconds = r.seconds;
	w->live.outcome = xstrdup(r.outcome == CHILD_OK ? "ok" : child_outcome_describe(&r, &d));
	w->live.import_ok = (int)kv_get_ll(&r.kv, "import_ok", 0);
	if (r.outcome == CHILD_TIMEOUT || r.outcome == CHILD_SIGNALED)
		w->live.import_ok = kv_get(&r.kv, "import_ok") ? 1 : -1;
	w->live.gpus = (int)kv_get_ll(&r.kv, "gpus", -1);
	w->live.matmul_ok = (int)kv_get_ll(&r.kv, "matmul_ok", -1);
	if ((v = kv_get(&r.kv, "cuda")) && strcmp(v, "None") != 0)
		w->live.cuda = xstrdup(v);
	if ((v = kv_get(&r.kv, "cudnn")) && strcmp(v, "None") != 0)
		w->live.cudnn = xstrdup(v);
	w->live.archs = xstrdup_or_null(kv_get(&r.kv, "archs"));
	w->live.device = xstrdup_or_null(kv_get(&r.kv, "device"));
	w->live.error = xstrdup_or_null(kv_get(&r.kv, "error"));
	fw_live_stderr(w, &r.err);
	buf_release(&d);
	buf_release(&py);
	child_result_release(&r);
}

void probe_frameworks_live(const struct gd_ctx *ctx, struct inventory *inv)
{
	if (!ctx->live)
		return;
	inv->fw.live_ran = 1;
	for (size_t i = 0; i < inv->fw.n; i++)
		fw_live_one(ctx, &inv->fw.fws[i]);
}
