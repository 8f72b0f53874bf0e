/*
 * logunwrap.c - escaped strings, colour codes without their ESC, and
 * localised system words, turned back into the plain English line a rule
 * matches; see logunwrap.h.  Bounded by len, never by a NUL.
 */
#include "explain/logunwrap.h"

#include <stdint.h>
#include <string.h>

/* ---- escaped strings ---- */

static int is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/*
 * "C:\Users", "C:\\Users": a Windows path, whose "\nvcuda.dll" is a file,
 * not a line break (Python's repr doubles the backslashes of a path:
 * "C:\\Windows\\System32\\nvcuda.dll").
 */
static int windows_path(const char *s, size_t len)
{
	for (size_t i = 1; i + 2 < len; i++)
		if (s[i] == ':' && s[i + 1] == '\\' && is_alpha(s[i - 1]) && (i < 2 || !is_alpha(s[i - 2])))
			return 1;
	return 0;
}

/* What the escape after a run of backslashes stands for; 0 for none. *used: bytes after the run. */
static char escape_at(const char *p, const char *end, int newlines, size_t *used)
{
	*used = 1;
	if (p >= end)
		return 0;
	switch (*p) {
	case 'n':
	case 'r':
		return newlines ? ' ' : 0;
	case 't':
		return newlines ? ' ' : 0;
	case '"':
	case '\'':
		return *p;
	case 'u':
		/* \u001b and \u0020-\u007e: JSON's escapes of ASCII */
		if (end - p >= 5 && !memcmp(p + 1, "00", 2)) {
			const char *h = p + 3;
			int v = 0;

			for (int k = 0; k < 2; k++) {
				char c = h[k];

				v = v * 16 + (c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
					      c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1000);
			}
			if (v == 0x1b || (v >= 0x20 && v < 0x7f)) {
				*used = 5;
				return (char)v;
			}
		}
		return 0;
	case 'x':
		if (end - p >= 3 && p[1] == '1' && (p[2] == 'b' || p[2] == 'B')) {
			*used = 3;
			return '\033';
		}
		return 0;
	case '0':
		if (end - p >= 3 && p[1] == '3' && p[2] == '3') {
			*used = 3;
			return '\033';
		}
		return 0;
	}
	return 0;
}

int logunwrap_escaped_found(const char *s, size_t len)
{
	const char *p = s, *end = s + len;

	while ((p = memchr(p, '\\', (size_t)(end - p)))) {
		size_t used;
		char c;

		while (p < end && *p == '\\')
			p++;
		c = escape_at(p, end, 1, &used);
		if ((c == ' ' && (*p == 'n' || *p == 'r')) || c == '"' || c == '\033')
			return 1;
	}
	return 0;
}

void logunwrap_escaped(struct buf *out, const char *s, size_t len)
{
	int newlines = !windows_path(s, len);

	buf_reset(out);
	for (size_t i = 0; i < len; i++) {
		size_t run = 0, used;
		char c;

		if (s[i] != '\\') {
			const char *bs = memchr(s + i, '\\', len - i);
			size_t n = bs ? (size_t)(bs - (s + i)) : len - i;

			buf_add(out, s + i, n);
			i += n - 1;
			continue;
		}
		while (i + run < len && s[i + run] == '\\')
			run++;
		c = escape_at(s + i + run, s + len, newlines, &used);
		if (c) {
			buf_addc(out, c);
			i += run + used - 1;
		} else {
			/* a backslash that escapes nothing we know: one stays (a
			 * folder separator quoted once or twice) */
			buf_addc(out, '\\');
			if (!newlines)
				buf_add(out, s + i + 1, run - 1);
			i += run - 1;
		}
	}
}

/* ---- one JSON record a line ---- */

/* The raw (still escaped) value of "key":"..." at s[i..]: its end, or 0. */
static size_t json_string_end(const char *s, size_t len, size_t i)
{
	for (size_t j = i; j < len; j++) {
		if (s[j] == '\\')
			j++;
		else if (s[j] == '"')
			return j;
	}
	return 0;
}

/* After "key" at i: spaces, ':', spaces, '"'; the index after the quote, or 0. */
static size_t json_value_at(const char *s, size_t len, size_t i)
{
	while (i < len && s[i] == ' ')
		i++;
	if (i >= len || s[i] != ':')
		return 0;
	for (i++; i < len && s[i] == ' '; i++)
		;
	return i < len && s[i] == '"' ? i + 1 : 0;
}

int logunwrap_json_message(const char *s, size_t len, size_t *off, size_t *n)
{
	size_t i = 0, v = 0, end;
	const char *at;

	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	if (i >= len || s[i] != '{' || s[len - 1] != '}')
		return 0;
	/* docker's "log" leads its record; journald's "MESSAGE" is anywhere */
	if (len - i > 6 && !memcmp(s + i + 1, "\"log\"", 5))
		v = json_value_at(s, len, i + 6);
	else if ((at = memmem(s + i, len - i, "\"MESSAGE\"", 9)))
		v = json_value_at(s, len, (size_t)(at - s) + 9);
	if (!v || !(end = json_string_end(s, len, v)))
		return 0;
	*off = v;
	*n = end - v;
	return 1;
}

/* ---- colour codes without their ESC ---- */

/*
 * "[", digits and ';' (at most 16), then 'm' or 'K': the length, or 0.
 * Without digits ("[m", "[K") only when no letter follows: "[mem size
 * 0x...]" and "[Kernel]" are text (a BAR assignment lost its words).
 */
static size_t residue_at(const char *s, size_t len, size_t i)
{
	size_t j = i + 1;

	if (i >= len || s[i] != '[')
		return 0;
	while (j < len && j - i <= 16 && ((s[j] >= '0' && s[j] <= '9') || s[j] == ';'))
		j++;
	if (j < len && (s[j] == 'm' || s[j] == 'K') &&
	    (j > i + 1 || j + 1 >= len || !is_alpha(s[j + 1])))
		return j + 1 - i;
	return 0;
}

int logunwrap_residue_found(const char *s, size_t len)
{
	const char *p = s, *end = s + len;

	while ((p = memchr(p, '[', (size_t)(end - p)))) {
		size_t n = (size_t)(end - p);

		/* a reset ends every coloured span; the caret form is cat -v's */
		if ((n >= 3 && !memcmp(p, "[0m", 3)) ||
		    (n >= 2 && (p[1] == 'm' || p[1] == 'K') && residue_at(p, n, 0)) ||
		    (n >= 4 && !memcmp(p, "[39m", 4)) || (p > s && p[-1] == '[' && p - 1 > s && p[-2] == '^'))
			return 1;
		p++;
	}
	return 0;
}

void logunwrap_residue(struct buf *out, const char *s, size_t len)
{
	buf_reset(out);
	for (size_t i = 0; i < len; i++) {
		size_t n;

		if (s[i] == '^' && i + 1 < len && s[i + 1] == '[' && (n = residue_at(s, len, i + 2))) {
			i += 1 + n;
			continue;
		}
		if ((n = residue_at(s, len, i))) {
			i += n - 1;
			continue;
		}
		buf_addc(out, s[i]);
	}
}

/* ---- localised words ---- */

/*
 * glibc's messages in its translations (po/de.po, fr.po, es.po, ru.po,
 * zh_CN.po, ja.po: https://sourceware.org/git/?p=glibc.git;a=tree;f=po),
 * the forms users paste (both Chinese renderings of ENOENT are seen), and
 * Windows' ERROR_MOD_NOT_FOUND in the same languages (Python's "DLL load
 * failed while importing x: <the system's message>").  Longest first where
 * one holds another.
 */
static const struct {
	const char *from, *to;
} words[] = {
	{ "Kann die Shared-Object-Datei nicht \xc3\xb6" "ffnen", "cannot open shared object file" },
	{ "Fehler beim Laden gemeinsamer Bibliotheken", "error while loading shared libraries" },
	{ "Datei oder Verzeichnis nicht gefunden", "No such file or directory" },
	{ "Keine Berechtigung", "Permission denied" },
	{ "Die Operation ist nicht erlaubt", "Operation not permitted" },
	{ "Das angegebene Modul wurde nicht gefunden", "The specified module could not be found" },
	{ "Aucun fichier ou dossier de ce type", "No such file or directory" },
	{ "Permission non accord\xc3\xa9" "e", "Permission denied" },
	{ "Le module sp\xc3\xa9" "cifi\xc3\xa9 est introuvable", "The specified module could not be found" },
	{ "No existe el archivo o el directorio", "No such file or directory" },
	{ "Permiso denegado", "Permission denied" },
	{ "No se puede encontrar el m\xc3\xb3" "dulo especificado", "The specified module could not be found" },
	/* ru: Нет такого файла или каталога, Отказано в доступе */
	{ "\xd0\x9d\xd0\xb5\xd1\x82 \xd1\x82\xd0\xb0\xd0\xba\xd0\xbe\xd0\xb3\xd0\xbe \xd1\x84\xd0\xb0\xd0\xb9\xd0\xbb\xd0\xb0 "
	  "\xd0\xb8\xd0\xbb\xd0\xb8 \xd0\xba\xd0\xb0\xd1\x82\xd0\xb0\xd0\xbb\xd0\xbe\xd0\xb3\xd0\xb0",
	  "No such file or directory" },
	{ "\xd0\x9e\xd1\x82\xd0\xba\xd0\xb0\xd0\xb7\xd0\xb0\xd0\xbd\xd0\xbe \xd0\xb2 \xd0\xb4\xd0\xbe\xd1\x81\xd1\x82"
	  "\xd1\x83\xd0\xbf\xd0\xb5",
	  "Permission denied" },
	/* zh_CN: 无法打开共享对象文件, 加载共享库时出错, 没有那个文件或目录, 没有这样的文件或目录, 权限不够, 找不到指定的模块 */
	{ "\xe6\x97\xa0\xe6\xb3\x95\xe6\x89\x93\xe5\xbc\x80\xe5\x85\xb1\xe4\xba\xab\xe5\xaf\xb9\xe8\xb1\xa1\xe6\x96\x87"
	  "\xe4\xbb\xb6",
	  "cannot open shared object file" },
	{ "\xe5\x8a\xa0\xe8\xbd\xbd\xe5\x85\xb1\xe4\xba\xab\xe5\xba\x93\xe6\x97\xb6\xe5\x87\xba\xe9\x94\x99",
	  "error while loading shared libraries" },
	{ "\xe6\xb2\xa1\xe6\x9c\x89\xe9\x82\xa3\xe4\xb8\xaa\xe6\x96\x87\xe4\xbb\xb6\xe6\x88\x96\xe7\x9b\xae\xe5\xbd\x95",
	  "No such file or directory" },
	{ "\xe6\xb2\xa1\xe6\x9c\x89\xe8\xbf\x99\xe6\xa0\xb7\xe7\x9a\x84\xe6\x96\x87\xe4\xbb\xb6\xe6\x88\x96\xe7\x9b\xae"
	  "\xe5\xbd\x95",
	  "No such file or directory" },
	{ "\xe6\x9d\x83\xe9\x99\x90\xe4\xb8\x8d\xe5\xa4\x9f", "Permission denied" },
	{ "\xe6\x89\xbe\xe4\xb8\x8d\xe5\x88\xb0\xe6\x8c\x87\xe5\xae\x9a\xe7\x9a\x84\xe6\xa8\xa1\xe5\x9d\x97",
	  "The specified module could not be found" },
	/* ja: 共有オブジェクトファイルを開けません, そのようなファイルやディレクトリはありません, 許可がありません, 指定されたモジュールが見つかりません */
	{ "\xe5\x85\xb1\xe6\x9c\x89\xe3\x82\xaa\xe3\x83\x96\xe3\x82\xb8\xe3\x82\xa7\xe3\x82\xaf\xe3\x83\x88\xe3\x83\x95"
	  "\xe3\x82\xa1\xe3\x82\xa4\xe3\x83\xab\xe3\x82\x92\xe9\x96\x8b\xe3\x81\x91\xe3\x81\xbe\xe3\x81\x9b\xe3\x82\x93",
	  "cannot open shared object file" },
	{ "\xe3\x81\x9d\xe3\x81\xae\xe3\x82\x88\xe3\x81\x86\xe3\x81\xaa\xe3\x83\x95\xe3\x82\xa1\xe3\x82\xa4\xe3\x83\xab"
	  "\xe3\x82\x84\xe3\x83\x87\xe3\x82\xa3\xe3\x83\xac\xe3\x82\xaf\xe3\x83\x88\xe3\x83\xaa\xe3\x81\xaf\xe3\x81\x82"
	  "\xe3\x82\x8a\xe3\x81\xbe\xe3\x81\x9b\xe3\x82\x93",
	  "No such file or directory" },
	{ "\xe8\xa8\xb1\xe5\x8f\xaf\xe3\x81\x8c\xe3\x81\x82\xe3\x82\x8a\xe3\x81\xbe\xe3\x81\x9b\xe3\x82\x93",
	  "Permission denied" },
	{ "\xe6\x8c\x87\xe5\xae\x9a\xe3\x81\x95\xe3\x82\x8c\xe3\x81\x9f\xe3\x83\xa2\xe3\x82\xb8\xe3\x83\xa5\xe3\x83\xbc"
	  "\xe3\x83\xab\xe3\x81\x8c\xe8\xa6\x8b\xe3\x81\xa4\xe3\x81\x8b\xe3\x82\x8a\xe3\x81\xbe\xe3\x81\x9b\xe3\x82\x93",
	  "The specified module could not be found" },
	/* the full-width colon and space of CJK text */
	{ "\xef\xbc\x9a", ": " },
	{ "\xe3\x80\x80", " " },
};

#define NWORDS (sizeof(words) / sizeof(words[0]))
_Static_assert(NWORDS <= 32, "first_byte[] holds a bit per entry");

/*
 * Per first byte, the entries that start with it (a bit each): a line of
 * CJK text or of progress-bar blocks has a lead byte every few bytes, and
 * trying every entry at each (27 strlen and compares) made a 100 MB log
 * of tqdm bars take 9 s instead of 0.2.  Built once; the table is const.
 */
static uint32_t first_byte[256];
static size_t word_len[NWORDS];

static void index_words(void)
{
	static int done;

	if (done)
		return;
	for (size_t w = 0; w < NWORDS; w++) {
		word_len[w] = strlen(words[w].from);
		first_byte[(unsigned char)words[w].from[0]] |= 1u << w;
	}
	done = 1;
}

/* The table entry whose text starts at p, or -1. */
static int word_at(const char *p, const char *end)
{
	uint32_t m = first_byte[(unsigned char)*p];

	while (m) {
		size_t w = (size_t)__builtin_ctz(m);

		m &= m - 1;
		if ((size_t)(end - p) >= word_len[w] && !memcmp(p, words[w].from, word_len[w]))
			return (int)w;
	}
	return -1;
}

/*
 * Cheap first (a 100 MB log's every line passes here): a line with a byte
 * >= 0x80 is searched whole; an ASCII one only after each ": ", where
 * strerror()'s words stand ("/dev/nvidia0: Keine Berechtigung"); five
 * memmem() calls a line doubled explain's time on an ordinary log.
 */
int logunwrap_locale_found(const char *s, size_t len)
{
	const char *p, *end = s + len;
	unsigned char high = 0;

	index_words();
	/* an OR over the line the compiler vectorises: no early exit */
	for (size_t i = 0; i < len; i++)
		high |= (unsigned char)s[i];
	if (high & 0x80) {
		for (p = s; p < end; p++)
			if (first_byte[(unsigned char)*p] && word_at(p, end) >= 0)
				return 1;
		return 0;
	}
	for (p = s; (p = memchr(p, ':', (size_t)(end - p))) && end - p > 3; p++)
		if (p[1] == ' ' && first_byte[(unsigned char)p[2]] && word_at(p + 2, end) >= 0)
			return 1;
	return 0;
}

void logunwrap_locale(struct buf *out, const char *s, size_t len)
{
	const char *p = s, *end = s + len;

	index_words();
	buf_reset(out);
	while (p < end) {
		int w = word_at(p, end);

		if (w < 0) {
			buf_addc(out, *p++);
			continue;
		}
		buf_puts(out, words[w].to);
		p += word_len[w];
	}
}
