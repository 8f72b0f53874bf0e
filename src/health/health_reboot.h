/*
 * health_reboot.h - one reboot per cause: the memory that stops a loop.
 *
 * `health --slurm --reboot` asks Slurm to reboot a node whose cause only a
 * reboot clears.  If the cause is still there after the reboot, asking
 * again would reboot the node forever; so before asking, health records
 * the request in STATE_DIR/health-reboot (inside --root), written
 * atomically:
 *
 *	boot_id=<the boot that asked>
 *	cause=<cause-id>
 *	gpu=<gpu>
 *
 * and when the same cause on the same GPU comes back in a later boot, the
 * node is drained instead, for a person to look at (a GPU named by its index
 * in one boot and by its PCI address in the other counts as the same GPU).  A healthy verdict
 * forgets the record, so a recurrence after a healthy spell may reboot
 * again.  When the record cannot be written, no reboot is asked for (drain
 * is always safe).
 *
 *	if (health_reboot_tried(root, dir, boot, cause, gpu)) drain();
 *	else if (health_reboot_record(root, dir, boot, cause, gpu, &e) == 0) reboot();
 */
#ifndef GD_HEALTH_REBOOT_H
#define GD_HEALTH_REBOOT_H

#include <stddef.h>

#include "core/err.h"

/* This boot's id (/proc/sys/kernel/random/boot_id inside root) into out; "" if unknown. */
void health_boot_id(const char *root, char *out, size_t outsz);

/* Was a reboot asked for this cause and GPU in an earlier boot?  A record
 * that is not safely ours (core/safefile.h: another owner, a link, a
 * directory others may write) counts as tried: drain, never reboot. */
int health_reboot_tried(const char *root, const char *state_dir, const char *boot_id,
			const char *cause, const char *gpu);

/* Record the request; -1 (and no reboot) when it cannot be written. */
int health_reboot_record(const char *root, const char *state_dir, const char *boot_id,
			 const char *cause, const char *gpu, struct err *e);

/* The node is healthy: forget the record (no error when there is none). */
void health_reboot_forget(const char *root, const char *state_dir);

#endif
