/*
 * ctx.h - the global options every command and probe sees.
 *
 * One struct gd_ctx is filled by main() from the global options and passed
 * down read-only.  `root` redirects every absolute path the probes read (see
 * fs.h); `no_load` forbids loading or executing anything from the machine.
 */
#ifndef GD_CTX_H
#define GD_CTX_H

#include <stddef.h>

enum color_mode { COLOR_AUTO, COLOR_ALWAYS, COLOR_NEVER };

struct gd_ctx {
	const char *root;	/* "/" unless --root; never NULL, no trailing slash except "/" */
	int no_load;		/* --no-load: static facts only */
	double timeout;		/* --timeout, seconds, for each isolated child */
	int json;		/* --json */
	enum color_mode color;	/* --color; resolved to use_color by main */
	int use_color;
	int verbose;		/* -v, may repeat */
	const char *kb_dir;	/* --kb DIR, or NULL for the embedded knowledge */
	const char *self_exe;	/* path to re-exec ourselves for isolated probes */
	/* check options */
	int live;		/* --live: run each framework's interpreter for one real GPU op */
	int deep;		/* --deep: one small cuDNN convolution per GPU and an NCCL all-reduce */
	const char **python_paths;	/* --python PATH (repeatable): extra interpreters */
	size_t npython_paths;
	const char **site_dirs;		/* --site-packages DIR (repeatable): extra site dirs */
	size_t nsite_dirs;
};

#define GD_VERSION "0.1.0"

#endif
