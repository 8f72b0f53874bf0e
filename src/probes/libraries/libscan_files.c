/*
 * libscan_files.c - one directory's copies: names, real files, ELF headers,
 * permissions.
 *
 * A copy is a file named lib<family>.so.<digits...> (the unversioned .so is
 * a link-time name the loader never asks for).  Several names for the same
 * real file (libcudnn.so.9 -> libcudnn.so.9.19.0) are one copy, listed under
 * the name equal to its soname when there is one.  elf_open() maps the file
 * and reads only the headers and the dynamic section: bytes_touched shows it.
 *
 * Readability is judged for the user who runs gpudoctor:
 *   root "/", not root:   access(R_OK), which also checks the directories;
 *   --root DIR, not root: the mode bits of the file for our uid/gid;
 *   running as root:      root reads everything, so a file without the
 *                         "other" read bit is flagged root_only (a warning:
 *                         everybody else fails to load it).
 */
#include "probes/libraries/libscan.h"

#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "loader/elf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

static int in_group(gid_t g)
{
	gid_t groups[256];
	int n;

	if (g == getegid())
		return 1;
	n = getgroups(256, groups);
	for (int i = 0; i < n; i++)
		if (groups[i] == g)
			return 1;
	return 0;
}

void libscan_files_access(const struct gd_ctx *ctx, struct lib_copy *c)
{
	struct stat st;
	uid_t euid = geteuid();

	if (fs_stat(ctx->root, c->realpath, &st) < 0) {
		c->readable = -1;
		return;
	}
	if (euid == 0) {
		c->readable = 1;
		c->root_only = !(st.st_mode & S_IROTH) && st.st_uid == 0 &&
			       (!(st.st_mode & S_IRGRP) || st.st_gid == 0);
		return;
	}
	if (strcmp(ctx->root, "/") == 0) {
		c->readable = access(c->realpath, R_OK) == 0;
		return;
	}
	if (st.st_uid == euid)
		c->readable = !!(st.st_mode & S_IRUSR);
	else if (in_group(st.st_gid))
		c->readable = !!(st.st_mode & S_IRGRP);
	else
		c->readable = !!(st.st_mode & S_IROTH);
}

static void read_elf(const struct gd_ctx *ctx, struct lib_copy *c)
{
	struct elf_file ef;
	struct err e = ERR_INIT;
	struct buf host = BUF_INIT;

	memset(&ef, 0, sizeof(ef));
	fs_path(ctx->root, c->realpath, &host);
	if (elf_open(host.s, &ef, &e) < 0) {
		c->elf_problem = (int)ef.problem;
		if (ef.problem == ELF_OK)
			c->elf_problem = (int)ELF_MALFORMED;
		/* the message names the host path; show the machine path instead */
		c->problem = xasprintf("%s: %s", c->realpath,
				       e.msg[0] ? e.msg : elf_problem_name(ef.problem));
		c->bytes_touched = ef.bytes_touched;
		if (ef.problem == ELF_UNREADABLE && (e.code == EACCES || e.code == EPERM))
			c->readable = 0;
		elf_close(&ef);
		buf_release(&host);
		return;
	}
	c->elf_problem = (int)ELF_OK;
	if (ef.soname) {
		free(c->soname);
		c->soname = xstrdup(ef.soname);
		c->soname_from_elf = 1;
	}
	if (ef.nneeded) {
		c->needed = xcalloc(ef.nneeded, sizeof(*c->needed));
		for (size_t i = 0; i < ef.nneeded; i++)
			c->needed[i] = xstrdup(ef.needed[i]);
		c->nneeded = ef.nneeded;
	}
	c->runpath = xstrdup_or_null(ef.runpath);
	c->rpath = xstrdup_or_null(ef.rpath);
	c->bytes_touched = ef.bytes_touched;
	elf_close(&ef);
	buf_release(&host);
}

static struct lib_copy *find_real(struct libraries_inventory *li, const char *real)
{
	for (size_t i = 0; i < li->n; i++)
		if (strcmp(li->copies[i].realpath, real) == 0)
			return &li->copies[i];
	return NULL;
}

void libscan_files_scan(const struct gd_ctx *ctx, struct libraries_inventory *li,
			const struct libscan_dir *d)
{
	char **names = NULL;
	size_t n = 0;
	struct err e = ERR_INIT;

	if (fs_list_dir(ctx->root, d->real, &names, &n, &e) < 0) {
		libraries_note(li, "cannot list %s: %s", d->path, e.msg);
		if (e.code == EACCES || e.code == EPERM) {
			struct lib_unreadable_dir *u;

			XGROW(li->unreadable, li->nunreadable, li->unreadable_cap);
			u = &li->unreadable[li->nunreadable++];
			u->dir = xstrdup(d->path);
			u->why = xstrdup(strerror(e.code));
			u->active = d->toolkit && d->in_active;
		}
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const char *suffix = NULL;
		const struct lib_family *fam = libscan_parse_name(names[i], &suffix);
		struct buf real = BUF_INIT;
		struct lib_copy *c;
		struct stat st;
		char *path;

		if (!fam)
			continue;
		path = fs_join(d->path, names[i]);
		if (fs_resolve(ctx->root, path, &real, NULL) < 0 ||
		    fs_stat(ctx->root, real.s, &st) < 0 || !S_ISREG(st.st_mode)) {
			/* a dangling link is not a copy; the loader skips it too */
			free(path);
			buf_release(&real);
			continue;
		}
		c = find_real(li, real.s);
		if (c) {
			/* the same file again: prefer the name the loader asks for */
			if (c->soname && strcmp(base_name(c->path), c->soname) != 0 &&
			    strcmp(names[i], c->soname) == 0) {
				free(c->path);
				c->path = path;
				path = NULL;
			}
			free(path);
			buf_release(&real);
			continue;
		}
		c = libraries_add_copy(li);
		c->family = fam->name;
		c->path = path;
		c->dir = xstrdup(d->path);
		c->realpath = buf_detach(&real);
		c->soname = xstrdup(names[i]);
		c->origin = d->origin;
		c->in_active = d->in_active;
		c->owner = xstrdup_or_null(d->owner);
		c->size_bytes = (long long)st.st_size;
		c->readable = -1;
		libscan_files_access(ctx, c);
		read_elf(ctx, c);
		libversion_static(ctx, li, c, d);
		/* found under another name than its soname: use the soname's name
		 * if it is in this directory too (it will be, for a sane install) */
		if (c->soname_from_elf && strcmp(names[i], c->soname) != 0) {
			char *sp = fs_join(d->path, c->soname);
			struct buf r2 = BUF_INIT;

			if (fs_resolve(ctx->root, sp, &r2, NULL) == 0 &&
			    strcmp(r2.s, c->realpath) == 0) {
				free(c->path);
				c->path = sp;
				sp = NULL;
			}
			free(sp);
			buf_release(&r2);
		}
	}
	fs_names_free(names, n);
}
