/*
 * platform.c - the platform probe: which kind of machine this is.
 *
 * WSL: /proc/version names the kernel.  WSL2's kernels are built by
 * Microsoft as "5.15.153.1-microsoft-standard-WSL2" (microsoft/WSL#9821);
 * WSL1 has no Linux kernel and reports a fake one, "4.4.0-19041-Microsoft"
 * (microsoft/WSL#5554).  WSL2's GPU is /dev/dxg, its driver libraries are
 * files (not links) in /usr/lib/wsl/lib, mounted from the Windows driver
 * store (microsoft/WSL#8587: libcuda.so, libcuda.so.1 and libcuda.so.1.1 are
 * three copies of one file; /usr/lib/wsl/lib/nvidia-smi is an ELF binary,
 * microsoft/WSL#8174).
 *
 * GPU Operator: the driver container bind-mounts its root at
 * /run/nvidia/driver; the validator checks it with `chroot
 * /run/nvidia/driver nvidia-smi` and writes driver-ready, toolkit-ready,
 * cuda-ready, plugin-ready into /run/nvidia/validations
 * (NVIDIA/gpu-operator validator/main.go).
 *
 * Lockdown: /sys/kernel/security/lockdown lists the modes with the selected
 * one in brackets, "none [integrity] confidentiality" (man 7 kernel_lockdown).
 */
#include "probes/platform/platform.h"
#include "probes/probe_in.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "cfg/toml.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* Library directories of the driver container images (Ubuntu, RHEL/UBI, arm64). */
static const char *const operator_libdirs[] = {
	"/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib/aarch64-linux-gnu", "/usr/lib",
};

static void platform_wsl(const char *root, struct platform_inventory *p, struct buf *tmp)
{
	struct stat st;
	int microsoft;

	if (fs_read_line(root, "/proc/version", tmp, NULL) == 0 && tmp->len)
		p->proc_version = xstrdup(tmp->s);
	p->dxg = fs_exists(root, "/dev/dxg") ? 1 : 0;
	p->wsl_lib_dir = fs_is_dir(root, PLATFORM_WSL_LIB_DIR) ? 1 : 0;
	microsoft = p->proc_version && strcasestr(p->proc_version, "microsoft") != NULL;
	if (microsoft)
		p->wsl = p->dxg == 1 || strstr(p->proc_version, "WSL2") ? PLATFORM_WSL2 : PLATFORM_WSL1;
	else if (p->dxg == 1 && p->wsl_lib_dir == 1)
		p->wsl = PLATFORM_WSL2;		/* a custom kernel under WSL2 */
	if (fs_lstat(root, PLATFORM_WSL_LIB_DIR "/libcuda.so.1", &st) == 0) {
		p->wsl_libcuda = xstrdup(PLATFORM_WSL_LIB_DIR "/libcuda.so.1");
		p->wsl_libcuda_is_link = S_ISLNK(st.st_mode) ? 1 : 0;
	}
	if (fs_lstat(root, PLATFORM_WSL_LIB_DIR "/nvidia-smi", &st) == 0)
		p->wsl_nvidia_smi = xstrdup(PLATFORM_WSL_LIB_DIR "/nvidia-smi");
	p->docker_desktop = fs_is_dir(root, "/mnt/wsl/docker-desktop") ? 1 : 0;
}

/* "libcuda.so.580.95.05" -> "580.95.05" (digits and dots only), else NULL. */
static char *libcuda_version(const char *name)
{
	const char *v;

	if (strncmp(name, "libcuda.so.", 11) != 0)
		return NULL;
	v = name + 11;
	if (!isdigit((unsigned char)*v) || !strchr(v, '.'))
		return NULL;
	for (const char *c = v; *c; c++)
		if (!isdigit((unsigned char)*c) && *c != '.')
			return NULL;
	return xstrdup(v);
}

static void operator_os(const char *root, struct platform_inventory *p, struct buf *tmp)
{
	const char *s, *e;

	/* PRETTY_NAME is near the top; a longer file is read only that far */
	if (fs_read_head(root, PLATFORM_OPERATOR_ROOT "/etc/os-release", 16384, tmp, NULL) < 0)
		return;
	for (s = tmp->s; s && *s; s = e ? e + 1 : NULL) {
		e = strchr(s, '\n');
		if (!strncmp(s, "PRETTY_NAME=", 12)) {
			size_t n = e ? (size_t)(e - s) - 12 : strlen(s + 12);
			const char *v = s + 12;

			if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
				v++;
				n -= 2;
			}
			p->operator_os = xstrndup(v, n);
			return;
		}
	}
}

static void platform_operator(const char *root, struct platform_inventory *p, struct buf *tmp)
{
	/*
	 * A link to / (a driver installed on the host, shown where the operator
	 * looks) is the host's own driver, which the layers read already.
	 */
	if (!fs_is_dir(root, PLATFORM_OPERATOR_ROOT) ||
	    (fs_resolve(root, PLATFORM_OPERATOR_ROOT, tmp, NULL) == 0 && !strcmp(tmp->s, "/")))
		goto validations;
	for (size_t d = 0; d < sizeof(operator_libdirs) / sizeof(operator_libdirs[0]); d++) {
		char *dir = xasprintf(PLATFORM_OPERATOR_ROOT "%s", operator_libdirs[d]);
		char **names = NULL;
		size_t n = 0;

		if (fs_list_dir(root, dir, &names, &n, NULL) == 0) {
			for (size_t i = 0; i < n; i++) {
				char *v = p->operator_libcuda ? NULL : libcuda_version(names[i]);

				if (v) {
					p->operator_libcuda = fs_join(dir, names[i]);
					p->operator_libcuda_version = v;
				}
				if (!p->operator_nvml && !strcmp(names[i], "libnvidia-ml.so.1"))
					p->operator_nvml = fs_join(dir, names[i]);
			}
			fs_names_free(names, n);
		}
		free(dir);
	}
	if (fs_exists(root, PLATFORM_OPERATOR_ROOT "/usr/bin/nvidia-smi"))
		p->operator_nvidia_smi = xstrdup(PLATFORM_OPERATOR_ROOT "/usr/bin/nvidia-smi");
	/* An empty mount point (the container not started yet) is no driver root. */
	if (p->operator_libcuda || p->operator_nvml || p->operator_nvidia_smi) {
		p->operator_root = xstrdup(PLATFORM_OPERATOR_ROOT);
		operator_os(root, p, tmp);
	}
validations:
	p->validations_dir = fs_is_dir(root, PLATFORM_OPERATOR_VALIDATIONS) ? 1 : 0;
	for (int m = 0; m < OPMARK_COUNT; m++) {
		char *f = xasprintf(PLATFORM_OPERATOR_VALIDATIONS "/%s",
				    platform_marker_name((enum operator_marker)m));

		p->markers[m] = p->validations_dir ? fs_exists(root, f) != 0 : -1;
		free(f);
	}
}

/*
 * The container toolkit's driver root ([nvidia-container-cli] root): the
 * operator's toolkit DaemonSet writes "/run/nvidia/driver" into the config
 * it installs under /usr/local/nvidia/toolkit (GPU Operator docs); a host
 * toolkit has /etc/nvidia-container-runtime/config.toml.
 */
static void operator_toolkit_root(const char *root, struct platform_inventory *p, struct buf *tmp)
{
	static const char *const files[] = {
		"/usr/local/nvidia/toolkit/.config/nvidia-container-runtime/config.toml",
		"/etc/nvidia-container-runtime/config.toml",
	};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct toml t;
		const struct toml_entry *en;

		if (fs_read_file(root, files[i], 1 << 20, tmp, NULL) < 0)
			continue;
		if (toml_parse(tmp->s, tmp->len, &t, NULL) < 0)
			continue;
		en = toml_find(&t, "nvidia-container-cli", "root", NULL);
		if (en && en->value) {
			p->toolkit_config = xstrdup(files[i]);
			p->toolkit_driver_root = xstrdup(en->value);
		}
		toml_release(&t);
		if (p->toolkit_config)
			return;
	}
}

static void platform_lockdown(const char *root, struct platform_inventory *p, struct buf *tmp)
{
	const char *a, *b;

	if (fs_read_line(root, "/sys/kernel/security/lockdown", tmp, NULL) < 0 || !tmp->len)
		return;
	p->lockdown_line = xstrndup(tmp->s, tmp->len > 200 ? 200 : tmp->len);
	a = strchr(tmp->s, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b && b > a + 1 && b - a < 32) {
		for (const char *c = a + 1; c < b; c++)
			if (!islower((unsigned char)*c))
				return;
		p->lockdown = xstrndup(a + 1, (size_t)(b - a - 1));
	}
}

void probe_platform(const struct probe_in *in, struct inventory *inv)
{
	struct platform_inventory *p = &inv->platform;
	const char *root = in->ctx->root;
	struct buf tmp = BUF_INIT;

	if (p->probed)
		return;
	p->probed = 1;
	platform_wsl(root, p, &tmp);
	platform_operator(root, p, &tmp);
	operator_toolkit_root(root, p, &tmp);
	platform_lockdown(root, p, &tmp);
	buf_release(&tmp);
	probe_platform_os(root, p);
}
