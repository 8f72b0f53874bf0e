/*
 * platform_os.c - the operating system of the inspected tree, for reports:
 * its distribution (os-release(5): /etc/os-release, else
 * /usr/lib/os-release) and its C library's version.
 *
 * The glibc version is the inspected tree's, never gnu_get_libc_version()
 * (that is the glibc gpudoctor itself runs on, which under --root is not
 * the tree's).  Up to glibc 2.33, libc.so.6 is a link to "libc-2.31.so": the
 * name says it.  From 2.34 libc.so.6 is the file itself, and its banner
 * (what running it prints, csu/version.c) holds "release version 2.36.".
 * Both are read through core/fs.h inside --root; the file is hostile (a
 * fixture, or anything): only "<digits>.<digits>" is taken from it, and
 * at most 16 MiB of it is read.
 */
#include "probes/platform/platform.h"
#include "cfg/osrel.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* Where distributions put libc.so.6 (Debian multiarch, RHEL/SUSE lib64, Arch). */
static const char *const libc_paths[] = {
	"/lib/x86_64-linux-gnu/libc.so.6", "/usr/lib/x86_64-linux-gnu/libc.so.6",
	"/lib/aarch64-linux-gnu/libc.so.6", "/usr/lib/aarch64-linux-gnu/libc.so.6",
	"/lib64/libc.so.6", "/usr/lib64/libc.so.6", "/usr/lib/libc.so.6", "/lib/libc.so.6",
};

/* "2.31" at s (n bytes): digits '.' digits, copied; NULL when it is not. */
static char *version_at(const char *s, size_t n)
{
	size_t i = 0, dots = 0;

	while (i < n && i < 16 && (isdigit((unsigned char)s[i]) || (s[i] == '.' && i && s[i - 1] != '.'))) {
		dots += s[i] == '.';
		i++;
	}
	while (i && s[i - 1] == '.') {
		i--;
		dots--;
	}
	return dots >= 1 ? xstrndup(s, i) : NULL;
}

/* One KEY=value of os-release, cut to 256 bytes for the report; NULL when
 * absent or empty. */
static char *os_value(const char *text, const char *key)
{
	char *v = osrel_value(text, key);

	if (v && !*v) {
		free(v);
		return NULL;
	}
	if (v && strlen(v) > 256)
		v[256] = '\0';
	return v;
}

static void os_release(const char *root, struct platform_inventory *p, struct buf *tmp)
{
	const char *from = "/etc/os-release";

	tmp->len = 0;
	if (fs_read_head(root, from, 64 * 1024, tmp, NULL) < 0) {
		from = "/usr/lib/os-release";
		tmp->len = 0;
		if (fs_read_head(root, from, 64 * 1024, tmp, NULL) < 0)
			return;
	}
	/* a NUL inside ends the text: nothing after it is read */
	p->os_pretty = os_value(tmp->s, "PRETTY_NAME");
	p->os_id = os_value(tmp->s, "ID");
	p->os_version_id = os_value(tmp->s, "VERSION_ID");
	p->os_id_like = os_value(tmp->s, "ID_LIKE");
	p->os_release_file = xstrdup(from);
}

static void glibc(const char *root, struct platform_inventory *p, struct buf *tmp)
{
	static const char banner[] = "release version ";

	for (size_t i = 0; i < sizeof(libc_paths) / sizeof(libc_paths[0]) && !p->glibc_version; i++) {
		const char *base;
		const char *hit;

		tmp->len = 0;
		if (fs_readlink(root, libc_paths[i], tmp, NULL) == 0 && tmp->len) {
			base = strrchr(tmp->s, '/');
			base = base ? base + 1 : tmp->s;
			if (!strncmp(base, "libc-", 5) && (p->glibc_version = version_at(base + 5, strlen(base + 5)))) {
				p->glibc_from = xstrdup(libc_paths[i]);
				p->glibc_how = "file name";
				return;
			}
		}
		tmp->len = 0;
		if (fs_read_head(root, libc_paths[i], 16u << 20, tmp, NULL) < 0 || !tmp->len)
			continue;
		hit = memmem(tmp->s, tmp->len, banner, sizeof(banner) - 1);
		if (hit) {
			size_t off = (size_t)(hit - tmp->s) + sizeof(banner) - 1;

			p->glibc_version = version_at(tmp->s + off, tmp->len - off);
		}
		if (p->glibc_version) {
			p->glibc_from = xstrdup(libc_paths[i]);
			p->glibc_how = "version string";
		}
	}
}

void probe_platform_os(const char *root, struct platform_inventory *p)
{
	struct buf tmp = BUF_INIT;

	os_release(root, p, &tmp);
	glibc(root, p, &tmp);
	buf_release(&tmp);
}
