/*
 * bench_conv_gpu.h - cuDNN convolutions on one GPU (child side of
 * `gpudoctor __probe bench conv INDEX`).
 *
 * Loads cuDNN first (its path and version are facts even where no GPU
 * is), then libcuda, takes the device's primary context (the one cuDNN's
 * runtime shares) and runs the layer of bench_conv.h forward, backward-data
 * and backward-filter in FP32 (TF32 tensor-core math allowed, as PyTorch's
 * default torch.backends.cudnn.allow_tf32), FP16 and BF16, NHWC, FP32
 * accumulation.  The algorithm is the fastest that cudnnFind*AlgorithmEx
 * measured, with a workspace, as torch.backends.cudnn.benchmark=True picks
 * it.  A sample of each output is checked against a float64 CPU reference.
 * In smoke mode (check --deep) it runs one small FP32 forward convolution
 * with a fixed algorithm and checks every output.
 *
 * Output: key=value lines "conv.*" (docs/bench-schema.md).
 *
 *	struct bench_conv_gpu_opts o = { .index = 0, .cudnn = names };
 *	bench_conv_gpu_measure(&o);
 */
#ifndef GD_BENCH_CONV_GPU_H
#define GD_BENCH_CONV_GPU_H

struct bench_conv_gpu_opts {
	int index;			/* CUDA ordinal */
	int quick;
	int smoke;			/* one small forward convolution, checked whole */
	const char *shape;		/* "N,C,H,W,K[,R,S[,pad[,stride]]]" or NULL: the ResNet layer */
	const char *const *cudnn;	/* tried in turn instead of the sonames, NULL-terminated */
	const char *libcuda;		/* NULL: "libcuda.so.1" */
};

int bench_conv_gpu_measure(const struct bench_conv_gpu_opts *o);

#endif
