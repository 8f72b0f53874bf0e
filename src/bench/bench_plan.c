/* bench_plan.c - sizes and repetitions of bench measurements; see bench_plan.h. */
#include "bench/bench_plan.h"
#include "bench/bench_numeric.h"

#include <string.h>

#define MIB ((size_t)1 << 20)

static size_t bench_fit_bytes(size_t want, size_t budget)
{
	while (want > MIB && want > budget)
		want /= 2;
	return want;
}

int bench_plan_make(size_t free_bytes, int quick, struct bench_plan *p)
{
	size_t pcie = quick ? 64 * MIB : 256 * MIB;
	size_t d2d = quick ? 256 * MIB : 1024 * MIB;
	size_t n = quick ? 4096 : 8192, gemm_bytes, copy_bytes;

	memset(p, 0, sizeof(*p));
	if (free_bytes < 4 * MIB)
		return -1;
	pcie = bench_fit_bytes(pcie, free_bytes / 8);
	d2d = bench_fit_bytes(d2d, free_bytes / 16);	/* two buffers */
	while (n > 256 && 3 * n * n * 4 > free_bytes / 4)
		n /= 2;
	if (3 * n * n * 4 > free_bytes / 2)
		return -1;
	/* PCIe copies: one per region (256 MiB takes ~5 ms at Gen5 x16). */
	p->step[BENCH_H2D_PINNED] = (struct bench_step){ pcie, 2, 1, quick ? 3 : 7 };
	p->step[BENCH_D2H_PINNED] = (struct bench_step){ pcie, 2, 1, quick ? 3 : 7 };
	p->step[BENCH_H2D_PAGEABLE] = (struct bench_step){ pcie, 1, 1, quick ? 3 : 5 };
	p->step[BENCH_D2H_PAGEABLE] = (struct bench_step){ pcie, 1, 1, quick ? 3 : 5 };
	/* 1 GiB device copies take ~0.5 ms on an H200: several per region. */
	p->step[BENCH_D2D] = (struct bench_step){ d2d, 3, quick ? 5 : 10, quick ? 5 : 9 };
	/* FP32 8192^3 is ~20 ms on an H200, BF16 ~1.5 ms. */
	p->step[BENCH_GEMM_FP32] = (struct bench_step){ n, 1, 1, quick ? 3 : 7 };
	p->step[BENCH_GEMM_TF32] = (struct bench_step){ n, 2, quick ? 2 : 4, quick ? 3 : 7 };
	p->step[BENCH_GEMM_FP16] = (struct bench_step){ n, 3, quick ? 3 : 10, quick ? 3 : 7 };
	p->step[BENCH_GEMM_BF16] = (struct bench_step){ n, 3, quick ? 3 : 10, quick ? 3 : 7 };
	gemm_bytes = 3 * n * n * 4;
	copy_bytes = 2 * d2d > pcie ? 2 * d2d : pcie;
	p->device_bytes = gemm_bytes > copy_bytes ? gemm_bytes : copy_bytes;
	/* The staging buffer also holds GEMM inputs: n*n plus B's offset. */
	p->pinned_bytes = (n * n + BENCH_TILE) * 4;
	if (p->pinned_bytes < pcie)
		p->pinned_bytes = pcie;
	p->pageable_bytes = pcie;
	p->workspace_bytes = bench_fit_bytes(32 * MIB, free_bytes / 16);
	return 0;
}
