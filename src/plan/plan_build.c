/*
 * plan_build.c - decide the steps of `gpudoctor plan` from the machine's
 * facts (plan_machine.c) and the knowledge base.  The framework release is
 * judged with the same fit functions as `matrix` (knowledge/kb_fit.c), so a
 * plan never installs what the version contract says fails.  Commands are
 * built here; every value that comes from the machine is shell-quoted
 * (core/shquote.h).
 *
 * This file orders the steps and writes their commands; the plan's steps,
 * notes and commands are kept by plan_steps.c, the framework release is
 * chosen by plan_target.c, the distribution's repository and the driver's
 * packages are plan_driver.c's (plan_parts.h).
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

/* The branch installed when nothing forces another: the current long-term
 * data-center branch (branches.tsv: R580, end of life 2028-06). */
#define PLAN_DEFAULT_BRANCH 580

/* ---- the steps ---- */

static void step_interference(const struct plan_machine *m, const struct pb_target *t, struct plan *p)
{
	struct plan_step *s = pb_step(p, "interference", PLAN_TODO, NULL, "clear what interferes with the install");
	struct buf v = BUF_INIT;
	int any = 0;

	for (size_t i = 0; i < m->nconda_cudnn; i++) {
		pb_why(s, "LD_LIBRARY_PATH lists %s, a conda cuDNN that the loader would take before the one the "
		    "framework brings (cuDNN's shim loads its sub-libraries through LD_LIBRARY_PATH);", shq(m->conda_cudnn_dirs[i]));
		pb_cmd(s, "LD_LIBRARY_PATH=\"$(printf '%%s' \"${LD_LIBRARY_PATH:-}\" | tr ':' '\\n' | grep -vxF %s | "
		    "paste -sd: -)\"", shq(m->conda_cudnn_dirs[i]));
		buf_printf(&v, "%s! printf '%%s' \"${LD_LIBRARY_PATH:-}\" | tr ':' '\\n' | grep -qxF %s", v.len ? " && " : "",
			   shq(m->conda_cudnn_dirs[i]));
		any = 1;
	}
	if (m->nconda_cudnn)
		pb_cmd(s, "export LD_LIBRARY_PATH");
	if (m->nconda_cudnn)
		pb_why(s, "also remove it where it is set (~/.bashrc, the conda environment's activate.d);");
	if (m->cuda_link == 2) {
		pb_why(s, "/usr/local/cuda is a dangling link (to %s);", shq(m->cuda_link_target ? m->cuda_link_target : "?"));
		pb_cmd(s, "sudo rm /usr/local/cuda");
		buf_printf(&v, "%stest ! -L /usr/local/cuda", v.len ? " && " : "");
		any = 1;
	} else if (m->cuda_link == 1 && m->cuda_link_version && t->cuda > 0 &&
		   atoi(m->cuda_link_version) != t->cuda / 1000) {
		const char *fit = NULL;

		for (size_t i = 0; i < m->ntoolkits; i++)
			if (m->toolkit_versions[i] && atoi(m->toolkit_versions[i]) == t->cuda / 1000)
				fit = m->toolkits[i];
		pb_why(s, "/usr/local/cuda points to CUDA %s, while %s is built for CUDA %d.x: builds of extensions "
		    "(nvcc, torch.utils.cpp_extension) and programs that use /usr/local/cuda/lib64 get the wrong "
		    "toolkit;", m->cuda_link_version, p->release, t->cuda / 1000);
		if (fit) {
			pb_cmd(s, "sudo ln -sfn %s /usr/local/cuda", shq(fit));
			buf_printf(&v, "%stest \"$(readlink /usr/local/cuda)\" = %s", v.len ? " && " : "", shq(fit));
		} else {
			pb_cmd(s, "sudo rm /usr/local/cuda");
			buf_printf(&v, "%stest ! -e /usr/local/cuda", v.len ? " && " : "");
		}
		any = 1;
	}
	if (m->run_installer && (m->driver_packages || p->family[0])) {
		pb_why(s, "the driver was installed with NVIDIA's .run installer (%s)%s; mixing it with packages "
		    "leaves two sets of driver libraries: remove it first;", shq(m->run_marker),
		    m->driver_packages ? " and also from packages" : "");
		pb_cmd(s, "sudo /usr/bin/nvidia-uninstall --silent");
		buf_printf(&v, "%stest ! -e /usr/bin/nvidia-uninstall", v.len ? " && " : "");
		any = 1;
	}
	if (m->conda_active)
		pb_note(p, "a conda environment is active (%s): run conda deactivate in your shell before the python "
		     "step, so that the virtualenv is made from the system Python and conda's libraries stay out of it",
		     shq(m->conda_active));
	if (!any) {
		s->state = PLAN_DONE;
		snprintf(s->why, sizeof(s->why), "nothing interferes: no conda cuDNN on LD_LIBRARY_PATH, "
			 "/usr/local/cuda %s, %s", m->cuda_link == -1 ? "absent" : m->cuda_link == 2 ? "dangling" :
			 "consistent", m->run_installer ? "a .run driver install only" : "no .run driver install");
	}
	pb_verify(s, "%s", buf_cstr(&v));
	buf_release(&v);
}

static int build(const struct kb *kb, const struct plan_machine *m, const struct plan_request *r,
		 struct plan *p, struct err *e)
{
	const struct kb_gpu *g = m->ngpus ? kb_gpu_by_pci(kb, 0x10de, m->device[0]) : NULL;
	struct kb_target tg = { NULL, g, g ? g->cc_major : -1, g ? g->cc_minor : -1, g ? g->datacenter : -1 };
	const struct kb_arch *a = g ? kb_arch_info(kb, g->cc_major, g->cc_minor) : NULL;
	struct pb_target t;
	struct kb_fit f;
	struct plan_step *s;
	const char *need = NULL;
	const char *gd, *venv;
	char drv[32];
	int fit, branch = PLAN_DEFAULT_BRANCH, system = 0;

	snprintf(p->kb_as_of, sizeof(p->kb_as_of), "%s", kb_as_of(kb) ? kb_as_of(kb) : "");
	if (pb_choose(kb, r, &tg, &t, p, e) < 0)
		return -1;
	pb_distribution(m, p);
	/* both are whole shell words, as long as they need: never cut inside a quote */
	p->gpudoctor = xstrdup(r->gpudoctor ? shq(r->gpudoctor) : "gpudoctor");
	gd = p->gpudoctor;
	if (r->venv)
		p->venv = xstrdup(shq(r->venv));
	else
		p->venv = xasprintf("\"$HOME/venvs/%s-%.*s\"", p->framework, (int)strcspn(p->release, " +"),
				    p->release);
	venv = p->venv;
	if (g)
		snprintf(p->gpu, sizeof(p->gpu), "%s", g->name);
	fit = pb_fit_of(kb, &t, &tg, &f);
	snprintf(p->install, sizeof(p->install), "%s", f.install);

	/* 1. interference */
	step_interference(m, &t, p);

	/* 2. the GPU */
	if (!m->ngpus) {
		s = pb_step(p, "gpu", PLAN_STOP, "hardware", "an NVIDIA GPU");
		pb_why(s, "no NVIDIA GPU on the PCI bus (/sys/bus/pci/devices: no vendor 0x10de display or 3D "
		    "controller): there is nothing to install a GPU stack for. In a VM or cloud instance, check the "
		    "instance type or the PCI passthrough.");
		pb_verify(s, "%s check --upto hardware", gd);
		return 0;
	}
	if (!g) {
		s = pb_step(p, "gpu", PLAN_STOP, "hardware", "a GPU the knowledge base knows");
		pb_why(s, "the GPU 10de:%04x is not in the knowledge base, so which drivers and builds run on it is "
		    "not known.", m->device[0]);
		return 0;
	}
	/* judged without a driver: a "no" here is about the GPU itself */
	if (fit == 0) {
		s = pb_step(p, "gpu", PLAN_STOP, "hardware", "a build of %s for %s", p->release, g->name);
		pb_why(s, "%s (compute capability %d.%d) cannot run %s %s: %s.", g->name, g->cc_major, g->cc_minor,
		    p->framework, p->release, f.v.why);
		if (!r->tf && !r->torch && !r->jax)
			pb_why(s, "No release of PyTorch in the knowledge base has code for it.");
		return 0;
	}
	s = pb_step(p, "gpu", PLAN_DONE, "hardware", "the GPU: %s", g->name);
	pb_why(s, "10de:%04x %s, %s, compute capability %d.%d; %s %s has code for it.", m->device[0], g->name,
	    g->arch ? g->arch : "?", g->cc_major, g->cc_minor, p->framework, p->release);
	if (fit < 0)
		pb_why(s, "(not every rule could be judged: %s)", f.v.why);
	pb_verify(s, "%s check --upto hardware", gd);

	/* 3. the driver it needs */
	need = pb_lowest_driver(kb, &t, &tg);
	if (a && a->last_branch > 0)
		branch = a->last_branch;
	if (need && atoi(need) > branch) {
		if (a && a->last_branch > 0) {
			s = pb_step(p, "driver", PLAN_STOP, "driver", "a driver for %s", p->release);
			pb_why(s, "%s needs driver >= %s, but R%d is the last driver branch for %s (%s).", p->release, need,
			    a->last_branch, g->name, g->arch ? g->arch : "?");
			return 0;
		}
		branch = atoi(need);
	}
	snprintf(drv, sizeof(drv), "%d.999.99", branch);
	{
		struct kb_target bt = tg;
		struct kb_fit bf;

		bt.driver = drv;
		if (pb_fit_of(kb, &t, &bt, &bf) == 0) {
			s = pb_step(p, "driver", PLAN_STOP, "driver", "a driver for %s", p->release);
			pb_why(s, "with R%d: %s", branch, bf.v.why);
			return 0;
		}
	}

	/* In a container the kernel, its modules and the driver are the host's:
	 * the plan cannot install them here. */
	if (m->in_container) {
		struct kb_target now = tg;

		now.driver = m->driver;
		if (m->driver && pb_fit_of(kb, &t, &now, &f) == 1) {
			s = pb_step(p, "driver", PLAN_DONE, "driver", "the host's NVIDIA driver %s", m->driver);
			pb_why(s, "this is a container (%s): the host's driver %s is visible and runs %s here.",
			    m->container_markers ? m->container_markers : "container markers", m->driver, p->release);
			pb_verify(s, "%s check --upto driver", gd);
		} else {
			s = pb_step(p, "driver", PLAN_STOP, "driver", "the host's NVIDIA driver");
			pb_why(s, "this is a container (%s): the driver, its kernel module and Secure Boot belong to the host. "
			    "%s. Install driver R%d (>= %s) on the host (gpudoctor plan there), then start the container "
			    "with the GPUs passed in (docker run --gpus all, or CDI: --device nvidia.com/gpu=all).",
			    m->container_markers ? m->container_markers : "container markers",
			    m->driver ? "The host's driver is too old for the release" : "No NVIDIA driver is visible here",
			    branch, need ? need : "?");
			return 0;
		}
		goto after_driver;
	}

	/* 4. Secure Boot */
	{
		struct kb_target now = tg;
		int works;

		now.driver = m->driver;
		works = m->driver && m->nvidia_loaded == 1 && pb_fit_of(kb, &t, &now, &f) == 1;
		if (m->secure_boot != 1) {
			s = pb_step(p, "secure-boot", PLAN_DONE, "kernel", "Secure Boot module signing");
			pb_why(s, "%s (%s): unsigned modules load.", m->secure_boot == 0 ? "Secure Boot is off" :
			    "the Secure Boot state is not known", m->secure_boot_evidence ? m->secure_boot_evidence :
			    "no EFI variable");
		} else if (m->nvidia_loaded == 1) {
			s = pb_step(p, "secure-boot", PLAN_DONE, "kernel", "Secure Boot module signing");
			pb_why(s, "Secure Boot is on and the nvidia module is loaded, so it is signed with an enrolled key.");
		} else if (m->mok_key) {
			s = pb_step(p, "secure-boot", PLAN_TODO, "kernel", "enrol the DKMS signing key (MOK)");
			pb_why(s, "Secure Boot is on (%s): DKMS signs the nvidia module with %s, and the firmware loads it "
			    "only once that key is enrolled. mokutil asks for a one-time password; at the next boot the "
			    "blue MOK manager asks for it on the console (Enroll MOK).",
			    m->secure_boot_evidence ? m->secure_boot_evidence : "EFI", shq(m->mok_key));
			pb_cmd(s, "sudo mokutil --import %s", shq(m->mok_key));
			s->reboot = 1;
			pb_verify(s, "mokutil --test-key %s | grep -q 'is already enrolled'",
				 shq(m->mok_key));
		} else {
			s = pb_step(p, "secure-boot", PLAN_STOP, "kernel", "a module-signing key for Secure Boot");
			pb_why(s, "Secure Boot is on (%s) and there is no signing key (/var/lib/dkms/mok.pub, "
			    "/var/lib/shim-signed/mok/MOK.der): the nvidia module would be refused. Create a key and enrol "
			    "it from the console, then run gpudoctor plan again: sudo dkms generate_mok (Ubuntu: sudo "
			    "update-secureboot-policy --new-key); sudo mokutil --import /var/lib/dkms/mok.pub; reboot and "
			    "choose Enroll MOK. Or turn Secure Boot off in the firmware.",
			    m->secure_boot_evidence ? m->secure_boot_evidence : "EFI");
			return 0;
		}

		/* 5. the driver */
		if (works) {
			s = pb_step(p, "driver", PLAN_DONE, "driver", "NVIDIA driver %s", m->driver);
			pb_why(s, "driver %s is loaded (%s) and runs %s on this GPU (it needs >= %s).", m->driver,
			    m->driver_from ? m->driver_from : "?", p->release, need ? need : "?");
		} else {
			if (!p->family[0] || !p->repo[0]) {
				s = pb_step(p, "driver", PLAN_STOP, "driver", "install the NVIDIA driver R%d", branch);
				pb_why(s, "NVIDIA ships no package repository this plan knows for this distribution (%s): "
				    "install driver R%d from https://www.nvidia.com/Download/index.aspx (the .run installer, "
				    "with --dkms), then run gpudoctor plan again.", shq(m->os_pretty ? m->os_pretty :
				    m->os_id ? m->os_id : "no /etc/os-release"), branch);
				return 0;
			}
			s = pb_step(p, "driver", PLAN_TODO, "driver", "install the NVIDIA driver R%d from NVIDIA's %s "
				 "repository", branch, !strcmp(p->family, "debian") ? "apt" : "dnf");
			if (m->driver)
				pb_why(s, "driver %s is %s: %s.", m->driver, m->nvidia_loaded == 1 ? "loaded" : "installed",
				    pb_fit_of(kb, &t, &now, &f) == 0 ? f.v.why : "it does not run the release here");
			else
				pb_why(s, "no NVIDIA driver is loaded.");
			if (m->nouveau_loaded == 1)
				pb_why(s, "nouveau drives the GPU now: it is blacklisted first (then the reboot).");
			pb_why(s, "%s needs >= %s; R%d is the %s.", p->release, need ? need : "?", branch,
			    a && a->last_branch > 0 ? "last branch for this GPU" : "current long-term branch");
			pb_driver_commands(p, m, s, branch, g->cc_major * 10 + g->cc_minor >= 75);
		}
		pb_verify(s, "%s check --upto driver", gd);
	}

after_driver:
	/* 6. CUDA runtime and cuDNN */
	system = r->system_cuda || (t.tf && !t.tf->pip_cudnn);
	if (t.pt && system) {
		pb_note(p, "PyTorch wheels bring their own CUDA runtime and cuDNN; --system-cuda changes nothing for them");
		system = 0;
	}
	if (!system) {
		s = pb_step(p, "cuda", PLAN_DONE, "libraries", "CUDA runtime and cuDNN from pip wheels");
		/* the cuDNN named is what the planned release's install brings, not
		 * what any environment holds today: say so */
		pb_why(s, "pip installs them with the framework as nvidia-*-cu%d wheels into the virtualenv of the "
		    "framework step (%s %s brings cuDNN %s), so no system toolkit is installed; /usr/local/cuda "
		    "is not used by them.", t.cuda / 1000, p->framework, p->release,
		    f.cudnn[0] ? f.cudnn : "as its wheel pins");
	} else {
		const char *cv = t.tf ? t.tf->cuda : NULL, *dnn = t.tf ? t.tf->cudnn : f.cudnn;
		char cvs[16], dash[16];
		const char *have = NULL;

		if (!cv) {
			snprintf(cvs, sizeof(cvs), "%d.%d", t.cuda / 1000, t.cuda % 1000 / 10);
			cv = cvs;
		}
		snprintf(dash, sizeof(dash), "%d-%d", t.cuda / 1000, t.cuda % 1000 / 10);
		for (size_t i = 0; i < m->ntoolkits; i++)
			if (m->toolkit_versions[i] && !strncmp(m->toolkit_versions[i], cv, strlen(cv)))
				have = m->toolkits[i];
		if (have) {
			s = pb_step(p, "cuda", PLAN_DONE, "libraries", "CUDA %s toolkit", cv);
			pb_why(s, "%s is installed; cuDNN %s must be found by the loader (checked by the verification).",
			    shq(have), dnn);
		} else {
			s = pb_step(p, "cuda", PLAN_TODO, "libraries", "install CUDA %s and cuDNN %s system-wide", cv, dnn);
			pb_why(s, "%s %s takes CUDA and cuDNN from the system%s.", p->framework, p->release,
			    t.tf && !t.tf->pip_cudnn ? " (no [and-cuda] extra before TensorFlow 2.14)" : " (--system-cuda)");
			if (!strcmp(p->family, "debian"))
				pb_cmd(s, "sudo apt-get install -y cuda-toolkit-%s 'libcudnn%.*s=%s.*-1+cuda%s'", dash,
				    (int)strcspn(dnn, "."), dnn, dnn, cv);
			else
				pb_cmd(s, "sudo dnf install -y cuda-toolkit-%s 'libcudnn%.*s-%s.*-1.cuda%s'", dash,
				    (int)strcspn(dnn, "."), dnn, dnn, cv);
			pb_cmd(s, "echo /usr/local/cuda-%s/lib64 | sudo tee /etc/ld.so.conf.d/cuda-%s.conf", cv, dash);
			pb_cmd(s, "sudo ldconfig");
		}
		pb_verify(s, "%s check --upto libraries", gd);
	}

	/* 7. the framework, if it is already there */
	for (size_t i = 0; i < m->nfws; i++) {
		const struct plan_fw *w = &m->fws[i];
		const char *rel = t.pt ? t.pt->version : t.tf ? t.tf->version : t.jver;
		struct version a1, b1;

		if (strcmp(w->name, p->framework) || !rel || version_parse(w->version, &a1) < 0 ||
		    version_parse(rel, &b1) < 0 || a1.part[0] != b1.part[0] || a1.part[1] != b1.part[1] ||
		    w->cuda_build == 0 || (w->prediction && strcmp(w->prediction, "gpu")))
			continue;
		s = pb_step(p, "python", PLAN_DONE, NULL, "a Python environment");
		pb_why(s, "%s has it.", shq(w->prefix ? w->prefix : "?"));
		s = pb_step(p, "framework", PLAN_DONE, "frameworks", "%s %s", p->framework, p->release);
		pb_why(s, "%s %s is installed in %s and gpudoctor predicts it uses the GPU.", w->name, w->version,
		    shq(w->prefix ? w->prefix : "?"));
		if (w->python)
			pb_verify(s, "%s check --upto frameworks --python %s", gd, shq(w->python));
		return 0;
	}

	/* 8. a virtualenv with a Python the release supports: the newest system
	 * Python that fits, else the newest python3.X package the distribution
	 * ships that fits (facts.tsv python.packages.REPO), else a standalone
	 * CPython (uv); never a package name that was not read from an index. */
	{
		const char *py = NULL, *pyv = NULL;
		char want[16] = "", pkg[64] = "";
		int lo = 0, hi = 399, best = -1, have;

		if (kb_python_range(t.python, &lo, &hi) < 0)
			lo = 0, hi = 399;
		for (size_t i = 0; i < m->npythons; i++) {
			struct version v;
			int n;

			if (strcmp(m->pythons[i].kind, "system") || version_parse(m->pythons[i].version, &v) < 0 ||
			    v.n < 2)
				continue;
			n = (int)(v.part[0] * 100 + v.part[1]);
			if (n >= lo && n <= hi && v.part[0] == 3 && n > best) {
				best = n;
				py = m->pythons[i].path;
				pyv = m->pythons[i].version;
			}
		}
		have = py ? 0 : kb_python_packaged(kb, p->repo, lo, hi, pkg, sizeof(pkg));
		if (py) {
			s = pb_step(p, "python", PLAN_TODO, NULL, "a virtualenv for %s %s", p->framework, p->release);
			pb_why(s, "%s (Python %s) fits the release's Python %s; the framework goes into its own virtualenv.",
			    shq(py), pyv, t.python ? t.python : "3");
			pb_cmd(s, "%s -m venv %s", shq(py), venv);
		} else if (have > 0) {
			snprintf(want, sizeof(want), "%d.%d", have / 100, have % 100);
			s = pb_step(p, "python", PLAN_TODO, NULL, "Python %s and a virtualenv", want);
			pb_why(s, "no system Python on this machine fits the release's Python %s; %s %s ships %s, the newest "
			    "Python it packages that the release supports.", t.python ? t.python : "?", m->os_id,
			    m->os_version, pkg);
			if (!strcmp(p->family, "rhel"))
				pb_cmd(s, "sudo dnf install -y %s", pkg);
			else
				pb_cmd(s, "sudo apt-get install -y %s %s-venv", pkg, pkg);
			pb_cmd(s, "python%s -m venv %s", want, venv);
		} else {
			/* no package fits (or the release's packages are unknown): a
			 * standalone CPython from uv, the newest the release supports
			 * up to 3.13 (the newest with wheels from every framework) */
			int pick = hi < 313 ? hi : lo > 313 ? lo : 313;

			snprintf(want, sizeof(want), "%d.%d", pick / 100, pick % 100);
			s = pb_step(p, "python", PLAN_TODO, NULL, "Python %s (standalone, from uv) and a virtualenv", want);
			if (have == 0) {
				char key[64];

				snprintf(key, sizeof(key), "python.packages.%s", p->repo);
				pb_why(s, "no system Python on this machine fits the release's Python %s, and %s %s packages no "
				    "Python in that range (it ships %s); uv installs a standalone CPython %s beside the "
				    "system's.", t.python ? t.python : "?", m->os_id, m->os_version, kb_fact(kb, key), want);
			} else
				pb_why(s, "no system Python on this machine fits the release's Python %s, and gpudoctor does not "
				    "know which python3.X packages %s ships; uv installs a standalone CPython %s beside the "
				    "system's.", t.python ? t.python : "?", m->os_id ? m->os_id : "this distribution", want);
			pb_cmd(s, "command -v uv >/dev/null || curl -LsSf https://astral.sh/uv/install.sh | sh");
			pb_cmd(s, "uv python install %s", want);
			pb_cmd(s, "uv venv --seed --python %s %s", want, venv);
		}
		if (venv[0] == '"')	/* "$HOME/venvs/x": insert /bin/... inside the quotes */
			pb_cmd(s, "\"%.*s/bin/python\" -m pip install --upgrade pip", (int)strlen(venv) - 2, venv + 1);
		else
			pb_cmd(s, "%s/bin/python -m pip install --upgrade pip", venv);
		pb_verify(s, "test -x %.*s/bin/python%s", venv[0] == '"' ? (int)strlen(venv) - 1 :
			 (int)strlen(venv), venv, venv[0] == '"' ? "\"" : "");
	}

	/* 9. the framework */
	s = pb_step(p, "framework", PLAN_TODO, "frameworks", "install %s %s", p->framework, p->release);
	pb_why(s, "%s", f.v.why);
	{
		const char *args = !strncmp(f.install, "pip install ", 12) ? f.install + 12 : f.install;
		char *pybin, *hash, *line = xstrdup(args);

		if ((hash = strstr(line, "   #")))	/* the "needs CUDA ... system-wide" remark */
			*hash = '\0';
		if (venv[0] == '"')
			pybin = xasprintf("\"%.*s/bin/python\"", (int)strlen(venv) - 2, venv + 1);
		else
			pybin = xasprintf("%s/bin/python", venv);
		pb_cmd(s, "%s -m pip install %s", pybin, line);
		pb_verify(s, "%s check --upto frameworks --python %s", gd, pybin);
		free(pybin);
		free(line);
	}
	if (t.tf && kb_fact(kb, "tf.runpath_lacks.2.21.0") && !strcmp(t.tf->version, "2.21.0"))
		pb_note(p, "TensorFlow 2.21.0 cannot find libcusolver from its own wheels (no RUNPATH entry): "
		     "gpudoctor check --upto frameworks names the LD_LIBRARY_PATH fix if it applies");
	return 0;
}

/*
 * A command is written whole or not at all: no buffer cuts one, a step
 * holds as many commands as it needs, and a plan with more steps than it
 * can hold is an error, never a script with lines missing.
 */
int plan_build(const struct kb *kb, const struct plan_machine *m, const struct plan_request *r,
	       struct plan *p, struct err *e)
{
	if (build(kb, m, r, p, e) < 0)
		return -1;
	if (p->overflow)
		return err_set(e, "the plan has more than %d steps; it cannot be written whole", PLAN_MAX);
	return 0;
}
