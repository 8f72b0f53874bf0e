/*
 * bench_pcie.h - PCIe link arithmetic, and the link state from the hardware probe.
 *
 * The per-direction ceiling of a link is lanes x rate x encoding / 8:
 * Gen1/Gen2 (2.5, 5 GT/s) use 8b/10b, Gen3-Gen5 (8, 16, 32 GT/s) 128b/130b,
 * Gen6 (64 GT/s, PAM4) runs in FLIT mode with no line code, where 236 of
 * each 256-byte flit carry TLPs (the rest is DLP, CRC and FEC): 92.2 %,
 * about 118 GB/s per direction at x16
 * (https://glennklockwood.com/garden/PCIe-Gen6, after the PCI-SIG 6.0 spec).
 *
 *	struct bench_link l;
 *	bench_pcie_from_probe(hw_gpu_by_bdf(&inv.hw, "0000:65:00.0"), &l);
 *	double gbs = bench_pcie_link_gbs(l.max_gts, l.max_width);
 */
#ifndef GD_BENCH_PCIE_H
#define GD_BENCH_PCIE_H

#include "bench/bench.h"

/* Data rate per lane and direction in GB/s (1e9 bytes) at gts GT/s; NAN unknown. */
double bench_pcie_lane_gbs(double gts);
/* lanes x lane rate; NAN when either is unknown. */
double bench_pcie_link_gbs(double gts, int width);
/* Generation of a rate (2.5 -> 1 ... 64 -> 6), -1 unknown. */
int bench_pcie_gen(double gts);
/* "16.0 GT/s PCIe", "8 GT/s", "2.5 GT/s" -> GT/s; NAN for "Unknown" or junk. */
double bench_pcie_parse_speed(const char *s);
/* "16" -> 16; -1 for 0 or junk. */
int bench_pcie_parse_width(const char *s);
/*
 * Fill link (all fields but load_*) from the hardware probe's reading of the
 * function and its upstream port (probes/hardware/hardware.h); unknown stays unknown.
 */
struct hw_pci_fn;
void bench_pcie_from_probe(const struct hw_pci_fn *f, struct bench_link *link);
/* Only the current speed and width, now (the child reads them under load). */
void bench_pcie_read_current(const char *root, const char *bdf, double *gts, int *width);
/* "0000:65:00.0" from "00000000:65:00.0" or "0000:65:00.0" (any case); -1 if not a BDF. */
int bench_pcie_normalize_bdf(const char *in, char out[16]);

#endif
