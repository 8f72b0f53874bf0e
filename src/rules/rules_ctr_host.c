/*
 * rules_ctr_host.c - the containers layer on a host (rules_ctr.h): the
 * engines and the NVIDIA Container Toolkit, their configs and its errors,
 * the CDI specs against the driver, the /dev/char links.  Host problems
 * are latent (containers that are not running yet meet them), so the
 * policy makes them warnings.  Called by rules_containers.c.
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


static void judge_cdi(const struct rules_in *in, struct report *rep)
{
	const struct ctr_host *h = &in->inv->containers.host;
	const char *kver = rc_kmod_version(in->inv);

	for (size_t i = 0; i < h->nspecs; i++) {
		const struct cdi_spec *s = &h->specs[i];
		struct finding *f = NULL;
		struct buf id = BUF_INIT;
		size_t missing = 0;

		buf_printf(&id, "containers.cdi.%s", s->file);
		if (s->error) {
			f = report_add(rep, LAYER_CONTAINERS, id.s, CAUSE_CONTAINER_CONFIG_INVALID,
				       REACH_LATENT, "the CDI spec %s cannot be loaded", s->file);
			finding_evidence(f, "%s: %s", s->file, s->error);
			finding_fix_cmd(f, "sudo", "nvidia-ctk", "cdi", "generate", "--output=", FIX_GLUE, s->file, NULL);
			buf_release(&id);
			continue;
		}
		for (size_t k = 0; k < s->npaths; k++) {
			const struct cdi_path *p = &s->paths[k];
			int again = 0;

			for (size_t m = 0; m < k && !again; m++)
				again = !strcmp(s->paths[m].path, p->path);
			if (p->exists != 0 || again)
				continue;
			if (!f)
				f = report_add(rep, LAYER_CONTAINERS, id.s, CAUSE_CDI_SPEC_STALE,
					       REACH_LATENT, "the CDI spec %s is stale", s->file);
			if (missing++ < 8)
				finding_evidence(f, "%s %s%s%s does not exist", p->what, p->path,
						 p->device ? " of device " : "", p->device ? p->device : "");
		}
		if (missing > 8)
			finding_evidence(f, "... %zu missing paths in all", missing);
		for (size_t k = 0; kver && k < s->nlib_versions; k++) {
			if (!strcmp(s->lib_versions[k], kver))
				continue;
			if (!f)
				f = report_add(rep, LAYER_CONTAINERS, id.s, CAUSE_CDI_SPEC_STALE,
					       REACH_LATENT, "the CDI spec %s is stale", s->file);
			finding_evidence(f, "it mounts driver libraries of version %s; the loaded "
					 "module is %s", s->lib_versions[k], kver);
		}
		if (kver && s->host_driver_version && strcmp(s->host_driver_version, kver)) {
			if (!f)
				f = report_add(rep, LAYER_CONTAINERS, id.s, CAUSE_CDI_SPEC_STALE,
					       REACH_LATENT, "the CDI spec %s is stale", s->file);
			finding_evidence(f, "it was generated for driver %s (enable-cuda-compat "
					 "--host-driver-version); the loaded module is %s",
					 s->host_driver_version, kver);
		}
		if (f)
			finding_fix_cmd(f, "sudo", "nvidia-ctk", "cdi", "generate", "--output=", FIX_GLUE, s->file, NULL);
		else
			report_ok(rep, LAYER_CONTAINERS, id.s, "CDI spec %s (%s, %zu devices) matches "
				  "the machine", s->file, s->kind, s->ndevices);
		buf_release(&id);
	}
	/* the same kind=name in two places */
	for (size_t i = 0; i < h->nspecs; i++) {
		const struct cdi_spec *a = &h->specs[i];

		for (size_t d = 0; d < a->ndevices; d++) {
			for (size_t j = i; j < h->nspecs; j++) {
				const struct cdi_spec *b = &h->specs[j];
				size_t from = j == i ? d + 1 : 0;

				if (!a->kind || !b->kind || strcmp(a->kind, b->kind))
					continue;
				for (size_t e = from; e < b->ndevices; e++) {
					struct finding *f;

					if (strcmp(a->devices[d], b->devices[e]))
						continue;
					f = report_add(rep, LAYER_CONTAINERS, "containers.cdi-duplicate",
						       CAUSE_CDI_SPEC_DUPLICATE_DEVICE, REACH_LATENT,
						       "CDI device %s=%s is defined twice", a->kind,
						       a->devices[d]);
					finding_evidence(f, "in %s and in %s", a->file, b->file);
					finding_fix_cmd(f, "sudo", "rm", b->file, NULL);
					finding_fix_note(f, "keep one spec for the kind; then regenerate the other one with "
							 "nvidia-ctk cdi generate if it is stale");
					return;	/* one is enough to act on */
				}
			}
		}
	}
}

static void judge_config_errors(const struct rules_in *in, struct report *rep)
{
	const struct ctr_host *h = &in->inv->containers.host;
	struct finding *f;

	if (h->toolkit_config == -1) {
		f = report_add(rep, LAYER_CONTAINERS, "containers.toolkit-config",
			       CAUSE_CONTAINER_CONFIG_INVALID, REACH_LATENT,
			       "the NVIDIA Container Toolkit's config.toml cannot be read");
		finding_evidence(f, "%s", h->toolkit_config_error);
		finding_fix(f, "fix the line named above in /etc/nvidia-container-runtime/config.toml, "
			    "or regenerate it: sudo nvidia-ctk config default --output="
			    "/etc/nvidia-container-runtime/config.toml");
	}
	if (h->docker_config == -1) {
		f = report_add(rep, LAYER_CONTAINERS, "containers.docker-config",
			       CAUSE_CONTAINER_CONFIG_INVALID, REACH_LATENT,
			       "Docker's daemon.json cannot be read: dockerd will not start");
		finding_evidence(f, "%s", h->docker_config_error);
		finding_fix(f, "fix /etc/docker/daemon.json (python3 -m json.tool "
			    "/etc/docker/daemon.json shows the error), then sudo nvidia-ctk runtime "
			    "configure --runtime=docker && sudo systemctl restart docker");
	}
	if (h->containerd_config == -1) {
		f = report_add(rep, LAYER_CONTAINERS, "containers.containerd-config",
			       CAUSE_CONTAINER_CONFIG_INVALID, REACH_LATENT,
			       "containerd's config cannot be read");
		finding_evidence(f, "%s", h->containerd_config_error);
		finding_fix_cmd(f, "sudo", "nvidia-ctk", "runtime", "configure", "--runtime=containerd",
				"--config=", FIX_GLUE, h->containerd_config_file, NULL);
		finding_fix_note(f, "after fixing the file: containerd config dump shows what containerd reads");
	}
}

void rc_judge_host(const struct rules_in *in, struct report *rep)
{
	const struct containers_inventory *c = &in->inv->containers;
	const struct ctr_host *h = &c->host;
	int docker = h->dockerd || h->docker_config == 1;
	int podman = h->podman != NULL;
	int k8s = h->kubelet != NULL;
	int containerd = (h->containerd && !h->dockerd) || k8s || (h->containerd_config == 1 && !docker);
	int toolkit = h->nvidia_ctk || h->nvidia_hook || h->nvidia_container_runtime ||
		      h->nvidia_container_cli;
	struct buf engines = BUF_INIT, ok = BUF_INIT;
	struct finding *f;
	size_t problems_before = rep->n;

	if (docker)
		buf_puts(&engines, "docker");
	if (podman)
		buf_printf(&engines, "%spodman", engines.len ? ", " : "");
	if (containerd)
		buf_printf(&engines, "%s%s", engines.len ? ", " : "", k8s ? "containerd (kubelet)" :
			   "containerd");
	judge_config_errors(in, rep);
	if (!engines.len) {
		if (toolkit)
			f = report_ok(rep, LAYER_CONTAINERS, "containers.host",
				      "the NVIDIA Container Toolkit is installed but no container engine "
				      "(docker, podman, containerd, kubelet)");
		else
			f = report_ok(rep, LAYER_CONTAINERS, "containers.host",
				      "not in a container, and no container runtime on this host");
		finding_evidence(f, "no dockerd, podman, containerd or kubelet in /usr/bin, "
				 "/usr/local/bin, /usr/sbin, /bin, /sbin%s; no /etc/docker/daemon.json",
				 strcmp(in->ctx->root, "/") ? "" : " or $PATH");
		if (c->markers_ignored)
			finding_evidence(f, "%s", c->markers_ignored);
		if (h->nvidia_ctk)
			finding_evidence(f, "nvidia-ctk: %s", h->nvidia_ctk);
		judge_cdi(in, rep);
		buf_release(&engines);
		buf_release(&ok);
		return;
	}
	if (!toolkit && !h->nspecs) {
		f = report_add(rep, LAYER_CONTAINERS, "containers.toolkit", CAUSE_CONTAINER_TOOLKIT_MISSING,
			       REACH_LATENT, "%s installed, but not the NVIDIA Container Toolkit: "
			       "containers cannot get the GPU", engines.s);
		finding_evidence(f, "no nvidia-ctk, nvidia-container-runtime, "
				 "nvidia-container-runtime-hook or nvidia-container-cli; no CDI spec in %s",
				 h->nspec_dirs ? h->spec_dirs[0] : "/etc/cdi");
		if (docker)
			finding_evidence(f, "docker run --gpus all fails with: could not select device "
					 "driver \"\" with capabilities: [[gpu]]");
		finding_fix(f, docker ? "add NVIDIA's repository and sudo apt-get install nvidia-container-toolkit; "
			    "then sudo nvidia-ctk runtime configure --runtime=docker && sudo systemctl restart docker"
			    : containerd ? "add NVIDIA's repository and sudo apt-get install nvidia-container-toolkit; "
			    "then sudo nvidia-ctk runtime configure --runtime=containerd && sudo systemctl restart "
			    "containerd" : "add NVIDIA's repository and sudo apt-get install nvidia-container-toolkit; "
			    "then sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml");
	} else {
		if (docker && !h->nvidia_hook) {
			f = report_add(rep, LAYER_CONTAINERS, "containers.docker",
				       CAUSE_CONTAINER_RUNTIME_MISSING, REACH_LATENT,
				       "Docker cannot give containers the GPU: nvidia-container-runtime-hook "
				       "is not installed");
			finding_evidence(f, "dockerd registers its \"nvidia\" device driver only when "
					 "nvidia-container-runtime-hook is on its PATH; docker run --gpus "
					 "all fails with: could not select device driver \"\" with "
					 "capabilities: [[gpu]]");
			finding_fix(f, "sudo apt-get install nvidia-container-toolkit && sudo nvidia-ctk "
				    "runtime configure --runtime=docker && sudo systemctl restart docker");
		} else if (docker) {
			buf_printf(&ok, "docker: --gpus through %s", h->nvidia_hook);
			if (h->docker_nvidia_runtime)
				buf_puts(&ok, ", --runtime=nvidia configured");
		}
		if (h->toolkit_mode && !strcmp(h->toolkit_mode, "cdi") && !h->nspecs) {
			f = report_add(rep, LAYER_CONTAINERS, "containers.toolkit-cdi",
				       CAUSE_CONTAINER_RUNTIME_MISSING, REACH_LATENT,
				       "nvidia-container-runtime is in cdi mode but there is no CDI spec");
			finding_evidence(f, "/etc/nvidia-container-runtime/config.toml: mode = \"cdi\"; "
					 "nothing in %s%s%s", h->nspec_dirs ? h->spec_dirs[0] : "/etc/cdi",
					 h->nspec_dirs > 1 ? " or " : "", h->nspec_dirs > 1 ? h->spec_dirs[1] : "");
			finding_fix(f, "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml");
		}
		if (docker && h->docker_default_runtime && !strcmp(h->docker_default_runtime, "nvidia") &&
		    !h->docker_nvidia_runtime) {
			f = report_add(rep, LAYER_CONTAINERS, "containers.docker-default",
				       CAUSE_CONTAINER_RUNTIME_MISSING, REACH_LATENT,
				       "daemon.json makes \"nvidia\" the default runtime but defines no "
				       "such runtime");
			finding_evidence(f, "/etc/docker/daemon.json: default-runtime=nvidia; runtimes: "
					 "%zu defined, none runs nvidia-container-runtime",
					 h->ndocker_runtimes);
			finding_fix(f, "sudo nvidia-ctk runtime configure --runtime=docker && sudo "
				    "systemctl restart docker");
		}
		if (containerd && !h->containerd_nvidia_runtime && h->containerd_cdi != 1) {
			f = report_add(rep, LAYER_CONTAINERS, "containers.containerd",
				       CAUSE_CONTAINER_RUNTIME_MISSING, REACH_LATENT,
				       "containerd has no NVIDIA runtime and CDI is off");
			finding_evidence(f, "%s: no runtimes.*.options.BinaryName naming "
					 "nvidia-container-runtime, enable_cdi not true",
					 h->containerd_config_file ? h->containerd_config_file :
					 "/etc/containerd/config.toml (absent: containerd's defaults)");
			finding_fix(f, k8s ? "sudo nvidia-ctk runtime configure --runtime=containerd --set-as-default && "
				    "sudo systemctl restart containerd (Kubernetes: or install the GPU Operator)"
				    : "sudo nvidia-ctk runtime configure --runtime=containerd && sudo systemctl restart "
				    "containerd (Kubernetes: or install the GPU Operator)");
		} else if (containerd) {
			buf_printf(&ok, "%scontainerd: %s", ok.len ? "; " : "",
				   h->containerd_nvidia_runtime ? "NVIDIA runtime configured" : "CDI on");
		}
		if (podman && !h->nspecs && !h->podman_oci_hook) {
			f = report_add(rep, LAYER_CONTAINERS, "containers.podman",
				       CAUSE_CONTAINER_RUNTIME_MISSING, REACH_LATENT,
				       "podman has no CDI spec for the GPUs");
			finding_evidence(f, "no spec in %s%s%s; no oci-nvidia-hook.json",
					 h->nspec_dirs ? h->spec_dirs[0] : "/etc/cdi",
					 h->nspec_dirs > 1 ? " or " : "", h->nspec_dirs > 1 ? h->spec_dirs[1] : "");
			finding_fix(f, "sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml; then "
				    "podman run --device nvidia.com/gpu=all ...");
		} else if (podman) {
			buf_printf(&ok, "%spodman: %s", ok.len ? "; " : "", h->nspecs ?
				   "CDI specs present" : "OCI hook present");
		}
	}
	judge_cdi(in, rep);
	/* /dev/char links: only the host's own nodes, and only where containers run */
	{
		struct finding *lf = NULL;

		for (size_t i = 0; i < c->nnodes; i++) {
			const struct ctr_node *n = &c->nodes[i];

			if (n->is_chr != 1 || n->char_link != 0)
				continue;
			if (!lf)
				lf = report_add(rep, LAYER_CONTAINERS, "containers.dev-char",
						CAUSE_DEV_CHAR_LINKS_MISSING, REACH_LATENT,
						"the NVIDIA device nodes have no /dev/char links");
			finding_evidence(lf, "/dev/char/%ld:%ld -> %s is missing", n->major, n->minor,
					 n->path);
		}
		if (lf) {
			finding_evidence(lf, "containers managed by the systemd cgroup driver lose these "
					 "devices on systemctl daemon-reload (cgroup v%d here)",
					 h->cgroup_version > 0 ? h->cgroup_version : 0);
			finding_fix(lf, "sudo nvidia-ctk system create-dev-char-symlinks --create-all");
		}
	}
	if (rep->n == problems_before || ok.len) {
		f = report_ok(rep, LAYER_CONTAINERS, "containers.host", "container engines: %s%s%s",
			      engines.s, ok.len ? "; " : "", ok.len ? ok.s : "");
		if (h->nvidia_ctk)
			finding_evidence(f, "nvidia-ctk: %s", h->nvidia_ctk);
		if (h->toolkit_mode)
			finding_evidence(f, "nvidia-container-runtime mode: %s", h->toolkit_mode);
	}
	buf_release(&engines);
	buf_release(&ok);
}
