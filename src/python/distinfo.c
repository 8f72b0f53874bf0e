/*
 * distinfo.c - .dist-info / .egg-info directories: index, METADATA, RECORD.
 *
 * Everything here parses text written by pip, conda or hand: nothing is
 * trusted to be well formed, lengths are explicit and the text need not be
 * NUL-terminated.
 */
#include "python/distinfo.h"

#include "core/buf.h"
#include "core/fs.h"
#include "core/xalloc.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int distinfo_sep(char c)
{
	return c == '-' || c == '_' || c == '.';
}

static char *distinfo_normalize_n(const char *name, size_t n)
{
	struct buf b;

	buf_init(&b);	/* buf_detach of a never-written BUF_INIT is not terminated */
	for (size_t i = 0; i < n; i++) {
		if (distinfo_sep(name[i])) {
			while (i + 1 < n && distinfo_sep(name[i + 1]))
				i++;
			buf_addc(&b, '-');
		} else {
			buf_addc(&b, (char)tolower((unsigned char)name[i]));
		}
	}
	return buf_detach(&b);
}

char *distinfo_normalize(const char *name)
{
	return distinfo_normalize_n(name, strlen(name));
}

static int distinfo_ends(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a > b && strcmp(s + a - b, suffix) == 0;
}

int distinfo_index_site(const char *root, const char *site_dir, struct distinfo_site *s,
			struct err *e)
{
	char **names = NULL;
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	s->dir = xstrdup(site_dir);
	if (fs_list_dir(root, site_dir, &names, &n, e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const char *nm = names[i];
		size_t stem, split;
		struct distinfo_dist *d;

		if (distinfo_ends(nm, ".dist-info"))
			stem = strlen(nm) - 10;
		else if (distinfo_ends(nm, ".egg-info"))
			stem = strlen(nm) - 9;
		else
			continue;
		/* name-version: the version starts after the first '-' that precedes a digit */
		for (split = 0; split < stem; split++)
			if (nm[split] == '-' && split + 1 < stem && isdigit((unsigned char)nm[split + 1]))
				break;
		if (split == 0)
			continue;
		XGROW(s->dists, s->n + 1, s->cap);
		d = &s->dists[s->n++];
		d->norm = distinfo_normalize_n(nm, split);
		d->version = split < stem ? xstrndup(nm + split + 1, stem - split - 1) : NULL;
		d->dir = fs_join(site_dir, nm);
	}
	fs_names_free(names, n);
	return 0;
}

void distinfo_site_release(struct distinfo_site *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->dists[i].norm);
		free(s->dists[i].version);
		free(s->dists[i].dir);
	}
	free(s->dists);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}

const struct distinfo_dist *distinfo_find(const struct distinfo_site *s, const char *name)
{
	char *norm = distinfo_normalize(name);
	const struct distinfo_dist *hit = NULL;

	/* A .dist-info wins over a stale .egg-info of the same name: the index is sorted, take the first dist-info. */
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->dists[i].norm, norm) == 0) {
			if (!hit || distinfo_ends(s->dists[i].dir, ".dist-info"))
				hit = &s->dists[i];
			if (distinfo_ends(hit->dir, ".dist-info"))
				break;
		}
	free(norm);
	return hit;
}

static char *distinfo_trimmed(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
		n--;
	return xstrndup(s, n);
}

int distinfo_parse_metadata(const char *text, size_t len, struct distinfo_meta *m,
			    struct err *e)
{
	size_t pos = 0;

	(void)e;
	while (pos < len) {
		const char *line = text + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos;
		const char *colon;
		size_t klen;
		char *val;

		pos += ll + (nl ? 1 : 0);
		if (ll && line[ll - 1] == '\r')
			ll--;
		if (ll == 0)
			break;		/* the body (description) starts */
		if (line[0] == ' ' || line[0] == '\t')
			continue;	/* a continuation line */
		colon = memchr(line, ':', ll);
		if (!colon)
			continue;
		klen = (size_t)(colon - line);
		val = distinfo_trimmed(colon + 1, ll - klen - 1);
		if (klen == 4 && strncasecmp(line, "Name", 4) == 0 && !m->name) {
			m->name = val;
		} else if (klen == 7 && strncasecmp(line, "Version", 7) == 0 && !m->version) {
			m->version = val;
		} else if (klen == 7 && strncasecmp(line, "Summary", 7) == 0 && !m->summary) {
			m->summary = val;
		} else if (klen == 13 && strncasecmp(line, "Requires-Dist", 13) == 0) {
			XGROW(m->requires, m->nrequires + 1, m->requires_cap);
			m->requires[m->nrequires++] = val;
		} else {
			free(val);
		}
	}
	return 0;
}

int distinfo_read_metadata(const char *root, const struct distinfo_dist *d,
			   struct distinfo_meta *m, struct err *e)
{
	struct buf b = BUF_INIT;
	char *path = fs_join(d->dir, distinfo_ends(d->dir, ".egg-info") ? "PKG-INFO" : "METADATA");
	int rc;

	/* Long descriptions make METADATA large; the headers are at the top. */
	rc = fs_read_file(root, path, 4 << 20, &b, e);
	free(path);
	if (rc == 0)
		rc = distinfo_parse_metadata(b.s, b.len, m, e);
	buf_release(&b);
	return rc;
}

void distinfo_meta_release(struct distinfo_meta *m)
{
	free(m->name);
	free(m->version);
	free(m->summary);
	for (size_t i = 0; i < m->nrequires; i++)
		free(m->requires[i]);
	free(m->requires);
	memset(m, 0, sizeof(*m));
}

/* Does the marker text (after ';') say extra == "extra"? */
static int distinfo_marker_has_extra(const char *marker, const char *extra)
{
	const char *p = marker;

	while ((p = strstr(p, "extra")) != NULL) {
		const char *q = p + 5;

		while (*q == ' ')
			q++;
		if (q[0] == '=' && q[1] == '=') {
			size_t n = strlen(extra);

			q += 2;
			while (*q == ' ')
				q++;
			if ((*q == '"' || *q == '\'') && strncmp(q + 1, extra, n) == 0 && q[1 + n] == *q)
				return 1;
		}
		p += 5;
	}
	return 0;
}

const char *distinfo_requirement(const struct distinfo_meta *m, const char *dist,
				 const char *extra, size_t *len)
{
	char *want = distinfo_normalize(dist);
	const char *hit = NULL;

	for (size_t i = 0; i < m->nrequires && !hit; i++) {
		const char *r = m->requires[i];
		const char *semi = strchr(r, ';');
		size_t nl = 0;
		char *norm;

		while (r[nl] && (isalnum((unsigned char)r[nl]) || distinfo_sep(r[nl])))
			nl++;
		norm = distinfo_normalize_n(r, nl);
		if (strcmp(norm, want) == 0 &&
		    (extra ? semi && distinfo_marker_has_extra(semi + 1, extra)
			   : !semi || !strstr(semi, "extra"))) {
			const char *s = r + nl;
			size_t n;

			if (*s == '[') {	/* name[extra]>=1 */
				const char *close = strchr(s, ']');

				s = close ? close + 1 : s;
			}
			while (*s == ' ' || *s == '(')
				s++;
			n = semi && semi > s ? (size_t)(semi - s) : strlen(s);
			while (n && (s[n - 1] == ' ' || s[n - 1] == ')'))
				n--;
			hit = s;
			if (len)
				*len = n;
		}
		free(norm);
	}
	free(want);
	return hit;
}

int distinfo_parse_record(const char *text, size_t len, struct distinfo_record *r,
			  struct err *e)
{
	size_t pos = 0;

	(void)e;
	while (pos < len) {
		struct buf p = BUF_INIT;

		if (text[pos] == '"') {
			/* quoted: "" is a literal quote */
			pos++;
			while (pos < len) {
				if (text[pos] == '"') {
					if (pos + 1 < len && text[pos + 1] == '"') {
						buf_addc(&p, '"');
						pos += 2;
						continue;
					}
					pos++;
					break;
				}
				buf_addc(&p, text[pos++]);
			}
		} else {
			while (pos < len && text[pos] != ',' && text[pos] != '\n' && text[pos] != '\r')
				buf_addc(&p, text[pos++]);
		}
		/* skip the other columns */
		while (pos < len && text[pos] != '\n')
			pos++;
		pos++;
		if (p.len && strlen(p.s) == p.len) {
			XGROW(r->paths, r->n + 1, r->cap);
			r->paths[r->n++] = buf_detach(&p);
		}
		buf_release(&p);
	}
	return 0;
}

void distinfo_record_release(struct distinfo_record *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->paths[i]);
	free(r->paths);
	memset(r, 0, sizeof(*r));
}
