/*
 * rules_containers.c - verdicts for the containers layer.
 *
 * The layer sits between kernel and devices: inside a container the NVIDIA
 * runtime is what creates the /dev/nvidia* nodes and bind-mounts the driver
 * libraries the layers above check, so a container started without the
 * GPU, with capabilities lacking compute, or with its device access revoked
 * is the first broken link, and the devices and driver layers above are
 * blocked by it instead of failing on its consequences.
 *
 * Inside a container (or over an unpacked image, where nothing was
 * injected and only the image's own files are judged):
 *   what NVIDIA_VISIBLE_DEVICES / _DRIVER_CAPABILITIES ask for vs what is
 *   there, nodes revoked by the device cgroup, driver libraries of another
 *   version than the kernel module, an image's own libcuda, cuda-compat on
 *   a GPU without forward compatibility, /dev/shm and RLIMIT_MEMLOCK.
 * On a host: the engines and the toolkit, their configs, the CDI specs,
 *   the /dev/char links.  Host problems are latent (containers that are not
 *   running yet meet them), so the policy makes them warnings.
 *
 * Every fix is written for the engine in use, values from the machine
 * shell-quoted (core/shquote.h).
 *
 * This file holds the layer's frame and summary; the checks inside a
 * container are rules_ctr_inside.c's, those on a host rules_ctr_host.c's
 * (rules_ctr.h).
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


void rules_containers(const struct rules_in *in, struct report *rep)
{
	const struct containers_inventory *c = &in->inv->containers;
	size_t first = rep->n;
	size_t bad = 0;

	if (!c->probed) {
		report_skip(rep, LAYER_CONTAINERS, "containers", "the containers probe did not run");
		return;
	}
	if (c->image_root) {
		struct finding *f = report_ok(rep, LAYER_CONTAINERS, "containers.image",
					      "an unpacked image: nothing was injected into it, its own "
					      "files are checked");

		finding_evidence(f, "%s has no /proc/modules and no /sys/bus/pci: not a running "
				 "machine", in->ctx->root);
		rc_judge_libs(in, rep);
		rc_judge_compat(in, rep);
	} else if (c->in_container) {
		struct rc_seen s;
		struct finding *f;

		rc_count(c, &s);
		f = report_ok(rep, LAYER_CONTAINERS, "containers.detected", "inside a %s container%s%s",
			      ctr_engine_name(c->engine), c->engine_detail ? " " : "",
			      c->engine_detail ? c->engine_detail : "");
		finding_evidence(f, "%s", c->markers);
		rc_env_evidence(f, &c->env);
		if (c->env.visible == CTR_VIS_LIST && s.gpu_nodes != c->env.ndevices)
			finding_evidence(f, "NVIDIA_VISIBLE_DEVICES names %zu device%s, %zu GPU node%s "
					 "are here (MIG devices have no /dev/nvidiaN of their own)",
					 c->env.ndevices, c->env.ndevices == 1 ? "" : "s", s.gpu_nodes,
					 s.gpu_nodes == 1 ? "" : "s");
		finding_evidence(f, "%zu GPU node%s, %s, libcuda %s", s.gpu_nodes,
				 s.gpu_nodes == 1 ? "" : "s", s.ctl ? "/dev/nvidiactl" : "no /dev/nvidiactl",
				 s.libcuda_injected ? "bind-mounted from the host" :
				 s.libcuda ? "present" : "absent");
		rc_judge_injection(in, rep, &s);
		rc_judge_requires(in, rep);
		rc_judge_revoked(in, rep);
		rc_judge_libs(in, rep);
		rc_judge_compat(in, rep);
		rc_judge_shm_memlock(in, rep);
	} else {
		rc_judge_host(in, rep);
		rc_judge_compat(in, rep);
		rc_judge_shm_memlock(in, rep);
	}
	for (size_t i = first; i < rep->n; i++)
		bad += rep->findings[i].status == STATUS_WARN || rep->findings[i].status == STATUS_FAIL;
	if (c->image_root)
		report_set_summary(rep, LAYER_CONTAINERS, "unpacked image%s", bad ? ": problems found" :
				   ": no driver files of its own");
	else if (c->in_container)
		report_set_summary(rep, LAYER_CONTAINERS, "inside a %s container; %zu problem%s",
				   ctr_engine_name(c->engine), bad, bad == 1 ? "" : "s");
	else if (bad)
		report_set_summary(rep, LAYER_CONTAINERS, "host: %zu container problem%s", bad,
				   bad == 1 ? "" : "s");
	else
		report_set_summary(rep, LAYER_CONTAINERS, "%s", rep->n > first ?
				   rep->findings[first].title : "not in a container; nothing to check");
}
