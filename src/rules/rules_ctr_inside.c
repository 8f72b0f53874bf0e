/*
 * rules_ctr_inside.c - the containers layer inside a container or over an
 * unpacked image (rules_ctr.h): what NVIDIA_VISIBLE_DEVICES /
 * _DRIVER_CAPABILITIES ask for vs what was injected, the image's
 * NVIDIA_REQUIRE_* against the host, nodes revoked by the device cgroup,
 * driver libraries of another version than the kernel module, an image's
 * own libcuda; and, inside or on a host, cuda-compat on a GPU without
 * forward compatibility, /dev/shm and RLIMIT_MEMLOCK.  Fixes are written
 * for the engine in use, machine values shell-quoted.  Called by
 * rules_containers.c; rules_ctr_host.c borrows rc_kmod_version().
 */
#include "rules/rules.h"
#include "rules/ctr_require.h"
#include "rules/rules_ctr.h"
#include "core/buf.h"
#include "core/ctx.h"
#include "core/version.h"
#include "knowledge/kb.h"
#include "inventory/inventory.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#define SHM_NEEDED (1024LL * 1024 * 1024)	/* NCCL's troubleshooting page: --shm-size=1g */

const char *rc_kmod_version(const struct inventory *inv)
{
	if (inv->kernel.sys_version)
		return inv->kernel.sys_version;
	if (inv->kernel.proc_version)
		return inv->kernel.proc_version;
	return inv->driver.kernel_module_version;
}

static const char *human(long long bytes, char *buf, size_t n)
{
	if (bytes >= 1024LL * 1024 * 1024)
		snprintf(buf, n, "%.1f GiB", (double)bytes / (1024.0 * 1024 * 1024));
	else if (bytes >= 1024 * 1024)
		snprintf(buf, n, "%.0f MiB", (double)bytes / (1024.0 * 1024));
	else
		snprintf(buf, n, "%lld KiB", bytes / 1024);
	return buf;
}

/* The fix for a flag of `docker run` in the engine at hand. */
static void fix_run_flag(struct finding *f, enum ctr_engine e, const char *flag,
			 const char *k8s)
{
	switch (e) {
	case CTR_ENGINE_DOCKER:
		finding_fix_note(f, "recreate the container with docker run %s ...", flag);
		break;
	case CTR_ENGINE_PODMAN:
		finding_fix_note(f, "recreate the container with podman run %s ...", flag);
		break;
	case CTR_ENGINE_CONTAINERD:
		finding_fix_note(f, "recreate the container with nerdctl run %s ...", flag);
		break;
	case CTR_ENGINE_KUBERNETES:
		finding_fix_note(f, "%s", k8s);
		break;
	default:
		finding_fix_note(f, "recreate the container with docker run %s ... (podman run takes the "
				 "same flag); Kubernetes: %s", flag, k8s);
		break;
	}
}

static void fix_gpu_request(struct finding *f, enum ctr_engine e)
{
	switch (e) {
	case CTR_ENGINE_PODMAN:
		finding_fix(f, "recreate the container with podman run --device nvidia.com/gpu=all ... "
			    "(the host needs a CDI spec: sudo nvidia-ctk cdi generate "
			    "--output=/etc/cdi/nvidia.yaml)");
		break;
	case CTR_ENGINE_KUBERNETES:
		finding_fix(f, "request the GPU in the pod spec: resources: {limits: {nvidia.com/gpu: 1}} "
			    "(the node needs the NVIDIA device plugin or GPU Operator)");
		break;
	case CTR_ENGINE_CONTAINERD:
		finding_fix(f, "recreate the container with nerdctl run --gpus all ...");
		break;
	default:
		finding_fix(f, "recreate the container with docker run --gpus all ... "
			    "(podman: --device nvidia.com/gpu=all)");
		break;
	}
}

static void fix_runtime_missing(struct finding *f, enum ctr_engine e)
{
	switch (e) {
	case CTR_ENGINE_PODMAN:
		finding_fix(f, "on the host: sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml; "
			    "then podman run --device nvidia.com/gpu=all ...");
		break;
	case CTR_ENGINE_KUBERNETES:
	case CTR_ENGINE_CONTAINERD:
		finding_fix(f, "on the node: sudo nvidia-ctk runtime configure --runtime=containerd && "
			    "sudo systemctl restart containerd (or install the GPU Operator); then "
			    "request nvidia.com/gpu in the pod spec");
		break;
	default:
		finding_fix(f, "on the host: install nvidia-container-toolkit, then sudo nvidia-ctk "
			    "runtime configure --runtime=docker && sudo systemctl restart docker; "
			    "start the container with docker run --gpus all ...");
		break;
	}
}

static int is_gpu_node(const struct ctr_node *n)
{
	const char *b = n->path + 5;	/* past "/dev/" */

	if (strncmp(b, "nvidia", 6))
		return 0;
	b += 6;
	if (!*b)
		return 0;
	for (; *b; b++)
		if (*b < '0' || *b > '9')
			return 0;
	return 1;
}

void rc_count(const struct containers_inventory *c, struct rc_seen *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < c->nnodes; i++) {
		if (c->nodes[i].is_chr != 1)
			continue;
		s->gpu_nodes += is_gpu_node(&c->nodes[i]);
		s->ctl += !strcmp(c->nodes[i].path, "/dev/nvidiactl");
	}
	for (size_t i = 0; i < c->nlibs; i++) {
		const struct ctr_lib *l = &c->libs[i];

		if (l->compat)
			continue;
		if (!strncmp(l->name, "libcuda.so.", 11)) {
			s->libcuda++;
			s->libcuda_injected += l->bind_mounted == 1;
		}
		s->nvml += !strncmp(l->name, "libnvidia-ml.so.", 16);
		s->injected += l->bind_mounted == 1;
	}
}

void rc_env_evidence(struct finding *f, const struct ctr_env *env)
{
	char caps[128];

	finding_evidence(f, "NVIDIA_VISIBLE_DEVICES=%s%s -> %s", env->visible_raw ? env->visible_raw :
			 "(unset)", env->legacy && !env->visible_raw ? " in a legacy CUDA image "
			 "(CUDA_VERSION set, NVIDIA_REQUIRE_CUDA unset)" : "",
			 env->visible == CTR_VIS_VOID ? "not a GPU container" :
			 env->visible == CTR_VIS_NONE ? "the driver without a GPU" :
			 env->visible == CTR_VIS_ALL ? "every GPU" : "the listed GPUs");
	finding_evidence(f, "NVIDIA_DRIVER_CAPABILITIES=%s -> %s%s", env->caps_raw ? env->caps_raw :
			 "(unset)", ctr_caps_str(env->caps, caps, sizeof(caps)),
			 env->caps_from == 0 ? " (the toolkit's default)" :
			 env->caps_from == 2 ? " (legacy image: all)" : "");
}

void rc_judge_injection(const struct rules_in *in, struct report *rep, const struct rc_seen *s)
{
	const struct containers_inventory *c = &in->inv->containers;
	const struct ctr_env *env = &c->env;
	struct finding *f;

	if (!s->gpu_nodes && !s->ctl && !s->libcuda && !s->nvml) {
		if (env->visible != CTR_VIS_VOID && env->visible != CTR_VIS_NONE) {
			f = report_add(rep, LAYER_CONTAINERS, "containers.runtime",
				       CAUSE_CONTAINER_RUNTIME_MISSING, REACH_WORK,
				       "the container asks for GPUs but nothing was injected: it was not "
				       "started through the NVIDIA runtime");
			rc_env_evidence(f, env);
			finding_evidence(f, "no /dev/nvidia* node and no libcuda.so / libnvidia-ml.so "
					 "in the library directories");
			fix_runtime_missing(f, c->engine);
		} else {
			f = report_add(rep, LAYER_CONTAINERS, "containers.gpu-request",
				       CAUSE_CONTAINER_GPU_NOT_REQUESTED, REACH_WORK,
				       "this container was started without a GPU");
			rc_env_evidence(f, env);
			finding_evidence(f, "no /dev/nvidia* node and no driver library was injected");
			fix_gpu_request(f, c->engine);
		}
		return;
	}
	if (env->visible == CTR_VIS_NONE && !s->gpu_nodes) {
		f = report_add(rep, LAYER_CONTAINERS, "containers.gpu-request",
			       CAUSE_CONTAINER_GPU_NOT_REQUESTED, REACH_WORK,
			       "NVIDIA_VISIBLE_DEVICES=none: the driver was injected but no GPU");
		rc_env_evidence(f, env);
		fix_gpu_request(f, c->engine);
	}
	if (env->visible != CTR_VIS_VOID && !(env->caps & CTR_CAP_COMPUTE)) {
		f = report_add(rep, LAYER_CONTAINERS, "containers.capabilities",
			       CAUSE_CONTAINER_CAPS_MISSING_COMPUTE, s->libcuda ? REACH_LATENT : REACH_WORK,
			       "NVIDIA_DRIVER_CAPABILITIES lacks compute: %s",
			       s->libcuda_injected ? "libcuda.so.1 is bind-mounted anyway" :
			       s->libcuda ? "libcuda.so.1 is there anyway, a file of the image" :
			       "libcuda.so.1 was not injected");
		rc_env_evidence(f, env);
		finding_evidence(f, "%s", s->nvml ? "libnvidia-ml.so is there (utility): nvidia-smi works, "
				 "CUDA does not" : "no libnvidia-ml.so either");
		fix_run_flag(f, c->engine, "-e NVIDIA_DRIVER_CAPABILITIES=compute,utility",
			     "set env NVIDIA_DRIVER_CAPABILITIES=compute,utility in the container spec");
	}
}

/* The image's NVIDIA_REQUIRE_* against the host: driver, its CUDA, the GPU. */
void rc_judge_requires(const struct rules_in *in, struct report *rep)
{
	const struct containers_inventory *c = &in->inv->containers;
	const char *kver = rc_kmod_version(in->inv);
	struct ctr_require_facts facts = { NULL, kver, NULL, NULL };
	char cuda[32], arch[16], failed[128];
	int cv = kver && in->kb ? kb_driver_cuda_version(in->kb, kver) : -1;
	struct finding *f = NULL;

	if (cv > 0) {
		snprintf(cuda, sizeof(cuda), "%d.%d", cv / 1000, (cv % 1000) / 10);
		facts.cuda = cuda;
	}
	for (size_t i = 0; i < in->inv->hw.ngpus; i++) {
		const struct hw_pci_fn *g = &in->inv->hw.gpus[i];
		const struct kb_gpu *k = in->kb && g->device >= 0 ?
			kb_gpu_by_pci(in->kb, (unsigned)g->vendor, (unsigned)g->device) : NULL;

		if (k && k->cc_major >= 0 && !facts.arch) {
			snprintf(arch, sizeof(arch), "%d.%d", k->cc_major, k->cc_minor);
			facts.arch = arch;
			/* NVML's brand name for GeForce cards; the others are not certain */
			if (k->klass && !strcmp(k->klass, "geforce"))
				facts.brand = "geforce";
		}
	}
	for (size_t i = 0; i < c->env.nrequires; i++) {
		const char *r = c->env.requires[i];
		const char *eq = strchr(r, '=');

		if (!eq || ctr_require_eval(eq + 1, &facts, failed, sizeof(failed)) != 0)
			continue;
		if (!f)
			f = report_add(rep, LAYER_CONTAINERS, "containers.requirements",
				       CAUSE_CONTAINER_REQUIREMENT_UNSATISFIED, REACH_WORK,
				       "the image requires %s; this host does not meet it", failed);
		finding_evidence(f, "%s%s", r, !strncmp(r, "CUDA_VERSION=", 13) ?
				 " (a legacy image: CUDA_VERSION without NVIDIA_REQUIRE_CUDA)" : "");
	}
	if (!f)
		return;
	finding_evidence(f, "the host: driver %s%s%s%s%s", kver ? kver : "unknown",
			 facts.cuda ? ", CUDA " : "", facts.cuda ? facts.cuda : "",
			 facts.arch ? ", compute capability " : "", facts.arch ? facts.arch : "");
	finding_evidence(f, "%s", c->env.require_disabled ?
			 "NVIDIA_DISABLE_REQUIRE is set: the toolkit did not check it" :
			 "the toolkit's hook refuses this (\"unsatisfied condition\"); the container "
			 "was started without that check (CDI, or another runtime)");
	finding_fix_note(f, "install a host driver that supports the image's CUDA (or newer), or run "
			 "an image built for CUDA %s or older", facts.cuda ? facts.cuda : "of the host");
}

void rc_judge_revoked(const struct rules_in *in, struct report *rep)
{
	const struct containers_inventory *c = &in->inv->containers;
	struct finding *f = NULL;

	for (size_t i = 0; i < c->nnodes; i++) {
		const struct ctr_node *n = &c->nodes[i];

		if (n->open_errno != EPERM)
			continue;
		if (!f)
			f = report_add(rep, LAYER_CONTAINERS, "containers.device-cgroup",
				       CAUSE_CONTAINER_DEVICE_REVOKED, REACH_WORK,
				       "the NVIDIA device nodes are here but the device cgroup refuses "
				       "to open them");
		finding_evidence(f, "open(%s, O_RDWR): %s", n->path, strerror(EPERM));
	}
	if (!f && c->cgroup_allows_nvidia == 0 && c->nnodes) {
		f = report_add(rep, LAYER_CONTAINERS, "containers.device-cgroup",
			       CAUSE_CONTAINER_DEVICE_REVOKED, REACH_WORK,
			       "the NVIDIA device nodes are here but the device cgroup does not "
			       "allow them");
	}
	if (!f)
		return;
	if (c->cgroup_devices_evidence)
		finding_evidence(f, "%s", c->cgroup_devices_evidence);
	finding_evidence(f, "nvidia-smi here prints \"Failed to initialize NVML: Unknown Error\"; "
			 "typically after systemctl daemon-reload on the host");
	finding_fix(f, c->engine == CTR_ENGINE_DOCKER ?
		    "recreate this container (a restart re-applies the device rules); to stop it "
		    "recurring, on the host: sudo nvidia-ctk system create-dev-char-symlinks "
		    "--create-all, or set \"exec-opts\": [\"native.cgroupdriver=cgroupfs\"] in "
		    "/etc/docker/daemon.json" :
		    "recreate this container (a restart re-applies the device rules); to stop it "
		    "recurring, on the host: sudo nvidia-ctk system create-dev-char-symlinks "
		    "--create-all");
}

static int image_own_libcuda(const struct containers_inventory *c, const struct ctr_lib *l)
{
	return !l->compat && !strncmp(l->name, "libcuda.so.", 11) &&
	       (l->bind_mounted == 0 || (c->image_root && l->bind_mounted < 0));
}

void rc_judge_libs(const struct rules_in *in, struct report *rep)
{
	const struct containers_inventory *c = &in->inv->containers;
	const char *kver = rc_kmod_version(in->inv);
	struct finding *mis = NULL, *own = NULL;
	int own_mismatch = 0, nown = 0;

	for (size_t i = 0; i < c->nlibs; i++) {
		const struct ctr_lib *l = &c->libs[i];

		if (image_own_libcuda(c, l)) {
			nown++;
			own_mismatch |= kver && l->version && strcmp(kver, l->version);
		}
	}
	if (nown)
		own = report_add(rep, LAYER_CONTAINERS, "containers.image-libcuda",
				 CAUSE_IMAGE_SHIPS_LIBCUDA, own_mismatch ? REACH_WORK : REACH_LATENT,
				 "the image carries its own libcuda%s", own_mismatch ?
				 ", of another version than the kernel module" : "");
	for (size_t i = 0; i < c->nlibs; i++) {
		const struct ctr_lib *l = &c->libs[i];

		if (l->compat)
			continue;
		if (image_own_libcuda(c, l)) {
			finding_evidence(own, "%s (version %s)%s", l->path,
					 l->version ? l->version : "unknown",
					 c->image_root ? "" : ": a file of the image, not a bind mount "
					 "from the host (/proc/self/mountinfo)");
			continue;
		}
		if (!kver || !l->version || !strcmp(kver, l->version))
			continue;
		if (!mis)
			mis = report_add(rep, LAYER_CONTAINERS, "containers.driver-libs",
					 CAUSE_CONTAINER_DRIVER_LIBS_MISMATCH, REACH_WORK,
					 "driver libraries here are not the kernel module's version %s", kver);
		finding_evidence(mis, "%s is version %s%s", l->path, l->version,
				 l->bind_mounted == 1 ? " (bind-mounted from the host when the "
				 "container started)" : "");
	}
	if (mis) {
		finding_evidence(mis, "the loaded nvidia module is %s", kver);
		finding_fix(mis, "the host's driver changed after this container started, or the image "
			    "carries driver libraries: recreate the container (the runtime injects the "
			    "host's libraries, of the loaded module's version) and remove driver libraries from "
			    "the image");
	}
	if (own) {
		if (own_mismatch)
			finding_evidence(own, "the loaded nvidia module is %s: the image's copy does not "
					 "match it", kver);
		else
			finding_evidence(own, "it works only on hosts whose driver is exactly its version");
		finding_fix(own, "remove libcuda.so* and libnvidia-ml.so* from the image (purge the "
			    "libnvidia-compute package in its Dockerfile) and let the NVIDIA runtime "
			    "inject the host's");
	}
}

/* Does any GPU of the machine lack forward compatibility? 1 yes, 0 all have it, -1 unknown. */
static int gpu_lacks_forward_compat(const struct rules_in *in, const char **name)
{
	const struct hw_inventory *hw = &in->inv->hw;
	int any = -1;

	for (size_t i = 0; i < hw->ngpus; i++) {
		const struct hw_pci_fn *g = &hw->gpus[i];
		const struct kb_gpu *k = in->kb && g->device >= 0 ?
			kb_gpu_by_pci(in->kb, (unsigned)g->vendor, (unsigned)g->device) : NULL;

		if (!k || k->datacenter < 0)
			continue;
		if (k->datacenter == 0) {
			*name = k->name;
			return 1;
		}
		any = 0;
		*name = k->name;
	}
	return any;
}

/*
 * A compat libcuda matters only when something puts it on the loader's path:
 * an ld.so.conf.d entry or LD_LIBRARY_PATH now, or the toolkit's
 * enable-cuda-compat hook, which does so when the compat driver is newer
 * than the host's.  Older or equal, it is never used (every nvidia/cuda
 * image carries one).
 */
static int compat_matters(const struct ctr_lib *l, const char *kver)
{
	if (l->on_loader_path == 1)
		return 1;
	return !kver || !l->version || version_cmp_str(l->version, kver) > 0;
}

void rc_judge_compat(const struct rules_in *in, struct report *rep)
{
	const struct containers_inventory *c = &in->inv->containers;
	const char *kver = rc_kmod_version(in->inv);
	const char *gpu = NULL;
	int lacks = gpu_lacks_forward_compat(in, &gpu);
	struct finding *f = NULL;
	int on_path = 0;

	for (size_t i = 0; i < c->nlibs; i++)
		on_path |= c->libs[i].compat && c->libs[i].on_loader_path == 1;
	for (size_t i = 0; i < c->nlibs; i++) {
		const struct ctr_lib *l = &c->libs[i];

		if (!l->compat)
			continue;
		if (lacks != 1 || !compat_matters(l, kver)) {
			/* a datacenter GPU, or no GPU known: forward compatibility may apply */
			if (!f)
				f = report_ok(rep, LAYER_CONTAINERS, "containers.cuda-compat",
					      "cuda-compat libcuda present (%s)", lacks == 0 ?
					      "usable: forward compatibility works on this datacenter GPU" :
					      lacks == 1 ? "not newer than the host's driver: never used" :
					      "forward compatibility works only on datacenter GPUs");
			finding_evidence(f, "%s (version %s)", l->path, l->version ? l->version : "?");
			continue;
		}
		if (!f)
			f = report_add(rep, LAYER_CONTAINERS, "containers.cuda-compat",
				       CAUSE_CUDA_COMPAT_UNUSABLE, on_path ? REACH_WORK : REACH_LATENT,
				       "cuda-compat is installed but the %s cannot use forward "
				       "compatibility", gpu);
		finding_evidence(f, "%s (version %s)%s", l->path, l->version ? l->version : "?",
				 l->on_loader_path == 1 ? ": on the loader's path (ld.so.conf.d or "
				 "LD_LIBRARY_PATH)" : ": newer than the host's driver, so the toolkit's "
				 "enable-cuda-compat hook or LD_LIBRARY_PATH would put it on the path");
	}
	if (f && lacks == 1) {
		finding_evidence(f, "forward compatibility works only on datacenter GPUs, select "
				 "NGC-ready RTX and Jetson; elsewhere CUDA fails with "
				 "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE (804)");
		finding_fix(f, "take the compat directory off the loader's path: sudo rm the "
			    "/etc/ld.so.conf.d entry naming it && sudo ldconfig, and unset it from "
			    "LD_LIBRARY_PATH; use a host driver new enough for the image's CUDA instead");
	}
}

void rc_judge_shm_memlock(const struct rules_in *in, struct report *rep)
{
	const struct containers_inventory *c = &in->inv->containers;
	char h[32];
	struct finding *f;

	if (c->shm_bytes >= 0 && c->shm_bytes < SHM_NEEDED) {
		f = report_add(rep, LAYER_CONTAINERS, "containers.shm", CAUSE_SHM_TOO_SMALL,
			       REACH_WORK, "/dev/shm is %s: too small for DataLoader workers and NCCL",
			       human(c->shm_bytes, h, sizeof(h)));
		finding_evidence(f, "/dev/shm: %lld bytes (%s)", c->shm_bytes, c->shm_source);
		finding_evidence(f, "NCCL asks for --shm-size=1g in containers; DataLoader workers "
				 "die with \"Bus error\" when it fills");
		if (c->in_container)
			fix_run_flag(f, c->engine, "--shm-size=1g (or --ipc=host)",
				     "mount an emptyDir {medium: Memory, sizeLimit: 1Gi} at /dev/shm");
		else
			finding_fix(f, "sudo mount -o remount,size=2G /dev/shm (and set the size in "
				    "/etc/fstab)");
	}
	/* RLIMIT_MEMLOCK matters for RDMA registration; NCCL asks containers for unlimited */
	if (c->memlock_soft >= 0 && (c->in_container || c->rdma_devices)) {
		f = report_add(rep, LAYER_CONTAINERS, "containers.memlock", CAUSE_MEMLOCK_LIMITED,
			       REACH_WORK, "RLIMIT_MEMLOCK is %s, not unlimited",
			       human(c->memlock_soft, h, sizeof(h)));
		if (c->memlock_hard >= 0)
			finding_evidence(f, "/proc/self/limits: Max locked memory %lld bytes (soft), "
					 "%lld (hard)", c->memlock_soft, c->memlock_hard);
		else
			finding_evidence(f, "/proc/self/limits: Max locked memory %lld bytes (soft), "
					 "%s (hard)", c->memlock_soft, c->memlock_hard == -2 ?
					 "unlimited" : "unknown");
		finding_evidence(f, "%d RDMA device%s (/dev/infiniband/uverbs*): %s", c->rdma_devices,
				 c->rdma_devices == 1 ? "" : "s", c->rdma_devices ?
				 "NCCL's InfiniBand transport pins memory against this limit" :
				 "none here, but NCCL's documentation asks containers for memlock=-1");
		if (c->in_container)
			fix_run_flag(f, c->engine, "--ulimit memlock=-1",
				     "set LimitMEMLOCK=infinity in the container runtime's systemd unit "
				     "(containerd.service) and restart it");
		else
			finding_fix(f, "echo '* - memlock unlimited' | sudo tee "
				    "/etc/security/limits.d/90-memlock.conf (and LimitMEMLOCK=infinity "
				    "for services), then log in again");
	}
}
