/* bench_ncclinfo.c - NCCL's INFO log into a topology summary; see bench_ncclinfo.h. */
#include "bench/bench_ncclinfo.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copy the token at s (up to a space, comma or the end) keeping only
 * [A-Za-z0-9._+/=-]; returns its length in the source. */
static size_t ni_token(const char *s, size_t len, char *dst, size_t n)
{
	size_t i = 0, k = 0;

	for (; i < len && s[i] != ' ' && s[i] != ',' && s[i] != '\t'; i++) {
		char c = s[i];

		if (k + 1 < n && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
				  c == '.' || c == '_' || c == '+' || c == '/' || c == '=' || c == '-'))
			dst[k++] = c;
	}
	if (n)
		dst[k] = '\0';
	return i;
}

/* Find needle in s[0..len). */
static const char *ni_find(const char *s, size_t len, const char *needle)
{
	size_t nl = strlen(needle);

	for (size_t i = 0; nl <= len && i <= len - nl; i++)
		if (!memcmp(s + i, needle, nl))
			return s + i;
	return NULL;
}

/* A non-negative int after prefix in the line, or -1. */
static int ni_int_after(const char *s, size_t len, const char *prefix)
{
	const char *p = ni_find(s, len, prefix);
	long v = 0;
	int digits = 0;

	if (!p)
		return -1;
	p += strlen(prefix);
	while (p < s + len && *p == ' ')
		p++;
	for (; p < s + len && *p >= '0' && *p <= '9' && digits < 9; p++, digits++)
		v = v * 10 + (*p - '0');
	return digits ? (int)v : -1;
}

static void ni_add(char list[][BENCH_NCCLINFO_STR], int *n, const char *v)
{
	if (!*v)
		return;
	for (int i = 0; i < *n; i++)
		if (!strcmp(list[i], v))
			return;
	if (*n < BENCH_NCCLINFO_MAX)
		snprintf(list[(*n)++], BENCH_NCCLINFO_STR, "%s", v);
}

static void ni_path(struct bench_nccl_topo *t, const char *v)
{
	if (!*v)
		return;
	for (int i = 0; i < t->npath; i++)
		if (!strcmp(t->path[i], v))
			return;
	if (t->npath < BENCH_NCCLINFO_MAX)
		snprintf(t->path[t->npath++], sizeof(t->path[0]), "%.7s", v);
}

static void ni_via(struct bench_nccl_topo *t, const char *v)
{
	if (!strncmp(v, "P2P", 3))
		t->transports |= BENCH_NCCL_T_P2P;
	else if (!strncmp(v, "SHM", 3))
		t->transports |= BENCH_NCCL_T_SHM;
	else if (!strncmp(v, "NET", 3))
		t->transports |= BENCH_NCCL_T_NET;
	else if (!strncmp(v, "NVLS", 4))
		t->transports |= BENCH_NCCL_T_NVLS;
	else if (!strncmp(v, "COLLNET", 7))
		t->transports |= BENCH_NCCL_T_COLLNET;
	else if (*v)
		t->transports |= BENCH_NCCL_T_OTHER;
	ni_add(t->via, &t->nvia, v);
}

static void ni_info(struct bench_nccl_topo *t, const char *s, size_t len)
{
	char tok[BENCH_NCCLINFO_STR];
	const char *p;
	int v;

	if (len > 13 && !memcmp(s, "NCCL version ", 13)) {
		ni_token(s + 13, len - 13, t->version, sizeof(t->version));
		return;
	}
	if (len > 8 && !memcmp(s, "Pattern ", 8)) {
		if ((v = ni_int_after(s, len, "nChannels")) > t->channels)
			t->channels = v;
		if ((p = ni_find(s, len, ", type "))) {
			char *slash;

			ni_token(p + 7, len - (size_t)(p + 7 - s), tok, sizeof(tok));
			if ((slash = strchr(tok, '/')))
				*slash = '\0';	/* intra/inter: the intra-node part */
			ni_path(t, tok);
		}
		return;
	}
	if (len > 8 && !memcmp(s, "Channel ", 8) && (p = ni_find(s, len, " via "))) {
		ni_token(p + 5, len - (size_t)(p + 5 - s), tok, sizeof(tok));
		ni_via(t, tok);
		return;
	}
	if ((p = ni_find(s, len, " nranks ")) || (p = ni_find(s, len, " nRanks "))) {
		v = ni_int_after(p, len - (size_t)(p - s), p[2] == 'r' ? " nranks" : " nRanks");
		if (v > 0 && t->nranks < 0)
			t->nranks = v;
	}
	if ((p = ni_find(s, len, " nvls channels")) && t->nvls_channels < 0) {
		/* "..., 16 nvls channels": the number before */
		const char *q = p;
		int mul = 1;

		v = 0;
		while (q > s && q[-1] >= '0' && q[-1] <= '9' && mul < 1000000) {
			v += (q[-1] - '0') * mul;
			mul *= 10;
			q--;
		}
		if (q != p)
			t->nvls_channels = v;
	}
	if (len > 5 && !memcmp(s, "NCCL_", 5) && (p = ni_find(s, len, " set by environment to "))) {
		char name[BENCH_NCCLINFO_STR], val[BENCH_NCCLINFO_STR], both[BENCH_NCCLINFO_STR];

		ni_token(s, (size_t)(p - s), name, sizeof(name));
		ni_token(p + 23, len - (size_t)(p + 23 - s), val, sizeof(val));
		v = (int)strlen(val);
		if (v > 0 && val[v - 1] == '.')
			val[v - 1] = '\0';
		snprintf(both, sizeof(both), "%.19s=%.19s", name, val);
		ni_add(t->env, &t->nenv, both);
	}
}

static void ni_warn(struct bench_nccl_topo *t, const char *s, size_t len)
{
	size_t k = 0;

	if (t->warnings++)
		return;
	for (size_t i = 0; i < len && k + 1 < sizeof(t->first_warning); i++)
		t->first_warning[k++] = (unsigned char)s[i] >= 0x20 && (unsigned char)s[i] < 0x7f ? s[i] : '?';
	t->first_warning[k] = '\0';
}

void bench_ncclinfo_parse(const char *text, size_t len, struct bench_nccl_topo *t)
{
	size_t i = 0;

	memset(t, 0, sizeof(*t));
	t->nranks = t->channels = t->nvls_channels = -1;
	while (i < len) {
		const char *line = text + i, *nl = memchr(line, '\n', len - i), *p;
		size_t ll = nl ? (size_t)(nl - line) : len - i;

		i += ll + 1;
		if (ll && line[ll - 1] == '\r')
			ll--;
		if ((p = ni_find(line, ll, "NCCL INFO "))) {
			t->lines++;
			ni_info(t, p + 10, ll - (size_t)(p + 10 - line));
		} else if ((p = ni_find(line, ll, "NCCL WARN "))) {
			t->lines++;
			ni_warn(t, p + 10, ll - (size_t)(p + 10 - line));
		}
	}
}

static int ni_rank(const char *path)
{
	/* NCCL's path types from fastest to slowest (graph/topo.h). */
	static const char *const order[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "PXN", "P2C", "PHB", "SYS", "NET", "DIS" };

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!strcmp(order[i], path))
			return (int)i;
	return -1;
}

const char *bench_ncclinfo_link(const struct bench_nccl_topo *t)
{
	int worst = -1;

	for (int i = 0; i < t->npath; i++) {
		int r = ni_rank(t->path[i]);

		if (r > worst)
			worst = r;
	}
	if (worst < 0)
		return NULL;
	if (worst <= 3)
		return worst == 0 ? "same GPU" : "NVLink";
	if (worst <= 8)
		return "PCIe";
	if (worst == 9)
		return "PCIe across CPU sockets";
	return "network";
}

const char *bench_ncclinfo_summary(const struct bench_nccl_topo *t, char *buf, size_t n)
{
	const char *link = bench_ncclinfo_link(t);
	size_t k;

	if (!n)
		return buf;
	snprintf(buf, n, "%s", link ? link : "link unknown");
	for (int i = 0; i < t->nvia; i++) {
		k = strlen(buf);
		snprintf(buf + k, n - k, "%s%s", i ? ", " : " via ", t->via[i]);
	}
	if (t->channels > 0) {
		k = strlen(buf);
		snprintf(buf + k, n - k, ", %d channels", t->channels);
	}
	if (t->nvls_channels > 0) {
		k = strlen(buf);
		snprintf(buf + k, n - k, ", NVLS (%d channels)", t->nvls_channels);
	}
	for (int i = 0; i < t->nenv; i++) {
		k = strlen(buf);
		snprintf(buf + k, n - k, "%s%s", i ? ", " : "; set in the environment: ", t->env[i]);
	}
	return buf;
}
