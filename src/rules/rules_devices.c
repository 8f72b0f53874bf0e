/*
 * rules_devices.c - verdicts for the devices layer: can the user running
 * gpudoctor open the nodes CUDA opens.
 *
 * A missing node fails, with two softenings:
 *  - on a host where libcuda can create nodes itself (setuid nvidia-modprobe,
 *    or we are root) a missing node warns: it appears on first CUDA use;
 *  - in a container that sees some of the host's GPUs, the /dev/nvidiaN of
 *    the GPUs not given to it are expected to be absent (its /sys still lists
 *    every GPU of the host).
 * Inside a container the fix is the runtime's job (--gpus all).
 */
#include "rules/rules.h"
#include "rules/rules_platform.h"
#include "core/buf.h"
#include "inventory/inventory.h"

#include <stdio.h>
#include <string.h>

static int on_demand(const struct rules_in *in)
{
	const struct kernel_inventory *k = &in->inv->kernel;

	if (in->inv->devices.in_container)
		return 0;
	return k->nvidia_modprobe == 1 || (k->nvidia_modprobe == 0 && in->inv->devices.euid == 0);
}

static const char *node_name(const struct dev_node *d)
{
	return d->path + 5;	/* past "/dev/" */
}

static void fix_missing(const struct rules_in *in, struct finding *f)
{
	const struct devices_inventory *dv = &in->inv->devices;

	if (dv->in_container)
		finding_fix(f, "the container runtime injects the nodes: run the container with "
			    "--gpus all (docker) or --device nvidia.com/gpu=all (podman with CDI), "
			    "with the NVIDIA Container Toolkit installed on the host");
	else
		finding_fix(f, "sudo nvidia-modprobe -c 0 -u (creates /dev/nvidiactl, "
			    "/dev/nvidia0 and /dev/nvidia-uvm; -c N for GPU N)");
}

void rules_devices(const struct rules_in *in, struct report *rep)
{
	const struct devices_inventory *dv = &in->inv->devices;
	size_t gpu_nodes = 0, gpu_present = 0, ok = 0, problems = 0;
	struct buf id = BUF_INIT, names = BUF_INIT;

	if (rules_platform_devices(in, rep))
		return;		/* WSL: /dev/dxg, not /dev/nvidia* */
	for (size_t i = 0; i < dv->n; i++) {
		if (dv->nodes[i].bdf) {
			gpu_nodes++;
			gpu_present += dv->nodes[i].present && dv->nodes[i].is_chr == 1;
		}
	}
	for (size_t i = 0; i < dv->n; i++) {
		const struct dev_node *d = &dv->nodes[i];
		struct finding *f;

		buf_reset(&id);
		buf_printf(&id, "devices.%s", node_name(d));
		if (!d->present) {
			/* nodes the driver creates on first use are latent */
			enum reach reach = on_demand(in) ? REACH_LATENT : REACH_WORK;

			if (!d->required)
				continue;
			if (d->bdf && dv->in_container && gpu_present > 0)
				continue;	/* a GPU not given to this container */
			problems++;
			f = report_add(rep, LAYER_DEVICES, id.s, CAUSE_DEVICE_NODE_MISSING, reach,
				       "%s does not exist", d->path);
			finding_evidence(f, "stat %s: %s", d->path, d->why ? d->why :
					 "No such file or directory");
			if (d->bdf)
				finding_evidence(f, "it is the node of GPU %s", d->bdf);
			if (dv->in_container)
				finding_evidence(f, "inside a container (%s exists)",
						 dv->container_marker);
			else if (reach == REACH_LATENT)
				finding_evidence(f, "libcuda creates it on first use through %s",
						 in->inv->kernel.nvidia_modprobe_path);
			fix_missing(in, f);
			continue;
		}
		if (d->is_chr != 1) {
			problems++;
			f = report_add(rep, LAYER_DEVICES, id.s, CAUSE_DEVICE_NODE_MISSING, REACH_WORK,
				       "%s is not a character device", d->path);
			finding_evidence(f, "%s exists with mode %04lo but is not a character device "
					 "(a file or directory left by a bad bind mount?)",
					 d->path, d->mode);
			if (dv->in_container) {
				finding_fix_cmd(f, "sudo", "rm", "-rf", d->path, NULL);
				finding_fix_note(f, "then restart the container with --gpus all");
			} else {
				finding_fix_cmd(f, "sudo", "rm", "-rf", d->path, FIX_AND, "sudo", "nvidia-modprobe", "-c", "0",
						"-u", NULL);
			}
			continue;
		}
		if (d->usable == 0) {
			problems++;
			f = report_add(rep, LAYER_DEVICES, id.s, CAUSE_DEVICE_NODE_PERMISSION, REACH_WORK,
				       "%s cannot be opened for reading and writing by uid %ld",
				       d->path, dv->euid);
			finding_evidence(f, "%s: %s", d->path, d->why ? d->why : "not permitted");
			finding_fix_cmd(f, "sudo", "chmod", "0666", FIX_SH, "/dev/nvidia*", NULL);
			finding_fix_note(f, "or add the user to group %ld: sudo usermod -aG $(getent group %ld | cut -d: -f1) "
					 "$USER, then log in again", d->gid, d->gid);
			continue;
		}
		ok++;
		if (names.len)
			buf_puts(&names, ", ");
		buf_puts(&names, node_name(d));
	}
	if (ok) {
		struct finding *f = report_ok(rep, LAYER_DEVICES, "devices.nodes",
					       "%s present and usable by uid %ld", names.s, dv->euid);

		for (size_t i = 0; i < dv->n; i++) {
			const struct dev_node *d = &dv->nodes[i];

			if (d->present && d->is_chr == 1 && d->usable != 0)
				finding_evidence(f, "%s: char %ld:%ld mode %04lo owner %ld group %ld",
						 d->path, d->major, d->minor, d->mode, d->uid, d->gid);
		}
		if (dv->in_container && gpu_present < gpu_nodes)
			finding_evidence(f, "this container was given %zu of the %zu GPUs its /sys "
					 "lists", gpu_present, gpu_nodes);
	}
	if (!problems)
		report_set_summary(rep, LAYER_DEVICES, "%s present and usable", names.len ? names.s :
				   "no nodes");
	else
		report_set_summary(rep, LAYER_DEVICES, "%zu node%s missing or unusable", problems,
				   problems == 1 ? "" : "s");
	buf_release(&id);
	buf_release(&names);
}
