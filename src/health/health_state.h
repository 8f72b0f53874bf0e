/*
 * health_state.h - the watch daemon's state file, as `health` reads it.
 *
 * `gpudoctor watch` keeps its active findings in STATE_DIR/state (default
 * /var/lib/gpudoctor/state), written atomically, key=value lines:
 *
 *	version=1
 *	updated=1764489600		(unix seconds of the last sweep)
 *	boot_id=0f3c...			(/proc/sys/kernel/random/boot_id)
 *	status=ok|warn|fail
 *	active=xid-79 3 fail GPU 3 fell off the bus (XID 79)
 *
 * one active= line per finding: cause id, GPU index or "-", severity, and a
 * one-line reason.  What counts ("fresh enough"):
 *   - a state of another boot counts for nothing: the reboot cleared it;
 *   - in this boot, failures count however old the file is: a fatal XID
 *     stays until the GPU is reset, and watch keeps it until `watch --ack`;
 *     a watch daemon that died must not make a lost GPU healthy;
 *   - warnings count only while the file is fresh, updated at most max_age
 *     seconds ago (default 300: ten of watch's default 30 s sweeps).
 * Lines that do not parse are counted and skipped, never trusted.
 *
 *	struct health_state st;
 *	health_state_read(ctx->root, "/var/lib/gpudoctor", time(NULL), 300, &st, &h, &e);
 */
#ifndef GD_HEALTH_STATE_H
#define GD_HEALTH_STATE_H

#include "core/err.h"
#include "health/health.h"

#define HEALTH_STATE_MAX_AGE 300
#define HEALTH_STATE_MAX_BYTES (1 << 20)	/* as watch --ack reads it */

struct health_state {
	int present;		/* the file was read */
	int used;		/* its failures counted (right version, this boot) */
	int fresh;		/* updated at most max_age seconds ago */
	long long updated;	/* -1 unknown */
	long long age;		/* seconds, -1 unknown */
	int active;		/* active= lines that parsed */
	int taken;		/* of those, added to the health items */
	int malformed;		/* active= lines that did not parse */
	char status[8];		/* ok|warn|fail as written, "" when absent or another word */
	char note[160];		/* why it was not used, or "" */
};

/*
 * Parse the text of a state file.  cur_boot_id: this boot's id, or NULL when
 * unknown (then only the age decides).  Adds what counts to h.
 */
void health_state_parse(const char *text, size_t len, const char *cur_boot_id,
			long long now, long long max_age, struct health_state *st,
			struct health *h);

/*
 * Read ROOT/STATE_DIR/state and this boot's id, then parse.  A missing file
 * is not an error (no watch daemon): st->present stays 0.  Returns -1 only
 * when the file exists, is trusted, and cannot be read (the caller's verdict
 * is then unknown: what watch saw is not known).
 */
int health_state_read(const char *root, const char *state_dir, long long now,
		      long long max_age, struct health_state *st, struct health *h,
		      struct err *e);

#endif
