/* cuda_symtab.c - binding symbols from a table; see cuda_symtab.h. */
#include "probes/cuda/cuda_symtab.h"

#include <dlfcn.h>

static void *cuda_symtab_lookup(void *handle, const char *name)
{
	void *p;

	/* dlsym may legitimately return NULL; only dlerror says "missing". */
	dlerror();
	p = dlsym(handle, name);
	if (dlerror() != NULL)
		return NULL;
	return p;
}

int cuda_symtab_bind(void *handle, const struct cuda_sym *syms, size_t n,
		     struct cuda_symtab_missing *m)
{
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		const struct cuda_sym *s = &syms[i];
		void *p = cuda_symtab_lookup(handle, s->name);
		struct buf *list;

		if (!p && s->fallback)
			p = cuda_symtab_lookup(handle, s->fallback);
		*s->slot = p;
		if (p)
			continue;
		list = s->need == CUDA_SYM_REQUIRED ? &m->required : &m->optional;
		if (list->len)
			buf_addc(list, ',');
		buf_puts(list, s->name);
		if (s->need == CUDA_SYM_REQUIRED)
			ret = -1;
	}
	return ret;
}

int cuda_symtab_bind_rows(void *handle, void *api, const struct cuda_sym_row *rows, size_t nrows,
			  const struct cuda_sym_want *want, size_t n, struct cuda_symtab_missing *m)
{
	int ret = 0;

	for (size_t i = 0; i < n; i++) {
		struct cuda_sym s;

		if (want[i].fn < 0 || (size_t)want[i].fn >= nrows)
			continue;
		s.slot = (void **)((char *)api + rows[want[i].fn].off);
		s.name = rows[want[i].fn].name;
		s.fallback = want[i].no_fallback ? NULL : rows[want[i].fn].fallback;
		s.need = want[i].need;
		if (cuda_symtab_bind(handle, &s, 1, m) < 0)
			ret = -1;
	}
	return ret;
}

void cuda_symtab_missing_release(struct cuda_symtab_missing *m)
{
	buf_release(&m->required);
	buf_release(&m->optional);
}
