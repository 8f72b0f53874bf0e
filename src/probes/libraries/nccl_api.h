/*
 * nccl_api.h - the one declaration of NCCL (libnccl.so.2) in gpudoctor: its
 * types and one struct of entry points.  Used by child sides only: the
 * libversion probe's child (probes/libraries/libversion_child.c asks
 * ncclGetVersion) and bench's collectives child (bench/bench_nccl.c binds
 * the rest).
 *
 * Prototypes and values are nccl.h's (NCCL 2.28, /usr/local/cuda/include):
 * ncclResult_t 0 = ncclSuccess; communicators are opaque pointers;
 * cudaStream_t is CUstream.  No NVIDIA header is vendored.
 *
 *	struct nccl_api nc = { 0 };
 *	if (nccl_api_bind_version(handle, &nc, &missing) < 0) ...;
 *	nc.ncclGetVersion(&v);
 */
#ifndef GD_NCCL_API_H
#define GD_NCCL_API_H

#include <stddef.h>

#include "probes/cuda/cuda_api.h"

typedef int ncclResult_t;
typedef struct ncclComm *ncclComm_t;

struct nccl_api {
	void *handle;
	char *path;
	ncclResult_t (*ncclGetVersion)(int *v);
	const char *(*ncclGetErrorString)(ncclResult_t r);
	ncclResult_t (*ncclCommInitAll)(ncclComm_t *comms, int ndev, const int *devlist);
	ncclResult_t (*ncclCommDestroy)(ncclComm_t comm);
	ncclResult_t (*ncclAllReduce)(const void *send, void *recv, size_t count, int dtype, int op,
				      ncclComm_t comm, CUstream s);
	ncclResult_t (*ncclAllGather)(const void *send, void *recv, size_t sendcount, int dtype,
				      ncclComm_t comm, CUstream s);
	ncclResult_t (*ncclReduceScatter)(const void *send, void *recv, size_t recvcount, int dtype,
					  int op, ncclComm_t comm, CUstream s);
	ncclResult_t (*ncclGroupStart)(void);
	ncclResult_t (*ncclGroupEnd)(void);
};

/*
 * Binds ncclGetVersion, which needs no GPU; on failure *missing names it
 * and the result is -1.
 */
int nccl_api_bind_version(void *handle, struct nccl_api *api, const char **missing);

#endif
