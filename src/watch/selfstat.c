/* selfstat.c - the daemon's clock and resource use; see selfstat.h. */
#include "watch/selfstat.h"
#include "core/child.h"

#include <sys/auxv.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <unistd.h>

double wd_now(void)
{
	return child_now();
}

long long wd_proc_rss(int pid)
{
	char path[64], b[128];
	long long pages = -1;
	ssize_t n;
	int fd;

	if (pid < 0)
		return -1;
	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/statm");
	else
		snprintf(path, sizeof(path), "/proc/%d/statm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	b[n] = '\0';
	if (sscanf(b, "%*s %lld", &pages) != 1)
		return -1;
	/* the page size from the auxiliary vector, not sysconf(): Debian's
	 * symbols file dates sysconf at glibc 2.34 (its new _SC_ names), which
	 * would raise the .deb's libc6 dependency past the 2.28 it needs */
	return pages * (long)getauxval(AT_PAGESZ);
}

long long wd_self_rss(void)
{
	return wd_proc_rss(0);
}

static double tv(struct timeval t)
{
	return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

double wd_self_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return tv(ru.ru_utime) + tv(ru.ru_stime);
}

double wd_children_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return tv(ru.ru_utime) + tv(ru.ru_stime);
}
