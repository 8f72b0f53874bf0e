/*
 * kernel.c - the kernel layer's probe and its /proc parsers; see kernel.h.
 *
 * Everything is a small read except the search for the module file, which is
 * a directory walk of /lib/modules/RELEASE bounded in depth and entries (a
 * real tree has thousands of modules): it looks in updates/ and extra/ first,
 * where DKMS and vendor packages install, and says "unknown" rather than
 * "missing" when the budget runs out.
 */
#include "probes/kernel/kernel.h"
#include "inventory/inventory.h"
#include "probes/probe_in.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define EFI_GLOBAL_GUID "8be4df61-93ca-11d2-aa0d-00e098032b8c"
#define MODULE_SEARCH_DEPTH 6
#define MODULE_SEARCH_BUDGET 6000	/* directory entries looked at */

/* Next whitespace-separated word of [*p, end): sets *w and *wl, advances *p. */
static int next_word(const char **p, const char *end, const char **w, size_t *wl)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s >= end)
		return 0;
	*w = s;
	while (s < end && *s != ' ' && *s != '\t')
		s++;
	*wl = (size_t)(s - *w);
	*p = s;
	return 1;
}

static void copy_word(char *dst, size_t dsz, const char *w, size_t wl)
{
	if (!dsz)
		return;
	if (wl >= dsz)
		wl = dsz - 1;
	memcpy(dst, w, wl);
	dst[wl] = '\0';
}

int kernel_parse_modules_line(const char *line, size_t len, char *name, size_t namesz,
			      struct kmod_state *st)
{
	const char *p = line, *end = line + len, *w;
	size_t wl;
	int field = 0;

	kernel_kmod_unknown(st);
	if (namesz)
		name[0] = '\0';
	while (next_word(&p, end, &w, &wl)) {
		switch (field++) {
		case 0:		/* name */
			copy_word(name, namesz, w, wl);
			break;
		case 1:		/* size in bytes */
			break;
		case 2: {	/* reference count, "-" when the module cannot be unloaded */
			char tmp[24];
			char *e;
			long v;

			copy_word(tmp, sizeof(tmp), w, wl);
			v = strtol(tmp, &e, 10);
			if (e != tmp && !*e && v >= 0)
				st->refcount = v;
			break;
		}
		case 3:		/* users, "-" or "a,b," */
			break;
		case 4:		/* Live, Loading, Unloading */
			copy_word(st->state, sizeof(st->state), w, wl);
			break;
		case 5:		/* load address (0x0 unless root) */
			break;
		case 6:		/* "(POE)" taint flags, optional */
			if (wl >= 2 && w[0] == '(' && w[wl - 1] == ')')
				copy_word(st->taint, sizeof(st->taint), w + 1, wl - 2);
			break;
		default:
			break;
		}
	}
	if (field < 2 || !name[0])
		return -1;
	st->loaded = 1;
	return 0;
}

void kernel_parse_modules(const char *text, size_t len, struct kmod_state *mods)
{
	const char *p = text, *end = text + len;

	for (int i = 0; i < KMOD_COUNT; i++) {
		kernel_kmod_unknown(&mods[i]);
		mods[i].loaded = 0;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ll = nl ? (size_t)(nl - p) : (size_t)(end - p);
		struct kmod_state st;
		char name[64];

		if (kernel_parse_modules_line(p, ll, name, sizeof(name), &st) == 0) {
			for (int i = 0; i < KMOD_COUNT; i++)
				if (!strcmp(name, kernel_module_name(i)))
					mods[i] = st;
		}
		p += ll + (nl ? 1 : 0);
	}
}

static int is_version_word(const char *w, size_t wl)
{
	int dots = 0;

	if (!wl || !isdigit((unsigned char)w[0]) || !isdigit((unsigned char)w[wl - 1]))
		return 0;
	for (size_t i = 0; i < wl; i++) {
		if (w[i] == '.') {
			if (w[i + 1] == '.')
				return 0;
			dots++;
		} else if (!isdigit((unsigned char)w[i])) {
			return 0;
		}
	}
	return dots > 0;
}

int kernel_parse_nvidia_version(const char *text, size_t len, char *ver, size_t versz,
				int *open)
{
	const char *nl = memchr(text, '\n', len);
	const char *end = nl ? nl : text + len;
	const char *p = text, *w;
	size_t wl, ll = (size_t)(end - text);

	*open = -1;
	if (versz)
		ver[0] = '\0';
	/* Only the NVRM line; the GCC line that follows has versions too. */
	if (ll < 13 || memcmp(text, "NVRM version:", 13) != 0)
		return -1;
	if (memmem(text, ll, "Open Kernel", 11))
		*open = 1;
	else if (memmem(text, ll, "Kernel Module", 13))
		*open = 0;
	p = text + 13;
	while (next_word(&p, end, &w, &wl)) {
		if (is_version_word(w, wl)) {
			copy_word(ver, versz, w, wl);
			return versz ? 0 : -1;
		}
	}
	return -1;
}

int kernel_parse_efivar_bool(const unsigned char *data, size_t len)
{
	/* efivarfs prefixes the value with its 32-bit attributes. */
	if (len != 5)
		return -1;
	if (data[4] > 1)
		return -1;
	return data[4];
}

/* ---- probe ---- */

static void kernel_read_modules(const struct gd_ctx *ctx, struct kernel_inventory *k,
				struct buf *tmp)
{
	struct err e = ERR_INIT;

	if (fs_read_file(ctx->root, "/proc/modules", 4 << 20, tmp, &e) < 0) {
		k->modules_error = xstrdup(e.msg);
		return;
	}
	kernel_parse_modules(tmp->s, tmp->len, k->mods);
}

static void kernel_read_versions(const struct gd_ctx *ctx, struct kernel_inventory *k,
				 struct buf *tmp)
{
	char ver[64];
	int open;

	if (fs_read_line(ctx->root, "/sys/module/nvidia/version", tmp, NULL) == 0 && tmp->len)
		k->sys_version = xstrdup(tmp->s);
	if (fs_read_file(ctx->root, "/proc/driver/nvidia/version", 65536, tmp, NULL) == 0) {
		const char *nl = memchr(tmp->s, '\n', tmp->len);

		k->proc_version_line = xstrndup(tmp->s, nl ? (size_t)(nl - tmp->s) : tmp->len);
		if (kernel_parse_nvidia_version(tmp->s, tmp->len, ver, sizeof(ver), &open) == 0)
			k->proc_version = xstrdup(ver);
		k->open_module = open;
	}
}

static int module_name_matches(const char *n)
{
	static const char *const files[] = { "nvidia.ko", "nvidia.ko.xz", "nvidia.ko.zst",
					      "nvidia.ko.gz" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (!strcmp(n, files[i]))
			return 1;
	return 0;
}

struct msearch {
	const char *root;
	int budget;
	int exhausted;
	char *found;		/* machine path */
};

static void msearch_dir(struct msearch *s, const char *dir, int depth);

static void msearch_sub(struct msearch *s, const char *dir, const char *name, int depth)
{
	char *sub = fs_join(dir, name);

	msearch_dir(s, sub, depth + 1);
	free(sub);
}

static void msearch_dir(struct msearch *s, const char *dir, int depth)
{
	struct buf p = BUF_INIT;
	struct dirent *de;
	char **subs = NULL;
	size_t nsub = 0, cap = 0;
	DIR *d;

	if (s->found || depth > MODULE_SEARCH_DEPTH)
		return;
	d = fs_path(s->root, dir, &p) ? opendir(p.s) : NULL;
	if (!d) {
		buf_release(&p);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		unsigned char type = de->d_type;

		if (de->d_name[0] == '.' && (!de->d_name[1] ||
					     (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (--s->budget < 0) {
			s->exhausted = 1;
			break;
		}
		if (type == DT_UNKNOWN) {
			struct stat st;
			char *full = fs_join(p.s, de->d_name);

			type = lstat(full, &st) < 0 ? DT_UNKNOWN :
			       S_ISDIR(st.st_mode) ? DT_DIR :
			       S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
			free(full);
		}
		if ((type == DT_REG || type == DT_LNK) && module_name_matches(de->d_name)) {
			s->found = fs_join(dir, de->d_name);
			break;
		}
		/* Directories only, never through links: build/ and source/ link
		 * to the kernel headers, which are large and hold no modules. */
		if (type == DT_DIR) {
			XGROW(subs, nsub, cap);
			subs[nsub++] = xstrdup(de->d_name);
		}
	}
	closedir(d);
	buf_release(&p);
	for (size_t i = 0; i < nsub; i++) {
		if (!s->found && !s->exhausted)
			msearch_sub(s, dir, subs[i], depth);
		free(subs[i]);
	}
	free(subs);
}

static void kernel_find_module(const struct gd_ctx *ctx, struct kernel_inventory *k)
{
	/* DKMS installs into updates/ (or updates/dkms/), vendor packages into
	 * extra/ or kernel/...: look at the likely places before the rest. */
	static const char *const first[] = { "updates", "extra", "kernel/drivers/video",
					     "kernel/nvidia" };
	struct msearch s = { ctx->root, MODULE_SEARCH_BUDGET, 0, NULL };
	char *base;

	if (!k->release)
		return;
	base = xasprintf("/lib/modules/%s", k->release);
	k->modules_dir_present = fs_is_dir(ctx->root, base);
	if (!k->modules_dir_present) {
		k->module_file_found = 0;
		k->module_search_note = xasprintf("%s does not exist", base);
		free(base);
		return;
	}
	for (size_t i = 0; i < sizeof(first) / sizeof(first[0]) && !s.found; i++) {
		char *d = fs_join(base, first[i]);

		msearch_dir(&s, d, 1);
		free(d);
	}
	if (!s.found)
		msearch_dir(&s, base, 0);
	if (s.found) {
		k->module_file_found = 1;
		k->module_file = s.found;
	} else if (s.exhausted) {
		k->module_search_note = xasprintf("searched %d entries of %s without finding "
						  "nvidia.ko; stopped there", MODULE_SEARCH_BUDGET,
						  base);
	} else {
		k->module_file_found = 0;
		k->module_search_note = xasprintf("no nvidia.ko, nvidia.ko.xz, nvidia.ko.zst or "
						  "nvidia.ko.gz under %s", base);
	}
	free(base);
}

static void kernel_read_secure_boot(const struct gd_ctx *ctx, struct kernel_inventory *k,
				    struct buf *tmp)
{
	static const char efivar[] = "/sys/firmware/efi/efivars/SecureBoot-" EFI_GLOBAL_GUID;
	static const char oldvar[] = "/sys/firmware/efi/vars/SecureBoot-" EFI_GLOBAL_GUID "/data";
	int v;

	if (fs_read_file(ctx->root, efivar, 64, tmp, NULL) == 0) {
		v = kernel_parse_efivar_bool((const unsigned char *)tmp->s, tmp->len);
		k->secure_boot = v;
		k->secure_boot_evidence = v < 0 ?
			xasprintf("%s: unexpected %zu-byte value", efivar, tmp->len) :
			xasprintf("%s: value %d", efivar, v);
		return;
	}
	/* The old sysfs efivars interface: the data alone, one byte. */
	if (fs_read_file(ctx->root, oldvar, 64, tmp, NULL) == 0 && tmp->len == 1 &&
	    (unsigned char)tmp->s[0] <= 1) {
		k->secure_boot = (unsigned char)tmp->s[0];
		k->secure_boot_evidence = xasprintf("%s: value %d", oldvar, k->secure_boot);
		return;
	}
	if (fs_is_dir(ctx->root, "/sys/firmware") && !fs_exists(ctx->root, "/sys/firmware/efi")) {
		k->secure_boot = 0;
		k->secure_boot_evidence = xstrdup("/sys/firmware/efi does not exist: "
						  "not booted through UEFI, so no Secure Boot");
	} else if (fs_is_dir(ctx->root, "/sys/firmware/efi")) {
		/* UEFI without a SecureBoot variable: firmware without Secure Boot. */
		k->secure_boot = 0;
		k->secure_boot_evidence = xasprintf("UEFI boot, but %s does not exist", efivar);
	}
}

static void kernel_read_nvidia_modprobe(const struct gd_ctx *ctx, struct kernel_inventory *k)
{
	static const char *const paths[] = { "/usr/bin/nvidia-modprobe", "/usr/sbin/nvidia-modprobe",
					     "/bin/nvidia-modprobe" };
	struct stat st;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		if (fs_stat(ctx->root, paths[i], &st) == 0 && S_ISREG(st.st_mode)) {
			k->nvidia_modprobe = (st.st_mode & S_ISUID) && st.st_uid == 0;
			k->nvidia_modprobe_path = xstrdup(paths[i]);
			return;
		}
	}
}

void probe_kernel(const struct probe_in *in, struct inventory *inv)
{
	const struct gd_ctx *ctx = in->ctx;
	struct kernel_inventory *k = &inv->kernel;
	struct buf tmp = BUF_INIT;

	k->probed = 1;
	kernel_read_modules(ctx, k, &tmp);
	kernel_read_versions(ctx, k, &tmp);
	if (k->sys_version && *k->sys_version) {
		k->module_version = k->sys_version;
		k->module_version_source = "/sys/module/nvidia/version";
	} else if (k->proc_version && *k->proc_version) {
		k->module_version = k->proc_version;
		k->module_version_source = "/proc/driver/nvidia/version";
	}
	if (fs_read_line(ctx->root, "/proc/sys/kernel/osrelease", &tmp, NULL) == 0 && tmp.len &&
	    !strchr(tmp.s, '/') && strcmp(tmp.s, "..") != 0)
		k->release = xstrdup(tmp.s);
	kernel_find_module(ctx, k);
	kernel_read_secure_boot(ctx, k, &tmp);
	kernel_read_nvidia_modprobe(ctx, k);
	buf_release(&tmp);
}

void probe_kernel_live(const struct gd_ctx *ctx, struct inventory *inv)
{
	/* Nothing to run: modules are read statically. */
	(void)ctx;
	(void)inv;
}
