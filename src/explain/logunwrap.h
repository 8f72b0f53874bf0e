/*
 * logunwrap.h - messages a log carries inside another form, given back as
 * the text a rule was written from; used by the normaliser (lognorm.c) on
 * each physical line before prefixes are stripped:
 *
 *  - escaped strings: a message quoted inside JSON (docker's json-file,
 *    `journalctl -o json`, structured loggers, k8s events), a Go error
 *    ("OCI runtime create failed: ... stderr: nvidia-container-cli: ...\n"),
 *    or a Python repr (RuntimeError('CUDA error: ...\nCUDA kernel errors
 *    ...')) prints its newlines as a backslash and 'n', once per level of
 *    quoting ("\\n", "\\\\n").  logunwrap_escaped() turns any run of
 *    backslashes before n, r or t into a space (not a line break: a
 *    message split there lost its context; the rules match inside a line,
 *    and a held-out set lost one log when the pieces were matched alone), before a quote into the quote, "\u001b"
 *    and "\x1b" into ESC (so the ANSI pass drops the colour), and keeps one
 *    backslash before anything else.  A line with a Windows path written
 *    with single backslashes ("C:\Users\nvidia") is not a quoted string:
 *    its "\n" is a folder, and only its escaped quotes are decoded;
 *  - a JSON record a line (docker's json-file '{"log":"...","stream":...}',
 *    `journalctl -o json`'s "MESSAGE"): logunwrap_json_message() gives the
 *    message's span, still escaped, so the record's other fields do not
 *    trail the message (a rule ending at the line's end failed on them);
 *  - colour codes whose ESC was lost on the way (a web page, a CI viewer,
 *    `cat -v`): "[0m", "[1;31m", "[K", "^[[31m" are dropped from a line
 *    that carries a reset ("[0m", "[m", "[39m" or "[K") or the caret form;
 *  - the words a localised glibc or Windows prints in place of the English
 *    ones the rules know (de, fr, es, ru, zh_CN, ja): "Kann die
 *    Shared-Object-Datei nicht öffnen: Datei oder Verzeichnis nicht
 *    gefunden" is "cannot open shared object file: No such file or
 *    directory" again, and a full-width colon is ": ".
 *
 *	if (logunwrap_escaped_found(s, len)) {
 *		logunwrap_escaped(&out, s, len);	// out: the decoded line
 *	if (logunwrap_residue_found(s, len)) logunwrap_residue(&out, s, len);
 *	if (logunwrap_locale_found(s, len)) logunwrap_locale(&out, s, len);
 *
 * Every scan is bounded by len (hostile input, NUL bytes included).
 */
#ifndef GD_LOGUNWRAP_H
#define GD_LOGUNWRAP_H

#include <stddef.h>

#include "core/buf.h"

/* 1 and the span [*off, *off + *n) of the message of a JSON record line; 0 for another line. */
int logunwrap_json_message(const char *s, size_t len, size_t *off, size_t *n);

int logunwrap_escaped_found(const char *s, size_t len);
void logunwrap_escaped(struct buf *out, const char *s, size_t len);

int logunwrap_residue_found(const char *s, size_t len);
void logunwrap_residue(struct buf *out, const char *s, size_t len);

int logunwrap_locale_found(const char *s, size_t len);
void logunwrap_locale(struct buf *out, const char *s, size_t len);

#endif
