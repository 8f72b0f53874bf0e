/*
 * containers.h - the containers layer's part of the inventory: whether we
 * run in a container and what the NVIDIA Container Toolkit was asked for and
 * injected, and the host's toolkit, engines and CDI specs, as facts.
 *
 * probe_containers() (probes/containers/containers.h) fills it; rules and
 * renderers read it through struct inventory (inventory/inventory.h), with
 * the vocabulary names below (ctr_engine_name, ctr_visible_name,
 * ctr_caps_str).  Unknown is -1 / NULL.
 *
 *	char caps[128];
 *	use(ctr_engine_name(inv->containers.engine),
 *	    ctr_caps_str(inv->containers.env.caps, caps, sizeof(caps)));
 */
#ifndef GD_INVENTORY_CONTAINERS_H
#define GD_INVENTORY_CONTAINERS_H

#include <stddef.h>

/* The driver capabilities of the toolkit (NVIDIA_DRIVER_CAPABILITIES). */
enum ctr_cap {
	CTR_CAP_COMPUTE = 1 << 0,
	CTR_CAP_COMPAT32 = 1 << 1,
	CTR_CAP_GRAPHICS = 1 << 2,
	CTR_CAP_UTILITY = 1 << 3,
	CTR_CAP_VIDEO = 1 << 4,
	CTR_CAP_DISPLAY = 1 << 5,
	CTR_CAP_NGX = 1 << 6,
	CTR_CAP_ALL = (1 << 7) - 1,
};

/* What NVIDIA_VISIBLE_DEVICES asks the toolkit for. */
enum ctr_visible {
	CTR_VIS_VOID,		/* unset, empty or "void": not a GPU container */
	CTR_VIS_NONE,		/* "none": driver libraries, no GPU */
	CTR_VIS_ALL,		/* "all" (also: unset in a legacy CUDA image) */
	CTR_VIS_LIST,		/* "0,1", UUIDs, MIG ids, CDI names */
};

/* The toolkit's view of a container's environment. */
struct ctr_env {
	const char *visible_raw;	/* NVIDIA_VISIBLE_DEVICES, NULL unset */
	const char *caps_raw;		/* NVIDIA_DRIVER_CAPABILITIES, NULL unset */
	const char *cuda_version;	/* CUDA_VERSION, NULL unset */
	const char *require_cuda;	/* NVIDIA_REQUIRE_CUDA, NULL unset */
	const char *disable_require;	/* NVIDIA_DISABLE_REQUIRE */
	/* derived with the toolkit's rules */
	int legacy;		/* CUDA_VERSION set, NVIDIA_REQUIRE_CUDA empty or unset */
	enum ctr_visible visible;
	unsigned caps;		/* enum ctr_cap bits */
	int caps_from;		/* 0 default utility,compute, 1 the variable, 2 legacy: all */
	char *caps_unknown;	/* names the toolkit rejects, or NULL */
	size_t ndevices;	/* CTR_VIS_LIST: how many ids */
	/* NVIDIA_REQUIRE_* (not _JETPACK) as "NAME=value", and a legacy image's cuda>=X.Y */
	char **requires;
	size_t nrequires;
	int require_disabled;	/* NVIDIA_DISABLE_REQUIRE is true */
};

void ctr_env_release(struct ctr_env *env);
/* "compute,utility" (static storage per call site: caller gives buf). */
const char *ctr_caps_str(unsigned caps, char *buf, size_t bufsz);
/* The bit of one capability name ("video"; n bytes, not NUL-terminated), 0 unknown. */
unsigned ctr_cap_bit(const char *name, size_t n);
const char *ctr_visible_name(enum ctr_visible v);

/* An NVIDIA device node as the container (or host) sees it. */
struct ctr_node {
	char *path;		/* /dev/nvidia0 */
	int is_chr;
	long major, minor;
	int open_errno;		/* live: 0 opened, errno else; -1 not tried */
	int char_link;		/* /dev/char/MAJ:MIN -> this node: 1, 0 missing or wrong, -1 unknown */
};

/* A user-space driver library file found in the library directories. */
struct ctr_lib {
	char *path;		/* /usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05 */
	char *name;		/* libcuda.so.580.95.05 */
	char *version;		/* 580.95.05, or NULL (libcuda.so.1 of a symlink chain) */
	int bind_mounted;	/* 1 a mount point (injected), 0 part of the image, -1 unknown */
	int compat;		/* under /usr/local/cuda-X.Y/compat */
	int on_loader_path;	/* compat: listed in ld.so.conf(.d) or LD_LIBRARY_PATH */
};

/* One CDI spec file. */
struct cdi_path {
	char *path;		/* as written (hostPath, or path when no hostPath) */
	char *what;		/* "device node", "mount", "hook" */
	char *device;		/* the device it belongs to, or NULL for the spec's own edits */
	int exists;		/* inside --root */
};

struct cdi_spec {
	char *file;		/* /etc/cdi/nvidia.yaml */
	char *error;		/* could not be read or parsed, or NULL */
	char *cdi_version;
	char *kind;		/* nvidia.com/gpu */
	char **devices;		/* device names */
	size_t ndevices;
	struct cdi_path *paths;
	size_t npaths, paths_cap;
	char **lib_versions;	/* driver versions seen in library file names (distinct) */
	size_t nlib_versions;
	char *host_driver_version;	/* enable-cuda-compat --host-driver-version=, or NULL */
};
void cdi_spec_release(struct cdi_spec *s);

enum ctr_engine {
	CTR_ENGINE_UNKNOWN,
	CTR_ENGINE_DOCKER,
	CTR_ENGINE_PODMAN,
	CTR_ENGINE_CONTAINERD,
	CTR_ENGINE_KUBERNETES,
	CTR_ENGINE_LXC,
	CTR_ENGINE_NSPAWN,
};
const char *ctr_engine_name(enum ctr_engine e);

struct ctr_host {
	/* tools (machine paths, NULL when absent) */
	char *nvidia_ctk, *nvidia_container_cli, *nvidia_container_runtime, *nvidia_hook;
	char *dockerd, *podman, *containerd, *kubelet, *crio;
	/* /etc/nvidia-container-runtime/config.toml */
	int toolkit_config;	/* 1 read, 0 absent, -1 unreadable or unparsable */
	char *toolkit_config_error;
	char *toolkit_mode;	/* nvidia-container-runtime.mode */
	int no_cgroups;		/* nvidia-container-cli.no-cgroups: 1/0, -1 unset */
	char **spec_dirs;	/* modes.cdi.spec-dirs (defaults when unset) */
	size_t nspec_dirs;
	/* /etc/docker/daemon.json */
	int docker_config;	/* 1 read, 0 absent, -1 unreadable */
	char *docker_config_error;
	char **docker_runtimes;	/* "nvidia=/usr/bin/nvidia-container-runtime" */
	size_t ndocker_runtimes;
	int docker_nvidia_runtime;	/* a runtime whose path is nvidia-container-runtime */
	char *docker_default_runtime;
	int docker_cdi;		/* features.cdi: 1/0/-1 */
	/* containerd config */
	char *containerd_config_file;
	int containerd_config;	/* 1 read, 0 absent, -1 unreadable */
	char *containerd_config_error;
	int containerd_nvidia_runtime;	/* a runtime whose BinaryName is the NVIDIA runtime */
	char *containerd_default_runtime;
	int containerd_cdi;	/* enable_cdi: 1/0/-1 */
	/* podman: the legacy OCI hook file, else CDI */
	char *podman_oci_hook;
	/* CDI */
	struct cdi_spec *specs;
	size_t nspecs, specs_cap;
	/* /sys/fs/cgroup: 2 unified, 1 legacy, -1 unknown; the cgroup driver matters for /dev/char */
	int cgroup_version;
};

struct containers_inventory {
	int probed;
	/* Are we in a container, and how do we know? */
	int in_container;
	int image_root;		/* --root over a tree without /proc or /sys: an unpacked image */
	char *markers;		/* "/.dockerenv, cgroup /kubepods/..." */
	const char *marker_file;	/* the first file that shows it ("/run/.containerenv", "/proc/1/cgroup") */
	char *markers_ignored;	/* a marker file in what is not a container (a VM made from an image) */
	enum ctr_engine engine;
	char *engine_detail;	/* "podman-4.3.1" from /run/.containerenv, or NULL */
	struct ctr_env env;
	/* injected (inside a container) or present (host) */
	struct ctr_node *nodes;
	size_t nnodes, nodes_cap;
	int devices_cgroup_v1;	/* devices.list readable: 1, else 0 */
	int cgroup_allows_nvidia;	/* v1 devices.list allows c 195:*: 1/0/-1 */
	char *cgroup_devices_evidence;
	struct ctr_lib *libs;
	size_t nlibs, libs_cap;
	int mountinfo;		/* /proc/self/mountinfo was read */
	char *nvidia_smi;	/* path, or NULL */
	/* /dev/shm and memlock */
	long long shm_bytes;	/* -1 unknown */
	const char *shm_source;	/* "statvfs", "mounts" */
	long long memlock_soft, memlock_hard;	/* bytes; -2 unlimited, -1 unknown */
	int rdma_devices;	/* /dev/infiniband/uverbs* present: count */
	/* host side */
	struct ctr_host host;
};

void containers_inventory_init(struct containers_inventory *p);
void containers_inventory_release(struct containers_inventory *p);

#endif
