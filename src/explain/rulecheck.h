/*
 * rulecheck.h - what a row of explain's rule table may hold before it is
 * compiled.  The table may come from --kb DIR (logrules_load), so its text
 * is outside input like a log:
 *   - a rule id is printed to the terminal as it is: lower-case letters,
 *     digits and '-' only;
 *   - a regex is compiled by glibc's regcomp() and run on every candidate
 *     line: no back-reference (\1..\9: regexec backtracks exponentially on
 *     them), no bounded repetition stacked on another ("a{1,255}{1,255}",
 *     "(a{1,9}){1,9}": regcomp expands the product of the bounds), and no
 *     bound (or "{n,}" minimum) above RULECHECK_MAX_BOUND.  The project's own rows keep these;
 *   - a vocabulary-tier row (id "term-*") runs on termre.h's matcher, not on
 *     regexec: its regex is chains of parts joined by ".{0,N}" gaps and uses
 *     only what termre reads (termre_check() gives the reason otherwise).
 *
 *	const char *why;
 *	if (rulecheck_row(id, is_regex ? pattern : NULL, &why) < 0) ... refuse: why ...
 */
#ifndef GD_RULECHECK_H
#define GD_RULECHECK_H

#define RULECHECK_MAX_BOUND 255

/* 0 when id (and pattern, unless NULL) are safe; else -1 and *why, a constant. */
int rulecheck_row(const char *id, const char *pattern, const char **why);

#endif
