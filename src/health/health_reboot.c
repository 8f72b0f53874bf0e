/* health_reboot.c - the record that stops a reboot loop; see health_reboot.h. */
#include "health/health_reboot.h"
#include "core/safefile.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/kv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void health_boot_id(const char *root, char *out, size_t outsz)
{
	struct buf b = BUF_INIT;

	out[0] = '\0';
	if (fs_read_line(root, "/proc/sys/kernel/random/boot_id", &b, NULL) == 0 && b.len < outsz)
		memcpy(out, b.s, b.len + 1);
	buf_release(&b);
}

/*
 * Is the GPU of the record the GPU of this verdict?  A GPU is named by its
 * NVML index, or by its PCI address when NVML did not map it (an XID 79
 * before the sampler's first answer, a GPU that never enumerated again):
 * the same lost GPU is "2" in one boot and "0000:1a:00.0" in the next.
 * Two names of different kinds (or none, "-") cannot be told apart, so
 * they count as the same GPU: a drain, never a reboot loop that alternates
 * between the two.  Two indices, or two addresses, are compared as they are.
 */
static int same_gpu(const char *a, const char *b)
{
	if (!strcmp(a, b) || !*a || !*b || !strcmp(a, "-") || !strcmp(b, "-"))
		return 1;
	return !strchr(a, ':') != !strchr(b, ':');
}

int health_reboot_tried(const char *root, const char *state_dir, const char *boot_id,
			const char *cause, const char *gpu)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	struct kvlist kv = KVLIST_INIT;
	struct buf dir = BUF_INIT, host = BUF_INIT;
	struct err e2 = ERR_INIT;
	struct stat st;
	const char *b, *c, *g;
	int tried = 0;

	buf_printf(&path, "%s/health-reboot", state_dir);
	/* A record another user could have written or replaced decides nothing
	   but a drain (always safe): it must never buy a reboot, nor hide one
	   already tried.  No directory or no record: nothing was tried. */
	/* The record's own name under the resolved directory: a link there is
	   seen (and refused) as a link, not followed inside a --root tree. */
	if (fs_path(root, state_dir, &dir) && *dir.s)
		buf_printf(&host, "%s/health-reboot", dir.s);
	if (dir.s && *dir.s && lstat(dir.s, &st) == 0 && lstat(host.s, &st) == 0 &&
	    (safefile_check_dir(dir.s, &e2) < 0 || safefile_check_file(host.s, &e2) != 0))
		tried = 1;
	else if (fs_read_file(root, path.s, 4096, &text, NULL) == 0) {
		kvlist_parse(&kv, text.s, text.len);
		b = kv_get(&kv, "boot_id");
		c = kv_get(&kv, "cause");
		g = kv_get(&kv, "gpu");
		/* Asked in another boot (the reboot happened), for the same thing. */
		tried = b && c && g && boot_id && *boot_id && strcmp(b, boot_id) != 0 &&
			!strcmp(c, cause) && same_gpu(g, gpu);
	}
	kvlist_release(&kv);
	buf_release(&path);
	buf_release(&text);
	buf_release(&dir);
	buf_release(&host);
	return tried;
}

int health_reboot_record(const char *root, const char *state_dir, const char *boot_id,
			 const char *cause, const char *gpu, struct err *e)
{
	struct buf dir = BUF_INIT, final = BUF_INIT, body = BUF_INIT;
	struct err e2 = ERR_INIT;
	int ret = -1;

	if (!boot_id || !*boot_id) {
		err_set(e, "this boot's id is unknown: a reboot could not be told from a retry");
		goto out;
	}
	fs_path(root, state_dir, &dir);
	if (mkdir(dir.s, 0755) < 0 && errno != EEXIST) {
		err_set_errno(e, "cannot create '%s'", state_dir);
		goto out;
	}
	buf_printf(&final, "%s/health-reboot", dir.s);
	buf_printf(&body, "boot_id=%s\ncause=%s\ngpu=%s\n", boot_id, cause, gpu);
	/* A random temporary, created exclusively, then renamed (core/safefile.h):
	   a link or file planted at a guessable name is never written through. */
	if (safefile_check_dir(dir.s, &e2) < 0 ||
	    safefile_write(final.s, body.s, body.len, 0644, 1, &e2) < 0) {
		err_set(e, "cannot write '%s/health-reboot': %s", state_dir, e2.msg);
		goto out;
	}
	ret = 0;
out:
	buf_release(&dir);
	buf_release(&final);
	buf_release(&body);
	return ret;
}

void health_reboot_forget(const char *root, const char *state_dir)
{
	struct buf dir = BUF_INIT, path = BUF_INIT;

	/* Only the directory is resolved inside the root: the record itself
	   is removed, never what a link of that name points at (fs_path
	   follows a last link inside a --root tree, and unlink() would then
	   remove the tree's file it names, /etc/passwd under --root /host). */
	if (fs_path(root, state_dir, &dir) && *dir.s) {
		buf_printf(&path, "%s/health-reboot", dir.s);
		unlink(path.s);
	}
	buf_release(&dir);
	buf_release(&path);
}
