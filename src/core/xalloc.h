/*
 * xalloc.h - allocation that never returns NULL.
 *
 * gpudoctor's data is small; running out of memory is not a finding we can
 * report usefully, so these abort with a message instead of threading NULL
 * checks through every probe.
 *
 *	char *s = xasprintf("%s/%s", dir, name);	// never NULL
 *	XGROW(arr, n, cap);				// room for arr[n]
 *	free(s);
 */
#ifndef GD_XALLOC_H
#define GD_XALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* NULL stays NULL: for optional (unknown) string facts. */
char *xstrdup_or_null(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Grow *arr (of *cap elements of size elem) so that index n fits. */
void xgrow(void **arr, size_t elem, size_t n, size_t *cap);
#define XGROW(arr, n, cap) xgrow((void **)&(arr), sizeof(*(arr)), (n), &(cap))

#endif
