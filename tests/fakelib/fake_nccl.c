/*
 * fake_nccl.c - a fake libnccl.so.2 for the bench and check --deep tests
 * (no GPU).  "Device" buffers are host memory (fake_bench_cuda.c and
 * fake_cuda.c both hand out host pointers).  Collectives issued inside
 * ncclGroupStart/End run at ncclGroupEnd over every rank's buffers, FP32
 * sums; above 1 MiB only the bookkeeping runs, so that a sweep stays fast.
 * With NCCL_DEBUG=INFO it writes NCCL-style INFO lines to NCCL_DEBUG_FILE
 * (or stdout), as the real one does.
 *
 * Environment (all optional):
 *   FAKE_NCCL_VERSION   ncclGetVersion (22809)
 *   FAKE_NCCL_INIT_RC   ncclCommInitAll's result (0; 2 = ncclSystemError)
 *   FAKE_NCCL_HANG      1: ncclCommInitAll never returns
 *   FAKE_NCCL_WRONG     1: all-reduce results are off by one
 *   FAKE_NCCL_PATH      the graph's path type, "NVL" (default) or "PIX", "SYS" ...
 *   FAKE_NCCL_VIA       the channels' transport ("P2P/CUMEM/read")
 *   FAKE_NCCL_WARN      a WARN line to print at init
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct comm { int rank, n; };
struct op { int kind; const float *send; float *recv; size_t count; struct comm *c; };

static struct op ops[64];
static int nops, depth;

static double env_d(const char *name, double def)
{
	const char *s = getenv(name);

	return s && *s ? atof(s) : def;
}

static const char *env_s(const char *name, const char *def)
{
	const char *s = getenv(name);

	return s && *s ? s : def;
}

int ncclGetVersion(int *v) { *v = (int)env_d("FAKE_NCCL_VERSION", 22809); return 0; }
const char *ncclGetErrorString(int r)
{
	return r == 2 ? "unhandled system error (run with NCCL_DEBUG=INFO for details)" : r ? "fake NCCL error" : "no error";
}

static void log_info(int n)
{
	const char *path = getenv("NCCL_DEBUG_FILE");
	FILE *f;

	if (!getenv("NCCL_DEBUG") || strcmp(getenv("NCCL_DEBUG"), "INFO"))
		return;
	f = path ? fopen(path, "w") : stdout;
	if (!f)
		return;
	fprintf(f, "host:%d:%d [0] NCCL INFO NCCL version 2.28.9+cuda13.0\n", getpid(), getpid());
	if (getenv("FAKE_NCCL_WARN"))
		fprintf(f, "host:%d:%d [0] NCCL WARN %s\n", getpid(), getpid(), getenv("FAKE_NCCL_WARN"));
	fprintf(f, "host:%d:%d [0] NCCL INFO Pattern 4, crossNic 0, nChannels 16, bw 40.000000/40.000000, type %s/PIX, sameChannels 1\n",
		getpid(), getpid(), env_s("FAKE_NCCL_PATH", "NVL"));
	for (int r = 0; r < n; r++)
		fprintf(f, "host:%d:%d [%d] NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] via %s\n", getpid(), getpid(), r, r, r,
			(r + 1) % n, (r + 1) % n, env_s("FAKE_NCCL_VIA", "P2P/CUMEM/read"));
	for (int r = 0; r < n; r++)
		fprintf(f, "host:%d:%d [%d] NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %x commId 0x1 - Init COMPLETE\n",
			getpid(), getpid(), r, 0x1000 + r, r, n, r, r, 0x18000 + r * 0x1000);
	if (f != stdout)
		fclose(f);
	else
		fflush(f);
}

int ncclCommInitAll(struct comm **comms, int n, const int *devlist)
{
	int rc = (int)env_d("FAKE_NCCL_INIT_RC", 0);

	(void)devlist;
	log_info(n);
	if (env_d("FAKE_NCCL_HANG", 0))
		for (;;)
			pause();
	if (rc)
		return rc;
	for (int i = 0; i < n; i++) {
		comms[i] = calloc(1, sizeof(struct comm));
		comms[i]->rank = i;
		comms[i]->n = n;
	}
	return 0;
}
int ncclCommDestroy(struct comm *c) { free(c); return 0; }
int ncclGroupStart(void) { depth++; return 0; }

static int enqueue(int kind, const void *s, void *r, size_t count, struct comm *c)
{
	if (nops >= 64)
		return 5;
	ops[nops++] = (struct op){ kind, s, r, count, c };
	return 0;
}

int ncclAllReduce(const void *s, void *r, size_t count, int dt, int op, struct comm *c, void *st)
{
	(void)dt; (void)op; (void)st;
	return enqueue(0, s, r, count, c);
}
int ncclAllGather(const void *s, void *r, size_t count, int dt, struct comm *c, void *st)
{
	(void)dt; (void)st;
	return enqueue(1, s, r, count, c);
}
int ncclReduceScatter(const void *s, void *r, size_t count, int dt, int op, struct comm *c, void *st)
{
	(void)dt; (void)op; (void)st;
	return enqueue(2, s, r, count, c);
}

static const struct op *peer(int kind, int rank)
{
	for (int i = 0; i < nops; i++)
		if (ops[i].kind == kind && ops[i].c->rank == rank)
			return &ops[i];
	return NULL;
}

int ncclGroupEnd(void)
{
	if (--depth > 0)
		return 0;
	for (int i = 0; i < nops; i++) {
		const struct op *o = &ops[i];
		int n = o->c->n;

		if (o->count * 4 * (size_t)n > ((size_t)1 << 20) * (size_t)n)
			continue;
		for (size_t j = 0; j < o->count; j++) {
			float sum = 0;

			if (o->kind == 0) {
				for (int r = 0; r < n; r++)
					sum += peer(0, r) ? peer(0, r)->send[j] : 0;
				o->recv[j] = sum + (env_d("FAKE_NCCL_WRONG", 0) ? 1.0f : 0.0f);
			} else if (o->kind == 1) {
				for (int r = 0; r < n; r++)
					if (peer(1, r))
						o->recv[(size_t)r * o->count + j] = peer(1, r)->send[j];
			} else {
				for (int r = 0; r < n; r++)
					sum += peer(2, r) ? peer(2, r)->send[(size_t)o->c->rank * o->count + j] : 0;
				o->recv[j] = sum;
			}
		}
	}
	nops = 0;
	return 0;
}
