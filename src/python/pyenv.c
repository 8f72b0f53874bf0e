/* pyenv.c - Python environment discovery.  (stub: to be filled by its owner) */
#include "python/pyenv.h"

#include <stdlib.h>

int pyenv_discover(const struct gd_ctx *ctx, struct pyenv_list *out, struct err *e)
{
	(void)ctx;
	(void)e;
	out->envs = NULL;
	out->n = out->cap = 0;
	return 0;
}

void pyenv_list_release(struct pyenv_list *l)
{
	free(l->envs);
	l->envs = NULL;
	l->n = l->cap = 0;
}
