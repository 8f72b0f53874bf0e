/*
 * lognorm_prefix.c - the prefixes a log line carries before its message,
 * found and skipped (lognorm_strip_prefix, lognorm.h): kmsg
 * "6,123,456,-;", syslog's "<13>" priority (RFC 3164) and RFC 5424's header, dmesg "[ 12.345678]" with its -T and -H forms,
 * syslog/journal "Nov 30 08:12:01 host tag[pid]:", ISO timestamps, glog,
 * torchrun "[rank3]:" and c10 "[W socket.cpp:663]", and the prefixes of
 * log collectors and launchers (collector_at).  Hostile input: every
 * scan is bounded by the line's length, never by a NUL.
 */
#include "explain/lognorm.h"
#include "explain/lognorm_prefix.h"

#include <ctype.h>
#include <string.h>

/* ---- prefixes ---- */

int ln_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* n digits at s[i..]; returns i + n or 0 when not. */
static size_t digits(const char *s, size_t len, size_t i, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (i + k >= len || !ln_is_digit(s[i + k]))
			return 0;
	return i + n;
}

size_t ln_skip_digits(const char *s, size_t len, size_t i)
{
	while (i < len && ln_is_digit(s[i]))
		i++;
	return i;
}

size_t ln_skip_spaces(const char *s, size_t len, size_t i)
{
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	return i;
}

/* "hh:mm:ss" at i: the index after it, or 0. */
static size_t clock_at(const char *s, size_t len, size_t i)
{
	size_t j = digits(s, len, i, 2);

	if (!j || j >= len || s[j] != ':' || !(j = digits(s, len, j + 1, 2)) || j >= len ||
	    s[j] != ':' || !(j = digits(s, len, j + 1, 2)))
		return 0;
	return j;
}

long ln_prefix_clock(const char *s, size_t off)
{
	/* the prefix's own "hh:mm:ss", wherever it sits in it (syslog after the
	 * month and day, glog after "E1201 ", ISO after the date's 'T' or ' ') */
	for (size_t i = 0; i + 8 <= off && i < 64; i++) {
		size_t j = (i == 0 || !ln_is_digit(s[i - 1])) ? clock_at(s, off, i) : 0;

		if (j && (j == off || !ln_is_digit(s[j])))
			return ((s[i] - '0') * 10 + (s[i + 1] - '0')) * 3600L +
			       ((s[i + 3] - '0') * 10 + (s[i + 4] - '0')) * 60L + (s[i + 6] - '0') * 10 +
			       (s[i + 7] - '0');
	}
	return -1;
}

static int is_tag_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == '/' ||
	       c == '[' || c == ']' || c == '@' || c == '(' || c == ')';
}

/*
 * " host tag[pid]: " at i (syslog and journal): the index after it, or 0.
 * *kernel is set when the tag is "kernel:".
 */
static size_t host_tag_at(const char *s, size_t len, size_t i, int *kernel)
{
	size_t h, t;

	if (i >= len || s[i] != ' ')
		return 0;
	h = ++i;
	while (i < len && i - h < 128 && (isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '.' ||
					  s[i] == '_'))
		i++;
	if (i == h || i >= len || s[i] != ' ')
		return 0;
	t = ++i;
	while (i < len && i - t < 96 && is_tag_char(s[i]))
		i++;
	if (i == t || i >= len || s[i] != ':')
		return 0;
	*kernel = i - t == 6 && !memcmp(s + t, "kernel", 6);
	return ln_skip_spaces(s, len, i + 1);
}

static int month_at(const char *s, size_t len, size_t i)
{
	static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";

	if (i + 3 > len)
		return 0;
	for (size_t m = 0; m < 36; m += 3)
		if (!memcmp(s + i, months + m, 3))
			return 1;
	return 0;
}

/* glog "I1130 08:12:01.123456  1234 file.cc:12] " or TF's "I path/file.cc:28] ". */
static size_t glog_at(const char *s, size_t len, size_t i)
{
	size_t j;

	if (i + 2 >= len || !strchr("IWEF", s[i]) || !s[i])
		return 0;
	j = i + 1;
	if (digits(s, len, j, 4)) {
		j = ln_skip_spaces(s, len, j + 4);
		if (!(j = clock_at(s, len, j)))
			return 0;
		if (j < len && s[j] == '.')
			j = ln_skip_digits(s, len, j + 1);
		j = ln_skip_spaces(s, len, j);
		j = ln_skip_digits(s, len, j);
	}
	if (j >= len || s[j] != ' ')
		return 0;
	j = ln_skip_spaces(s, len, j);
	/* file:line] with no spaces */
	for (size_t k = j; k < len && k - j < 160; k++) {
		if (s[k] == ' ')
			return 0;
		if (s[k] == ']' && k > j && ln_is_digit(s[k - 1])) {
			size_t d = k - 1;

			while (d > j && ln_is_digit(s[d]))
				d--;
			if (s[d] != ':')
				return 0;
			return ln_skip_spaces(s, len, k + 1);
		}
	}
	return 0;
}

/*
 * A syslog priority "<13>" (RFC 3164: the BSD form follows and is skipped
 * by the next round), and RFC 5424's "<13>1 TIMESTAMP HOST APP PROCID MSGID
 * SD " whose six fields go at once ("-" for a nil one; SD is "-" or
 * "[...]" groups).  Returns the offset after them, or 0.
 */
static size_t syslog_pri_at(const char *s, size_t len, size_t i, unsigned *flags)
{
	size_t j = ln_skip_digits(s, len, i + 1), f = 0;

	if (i >= len || s[i] != '<' || j == i + 1 || j - i > 4 || j >= len || s[j] != '>')
		return 0;
	j++;
	if (!(j + 1 < len && s[j] == '1' && s[j + 1] == ' '))	/* RFC 3164: a date follows */
		return month_at(s, len, j) || digits(s, len, j, 4) ? j : 0;
	j += 2;
	for (; f < 6 && j < len; f++) {
		size_t start = j;

		if (f == 5 && s[j] == '[') {
			/* structured data: "[id k="v"]..." groups, bounded by the line */
			while (j < len && s[j] == '[') {
				while (j < len && s[j] != ']')
					j += s[j] == '\\' && j + 1 < len ? 2 : 1;
				j += j < len;
			}
		} else {
			while (j < len && s[j] != ' ')
				j++;
		}
		if (f == 2 && j - start == 6 && !memcmp(s + start, "kernel", 6))
			*flags |= LN_KERNEL;
		if (j >= len || s[j] != ' ')
			return 0;
		j++;
	}
	return f == 6 ? j : 0;
}

/* ---- the prefixes log collectors and launchers add ---- */

static int is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

/* A logging level in capitals ("INFO", "WARNING"), n bytes at s. */
static int level_word(const char *s, size_t n)
{
	static const char *const levels[] = { "DEBUG", "INFO", "WARNING", "WARN", "ERROR", "CRITICAL",
					      "FATAL", "NOTICE", "TRACE" };

	if (n < 4 || n > 8)
		return 0;
	for (size_t l = 0; l < sizeof(levels) / sizeof(levels[0]); l++)
		if (strlen(levels[l]) == n && !memcmp(s, levels[l], n))
			return 1;
	return 0;
}

/* a logger's record starts here (a level, a source position): not a wrapped line's rest */
static size_t record(unsigned *flags, size_t end)
{
	*flags |= LN_RECORD;
	return end;
}

static size_t writer(unsigned *flags, size_t end)
{
	*flags |= LN_WRITER;
	return end;
}

/* 1 when s[a..b) holds a byte no host, pod or container name has ('/' allowed). */
static int other_than_name(const char *s, size_t a, size_t b)
{
	for (size_t m = a; m < b; m++)
		if (!is_name_char(s[m]) && s[m] != '/')
			return 1;
	return 0;
}

/*
 * What follows a logging level in the formats Python programs configure:
 * "ERROR - " and loguru's "ERROR    | " (logging's cookbook format
 * "%(asctime)s - %(name)s - %(levelname)s - %(message)s", loguru's default
 * "{time} | {level: <8} | {name}:{function}:{line} - "), and vLLM's
 * "ERROR 05-01 10:00:00 " (vllm/logger.py: "%(levelname)s %(asctime)s"
 * with datefmt "%m-%d %H:%M:%S"), whose "[file.py:12] " goes next round.
 * j is the index after the level word: the index after its tail, or 0.
 */
static size_t level_tail_at(const char *s, size_t len, size_t j)
{
	size_t k = ln_skip_spaces(s, len, j);

	if (k > j && k + 1 < len && (s[k] == '-' || s[k] == '|') && s[k + 1] == ' ')
		return k + 2;
	if (k == j + 1 && digits(s, len, k, 2) && k + 5 < len && s[k + 2] == '-' &&
	    digits(s, len, k + 3, 2) && s[k + 5] == ' ' && (k = clock_at(s, len, k + 6))) {
		if (k < len && (s[k] == '.' || s[k] == ','))
			k = ln_skip_digits(s, len, k + 1);
		return k < len && s[k] == ' ' ? k + 1 : 0;
	}
	return 0;
}

/*
 * "file.py:12] " (vLLM before 0.6: "%(filename)s:%(lineno)d] "), and
 * loguru's "module:function:12 - ": a source position the logger wrote.
 */
static size_t source_at(const char *s, size_t len, size_t i)
{
	size_t k = i, d;
	int dot = 0;

	while (k < len && k - i < 96 && (is_name_char(s[k]) || s[k] == '/')) {
		dot |= s[k] == '.';
		k++;
	}
	if (k == i || k >= len || s[k] != ':')
		return 0;
	d = ln_skip_digits(s, len, k + 1);
	if (dot && d > k + 1 && d + 1 < len && s[d] == ']' && s[d + 1] == ' ')
		return d + 2;
	/* loguru: name:function:line - */
	for (d = k + 1; d < len && d - k < 64 && is_name_char(s[d]) && s[d] != '.'; d++)
		;
	if (d > k + 1 && d < len && s[d] == ':' && (k = ln_skip_digits(s, len, d + 1)) > d + 1 &&
	    k + 2 < len && s[k] == ' ' && s[k + 1] == '-' && s[k + 2] == ' ')
		return k + 3;
	return 0;
}

/* Python logging's "name - LEVEL - " (the logger's name first). */
static size_t logger_level_at(const char *s, size_t len, size_t i)
{
	size_t j = i, k;

	while (j < len && j - i < 64 && is_name_char(s[j]))
		j++;
	if (j == i || j + 3 >= len || memcmp(s + j, " - ", 3))
		return 0;
	for (k = j + 3; k < len && k - j < 12 && isupper((unsigned char)s[k]); k++)
		;
	if (!level_word(s + j + 3, k - j - 3) || k + 3 > len || memcmp(s + k, " - ", 3))
		return 0;
	return k + 3;
}

/*
 * One collector's prefix at s[i..]: the index after it, or 0.  Each is the
 * documented form of its tool: CRI's log format "<time> <stream> <P|F> "
 * (kubernetes/cri-api, kubelet logs), Open MPI's --tag-output
 * "[job,rank]<stderr>:", GitHub Actions' "##[error]" workflow commands,
 * journalctl -o verbose's "MESSAGE=", docker's json-file '{"log":"',
 * Ray's and vLLM's "(Actor pid=N, ip=A)", srun --label's "N: ", Python
 * logging's default "LEVEL:logger:", docker compose's "service-1  | ".
 */
static size_t collector_at(const char *s, size_t len, size_t i, unsigned *flags)
{
	size_t j, k;

	if (len - i > 9 && (!memcmp(s + i, "stdout ", 7) || !memcmp(s + i, "stderr ", 7)) &&
	    (s[i + 7] == 'F' || s[i + 7] == 'P') && s[i + 8] == ' ')
		return i + 9;
	if (len - i >= 9 && (!memcmp(s + i, "<stderr>:", 9) || !memcmp(s + i, "<stdout>:", 9)))
		return i + 9;
	if (len - i > 4 && s[i] == '#' && s[i + 1] == '#' && s[i + 2] == '[') {
		for (k = i + 3; k < len && k - i < 24 && isalpha((unsigned char)s[k]); k++)
			;
		if (k < len && s[k] == ']' && k > i + 3)
			return record(flags, k + 1);
	}
	if (len - i > 8 && (!memcmp(s + i, "MESSAGE=", 8) || !memcmp(s + i, "{\"log\":\"", 8)))
		return i + 8;
	if (s[i] == '(') {
		for (k = i + 1; k < len && k - i < 96 && s[k] != ')' && s[k] != '('; k++)
			;
		if (k + 1 < len && s[k] == ')' && s[k + 1] == ' ' &&
		    (memmem(s + i, k - i, "pid=", 4) || (k - i == 7 && !memcmp(s + i + 1, "raylet", 6)))) {
			*flags |= LN_WRITER;
			return k + 2;
		}
		return 0;
	}
	if (ln_is_digit(s[i])) {
		j = ln_skip_digits(s, len, i);
		if (j - i <= 5 && j + 2 < len && s[j] == ':' && s[j + 1] == ' ' && s[j + 2] != ' ') {
			*flags |= LN_WRITER;
			return j + 2;
		}
		return 0;
	}
	if (isupper((unsigned char)s[i])) {
		for (j = i; j < len && j - i < 9 && isupper((unsigned char)s[j]); j++)
			;
		if (j < len && s[j] == ':' && level_word(s + i, j - i)) {
			for (k = j + 1; k < len && k - j < 64 && is_name_char(s[k]); k++)
				;
			if (k < len && s[k] == ':' && k > j + 1)
				return record(flags, k + 1);
		}
		if (level_word(s + i, j - i) && (k = level_tail_at(s, len, j)))
			return record(flags, k);
	}
	/* the first word ends at ':' (a source position) or at " - " (a logger's name) */
	for (j = i; j < len && j - i < 96 && (is_name_char(s[j]) || s[j] == '/'); j++)
		;
	if (j < len && s[j] == ':' && (k = source_at(s, len, i)))
		return record(flags, k);
	if (j + 1 < len && s[j] == ' ' && s[j + 1] == '-' && is_name_char(s[i]) &&
	    (k = logger_level_at(s, len, i)))
		return record(flags, k);
	if (is_name_char(s[i])) {
		/* not a table: no other " | " in the line, no closing '|' */
		for (j = i; j < len && j - i < 64 && is_name_char(s[j]); j++)
			;
		k = ln_skip_spaces(s, len, j);
		if (k > j && k + 1 < len && s[k] == '|' && s[k + 1] == ' ' && s[len - 1] != '|' &&
		    !memmem(s + k + 1, len - k - 1, " | ", 3)) {
			*flags |= LN_WRITER;
			return k + 2;
		}
	}
	return 0;
}

/* One prefix at s[i..]: the index after it, or 0 when there is none. */
static size_t one_prefix(const char *s, size_t len, size_t i, unsigned *flags)
{
	size_t j;
	int kernel = 0;

	if (i >= len)
		return 0;
	if (s[i] == '<' && (j = syslog_pri_at(s, len, i, flags)))
		return j;
	/* /dev/kmsg: "PRI,SEQ,USEC,FLAGS;" */
	if (ln_is_digit(s[i])) {
		j = ln_skip_digits(s, len, i);
		if (j < len && s[j] == ',' && (j = ln_skip_digits(s, len, j + 1)) < len && s[j] == ',' &&
		    (j = ln_skip_digits(s, len, j + 1)) < len && s[j] == ',') {
			size_t k = j + 1;

			while (k < len && k - j < 16 && s[k] != ';' && s[k] != ' ')
				k++;
			if (k < len && s[k] == ';') {
				*flags |= LN_KERNEL | LN_KMSG;
				return k + 1;
			}
		}
	}
	/* ISO 8601: 2026-11-30T08:12:01.123456+00:00 or 2026-11-30 08:12:01,123 */
	if ((j = digits(s, len, i, 4)) && j < len && s[j] == '-' && (j = digits(s, len, j + 1, 2)) &&
	    j < len && s[j] == '-' && (j = digits(s, len, j + 1, 2)) && j < len &&
	    (s[j] == 'T' || s[j] == ' ') && (j = clock_at(s, len, j + 1))) {
		int zone = 0;
		size_t h;

		if (j < len && (s[j] == '.' || s[j] == ','))
			j = ln_skip_digits(s, len, j + 1);
		if (j < len && s[j] == 'Z') {
			j++;
			zone = 1;
		} else if (j < len && (s[j] == '+' || s[j] == '-') && digits(s, len, j + 1, 2)) {
			j += 3;
			if (j < len && s[j] == ':')
				j++;
			j = digits(s, len, j, 2) ? j + 2 : j;
			zone = 1;
		}
		if (zone && (h = host_tag_at(s, len, j, &kernel))) {
			if (kernel)
				*flags |= LN_KERNEL;
			return h;
		}
		if (j < len && s[j] == ':')
			j++;
		j = ln_skip_spaces(s, len, j);
		/* logging's " - " and loguru's " | " after the time */
		if (j + 1 < len && (s[j] == '-' || s[j] == '|') && s[j + 1] == ' ')
			j = ln_skip_spaces(s, len, j + 1);
		return j;
	}
	/* syslog / journal: "Nov 30 08:12:01 host tag[pid]: " */
	if (month_at(s, len, i) && i + 4 < len && s[i + 3] == ' ') {
		j = i + 4;
		if (s[j] == ' ')
			j++;
		j = ln_skip_digits(s, len, j);
		if (j < len && s[j] == ' ' && (j = clock_at(s, len, j + 1))) {
			if (j < len && s[j] == '.')
				j = ln_skip_digits(s, len, j + 1);
			if ((j = host_tag_at(s, len, j, &kernel))) {
				if (kernel)
					*flags |= LN_KERNEL;
				return j;
			}
		}
		return 0;
	}
	if (s[i] == '[') {
		size_t k = i + 1, end;
		int dig = 0, dot = 0, colon = 0, other = 0;

		while (k < len && k - i < 48 && s[k] != ']')
			k++;
		if (k >= len || s[k] != ']')
			return 0;
		end = ln_skip_spaces(s, len, k + 1);
		if (end < len && s[end] == ':')
			end = ln_skip_spaces(s, len, end + 1);
		for (size_t m = i + 1; m < k; m++) {
			/* dmesg -H: "+0.000150" relative, and locales whose decimal mark is ',' */
			int mark = s[m] == '.' || s[m] == ',';

			dig += ln_is_digit(s[m]);
			dot += mark;
			colon += s[m] == ':';
			other += !ln_is_digit(s[m]) && !mark && s[m] != ' ' &&
				 !(s[m] == '+' && m == ln_skip_spaces(s, k, i + 1));
		}
		/* Open MPI "[1,0]<stderr>:" (its comma is no decimal mark) */
		if (k + 1 < len && s[k + 1] == '<' && collector_at(s, len, k + 1, flags)) {
			*flags |= LN_WRITER;
			return k + 1;
		}
		/* DeepSpeed and other loggers: "[INFO]", "[launch.py:12:main]" */
		if (level_word(s + i + 1, k - i - 1))
			return record(flags, end);
		if (k - i > 4 && !memchr(s + i + 1, ' ', k - i - 1)) {
			const char *pt = memchr(s + i + 1, '.', k - i - 1);
			const char *colon_at = pt ? memchr(pt, ':', (size_t)(s + k - pt)) : NULL;

			if (colon_at && colon_at + 1 < s + k && ln_is_digit(colon_at[1]))
				return record(flags, end);
		}
		/* dmesg "[ 1234.567890]", dmesg -H "[  +0,000150]" */
		if (dig && dot == 1 && !other) {
			*flags |= LN_KERNEL;
			return end;
		}
		/* dmesg -H at a new minute: "[Nov30 08:12]", "[Nov 30 08:12]" */
		if (k - i - 1 >= 11 && k - i - 1 <= 12 && month_at(s, len, i + 1) && colon == 1) {
			*flags |= LN_KERNEL;
			return end;
		}
		/* dmesg -T "[Mon Nov 30 08:12:01 2026]" */
		if (k - i - 1 == 24 && month_at(s, len, i + 5) && colon == 2) {
			*flags |= LN_KERNEL;
			return end;
		}
		/* Lightning "[rank: 1] " (lightning_utilities rank_prefixed_message) */
		if (k - i > 7 && !memcmp(s + i + 1, "rank: ", 6) && ln_skip_digits(s, len, i + 7) == k &&
		    k > i + 7)
			return writer(flags, end);
		/* kubectl logs --prefix "[pod/NAME/CONTAINER] " */
		if (k - i > 6 && !memcmp(s + i + 1, "pod/", 4) && !other_than_name(s, i + 5, k))
			return writer(flags, end);
		/* Open MPI's own "[host:12345] " (its opal_output prefix) */
		if (colon == 1 && !dot && ln_is_digit(s[k - 1]) && isalpha((unsigned char)s[i + 1])) {
			const char *c = memchr(s + i + 1, ':', k - i - 1);

			if (ln_skip_digits(s, k, (size_t)(c - s) + 1) == k && (size_t)(c - s) > i + 1 &&
			    !other_than_name(s, i + 1, (size_t)(c - s)))
				return writer(flags, end);
		}
		/* torch.distributed.elastic's log_line_prefix_template "[{role_name}{local_rank}]:"
		   for any role name, the colon right after the bracket */
		if (k + 1 < len && s[k + 1] == ':' && k - i > 2 && ln_is_digit(s[k - 1]) &&
		    isalpha((unsigned char)s[i + 1])) {
			size_t m = i + 1;

			while (m < k && (isalpha((unsigned char)s[m]) || s[m] == '_'))
				m++;
			if (m < k && ln_skip_digits(s, k, m) == k)
				return writer(flags, end);
		}
		/* torchrun "[rank3]:", "[default0]:" */
		if ((k - i > 5 && !memcmp(s + i + 1, "rank", 4) && ln_skip_digits(s, len, i + 5) == k &&
		     k > i + 5) ||
		    (k - i > 8 && !memcmp(s + i + 1, "default", 7) && ln_skip_digits(s, len, i + 8) == k &&
		     k > i + 8))
			return writer(flags, end);
		/* "[2026-11-30 08:12:01,123]" */
		if (digits(s, len, i + 1, 4) && s[i + 5] == '-' && colon >= 2)
			return end;
		/* c10 "[W socket.cpp:663]" / "[W1130 08:12:01.123 socket.cpp:663]" */
		if (k - i > 3 && strchr("IWEF", s[i + 1]) && s[i + 1] && ln_is_digit(s[k - 1]) && colon >= 1) {
			size_t d = k - 1;

			while (d > i && ln_is_digit(s[d]))
				d--;
			if (s[d] == ':')
				return record(flags, end);
		}
		return 0;
	}
	if ((j = glog_at(s, len, i)))
		return record(flags, j);
	return collector_at(s, len, i, flags);
}

size_t lognorm_strip_prefix_key(const char *s, size_t len, unsigned *flags, char *key, size_t cap,
				size_t *key_len)
{
	size_t i = 0, j, kl = 0;

	for (int round = 0; round < 6; round++) {
		i = ln_skip_spaces(s, len, i);
		unsigned f = 0;

		if (!(j = one_prefix(s, len, i, &f)) || j <= i)
			break;
		*flags |= f & ~LN_WRITER;
		/* a writer's prefix, not a time or a level: "[rank1]:", "worker-1  | " */
		if (key && (f & LN_WRITER)) {
			size_t e = j;

			/* the text's own indentation is no part of the writer */
			while (e > i && (s[e - 1] == ' ' || s[e - 1] == '\t'))
				e--;
			for (size_t k = i; k < e && kl < cap; k++)
				key[kl++] = s[k];
		}
		i = j;
	}
	if (key_len)
		*key_len = kl;
	return ln_skip_spaces(s, len, i);
}

size_t lognorm_strip_prefix(const char *s, size_t len, unsigned *flags)
{
	return lognorm_strip_prefix_key(s, len, flags, NULL, 0, NULL);
}

/* ---- what lognorm.c decides with its state ---- */

/* s[0..n) is a dotted quad */
static int ipv4(const char *s, size_t n)
{
	size_t i = 0;

	for (int part = 0; part < 4; part++) {
		size_t d = ln_skip_digits(s, n, i);

		if (d == i || d - i > 3 || (part < 3 && (d >= n || s[d] != '.')))
			return 0;
		i = d + (part < 3);
	}
	return i == n;
}

/*
 * pdsh's "host: " (pdsh -R ssh, DeepSpeed's multi-node runner, clush): a
 * host name with a digit ("worker-1", "node03", "ip-10-0-0-1"), then ": ".
 * Programs print the same form ("python3: can't open file",
 * "libcudnn.so.8: cannot open"), so the prefix goes only where it repeats
 * the line before's, or where another prefix, indented text or a
 * traceback follows it (lognorm.c strip_host).
 */
size_t ln_host_at(const char *s, size_t len)
{
	/* at most 61 bytes of name: with ": " the prefix fits lognorm's char host[64] (63 wrote a byte past it) */
	size_t i = 0;
	int digit = 0, alpha = 0;

	while (i < len && i < 61 && (isalnum((unsigned char)s[i]) || s[i] == '-' || s[i] == '.' || s[i] == '_')) {
		digit |= ln_is_digit(s[i]);
		alpha |= isalpha((unsigned char)s[i]) != 0;
		i++;
	}
	/* a name with a letter and a digit, or an IPv4 address ("10.0.0.6: ") */
	if (!digit || (!alpha && !ipv4(s, i)) || i + 1 >= len || s[i] != ':' || s[i + 1] != ' ' ||
	    memmem(s, i, ".so", 3))
		return 0;
	return i + 2;
}

/* Ray's log deduplication: "msg [repeated 3x across cluster]"; the count, or 0. */
long ln_ray_repeated(const char *s, size_t *len)
{
	static const char tail[] = "x across cluster]";
	size_t t = sizeof(tail) - 1, e = *len, d;
	long c = 0;

	if (e < t + 12 || memcmp(s + e - t, tail, t))
		return 0;
	d = e - t;
	while (d > 0 && ln_is_digit(s[d - 1]) && e - t - d < 9)
		d--;
	if (d == e - t || d < 11 || memcmp(s + d - 11, " [repeated ", 11) || s[d] == '0')
		return 0;
	for (size_t k = d; k < e - t; k++)
		c = c * 10 + (s[k] - '0');
	*len = d - 11;
	return c + 1;	/* the line itself and its repeats */
}
