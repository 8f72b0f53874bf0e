/*
 * rules_platform.h - what each layer means on another platform: WSL2/WSL1
 * (the GPU through /dev/dxg, the Windows driver's files in
 * /usr/lib/wsl/lib), a GPU Operator node (the driver container's root and
 * the validator's markers), and kernel lockdown.  The layers' rules call
 * these first; a function that returns 1 has judged the layer for its
 * platform and the bare-metal rules of that layer must not run (their
 * fixes -- modprobe, DKMS, a Linux driver -- are wrong there).
 *
 *	void rules_kernel(...) { if (rules_platform_kernel(in, rep)) return; ... }
 *
 * Reads inv->platform (inventory/platform.h) and the layers' facts only.
 */
#ifndef GD_RULES_PLATFORM_H
#define GD_RULES_PLATFORM_H

#include "rules/rules.h"

int rules_platform_hardware(const struct rules_in *in, struct report *rep);
int rules_platform_kernel(const struct rules_in *in, struct report *rep);
int rules_platform_devices(const struct rules_in *in, struct report *rep);
/*
 * The driver layer's libcuda under WSL: the Windows driver's copy not on
 * the loader's path, or a Linux driver's copy outranking it.  Returns 1
 * when it reported on libcuda.so.1 (the bare-metal libcuda finding is then
 * not added).
 */
int rules_platform_driver_libcuda(const struct rules_in *in, struct report *rep);
/* libnvidia-ml.so.1 missing under WSL: returns 1 when it reported. */
int rules_platform_driver_nvml(const struct rules_in *in, struct report *rep);
/* The driver versions under WSL (no module to match): returns 1 when it reported. */
int rules_platform_driver_versions(const struct rules_in *in, struct report *rep);
/* A GPU Operator node: the driver container's root and the validator's markers. */
void rules_platform_operator(const struct rules_in *in, struct report *rep);
/* The nvidia module is not loaded: is kernel lockdown the reason?  1 when reported. */
int rules_platform_lockdown(const struct rules_in *in, struct report *rep);

#endif
