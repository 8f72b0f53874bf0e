/*
 * containers_parse.c - the containers layer's parsers of /proc and cgroup
 * files (see containers.h): RLIMIT_MEMLOCK from /proc/self/limits, the size
 * of /dev/shm from /proc/self/mounts or mountinfo, mount points from
 * mountinfo, and whether a cgroup v1 devices.list lets the NVIDIA nodes
 * (major 195) be opened.  Text in, numbers out; bounded, no NUL needed.
 */
#include "probes/containers/containers.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long long parse_limit(const char *s, const char **end)
{
	long long v = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (!strncmp(s, "unlimited", 9)) {
		*end = s + 9;
		return -2;
	}
	if (*s < '0' || *s > '9') {
		*end = s;
		return -1;
	}
	while (*s >= '0' && *s <= '9') {
		if (v > (long long)(9e17))
			v = (long long)9e17;	/* saturate, never overflow */
		else
			v = v * 10 + (*s - '0');
		s++;
	}
	*end = s;
	return v;
}

int ctr_parse_limits_memlock(const char *text, size_t len, long long *soft, long long *hard)
{
	static const char key[] = "Max locked memory";
	size_t pos = 0;

	while (pos < len) {
		size_t eol = pos;

		while (eol < len && text[eol] != '\n')
			eol++;
		if (eol - pos > sizeof(key) && !memcmp(text + pos, key, sizeof(key) - 1) &&
		    eol - pos < 256) {
			char line[256];
			const char *s, *e;

			memcpy(line, text + pos, eol - pos);
			line[eol - pos] = '\0';
			s = line + sizeof(key) - 1;
			*soft = parse_limit(s, &e);
			*hard = parse_limit(e, &e);
			return *soft == -1 ? -1 : 0;
		}
		pos = eol + 1;
	}
	return -1;
}

/* Field k (0-based, space separated) of a line into out; 0 or -1. */
static int field(const char *line, size_t len, int k, char *out, size_t outsz)
{
	size_t i = 0;

	for (int f = 0; i < len; f++) {
		size_t start;

		while (i < len && line[i] == ' ')
			i++;
		start = i;
		while (i < len && line[i] != ' ')
			i++;
		if (f == k) {
			if (i == start || i - start >= outsz)
				return -1;
			memcpy(out, line + start, i - start);
			out[i - start] = '\0';
			return 0;
		}
	}
	return -1;
}

long long ctr_parse_shm_size(const char *text, size_t len)
{
	size_t pos = 0;
	long long found = -1;

	while (pos < len) {
		size_t eol = pos;
		char mnt[256], opts[1024], f4[256];

		while (eol < len && text[eol] != '\n')
			eol++;
		/* /proc/mounts: "shm /dev/shm tmpfs rw,...,size=65536k 0 0";
		 * mountinfo:    "ID PARENT M:N / /dev/shm rw,... - tmpfs shm rw,size=65536k" */
		if (field(text + pos, eol - pos, 1, mnt, sizeof(mnt)) == 0 &&
		    !strcmp(mnt, "/dev/shm") && field(text + pos, eol - pos, 3, opts, sizeof(opts)) == 0) {
			;
		} else if (field(text + pos, eol - pos, 4, f4, sizeof(f4)) == 0 && !strcmp(f4, "/dev/shm")) {
			const char *dash = memmem(text + pos, eol - pos, " - ", 3);

			if (!dash || field(dash + 3, (size_t)(text + eol - dash - 3), 2, opts, sizeof(opts)) < 0) {
				pos = eol + 1;
				continue;
			}
		} else {
			pos = eol + 1;
			continue;
		}
		{
			const char *s = strstr(opts, "size=");
			const char *e;
			long long v;

			if (s && (s == opts || s[-1] == ',')) {
				v = parse_limit(s + 5, &e);
				if (v >= 0) {
					long long mult = 1;

					if (*e == 'k' || *e == 'K')
						mult = 1024;
					else if (*e == 'm' || *e == 'M')
						mult = 1024 * 1024;
					else if (*e == 'g' || *e == 'G')
						mult = 1024LL * 1024 * 1024;
					/* a size no machine has ('size=9000...k' in a hostile mounts
					   file) saturates instead of overflowing (the fuzzer's find) */
					v = v > LLONG_MAX / mult ? LLONG_MAX : v * mult;
					found = v;	/* the last mount over /dev/shm wins */
				}
			}
		}
		pos = eol + 1;
	}
	return found;
}

int ctr_mountinfo_has(const char *text, size_t len, const char *path)
{
	size_t pos = 0;

	while (pos < len) {
		size_t eol = pos;
		char mnt[4096];

		while (eol < len && text[eol] != '\n')
			eol++;
		if (field(text + pos, eol - pos, 4, mnt, sizeof(mnt)) == 0 && !strcmp(mnt, path))
			return 1;
		pos = eol + 1;
	}
	return 0;
}

int ctr_devices_list_allows(const char *text, size_t len, long major)
{
	size_t pos = 0;

	while (pos < len) {
		size_t eol = pos;
		char type[8], dev[64], acc[16];

		while (eol < len && text[eol] != '\n')
			eol++;
		if (field(text + pos, eol - pos, 0, type, sizeof(type)) == 0 &&
		    field(text + pos, eol - pos, 1, dev, sizeof(dev)) == 0 &&
		    field(text + pos, eol - pos, 2, acc, sizeof(acc)) == 0 &&
		    strchr(acc, 'r') && strchr(acc, 'w')) {
			char *colon = strchr(dev, ':');

			if (!strcmp(type, "a"))
				return 1;
			if (!strcmp(type, "c") && colon) {
				*colon = '\0';
				if (!strcmp(dev, "*") || strtol(dev, NULL, 10) == major)
					return 1;
			}
		}
		pos = eol + 1;
	}
	return 0;
}

int ctr_mountinfo_container_sign(const char *text, size_t len, char *why, size_t whysz)
{
	size_t pos = 0;

	while (pos < len) {
		size_t eol = pos;
		char mnt[256], fstype[64];
		const char *dash;

		while (eol < len && text[eol] != '\n')
			eol++;
		dash = memmem(text + pos, eol - pos, " - ", 3);
		if (field(text + pos, eol - pos, 4, mnt, sizeof(mnt)) == 0 && dash &&
		    field(dash + 3, (size_t)(text + eol - dash - 3), 0, fstype, sizeof(fstype)) == 0) {
			/* container engines root the container on an overlay... */
			if (!strcmp(mnt, "/") && (!strcmp(fstype, "overlay") ||
						  !strcmp(fstype, "fuse-overlayfs") || !strcmp(fstype, "aufs"))) {
				snprintf(why, whysz, "/ is an %s mount", fstype);
				return 1;
			}
			/* ...and bind-mount the files they write for it */
			if (!strcmp(mnt, "/etc/hostname") || !strcmp(mnt, "/etc/hosts") ||
			    !strcmp(mnt, "/etc/resolv.conf")) {
				snprintf(why, whysz, "%s is a bind mount", mnt);
				return 1;
			}
		}
		pos = eol + 1;
	}
	return 0;
}
