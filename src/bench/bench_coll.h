/*
 * bench_coll.h - the arithmetic of NCCL collective benchmarks, with
 * nccl-tests' definitions (its doc/PERFORMANCE.md):
 *
 *	size	 the bytes of the whole buffer: all-reduce's input (= output);
 *		 all-gather's output and reduce-scatter's input, i.e. n times
 *		 one rank's share
 *	algbw	 size / time
 *	busbw	 algbw * factor, the bytes each rank's link carries per second,
 *		 comparable with the link's bandwidth whatever the rank count:
 *		 all-reduce 2(n-1)/n, all-gather and reduce-scatter (n-1)/n
 *
 * Also the NVLink ceiling: links x the per-link bandwidth of the NVLink
 * generation NVML reports.  Pure functions.
 *
 *	size_t count = bench_coll_count(BENCH_ALL_GATHER, bytes, n, 4);
 *	double bus = bench_coll_busbw(BENCH_ALL_GATHER, n, bytes, seconds);
 */
#ifndef GD_BENCH_COLL_H
#define GD_BENCH_COLL_H

#include <stddef.h>

enum bench_coll { BENCH_ALL_REDUCE, BENCH_ALL_GATHER, BENCH_REDUCE_SCATTER, BENCH_NCOLLS };

const char *bench_coll_name(enum bench_coll c);	/* "all_reduce" ... */
const char *bench_coll_label(enum bench_coll c);	/* "all-reduce" ... */
/* -1 when name is not a collective. */
int bench_coll_from_name(const char *name);

/* busbw / algbw for n ranks; NAN when n < 1. */
double bench_coll_bus_factor(enum bench_coll c, int nranks);
/* GB/s (1e9 bytes); NAN when seconds <= 0 or bytes is 0. */
double bench_coll_algbw(double bytes, double seconds);
double bench_coll_busbw(enum bench_coll c, int nranks, double bytes, double seconds);

/* The count argument of the NCCL call for a buffer of `bytes` (elements
 * of elem bytes): all-reduce's count, all-gather's sendcount,
 * reduce-scatter's recvcount.  0 when the size is too small for n ranks. */
size_t bench_coll_count(enum bench_coll c, size_t bytes, int nranks, size_t elem);
/* The size (as defined above) that count elements per call move. */
size_t bench_coll_bytes(enum bench_coll c, size_t count, int nranks, size_t elem);

/* The NVLink generation (1..5) of NVML's nvmlNvlinkVersion_t answer
 * (6 = "4.0"), for a GPU of compute capability cc_major (-1 unknown); -1
 * when unknown. */
int bench_nvlink_generation(int nvml_version, int cc_major);
/* Per-direction GB/s of one NVLink of a generation (1 = P100's NVLink 1
 * ... 5 = Blackwell's NVLink 5); NAN unknown. */
double bench_nvlink_link_gbs(int generation);

#endif
