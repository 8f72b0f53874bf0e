/*
 * plan_driver.c - the distribution and the driver of a plan (plan_parts.h):
 * which distribution os-release names (only [a-z0-9.] of it goes into a
 * repository name), the lowest driver of the tables with which the target
 * runs, and the commands that install a driver branch there, machine
 * values shell-quoted.
 */
#include "plan/plan.h"
#include "plan/plan_parts.h"
#include "core/shquote.h"
#include "core/version.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the distribution ---- */

static int word_in(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; p && *p;) {
		size_t k = strcspn(p, " ");

		if (k == n && !strncmp(p, w, n))
			return 1;
		p += k + (p[k] == ' ');
	}
	return 0;
}

/* Only [a-z0-9.] goes into a repository name built from os-release (hostile input). */
static int clean_token(const char *s)
{
	if (!s || !*s || strlen(s) > 16)
		return 0;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '.')
			return 0;
	return 1;
}

void pb_distribution(const struct plan_machine *m, struct plan *p)
{
	const char *id = m->os_id, *v = m->os_version;
	char major[8] = "", nodot[16] = "";

	if (!clean_token(id) || !clean_token(v))
		return;
	snprintf(major, sizeof(major), "%.*s", (int)strcspn(v, "."), v);
	for (size_t i = 0, k = 0; v[i] && k + 1 < sizeof(nodot); i++)
		if (v[i] != '.')
			nodot[k++] = v[i], nodot[k] = '\0';
	if (!strcmp(id, "ubuntu")) {
		snprintf(p->family, sizeof(p->family), "debian");
		snprintf(p->repo, sizeof(p->repo), "ubuntu%s", nodot);
	} else if (!strcmp(id, "debian")) {
		snprintf(p->family, sizeof(p->family), "debian");
		snprintf(p->repo, sizeof(p->repo), "debian%s", major);
	} else if (!strcmp(id, "fedora")) {
		snprintf(p->family, sizeof(p->family), "rhel");
		snprintf(p->repo, sizeof(p->repo), "fedora%s", major);
	} else if (!strcmp(id, "rhel") || !strcmp(id, "rocky") || !strcmp(id, "almalinux") ||
		   !strcmp(id, "centos") || !strcmp(id, "ol") || word_in(m->os_like, "rhel")) {
		snprintf(p->family, sizeof(p->family), "rhel");
		snprintf(p->repo, sizeof(p->repo), "rhel%s", major);
	} else if (word_in(m->os_like, "debian") || word_in(m->os_like, "ubuntu")) {
		/* a derivative: NVIDIA's repository of its base is not known from here */
		snprintf(p->family, sizeof(p->family), "debian");
	}
}

/* ---- the driver ---- */

/* The lowest driver of the tables with which the release says yes on this GPU. */
const char *pb_lowest_driver(const struct kb *kb, const struct pb_target *t, const struct kb_target *base)
{
	const char *best = NULL;
	size_t n = kb_cuda_count(kb) + 4;

	for (size_t i = 0; i < n; i++) {
		struct kb_target tg = *base;
		struct kb_fit f;
		const char *d;

		if (i < kb_cuda_count(kb))
			d = kb_cuda_at(kb, i)->linux_min;
		else if (i - kb_cuda_count(kb) < 3)
			d = kb_cuda_compat_floor(kb, 11 + (int)(i - kb_cuda_count(kb)));
		else
			d = kb_gpu_first_driver(kb, base->gpu);
		if (!d || (best && version_cmp_str(d, best) >= 0))
			continue;
		tg.driver = d;
		if (pb_fit_of(kb, t, &tg, &f) == 1)
			best = d;
	}
	return best;
}

void pb_driver_commands(const struct plan *p, const struct plan_machine *m, struct plan_step *s, int branch,
			    int open_ok)
{
	if (m->nouveau_loaded == 1) {
		pb_cmd(s, "printf 'blacklist nouveau\\noptions nouveau modeset=0\\n' | sudo tee "
		    "/etc/modprobe.d/blacklist-nouveau.conf");
		pb_cmd(s, "%s", !strcmp(p->family, "rhel") ? "sudo dracut --force" : "sudo update-initramfs -u");
	}
	if (!strcmp(p->family, "debian")) {
		pb_cmd(s, "sudo apt-get update");
		pb_cmd(s, "sudo apt-get install -y linux-headers-\"$(uname -r)\" dkms wget");
		pb_cmd(s, "wget -O /tmp/cuda-keyring.deb https://developer.download.nvidia.com/compute/cuda/repos/%s/"
		    "x86_64/cuda-keyring_1.1-1_all.deb", p->repo);
		pb_cmd(s, "sudo dpkg -i /tmp/cuda-keyring.deb");
		pb_cmd(s, "sudo apt-get update");
		pb_cmd(s, "sudo apt-get install -y cuda-drivers-%d", branch);
	} else {
		pb_cmd(s, "sudo dnf install -y kernel-devel-\"$(uname -r)\" kernel-headers dnf-plugins-core");
		pb_cmd(s, "sudo dnf config-manager --add-repo https://developer.download.nvidia.com/compute/cuda/repos/"
		    "%s/x86_64/cuda-%s.repo", p->repo, p->repo);
		if (!strncmp(p->repo, "rhel", 4))
			pb_cmd(s, "sudo dnf -y module install nvidia-driver:%d-%s", branch, open_ok ? "open" : "dkms");
		else
			pb_cmd(s, "sudo dnf -y install cuda-drivers-%d", branch);
	}
	s->reboot = 1;
}
