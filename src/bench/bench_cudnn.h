/*
 * bench_cudnn.h - the cuDNN entry points bench calls, declared by hand and
 * resolved with dlsym (child side only).
 *
 * Why the legacy convolution API: cuDNN 9 still ships it (the libcudnn.so.9
 * shim exports cudnnConvolutionForward and friends and forwards them to
 * libcudnn_cnn.so.9), cuDNN 8 has the same calls with the same prototypes,
 * and its cudnnFind*AlgorithmEx is the exhaustive timed search that
 * torch.backends.cudnn.benchmark stands for.  The backend (graph) API would
 * need some forty descriptor attributes for the same three operations and
 * does not exist before cuDNN 8.
 *
 * The declarations (types, constants, struct cudnn_api) are cuDNN's one
 * home, probes/libraries/cudnn_api.h, which the libversion probe's child
 * shares.
 *
 *	struct cudnn_api dn;
 *	if (bench_cudnn_load(names, &dn, &e) < 0) ...;
 *	dn.cudnnCreate(&h); ...
 */
#ifndef GD_BENCH_CUDNN_H
#define GD_BENCH_CUDNN_H

#include <stddef.h>

#include "bench/bench_cuda.h"
#include "core/err.h"
#include "probes/libraries/cudnn_api.h"

/* Try each name (NULL-terminated) in turn; the first that loads with every
 * symbol wins.  e says why none did. */
int bench_cudnn_load(const char *const *names, struct cudnn_api *dn, struct err *e);
void bench_cudnn_unload(struct cudnn_api *dn);
/* "CUDNN_STATUS_NOT_INITIALIZED (1001): <last error>" into buf. */
const char *bench_cudnn_errname(const struct cudnn_api *dn, cudnnStatus_t st, char *buf, size_t n);

#endif
