/*
 * bench_child.c - child side of the isolated 'bench' probe.
 *
 *	gpudoctor __probe bench gpu INDEX [--quick] [--sys-root DIR] [--cublas PATH]...
 *	gpudoctor __probe bench cpu [--quick] [--blas PATH]... [--no-blas]
 *	gpudoctor __probe bench conv INDEX [--quick] [--smoke] [--shape N,C,H,W,K[,R,S[,pad[,stride]]]] [--cudnn PATH]...
 *	gpudoctor __probe bench nccl [--quick] [--smoke] [--nccl PATH]... [--libnvml PATH]
 * (conv and nccl also take --libcuda PATH: the driver library check found)
 *
 * All GPU work of `gpudoctor bench` happens here (bench/bench_gpu.c), and
 * the CPU baseline too, since it loads a foreign BLAS (bench/bench_cpu.c).
 * The output is key=value lines (docs/bench-schema.md), then "end".
 */
#include "bench/bench_conv_gpu.h"
#include "bench/bench_cpu.h"
#include "bench/bench_nccl.h"
#include "bench/bench_gpu.h"
#include "probes/children.h"
#include "core/kv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_CHILD_MAX_PATHS 32

int probe_main_bench(int argc, char **argv)
{
	const char *paths[BENCH_CHILD_MAX_PATHS + 1];
	const char *root = "/", *mode = argc > 1 ? argv[1] : "", *shape = NULL, *libcuda = NULL, *libnvml = NULL;
	int npaths = 0, quick = 0, no_blas = 0, index = 0, first = 2, smoke = 0;
	char *end;

	if (!strcmp(mode, "gpu") || !strcmp(mode, "conv")) {
		if (argc < 3 || (index = (int)strtol(argv[2], &end, 10), *end) || index < 0) {
			kv_emit("error", "usage: __probe bench gpu INDEX [--quick] [--sys-root DIR] [--cublas PATH]...");
			kv_end();
			return 2;
		}
		first = 3;
	} else if (strcmp(mode, "cpu") && strcmp(mode, "nccl")) {
		kv_emit("error", "usage: __probe bench gpu|cpu|conv|nccl ...");
		kv_end();
		return 2;
	}
	for (int i = first; i < argc; i++) {
		if (!strcmp(argv[i], "--quick"))
			quick = 1;
		else if (!strcmp(argv[i], "--smoke"))
			smoke = 1;
		else if (!strcmp(argv[i], "--no-blas"))
			no_blas = 1;
		else if (!strcmp(argv[i], "--shape") && i + 1 < argc)
			shape = argv[++i];
		else if (!strcmp(argv[i], "--libcuda") && i + 1 < argc)
			libcuda = argv[++i];
		else if (!strcmp(argv[i], "--libnvml") && i + 1 < argc)
			libnvml = argv[++i];
		else if (!strcmp(argv[i], "--sys-root") && i + 1 < argc)
			root = argv[++i];
		else if ((!strcmp(argv[i], "--cublas") || !strcmp(argv[i], "--blas") ||
			  !strcmp(argv[i], "--cudnn") || !strcmp(argv[i], "--nccl")) && i + 1 < argc) {
			if (npaths < BENCH_CHILD_MAX_PATHS)
				paths[npaths++] = argv[i + 1];
			i++;
		} else {
			kv_emit("error", "unknown argument '%s'", argv[i]);
			kv_end();
			return 2;
		}
	}
	paths[npaths] = NULL;
	if (!strcmp(mode, "gpu")) {
		struct bench_gpu_opts o = { .index = index, .quick = quick, .root = root, .cublas = paths };

		bench_gpu_measure(&o);
	} else if (!strcmp(mode, "conv")) {
		struct bench_conv_gpu_opts o = { .index = index, .quick = quick, .smoke = smoke, .shape = shape, .cudnn = paths,
						   .libcuda = libcuda };

		bench_conv_gpu_measure(&o);
	} else if (!strcmp(mode, "nccl")) {
		struct bench_nccl_opts o = { .quick = quick, .smoke = smoke, .nccl = paths, .libcuda = libcuda,
					     .libnvml = libnvml };

		bench_nccl_measure(&o);
	} else {
		struct bench_cpu_opts o = { .quick = quick, .blas = paths, .no_blas = no_blas };

		bench_cpu_measure(&o);
	}
	kv_end();
	return 0;
}
