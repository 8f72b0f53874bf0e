/*
 * script_exec.c - find the program a wrapper script hands over to, by
 * reading it as text (see script_exec.h for the contract).
 */
#include "probes/libraries/script_exec.h"

#include <string.h>

static int is_blank(char c)
{
	return c == ' ' || c == '\t';
}

/*
 * One shell word starting at line[*i], unquoted or wholly inside '' or "".
 * Returns its length in *wlen and its start; NULL when the word is not a
 * plain literal (a quote left open, or quotes glued to other text).
 */
static const char *next_word(const char *line, size_t n, size_t *i, size_t *wlen)
{
	const char *w;
	size_t j;

	while (*i < n && is_blank(line[*i]))
		(*i)++;
	if (*i >= n)
		return NULL;
	if (line[*i] == '"' || line[*i] == '\'') {
		char q = line[*i];

		j = *i + 1;
		while (j < n && line[j] != q)
			j++;
		if (j >= n)
			return NULL;
		w = line + *i + 1;
		*wlen = j - *i - 1;
		*i = j + 1;
		if (*i < n && !is_blank(line[*i]) && line[*i] != ';')
			return NULL;
		return w;
	}
	j = *i;
	while (j < n && !is_blank(line[j]) && line[j] != ';' && line[j] != '"' &&
	       line[j] != '\'')
		j++;
	if (j < n && (line[j] == '"' || line[j] == '\''))
		return NULL;
	w = line + *i;
	*wlen = j - *i;
	*i = j;
	return w;
}

static int is_literal_path(const char *w, size_t n)
{
	if (n < 2 || w[0] != '/')
		return 0;
	for (size_t k = 0; k < n; k++)
		if (strchr("$`~*?[\\", w[k]) || w[k] == '\0')
			return 0;
	return 1;
}

static int ends_with_component(const char *w, size_t n, const char *name)
{
	size_t m = strlen(name);

	return n > m + 1 && w[n - m - 1] == '/' && memcmp(w + n - m, name, m) == 0;
}

static int line_target(const char *line, size_t n, const char *name, struct buf *out)
{
	size_t i = 0, wlen = 0;
	const char *w = next_word(line, n, &i, &wlen);

	if (!w || wlen == 0 || w[0] == '#')
		return -1;
	if (wlen == 4 && memcmp(w, "exec", 4) == 0) {
		w = next_word(line, n, &i, &wlen);
		if (!w)
			return -1;
	}
	if (!is_literal_path(w, wlen) || !ends_with_component(w, wlen, name))
		return -1;
	buf_reset(out);
	buf_add(out, w, wlen);
	return 0;
}

int script_exec_target(const char *text, size_t len, const char *name, struct buf *out)
{
	size_t pos;

	if (len < 2 || text[0] != '#' || text[1] != '!' || !name || !*name)
		return -1;
	/* skip the #! line itself */
	pos = 0;
	while (pos < len && text[pos] != '\n')
		pos++;
	while (pos < len) {
		size_t start = ++pos, end;

		while (pos < len && text[pos] != '\n')
			pos++;
		end = pos;
		if (end > start && text[end - 1] == '\r')
			end--;
		if (line_target(text + start, end - start, name, out) == 0)
			return 0;
	}
	return -1;
}
