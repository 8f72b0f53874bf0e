/*
 * bench_dl.h - dlopen and dlsym helpers shared by the bench children that
 * load NVIDIA libraries (cuDNN, NCCL, NVML).
 *
 *	void *h; char *path;
 *	if (bench_dl_open("libnccl.so.2", &h, &path, &e) < 0) ...;
 *	bench_dl_sym(h, "ncclGetVersion", &api.ncclGetVersion);
 */
#ifndef GD_BENCH_DL_H
#define GD_BENCH_DL_H

#include "core/err.h"

/* RTLD_NOW | RTLD_LOCAL; *path gets the file the loader picked (or NULL). */
int bench_dl_open(const char *name, void **handle, char **path, struct err *e);
/* dlsym into a function pointer (fnptr points at it); -1 when absent. */
int bench_dl_sym(void *handle, const char *name, void *fnptr);

#endif
