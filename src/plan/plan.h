/*
 * plan.h - `gpudoctor plan`: the install pipeline for one framework release
 * on this machine, as ordered steps, each followed by its verification.
 *
 * The order is the one the install must follow: clear what interferes, make
 * sure there is a GPU the framework can use, Secure Boot signing, the driver
 * (nouveau out of the way), the CUDA runtime and cuDNN (pip wheels unless a
 * system install is asked for or the release has none), a virtualenv, the
 * framework.  A step already satisfied is "done" with its evidence; a step
 * this machine cannot take stops the plan ("stop") with the reason.  Nothing
 * here runs anything: plan_machine.c reads the machine (through the probes'
 * inventory and a few files under --root), plan_build.c decides (with
 * plan_steps.c, plan_target.c and plan_driver.c: plan_parts.h), the
 * renderers (plan_text.c, plan_json.c, plan_sh.c) print into a buffer.
 *
 *	struct plan_machine m;  plan_machine_read(ctx, &inv, &m);
 *	struct plan *p = plan_new();
 *	if (plan_build(kb, &m, &req, p, &e) < 0) ... usage error ...
 *	plan_render_sh(p, &out);  fwrite(out.s, 1, out.len, stdout);
 *	plan_free(p);  plan_machine_release(&m);
 */
#ifndef GD_PLAN_H
#define GD_PLAN_H

#include <stddef.h>

#include "core/buf.h"
#include "core/err.h"
#include "knowledge/kb.h"

struct gd_ctx;
struct inventory;

/* ---- what the plan knows of the machine ---- */

#define PLAN_MAX 16

struct plan_python {
	char *path;		/* machine path of an interpreter */
	char *version;		/* "3.11" */
	const char *kind;	/* "system", "venv", "conda" ... */
};

struct plan_fw {
	const char *name;	/* "torch", "tensorflow", "jax" */
	char *version;		/* "2.11.0+cu130" */
	char *prefix;		/* the environment */
	char *python;
	int cuda_build;		/* 1/0/-1 */
	const char *prediction;	/* "gpu", "cpu", "broken", NULL */
};

struct plan_machine {
	/* /etc/os-release */
	char *os_id, *os_version, *os_like, *os_pretty;
	int in_container;		/* 1: a container (the driver is the host's) */
	char *container_markers;
	/* hardware, kernel, driver */
	size_t ngpus;
	unsigned device[PLAN_MAX];
	char *gpu_driver_bound;		/* the kernel driver bound to the first GPU */
	int nouveau_loaded;		/* 1/0/-1 */
	int nvidia_loaded;		/* 1/0/-1 */
	int secure_boot;		/* 1/0/-1 */
	char *secure_boot_evidence;
	char *mok_key;			/* a module-signing key DKMS would use, or NULL */
	char *driver;			/* the loaded module's version, or NULL */
	char *driver_from;
	int run_installer;		/* a .run install left its uninstaller: 1/0 */
	char *run_marker;
	int driver_packages;		/* the package manager has NVIDIA driver packages: 1/0 */
	char *package_marker;
	/* CUDA */
	int cuda_link;			/* -1 absent, 0 directory, 1 link, 2 dangling */
	char *cuda_link_target, *cuda_link_version;
	char *toolkits[PLAN_MAX];	/* "/usr/local/cuda-12.4 12.4.1" */
	char *toolkit_versions[PLAN_MAX];
	size_t ntoolkits;
	char *ld_library_path;
	char **conda_cudnn_dirs;	/* LD_LIBRARY_PATH entries holding a conda cuDNN (all of them) */
	size_t nconda_cudnn, conda_cudnn_cap;
	/* Python */
	char *conda_active;		/* the active conda environment (CONDA_PREFIX), or NULL */
	struct plan_python pythons[PLAN_MAX];
	size_t npythons;
	struct plan_fw fws[PLAN_MAX];
	size_t nfws;
};

/* Fill m from an inventory the static probes filled (check_run_upto under
 * --no-load) and a few files under ctx->root. */
void plan_machine_read(const struct gd_ctx *ctx, const struct inventory *inv, struct plan_machine *m);
void plan_machine_release(struct plan_machine *m);

/* ---- the request and the plan ---- */

struct plan_request {
	const char *tf, *torch, *jax;	/* one of them, or none: the newest PyTorch that runs here */
	int system_cuda;		/* install CUDA and cuDNN system-wide instead of pip wheels */
	const char *venv;		/* the virtualenv's path; NULL: $HOME/venvs/<framework>-<version> */
	const char *gpudoctor;		/* how the script calls gpudoctor ("gpudoctor") */
};

enum plan_state {
	PLAN_TODO,	/* to do */
	PLAN_DONE,	/* already satisfied: evidence in why */
	PLAN_STOP,	/* this machine cannot take it: why */
};

struct plan_step {
	const char *id;		/* "interference", "gpu", "secure-boot", "driver", "cuda", "python", "framework" */
	enum plan_state state;
	char title[256];
	char why[1024];
	char **cmds;		/* shell lines, values quoted; as many as the step needs */
	size_t ncmds, cmds_cap;
	char *verify;		/* the command that verifies the step (NULL none); never cut */
	const char *layer;	/* the layer it sets up (for --upto), or NULL */
	int reboot;		/* a reboot must follow the commands */
};

struct plan {
	char framework[16];	/* "torch" */
	char release[48];	/* "2.15+cu132", "2.21.0", "0.12.0 (cuda12)" */
	char install[512];	/* the pip command for the release (pins included) */
	char *venv;		/* the virtualenv as one shell word (quoted) */
	char *gpudoctor;	/* how the script calls gpudoctor, as one shell word */
	char family[16];	/* "debian", "rhel", "" unknown */
	char repo[32];		/* NVIDIA's repository name: "ubuntu2204", "rhel9" */
	char gpu[128];
	char kb_as_of[16];	/* the knowledge base's as-of date, "" unknown */
	char notes[8][512];
	size_t nnotes;
	struct plan_step steps[PLAN_MAX];
	size_t n;
	int stopped;		/* a step is PLAN_STOP: the steps after it are not planned */
	int overflow;		/* a step did not fit (PLAN_MAX): plan_build fails */
};

struct plan *plan_new(void);
void plan_free(struct plan *p);

/* Decide the steps.  -1 with a usage error (unknown release ...). */
int plan_build(const struct kb *kb, const struct plan_machine *m, const struct plan_request *req,
	       struct plan *p, struct err *e);

/* Renderers: text for people, JSON (schema gpudoctor.plan/1), and a POSIX
 * shell script (set -eu; each step verified; stops at the first failure). */
void plan_render_text(const struct plan *p, struct buf *out);
void plan_render_json(const struct plan *p, struct buf *out);
void plan_render_sh(const struct plan *p, struct buf *out);

#endif
