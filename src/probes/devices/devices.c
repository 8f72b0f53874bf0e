/*
 * devices.c - the devices layer's probe: the /dev/nvidia* nodes; see devices.h.
 */
#include "probes/devices/devices.h"
#include "inventory/inventory.h"
#include "probes/probe_in.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

int devices_mode_allows_rw(const struct stat *st, uid_t euid, gid_t egid, const gid_t *groups,
			   int ngroups, char *why, size_t whysz)
{
	mode_t need;
	const char *cls;
	int in_group = st->st_gid == egid;

	if (euid == 0)
		return 1;
	for (int i = 0; i < ngroups && !in_group; i++)
		in_group = groups[i] == st->st_gid;
	/* The kernel uses exactly one class: owner, else group, else other. */
	if (st->st_uid == euid) {
		need = S_IRUSR | S_IWUSR;
		cls = "owner";
	} else if (in_group) {
		need = S_IRGRP | S_IWGRP;
		cls = "group";
	} else {
		need = S_IROTH | S_IWOTH;
		cls = "other users";
	}
	if ((st->st_mode & need) == need)
		return 1;
	if (why && whysz)
		snprintf(why, whysz, "mode %04o owner %ld group %ld: no read+write for %s "
			 "(uid %ld)", (unsigned)(st->st_mode & 07777), (long)st->st_uid,
			 (long)st->st_gid, cls, (long)euid);
	return 0;
}

long devices_parse_minor(const char *text, size_t len)
{
	static const char key[] = "Device Minor:";
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (ll > sizeof(key) - 1 && !memcmp(p, key, sizeof(key) - 1)) {
			const char *q = p + sizeof(key) - 1, *le = p + ll;
			long v = 0;
			int digits = 0;

			while (q < le && isspace((unsigned char)*q))
				q++;
			while (q < le && isdigit((unsigned char)*q) && digits < 9) {
				v = v * 10 + (*q++ - '0');
				digits++;
			}
			return digits ? v : -1;
		}
		p += ll + (nl ? 1 : 0);
	}
	return -1;
}

static void devices_check(const struct gd_ctx *ctx, struct dev_node *d)
{
	struct buf p = BUF_INIT;
	struct stat st;
	char why[160];

	d->is_chr = -1;
	d->major = d->minor = d->mode = d->uid = d->gid = -1;
	d->usable = -1;
	if (fs_stat(ctx->root, d->path, &st) < 0) {
		d->present = 0;
		if (errno != ENOENT)
			d->why = xasprintf("stat: %s", strerror(errno));
		return;
	}
	d->present = 1;
	d->is_chr = S_ISCHR(st.st_mode) ? 1 : 0;
	if (d->is_chr) {
		d->major = (long)major(st.st_rdev);
		d->minor = (long)minor(st.st_rdev);
	}
	d->mode = (long)(st.st_mode & 07777);
	d->uid = (long)st.st_uid;
	d->gid = (long)st.st_gid;
	if (!strcmp(ctx->root, "/")) {
		/* The real user's permission, exactly what CUDA's open() will get. */
		if (fs_path(ctx->root, d->path, &p) && access(p.s, R_OK | W_OK) == 0) {
			d->usable = 1;
		} else {
			d->usable = 0;
			d->why = xasprintf("access(R_OK|W_OK): %s (mode %04lo owner %ld group %ld)",
					   strerror(errno), d->mode, d->uid, d->gid);
		}
	} else {
		gid_t groups[256];
		int ng = getgroups((int)(sizeof(groups) / sizeof(groups[0])), groups);

		if (ng < 0)
			ng = 0;
		d->usable = devices_mode_allows_rw(&st, geteuid(), getegid(), groups, ng, why,
						   sizeof(why));
		if (!d->usable)
			d->why = xstrdup(why);
	}
	buf_release(&p);
}

static struct dev_node *devices_add(struct devices_inventory *dv, char *path, int required,
				    const char *bdf)
{
	struct dev_node *d;

	XGROW(dv->nodes, dv->n, dv->cap);
	d = &dv->nodes[dv->n++];
	memset(d, 0, sizeof(*d));
	d->path = path;
	d->required = required;
	d->bdf = bdf;
	return d;
}

void probe_devices(const struct probe_in *in, struct inventory *inv)
{
	const struct gd_ctx *ctx = in->ctx;
	struct devices_inventory *dv = &inv->devices;
	const struct hw_inventory *hw = &inv->hw;
	struct buf tmp = BUF_INIT;
	long index = 0;

	dv->probed = 1;
	dv->euid = (long)geteuid();
	if (fs_exists(ctx->root, "/.dockerenv"))
		dv->container_marker = "/.dockerenv";
	else if (fs_exists(ctx->root, "/run/.containerenv"))
		dv->container_marker = "/run/.containerenv";
	dv->in_container = dv->container_marker != NULL;
	/* the containers layer (probed before) also weighs cgroups and mounts:
	 * a VM made from a container image keeps /.dockerenv */
	if (inv->containers.probed) {
		dv->in_container = inv->containers.in_container;
		if (!dv->in_container)
			dv->container_marker = NULL;
		else if (!dv->container_marker)
			dv->container_marker = inv->containers.marker_file;
	}

	devices_add(dv, xstrdup("/dev/nvidiactl"), 1, NULL);
	for (size_t i = 0; i < hw->ngpus; i++) {
		const struct hw_pci_fn *g = &hw->gpus[i];
		char *info;
		long minor = -1;

		/* Only GPUs the nvidia module owns get a /dev/nvidiaN. */
		if (!g->driver || strcmp(g->driver, "nvidia") != 0)
			continue;
		info = xasprintf("/proc/driver/nvidia/gpus/%s/information", g->bdf);
		if (fs_read_file(ctx->root, info, 65536, &tmp, NULL) == 0)
			minor = devices_parse_minor(tmp.s, tmp.len);
		free(info);
		if (minor < 0)
			minor = index;
		index++;
		devices_add(dv, xasprintf("/dev/nvidia%ld", minor), 1, g->bdf);
	}
	devices_add(dv, xstrdup("/dev/nvidia-uvm"), 1, NULL);
	devices_add(dv, xstrdup("/dev/nvidia-uvm-tools"), 0, NULL);
	for (size_t i = 0; i < dv->n; i++)
		devices_check(ctx, &dv->nodes[i]);
	buf_release(&tmp);
}

void probe_devices_live(const struct gd_ctx *ctx, struct inventory *inv)
{
	/* Nothing to run: the nodes are looked at statically. */
	(void)ctx;
	(void)inv;
}
