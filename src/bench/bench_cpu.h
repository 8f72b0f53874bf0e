/*
 * bench_cpu.h - the CPU baseline (child side of `gpudoctor __probe bench cpu`).
 *
 * SGEMM through an installed CBLAS found by dlopen (OpenBLAS, MKL, BLIS,
 * numpy's bundled scipy-openblas, the system libblas.so.3), or gpudoctor's
 * own blocked kernel when there is none or when the library found is no
 * faster (the reference BLAS); the output names which one ran.  Sizes grow
 * from 256 until a product takes a good fraction of the time budget; the
 * best rate counts, and the largest product is checked against a float64
 * reference on sampled entries.
 *
 *	const char *extra[] = { "/path/libscipy_openblas64_.so", NULL };
 *	struct bench_cpu_opts o = { .quick = 0, .blas = extra };
 *	bench_cpu_measure(&o);	// prints cpu.* kv lines
 */
#ifndef GD_BENCH_CPU_H
#define GD_BENCH_CPU_H

struct bench_cpu_opts {
	int quick;
	const char *const *blas;	/* extra library paths tried first; NULL-terminated */
	int no_blas;			/* only our own kernel */
};

int bench_cpu_measure(const struct bench_cpu_opts *o);

#endif
