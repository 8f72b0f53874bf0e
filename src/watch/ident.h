/*
 * ident.h - which GPU a person means: `watch --ack GPU` and the acks file.
 *
 * A GPU is named by exactly one identity, parsed as a field and compared
 * whole, never searched for inside a line: "all", an NVML index ("1"), a
 * PCI address in any form the kernel prints ("0000:19:00.0", "19:00.0",
 * "PCI:0000:19:00"; kept normalized) or an NVML UUID ("GPU-34d7...").
 *
 *	struct gpu_ident id;
 *	if (gpu_ident_parse(arg, &id) < 0) ... usage error ...
 *	if (gpu_ident_match(&id, f.gpu, f.pci, f.uuid)) ... this GPU's finding ...
 */
#ifndef GD_WATCH_IDENT_H
#define GD_WATCH_IDENT_H

#include <stddef.h>

enum gpu_ident_kind { GPU_ID_ALL, GPU_ID_INDEX, GPU_ID_PCI, GPU_ID_UUID };

struct gpu_ident {
	enum gpu_ident_kind kind;
	int index;		/* GPU_ID_INDEX */
	char text[96];		/* the normalized form: "1", "0000:19:00.0", "GPU-..." or "all" */
};

/* 0 and id filled, or -1 when s names no GPU. */
int gpu_ident_parse(const char *s, struct gpu_ident *id);
/* Does a finding or an XID with this scope (index -1, pci or uuid NULL/""
 * when unknown) belong to the GPU id names?  An unknown field never matches. */
int gpu_ident_match(const struct gpu_ident *id, int index, const char *pci, const char *uuid);

#endif
