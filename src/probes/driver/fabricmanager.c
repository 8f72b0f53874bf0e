/*
 * fabricmanager.c - the NVSwitch system services of the driver layer, from
 * files only: NVIDIA Fabric Manager (the nv-fabricmanager daemon, systemd
 * unit nvidia-fabricmanager) and IMEX (nvidia-imex) -- installed, enabled,
 * running, and the installed Fabric Manager version that must equal the
 * driver's.  See probes/driver/driver.h; facts in inventory/driver.h
 * (struct fabricmanager_info).
 *
 * Layout from NVIDIA's Fabric Manager user guide
 * (https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html):
 * /usr/bin/nv-fabricmanager, the nvidia-fabricmanager systemd service,
 * packages nvidia-fabricmanager-<branch> (Ubuntu, e.g.
 * https://packages.ubuntu.com/noble/nvidia-fabricmanager-535) or
 * nvidia-fabricmanager (CUDA repository).  A process is recognised by
 * /proc/PID/comm, which the kernel cuts to 15 bytes ("nv-fabricmanage").
 * Under the NVIDIA GPU Operator Fabric Manager runs inside the driver
 * container, whose root the host sees at /run/nvidia/driver
 * (NVIDIA/NVSentinel#883 shows both deployments): its files count too.
 */
#include "probes/driver/driver.h"
#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The host's files first, then the GPU Operator driver container's. */
static const char *const fm_roots[] = { "", "/run/nvidia/driver" };

static const char *const fm_units[] = {
	"/etc/systemd/system/nvidia-fabricmanager.service",
	"/usr/lib/systemd/system/nvidia-fabricmanager.service",
	"/lib/systemd/system/nvidia-fabricmanager.service",
};

/* "1:580.95.05-1ubuntu1" -> "580.95.05": the upstream version, digits and dots. */
static char *fm_upstream_version(const char *v)
{
	const char *colon = strchr(v, ':');
	size_t n;

	if (colon && (size_t)(colon - v) < strcspn(v, "-"))
		v = colon + 1;
	n = strspn(v, "0123456789.");
	while (n && v[n - 1] == '.')
		n--;
	return n ? xstrndup(v, n) : NULL;
}

/*
 * The version of an installed nvidia-fabricmanager* package (not -dev) in
 * dpkg's status database: paragraphs of "Field: value" lines separated by
 * blank lines.  Returns the version or NULL; *pkg gets the package name.
 */
char *fabricmanager_dpkg_version(const char *text, char **pkg)
{
	const char *p = text;
	char *found = NULL;

	*pkg = NULL;
	while (p && *p && !found) {
		const char *end = strstr(p, "\n\n");
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char *para = xstrndup(p, len), *save = NULL, *name = NULL, *ver = NULL;
		int installed = 0;

		for (char *l = strtok_r(para, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
			if (!strncmp(l, "Package: ", 9))
				name = l + 9;
			else if (!strncmp(l, "Version: ", 9))
				ver = l + 9;
			else if (!strncmp(l, "Status: ", 8))
				installed = strstr(l, " installed") != NULL;
		}
		if (name && ver && installed && !strncmp(name, "nvidia-fabricmanager", 20) &&
		    !strstr(name, "-dev") && (found = fm_upstream_version(ver)))
			*pkg = xstrdup(name);
		free(para);
		p = end ? end + 2 : NULL;
	}
	return found;
}

/* Is this /proc entry a process whose comm is `comm`?  Its pid, or -1. */
static long long fm_proc_is(const char *root, const char *name, const char *comm, struct buf *tmp)
{
	char *path;
	int r;

	if (!*name || strspn(name, "0123456789") != strlen(name))
		return -1;
	path = xasprintf("/proc/%s/comm", name);
	r = fs_read_line(root, path, tmp, NULL);
	free(path);
	if (r < 0 || strcmp(tmp->s, comm))
		return -1;
	return strtoll(name, NULL, 10);
}

static void fm_processes(const char *root, struct fabricmanager_info *fm)
{
	struct buf tmp = BUF_INIT;
	char **names;
	size_t n;

	if (fs_list_dir(root, "/proc", &names, &n, NULL) < 0)
		return;
	fm->procs_listed = 1;
	for (size_t i = 0; i < n; i++) {
		long long pid;

		if (fm->pid < 0 && (pid = fm_proc_is(root, names[i], "nv-fabricmanage", &tmp)) > 0)
			fm->pid = pid;
		if (fm->imex_pid < 0 && (pid = fm_proc_is(root, names[i], "nvidia-imex", &tmp)) > 0)
			fm->imex_pid = pid;
	}
	fs_names_free(names, n);
	buf_release(&tmp);
}

static void fm_nodes(const char *root, struct fabricmanager_info *fm)
{
	char **names;
	size_t n;

	if (fs_list_dir(root, "/dev", &names, &n, NULL) < 0)
		return;
	fm->nvswitch_nodes = 0;
	for (size_t i = 0; i < n; i++) {
		const char *s = names[i];

		if (!strncmp(s, "nvidia-nvswitch", 15) && isdigit((unsigned char)s[15]))
			fm->nvswitch_nodes++;
		else if (!strcmp(s, "nvidia-caps-imex-channels"))
			fm->imex_channels = 1;
	}
	fs_names_free(names, n);
}

void fabricmanager_probe(const char *root, size_t nvswitches, struct fabricmanager_info *fm)
{
	struct buf b = BUF_INIT;

	for (size_t r = 0; r < sizeof(fm_roots) / sizeof(fm_roots[0]); r++) {
		char *p = xasprintf("%s/usr/bin/nv-fabricmanager", fm_roots[r]);

		if (!fm->binary && fs_exists(root, p))
			fm->binary = p;
		else
			free(p);
		p = xasprintf("%s/usr/bin/nvidia-imex", fm_roots[r]);
		if (!fm->imex_binary && fs_exists(root, p))
			fm->imex_binary = p;
		else
			free(p);
	}
	for (size_t i = 0; i < sizeof(fm_units) / sizeof(fm_units[0]) && !fm->unit; i++)
		if (fs_exists(root, fm_units[i]))
			fm->unit = xstrdup(fm_units[i]);
	if (fm->unit)
		fm->enabled = fs_exists(root, "/etc/systemd/system/multi-user.target.wants/"
					"nvidia-fabricmanager.service") ? 1 : 0;
	/* Only a machine with Fabric Manager or NVSwitches needs the rest. */
	fm_nodes(root, fm);
	if (!nvswitches && !fm->binary && !fm->unit && !fm->imex_binary && fm->nvswitch_nodes <= 0)
		goto out;
	fm_processes(root, fm);
	for (size_t r = 0; r < sizeof(fm_roots) / sizeof(fm_roots[0]) && !fm->version; r++) {
		char *p = xasprintf("%s/var/lib/dpkg/status", fm_roots[r]);
		char *pkg = NULL;

		if (fs_read_file(root, p, 64u << 20, &b, NULL) == 0 &&
		    (fm->version = fabricmanager_dpkg_version(b.s, &pkg))) {
			fm->version_source = xasprintf("%s (package %s)", p, pkg);
			fm->package = pkg;
		}
		free(p);
	}
out:
	buf_release(&b);
}
