/* bench_progress.c - the live progress line; see bench_progress.h. */
#include "bench/bench_progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int bench_progress_fd(void)
{
	const char *s = getenv(BENCH_PROGRESS_ENV);
	char *end;
	long fd;

	if (!s || !*s)
		return -1;
	fd = strtol(s, &end, 10);
	return *end || fd < 3 || fd > 1024 ? -1 : (int)fd;
}

void bench_progress(const char *fmt, ...)
{
	char line[200];
	int fd = bench_progress_fd(), n;
	va_list ap;

	if (fd < 0)
		return;
	memcpy(line, "\r\033[K", 4);
	va_start(ap, fmt);
	n = vsnprintf(line + 4, sizeof(line) - 4, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n = n + 4 < (int)sizeof(line) ? n + 4 : (int)sizeof(line) - 1;
	if (write(fd, line, (size_t)n) < 0)
		return;
}

void bench_progress_clear(int fd)
{
	if (fd >= 0 && write(fd, "\r\033[K", 4) < 0)
		return;
}
