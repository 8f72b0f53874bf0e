/*
 * lognorm_prefix.h - what lognorm.c borrows from lognorm_prefix.c, where
 * the log-line prefixes are parsed (lognorm_strip_prefix itself is in
 * lognorm.h): the LN_KMSG flag and the digit and space scanners
 * ln_is_digit(), ln_skip_digits(), ln_skip_spaces().
 *
 *	unsigned fl = 0; size_t off = lognorm_strip_prefix(s, len, &fl);
 *	if (fl & LN_KMSG) ...;	i = ln_skip_spaces(s, len, i);
 */
#ifndef GD_LOGNORM_PREFIX_H
#define GD_LOGNORM_PREFIX_H

#include <stddef.h>

#define LN_KMSG 0x100u		/* internal: the record had a /dev/kmsg prefix */
#define LN_WRITER 0x200u	/* internal: the prefix names the writer (a rank, a host, a pid) */

int ln_is_digit(char c);
size_t ln_skip_digits(const char *s, size_t len, size_t i);
size_t ln_skip_spaces(const char *s, size_t len, size_t i);
/* pdsh's "host: " at s (a name with a digit, or an IPv4 address): its length with ": ", or 0. */
size_t ln_host_at(const char *s, size_t len);
/* Ray's " [repeated 3x across cluster]" ending s: its count (repeats + 1) and *len cut, or 0. */
long ln_ray_repeated(const char *s, size_t *len);
/* The time of day a line's prefix (its first off bytes) carries, in seconds; -1 for none. */
long ln_prefix_clock(const char *s, size_t off);

#endif
