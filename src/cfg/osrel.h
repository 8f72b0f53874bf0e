/*
 * osrel.h - one KEY=value of os-release text (os-release(5)): the one parser
 * of that format, used by the platform probe (the markdown report's OS) and
 * by plan (the distribution it installs for).
 *
 *	char *id = osrel_value(text, "ID");	// "ubuntu", or NULL; free() it
 */
#ifndef GD_CFG_OSREL_H
#define GD_CFG_OSREL_H

/* The value of KEY, its quotes removed; "" for an empty value, NULL when
 * the key is absent.  The caller frees it. */
char *osrel_value(const char *text, const char *key);

#endif
