/* test_pyenv.c - Python environment discovery in a temporary root. */
#include "tap.h"

#include "core/ctx.h"
#include "core/xalloc.h"
#include "python/pyenv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char root[256];

static void mk(const char *rel)
{
	char p[1024], *s;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	for (s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

static void wr(const char *rel, const char *text)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void ln(const char *rel, const char *target)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	if (symlink(target, p) != 0)
		perror("symlink");
}

static const struct pyenv *find(const struct pyenv_list *l, const char *prefix)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->envs[i].prefix, prefix) == 0)
			return &l->envs[i];
	return NULL;
}

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/gd-pyenv-XXXXXX");
	if (!mkdtemp(root))
		abort();
	/* Debian system python */
	mk("usr/bin");
	wr("usr/bin/python3.11", "");
	ln("usr/bin/python3", "python3.11");
	mk("usr/lib/python3/dist-packages");
	mk("usr/lib/python3.11");
	mk("usr/local/lib/python3.11/dist-packages");
	/* a venv, with include-system-site-packages */
	mk("opt/venv/bin");
	ln("opt/venv/bin/python3", "/usr/bin/python3");
	mk("opt/venv/lib/python3.11/site-packages");
	ln("opt/venv/lib64", "lib");
	wr("opt/venv/pyvenv.cfg", "home = /usr/bin\ninclude-system-site-packages = true\n"
	   "version = 3.11.2\n");
	/* a conda install with one env */
	mk("opt/conda/conda-meta");
	mk("opt/conda/bin");
	wr("opt/conda/bin/python3", "");
	mk("opt/conda/lib/python3.12/site-packages");
	mk("opt/conda/envs/tf/conda-meta");
	mk("opt/conda/envs/tf/lib/python3.10/site-packages");
	/* user site */
	mk("home/u/.local/lib/python3.11/site-packages");
	/* something that is not an environment */
	mk("opt/conda/envs/empty");
}

static void test_discover(void)
{
	struct gd_ctx ctx;
	struct pyenv_list l = PYENV_LIST_INIT;
	const struct pyenv *p;
	struct err e = ERR_INIT;
	const char *given[] = { "/opt/extra/site-packages" };

	memset(&ctx, 0, sizeof(ctx));
	ctx.root = root;
	mk("opt/extra/site-packages");
	ctx.site_dirs = given;
	ctx.nsite_dirs = 1;
	setenv("VIRTUAL_ENV", "/opt/venv", 1);
	unsetenv("CONDA_PREFIX");
	setenv("PATH", "/opt/venv/bin:/usr/bin:/nonexistent", 1);
	setenv("HOME", "/home/u", 1);
	CHECK_INT(pyenv_discover(&ctx, &l, &e), 0);

	p = find(&l, "/opt/venv");
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->kind, "venv");
		CHECK(p->active);
		CHECK_STR(p->python_version, "3.11");
		CHECK_STR(p->python, "/opt/venv/bin/python3");
		/* own site once (lib64 -> lib), then the base's */
		CHECK_INT(p->nsite, 2);
		if (p->nsite == 2) {
			CHECK_STR(p->site_dirs[0], "/opt/venv/lib/python3.11/site-packages");
			CHECK_STR(p->site_dirs[1], "/usr/lib/python3/dist-packages");
		}
	}
	p = find(&l, "/usr");
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->kind, "system");
		CHECK_STR(p->python, "/usr/bin/python3");
		CHECK_STR(p->python_version, "3.11");
		CHECK_INT(p->nsite, 1);
		if (p->nsite)
			CHECK_STR(p->site_dirs[0], "/usr/lib/python3/dist-packages");
		CHECK(!p->active);
	}
	p = find(&l, "/usr/local");
	CHECK(p != NULL);
	p = find(&l, "/home/u/.local");
	CHECK(p != NULL);
	if (p)
		CHECK_STR(p->kind, "user");
	p = find(&l, "/opt/conda");
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->kind, "conda");
		CHECK_STR(p->python_version, "3.12");
	}
	p = find(&l, "/opt/conda/envs/tf");
	CHECK(p != NULL);
	if (p) {
		CHECK_STR(p->kind, "conda");
		CHECK(p->python == NULL);
	}
	CHECK(find(&l, "/opt/conda/envs/empty") == NULL);
	p = find(&l, "/opt/extra/site-packages");
	CHECK(p != NULL);
	if (p)
		CHECK_STR(p->kind, "given");
	/* each prefix once */
	for (size_t i = 0; i < l.n; i++)
		for (size_t k = i + 1; k < l.n; k++)
			CHECK(strcmp(l.envs[i].prefix, l.envs[k].prefix) != 0);
	pyenv_list_release(&l);
}

static void test_python_on_path_conda(void)
{
	struct gd_ctx ctx;
	struct pyenv_list l = PYENV_LIST_INIT;
	const struct pyenv *p;

	memset(&ctx, 0, sizeof(ctx));
	ctx.root = root;
	unsetenv("VIRTUAL_ENV");
	setenv("CONDA_PREFIX", "/opt/conda/envs/tf", 1);
	setenv("PATH", "/opt/conda/bin", 1);
	unsetenv("HOME");
	CHECK_INT(pyenv_discover(&ctx, &l, NULL), 0);
	CHECK(l.n >= 3);
	if (l.n) {
		CHECK_STR(l.envs[0].prefix, "/opt/conda/envs/tf");
		CHECK(l.envs[0].active);
	}
	p = find(&l, "/opt/conda");
	CHECK(p != NULL);
	if (p)
		CHECK_STR(p->python, "/opt/conda/bin/python3");
	CHECK(find(&l, "/home/u/.local") == NULL);
	pyenv_list_release(&l);
}

int main(void)
{
	char cmd[300];

	setup();
	RUN(test_discover);
	RUN(test_python_on_path_conda);
	snprintf(cmd, sizeof(cmd), "/bin/rm -rf '%s'", root);
	if (system(cmd) != 0)
		return 1;
	return tap_done();
}
