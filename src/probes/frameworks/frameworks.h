/*
 * frameworks.h - facts of the frameworks layer: which TensorFlow, PyTorch,
 * JAX and CuPy are installed in which Python environment, what CUDA and
 * cuDNN each was built for, and which file the dynamic loader would give
 * each library the framework loads -- all read from disk, nothing imported.
 *
 * For each environment (python/pyenv.h) and site directory the probe reads
 * dist-info (python/distinfo.h), the framework's generated build files
 * (python/pyfile.h), the ELF dynamic sections of its libraries and the
 * loader emulation (loader/ldso.h) with the requester the framework itself
 * uses: TF's libtensorflow_framework.so.2 (its RUNPATH lists
 * ../nvidia/<x>/lib), torch's libtorch_cuda.so (DT_RPATH, which outranks
 * LD_LIBRARY_PATH), cuDNN 9's shim libcudnn.so.9 for its sub-libraries
 * (DT_RUNPATH $ORIGIN, which LD_LIBRARY_PATH outranks), JAX's preload of
 * site-packages/nvidia/<x>/lib.  GPU code in libtorch_cuda.so comes from its
 * .nv_fatbin (loader/fatbin.h).
 *
 * The probe records facts only; whether an install will use the GPU is the
 * rules' verdict (rules/fw_verdict.h), from these facts.
 *
 *	probe_frameworks(in, inv);
 *	for (size_t i = 0; i < inv->fw.n; i++) use(inv->fw.fws[i].name, inv->fw.fws[i].libs);
 *
 * The facts themselves (struct frameworks_inventory and its parts) are
 * the inventory's: inventory/frameworks.h, which this header includes.
 */
#ifndef GD_PROBE_FRAMEWORKS_H
#define GD_PROBE_FRAMEWORKS_H

#include "inventory/frameworks.h"

#include <stddef.h>

struct gd_ctx;
struct inventory;
struct probe_in;

/* Static facts: reads files only, never loads or executes anything (inputs: probe_in.h). */
void probe_frameworks(const struct probe_in *in, struct inventory *inv);
/* Runtime facts from isolated children; not called under --no-load or when blocked. */
void probe_frameworks_live(const struct gd_ctx *ctx, struct inventory *inv);

#endif
