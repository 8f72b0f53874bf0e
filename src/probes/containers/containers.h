/*
 * containers.h - facts of the containers layer: the GPU stack as a
 * container sees it, and the host's container toolkit.
 *
 * Inside a container (found from /.dockerenv, /run/.containerenv, the
 * cgroup path of PID 1 and ourselves, and the runtime's environment) it
 * records what the NVIDIA Container Toolkit was asked for
 * (NVIDIA_VISIBLE_DEVICES, NVIDIA_DRIVER_CAPABILITIES, NVIDIA_REQUIRE_*,
 * read with the toolkit's own rules, see ctr_env_resolve) and what was
 * injected: the /dev/nvidia* nodes (and, live, whether open() is allowed),
 * the driver libraries (which of them are bind mounts from the host), the
 * size of /dev/shm, RLIMIT_MEMLOCK, cuda-compat libraries.
 *
 * On any machine it records the host side: nvidia-ctk and friends, the
 * toolkit's config.toml, Docker's daemon.json, containerd's config,
 * podman, the CDI specs in /etc/cdi and /var/run/cdi, and the /dev/char
 * links of the NVIDIA nodes.  Every file is read through core/fs (inside
 * --root); the environment is gpudoctor's own (under --root too: an
 * unpacked image has no environment of its own to read).
 *
 *	probe_containers(ctx, inv);		// static, after kernel and hardware
 *	probe_containers_live(ctx, inv);	// open() of the nodes, in a child
 *
 * The facts themselves (struct containers_inventory and its parts) are
 * the inventory's: inventory/containers.h, which this header includes.
 */
#ifndef GD_PROBE_CONTAINERS_H
#define GD_PROBE_CONTAINERS_H

#include <stddef.h>

#include "inventory/containers.h"

#include "core/err.h"

struct gd_ctx;
struct inventory;
struct probe_in;
struct doc;

/*
 * Reads variables through get (getenv, or a table in the tests); envp (may
 * be NULL) is scanned for the NVIDIA_REQUIRE_* variables.
 */
void ctr_env_resolve(const char *(*get)(const char *name, void *arg), void *arg,
		     char *const *envp, struct ctr_env *out);

/* A CDI spec from its parsed tree (the file name for evidence). */
int cdi_spec_from_doc(const struct doc *d, struct cdi_spec *out, char **why);
/* "libcuda.so.580.95.05" -> "580.95.05" when name is a driver library with a version. */
int ctr_driver_lib_version(const char *name, char *ver, size_t versz);

void probe_containers(const struct probe_in *in, struct inventory *inv);
void probe_containers_live(const struct gd_ctx *ctx, struct inventory *inv);
/* The host side (tools, configs, CDI specs); called by probe_containers. */
void probe_containers_host(const struct probe_in *in, struct containers_inventory *c);

/*
 * The readers of each configuration file: text in, fields of h out; -1 with
 * e set when the text is not what the file should hold (fields read before
 * the error stay).  Each is small and lives in a file of its own.
 */
/* /etc/nvidia-container-runtime/config.toml (containers_ctk_config.c) */
int ctr_read_toolkit_config(const char *text, size_t len, struct ctr_host *h, struct err *e);
/* /etc/docker/daemon.json (containers_docker.c) */
int ctr_read_docker_daemon(const char *text, size_t len, struct ctr_host *h, struct err *e);
/* /etc/containerd/config.toml, versions 1-3 (containers_containerd.c) */
int ctr_read_containerd_config(const char *text, size_t len, struct ctr_host *h, struct err *e);
/* A CDI spec file: JSON when name ends in .json, else YAML (containers_cdi.c). */
int ctr_read_cdi_spec(const char *name, const char *text, size_t len, struct cdi_spec *s);

/* Parsers exposed for the tests and fuzzers. */
/* "Max locked memory  8388608  8388608  bytes" of /proc/self/limits. */
int ctr_parse_limits_memlock(const char *text, size_t len, long long *soft, long long *hard);
/* "size=65536k" of /dev/shm in /proc/self/mounts (or mountinfo): bytes, -1 none. */
long long ctr_parse_shm_size(const char *text, size_t len);
/* Is path a mount point in this /proc/self/mountinfo text? */
int ctr_mountinfo_has(const char *text, size_t len, const char *path);
/*
 * Does this mountinfo show a container: / on overlay (or aufs,
 * fuse-overlayfs), or /etc/hostname, /etc/hosts, /etc/resolv.conf bind-mounted
 * as every engine does?  1 (why says which), 0.
 */
int ctr_mountinfo_container_sign(const char *text, size_t len, char *why, size_t whysz);
/* Does a cgroup v1 devices.list allow char major 195 (rw)? 1/0. */
int ctr_devices_list_allows(const char *text, size_t len, long major);

#endif
