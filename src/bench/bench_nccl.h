/*
 * bench_nccl.h - NCCL collectives across all GPUs of the machine (child side
 * of `gpudoctor __probe bench nccl`).
 *
 * One process, ncclCommInitAll over every GPU CUDA sees, then all-reduce,
 * all-gather and reduce-scatter of FP32 sums, out of place, from 8 B to
 * 1 GiB (doubling; --quick: x8 steps to 64 MiB), timed as nccl-tests
 * times them: a host clock around a loop of operations issued on every
 * GPU in one group, then every stream synchronised.  NCCL's INFO log
 * (NCCL_DEBUG=INFO, subsystems INIT,GRAPH,ENV) goes to stderr, where the
 * parent reads the topology NCCL chose (bench_ncclinfo.h).  Each GPU's
 * active NVLinks and their version come from NVML.  With fewer than two
 * GPUs it says so and stops before creating a communicator.  In smoke mode
 * (check --deep) it runs one 1 MiB all-reduce and checks the sums.
 *
 * Prototypes and values are nccl.h's (NCCL 2.28, /usr/local/cuda/include):
 * ncclFloat32 = 7, ncclSum = 0, ncclResult_t 0 = ncclSuccess; and nvml.h's
 * for the two NVLink queries.
 *
 * Output: key=value lines "nccl.*" (docs/bench-schema.md).
 */
#ifndef GD_BENCH_NCCL_H
#define GD_BENCH_NCCL_H

struct bench_nccl_opts {
	int quick;
	int smoke;
	const char *const *nccl;	/* tried in turn instead of libnccl.so.2, NULL-terminated */
	const char *libcuda;		/* NULL: "libcuda.so.1" */
	const char *libnvml;		/* NULL: "libnvidia-ml.so.1" */
};

int bench_nccl_measure(const struct bench_nccl_opts *o);

#endif
