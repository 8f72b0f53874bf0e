/* err.c - filling struct err; see err.h. */
#include "core/err.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int err_set(struct err *e, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	e->code = 0;
	return -1;
}

int err_set_errno(struct err *e, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;
	size_t len;

	if (!e)
		return -1;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	len = strlen(e->msg);
	snprintf(e->msg + len, sizeof(e->msg) - len, ": %s", strerror(saved));
	e->code = saved;
	errno = saved;
	return -1;
}
