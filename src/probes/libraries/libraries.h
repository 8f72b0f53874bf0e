/*
 * libraries.h - facts of the libraries layer: every copy of the CUDA user
 * libraries on the machine, and which one the loader would pick.
 *
 * probe_libraries() (static, reads only headers of ELF files, inside --root):
 *   1. collects the directories where copies live (libscan_dirs.c):
 *      LD_LIBRARY_PATH, the loader's default directories, /usr/local/cuda
 *      and every /usr/local/cuda-* (lib64, lib, targets/ARCH/lib), /opt/X/lib*,
 *      conda installs and their envs, the nvidia/ * /lib dirs of pip wheels in
 *      every Python environment (inventory_pyenvs), and the directory of the
 *      ld.so.cache winner of every soname of interest;
 *   2. lists the files named lib<family>.so.<digits...> there, one copy per
 *      real file (libscan_files.c), reads SONAME/NEEDED with elf_open;
 *   3. gives each copy a version: its real file name, the toolkit's
 *      version.json/version.txt, cudnn_version.h next to the library, the
 *      owning wheel's dist-info (libversion_static.c);
 *   4. asks the loader emulation (loader/ldso.h) which copy wins for each
 *      soname with no requester (a program without RPATH, or dlopen from
 *      Python), what each copy's own NEEDED resolve to, and which cuDNN 9
 *      sub-libraries the winning shim would load (libscan_resolve.c).
 * probe_libraries_live() runs "gpudoctor __probe libversion PATH KIND" for
 * the winners of libcudart / libcudnn / libnccl / libcublas and records the
 * library's own answer (libversion_child.c is the child side).  The children
 * run in parallel, and can be started early (probe_libraries_live_start).
 *
 * Unknown facts are NULL / -1.  Rules (rules_libraries.c) judge.
 *
 * The facts themselves (struct libraries_inventory and its parts) are
 * the inventory's: inventory/libraries.h, which this header includes.
 */
#ifndef GD_PROBE_LIBRARIES_H
#define GD_PROBE_LIBRARIES_H

#include "inventory/libraries.h"

#include <stddef.h>

struct child;
struct gd_ctx;
struct inventory;
struct probe_in;

/* Static facts: reads files only, never loads or executes anything (inputs: probe_in.h). */
void probe_libraries(const struct probe_in *in, struct inventory *inv);
/*
 * The version children started and not finished yet, one per inv->libs.live[]
 * entry; the caller's (engine/engine.c), never the inventory's.
 */
struct libraries_pending {
	struct child *child;	/* NULL when none was started */
	size_t n;
};
#define LIBRARIES_PENDING_INIT { NULL, 0 }

/*
 * Runtime facts from isolated children; not called under --no-load or when
 * blocked.  Finishes the children pend holds, starting them first when none
 * were (pend may be NULL: started and finished here).
 */
void probe_libraries_live(const struct gd_ctx *ctx, struct inventory *inv,
			  struct libraries_pending *pend);
/*
 * The version children all at once, started early (beside the CUDA child:
 * they are off the critical path) and finished by probe_libraries_live();
 * probe_libraries_live_cancel() kills them unused when the layer is blocked.
 * Needs probe_libraries' facts.
 */
void probe_libraries_live_start(const struct gd_ctx *ctx, struct inventory *inv,
				struct libraries_pending *pend);
void probe_libraries_live_cancel(struct libraries_pending *pend);

#endif
