/* bench_coll.c - collective bandwidth arithmetic; see bench_coll.h. */
#include "bench/bench_coll.h"

#include <math.h>
#include <string.h>

static const char *const coll_names[] = { "all_reduce", "all_gather", "reduce_scatter" };
static const char *const coll_labels[] = { "all-reduce", "all-gather", "reduce-scatter" };

const char *bench_coll_name(enum bench_coll c)
{
	return (unsigned)c < BENCH_NCOLLS ? coll_names[c] : "?";
}

const char *bench_coll_label(enum bench_coll c)
{
	return (unsigned)c < BENCH_NCOLLS ? coll_labels[c] : "?";
}

int bench_coll_from_name(const char *name)
{
	for (int c = 0; c < BENCH_NCOLLS; c++)
		if (name && !strcmp(name, coll_names[c]))
			return c;
	return -1;
}

double bench_coll_bus_factor(enum bench_coll c, int n)
{
	if (n < 1 || (unsigned)c >= BENCH_NCOLLS)
		return NAN;
	if (c == BENCH_ALL_REDUCE)
		return 2.0 * (n - 1) / n;
	return (double)(n - 1) / n;
}

double bench_coll_algbw(double bytes, double seconds)
{
	if (!(seconds > 0) || !isfinite(seconds) || !(bytes > 0))
		return NAN;
	return bytes / 1e9 / seconds;
}

double bench_coll_busbw(enum bench_coll c, int nranks, double bytes, double seconds)
{
	return bench_coll_algbw(bytes, seconds) * bench_coll_bus_factor(c, nranks);
}

size_t bench_coll_count(enum bench_coll c, size_t bytes, int nranks, size_t elem)
{
	if (nranks < 1 || elem == 0)
		return 0;
	if (c == BENCH_ALL_REDUCE)
		return bytes / elem;
	return bytes / elem / (size_t)nranks;
}

size_t bench_coll_bytes(enum bench_coll c, size_t count, int nranks, size_t elem)
{
	if (nranks < 1)
		return 0;
	if (c == BENCH_ALL_REDUCE)
		return count * elem;
	return count * elem * (size_t)nranks;
}

/*
 * NVML's nvmlDeviceGetNvLinkVersion answers with nvmlNvlinkVersion_t, not
 * the generation: 1 = 1.0, 2 = 2.0, 3 = 2.2, 4 = 3.0, 5 = 3.1, 6 = 4.0,
 * 7 = 5.0 (nvml.h; an H200 answers 6, seen on the H200 machines here).
 * Per link and direction: NVLink 1 (P100) 20 GB/s, 4 links = 80 GB/s;
 * NVLink 2 (V100) 25 GB/s, 6 links = 150; NVLink 3 (A100) 25 GB/s, 12 links
 * = 300; NVLink 4 (H100/H200) 25 GB/s, 18 links = 450 (900 GB/s both ways
 * on the datasheet); NVLink 5 (B200) 50 GB/s, 18 links = 900.  Source:
 * NVIDIA's NVLink page, https://www.nvidia.com/en-us/data-center/nvlink/
 * (total GPU bandwidth per generation, halved for one direction, divided
 * by the links).  Some drivers answer 5.0 for Hopper GPUs (a workaround in
 * vLLM's topology code says so); Hopper has NVLink 4, so cc 9.x counts as 4.
 */
int bench_nvlink_generation(int nvml_version, int cc_major)
{
	static const int gen[] = { 0, 1, 2, 2, 3, 3, 4, 5 };

	if (nvml_version < 1 || nvml_version > 7)
		return -1;
	if (cc_major == 9 && gen[nvml_version] > 4)
		return 4;
	return gen[nvml_version];
}

double bench_nvlink_link_gbs(int generation)
{
	static const double gbs[] = { NAN, 20, 25, 25, 25, 50 };

	if (generation < 1 || generation > 5)
		return NAN;
	return gbs[generation];
}
