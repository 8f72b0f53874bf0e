/*
 * logdecode.h - what a value captured from a log encodes.
 *
 * The capture's name says how to read it (see logrules.h):
 *	driver_int, cuda_int	11040 -> "CUDA 11.4" (1000*major + 10*minor)
 *	cudnn_int		8906 -> "cuDNN 8.9.6", 90100 -> "cuDNN 9.1.0"
 *	sm, cc			sm_86, 86, 8.6 -> "compute capability 8.6 (Ampere)"
 *	cuda_error		35 -> cudaErrorInsufficientDriver
 *	cu_result		100 -> CUDA_ERROR_NO_DEVICE (and its usual cause)
 *	cu_name, cuda_name	a name -> its number
 *	err_name		any code name of errcodes.h -> its API and number
 *	cu_short, nvml_short, cudnn_short  a name without its API's prefix, as
 *				wrappers print it: ERROR_LIBRARY_NOT_FOUND (go-nvml)
 *				-> "nvmlReturn_t 12 = NVML_ERROR_LIBRARY_NOT_FOUND"
 *	cudnn_code, nccl_code, nvml_code  2 -> "ncclResult_t 2 = ncclSystemError"
 *	path			/usr/local/cuda/lib64/stubs/libcuda.so -> the stub;
 *				/mnt/c/..., /usr/lib/wsl/lib/... -> WSL
 *	xid			79 -> the XID catalogue's meaning and action
 *	pci			PCI:0000:3b:00 -> 0000:3b:00.0
 *	bytes			199557120 -> 190.3 MiB
 *	soname			libcudnn.so.8 -> "cuDNN, major 8"; Windows'
 *				cudart64_110.dll -> "the CUDA runtime, CUDA 11.0's"
 *	oom_total, oom_allocated, oom_free  PyTorch's out-of-memory numbers,
 *				decoded together by logdecode_oom()
 *	oom_reserved		PyTorch 2.x's "reserved by PyTorch but
 *				unallocated", the job's too: added to oom_allocated
 * Anything else is not decoded.  Pure functions: no files, no machine.
 *
 *	char *d = logdecode(kb, "driver_int", "11040");	// "CUDA 11.4 (driver API)"; free()
 */
#ifndef GD_LOGDECODE_H
#define GD_LOGDECODE_H

struct kb;

/* A one-line meaning (malloc'ed), or NULL when there is nothing to add. */
char *logdecode(const struct kb *kb, const char *name, const char *value);
/* The same, with the line the value came from (NULL: unknown): an XID's
 * action can be carried in its message (XID 154, kb_xid.h). */
char *logdecode_line(const struct kb *kb, const char *name, const char *value, const char *line);
/*
 * A cudaError_t number (a cuda_error capture) in the numbering era says
 * (errcodes.h: enum cudart_era, an int here so that this header stays
 * free of the table's), with the line it came from; when the era is unknown
 * and the numberings differ, both meanings, each with its CUDA releases.
 */
char *logdecode_cudart(const char *value, int era, const char *line);

/*
 * What PyTorch's "(GPU 0; T total capacity; A already allocated; F free"
 * says together: when this process's allocations and the free memory are a
 * small part of the total, the rest is held by another process (or the
 * driver); when this process holds most of it, the job does not fit.  The
 * sizes are "10.76 GiB", "8.81 MiB", "0 bytes".  NULL when they do not parse.
 */
char *logdecode_oom(const char *total, const char *allocated, const char *free_);
/* "10.76 GiB", "643.57 MiB", "0 bytes", "1,073,741,824 bytes" -> bytes; -1 when it does not
 * parse (a sign, hex, an exponent, junk) or is beyond an exabyte. */
double logdecode_size(const char *s);
/*
 * The verdict behind that text, which decides the cause (explain.c): HELD
 * when what is neither this process's nor free, less 768 MiB (a CUDA
 * context and a desktop's display), is a quarter of the total or more
 * (another holder: gpu-memory-held); OWN when the numbers parse and show no
 * other holder (the job does not fit: scope, like a script error); UNKNOWN
 * when they do not parse (then only other evidence in the log can name a
 * holder, explain.c).
 */
enum oom_verdict { OOM_UNKNOWN, OOM_HELD, OOM_OWN };
enum oom_verdict logdecode_oom_verdict(const char *total, const char *allocated, const char *free_);

/*
 * The same figures as numbers (bytes; -1 unknown), kept as numbers from the
 * parse on: own is what this process holds (PyTorch's allocated plus its
 * reserved-but-unallocated), request the allocation that failed.  A request
 * larger than the total is OWN whatever the rest says.
 */
struct oom_figures {
	double total, own, free_, request;
};
void logdecode_oom_figures_init(struct oom_figures *f);
enum oom_verdict logdecode_oom_judge(const struct oom_figures *f);
char *logdecode_oom_text(const struct oom_figures *f);	/* NULL: nothing to add; free() */

/* The same, where a bare number ("17179869184", "12.18") counts in unit bytes (1, 1 << 30). */
double logdecode_size_in(const char *s, double unit);

/* A whole decimal number (digits only, at most 18: never an overflow), or -1. */
long logdecode_number(const char *s);

/* "PCI:0000:3b:00", "0000:3b:00.0", "3b:00.0" -> "0000:3b:00.0" into out (>= 16); 0 or -1. */
int logdecode_pci(const char *value, char *out, unsigned long size);
/* "sm_86", "86", "8.6", "compute_90", TensorRT's "0x806" -> 8, 6; 0 or -1. */
int logdecode_cc(const char *value, int *major, int *minor);

#endif
