/*
 * watch.h - the model `gpudoctor watch` keeps in memory: what the last sweep
 * measured, what the kernel log said, and the findings that follow.
 *
 * The daemon's state (struct wd, daemon.h) lives for its lifetime (loop.c)
 * and holds these records.  Each sweep refreshes the NVML sample into a
 * struct wgpu per GPU (sampler.c), the PCI view (pci.c) and, every N sweeps
 * or when the driver changed, the static check (staticcheck.c); kmsg records
 * update the struct wxid table (xids.c) as they arrive, and the struct
 * wpolicy (policy.c) sets each XID's action.  judge.c turns all of it into
 * one struct report per sweep (report/report.h: a struct finding per
 * active finding, its status from finding_status(), its scope the GPU's
 * index, PCI address and UUID, an XID's number and action); prom.c,
 * report.c, server.c and state.c present it.  A finding's identity is its
 * cause, status and scope (GPU index, PCI address, XID): two XIDs of one
 * GPU differ in their xid, an XID whose address NVML did not map in its
 * pci.  Unknown numbers are -1.
 *
 *	for (size_t i = 0; i < w->rep.n; i++)	// w: struct wd *
 *		if (w->rep.findings[i].status == STATUS_FAIL)
 *			... cause_id_str(w->rep.findings[i].cause), w->rep.findings[i].title ...
 */
#ifndef GD_WATCH_H
#define GD_WATCH_H

#include <stddef.h>

#include "knowledge/causes.h"
#include "knowledge/kb_xid.h"
#include "knowledge/layers.h"

#define WATCH_MAX_GPUS 64
#define WATCH_MAX_PROCS 16
#define WATCH_MAX_FINDINGS 128
#define WATCH_MAX_XIDS 256

/* One GPU as NVML saw it in the last complete sample. */
struct wgpu {
	int index;
	char name[96], uuid[96], bus_id[32];	/* bus_id as "0000:18:00.0" */
	long long temperature_c, power_mw, memory_used, memory_total, persistence;
	long long ecc_mode, ecc_vol_cor, ecc_vol_unc, ecc_agg_cor, ecc_agg_unc;
	long long retired_sbe, retired_dbe, retired_pending;
	long long remap_cor, remap_unc, remap_pending, remap_failed;
	long long clock_reasons;
	long long pcie_gen, pcie_gen_max, pcie_width, pcie_width_max, pcie_replay;
	long long nvlink_active, nvlink_replay, nvlink_recovery, nvlink_crc_flit, nvlink_crc_data;
	long long fabric_state, fabric_status;
	long long aer_cor, aer_nonfatal, aer_fatal;	/* from sysfs, not NVML */
	int lost;				/* NVML: GPU is lost */
	int nprocs;
	struct { long long pid, used; } procs[WATCH_MAX_PROCS];
};

/* One (GPU, XID) pair seen in the kernel log of this boot. */
struct wxid {
	char boot_id[40];	/* the boot of the last occurrence */
	char bus_id[32];	/* "" when the line named no GPU */
	int xid;
	unsigned long long count;	/* this boot, kept across restarts of watch */
	long long last;			/* unix seconds of the last occurrence */
	char text[160];			/* the last line */
	enum kb_xid_action action;	/* after policy and escalation */
	int escalated;			/* also seen in an earlier boot */
	int fatal;			/* needs --ack: action beyond restart-app */
};

/* An XID of an earlier boot, for escalation. */
struct wxid_past {
	char boot_id[40], bus_id[32];
	int xid;
	unsigned long long count;
};

/* The XID policy: the action per XID, after the catalogue. */
struct wpolicy {
	char name[64];			/* "nvidia", "conservative" or the file */
	enum kb_xid_action unknown;	/* for XIDs the catalogue lacks */
	int conservative;		/* raise every catalogue action one step */
	struct { int xid; enum kb_xid_action a; } over[256];
	size_t nover;
};

#endif
