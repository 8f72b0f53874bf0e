/*
 * bench_ncclinfo.h - what NCCL said about the topology it chose, read from
 * its NCCL_DEBUG=INFO log (NCCL_DEBUG_SUBSYS=INIT,GRAPH,ENV) as the bench
 * child captured it.  The log is outside input: any bytes, any length,
 * lines cut anywhere.  Only fixed-size, sanitised fields come out; nothing
 * is allocated.
 *
 * Lines read (NCCL 2.18-2.28; after "NCCL INFO " or "NCCL WARN "):
 *	NCCL version 2.28.3+cuda13.0
 *	Pattern 4, crossNic 0, nChannels 16, bw 20.0/20.0, type NVL/PIX, sameChannels 1
 *	Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read
 *	comm 0x5555 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 ... Init COMPLETE
 *	24 coll channels, 24 collnet channels, 16 nvls channels, 32 p2p channels, ...
 *	NCCL_P2P_DISABLE set by environment to 1
 *
 *	struct bench_nccl_topo t;
 *	bench_ncclinfo_parse(log, len, &t);
 *	bench_ncclinfo_summary(&t, line, sizeof(line));	// "NVLink (P2P/CUMEM/read), 16 channels"
 */
#ifndef GD_BENCH_NCCLINFO_H
#define GD_BENCH_NCCLINFO_H

#include <stddef.h>

#define BENCH_NCCLINFO_MAX 6
#define BENCH_NCCLINFO_STR 40

enum {
	BENCH_NCCL_T_P2P = 1,
	BENCH_NCCL_T_SHM = 2,
	BENCH_NCCL_T_NET = 4,
	BENCH_NCCL_T_NVLS = 8,
	BENCH_NCCL_T_COLLNET = 16,
	BENCH_NCCL_T_OTHER = 32,
};

struct bench_nccl_topo {
	int lines;			/* NCCL INFO/WARN lines seen */
	char version[BENCH_NCCLINFO_STR];	/* "2.28.3+cuda13.0" or "" */
	int nranks;			/* -1 */
	int transports;			/* BENCH_NCCL_T_* seen in "via" */
	char via[BENCH_NCCLINFO_MAX][BENCH_NCCLINFO_STR];	/* distinct "P2P/CUMEM/read" */
	int nvia;
	char path[BENCH_NCCLINFO_MAX][8];	/* distinct intra-node path types: "NVL", "PIX" ... */
	int npath;
	int channels;			/* largest nChannels of a graph, -1 */
	int nvls_channels;		/* -1 */
	char env[BENCH_NCCLINFO_MAX][BENCH_NCCLINFO_STR];	/* "NCCL_P2P_DISABLE=1" */
	int nenv;
	int warnings;
	char first_warning[160];
};

void bench_ncclinfo_parse(const char *text, size_t len, struct bench_nccl_topo *t);
/* "NVLink", "PCIe", "PCIe across CPU sockets", "network", or NULL unknown:
 * the slowest intra-node path NCCL's graphs used. */
const char *bench_ncclinfo_link(const struct bench_nccl_topo *t);
/* One line for people, into buf. */
const char *bench_ncclinfo_summary(const struct bench_nccl_topo *t, char *buf, size_t n);

#endif
