/*
 * burn_ptx.h - the PTX text of burn's kernels (gd_mem_fill, gd_mem_check),
 * generated from burn_kernels.cu by `make burn-ptx` (mk/burn.mk).
 *
 *	cu.cuModuleLoadData(&mod, burn_ptx);
 *	cu.cuModuleGetFunction(&fill, mod, "gd_mem_fill");
 */
#ifndef GD_BURN_PTX_H
#define GD_BURN_PTX_H

extern const char burn_ptx[];

#endif
