/*
 * ctrprompt.c - a container's shell prompt at the start of a line; see
 * ctrprompt.h.  Bounded: at most a few hundred bytes of the line are read.
 */
#include "explain/ctrprompt.h"

#include <string.h>

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* Kubernetes' rand.SafeEncodeString alphabet (no vowels, no 0/1/3, no y). */
static int is_k8s_safe(char c)
{
	return c && strchr("bcdfghjklmnpqrstvwxz2456789", c) != NULL;
}

static int is_name(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

/* host (s, n bytes): 12 hex digits, or a Deployment's pod name "<name>-<6..10>-<5>". */
static int container_host(const char *s, size_t n)
{
	size_t i, dash2, dash1;

	if (n == 12) {
		for (i = 0; i < 12 && is_hex(s[i]); i++)
			;
		if (i == 12)
			return 1;
	}
	if (n < 14)
		return 0;
	dash2 = n - 6;
	if (s[dash2] != '-')
		return 0;
	for (i = dash2 + 1; i < n; i++)
		if (!is_k8s_safe(s[i]))
			return 0;
	for (dash1 = dash2; dash1 > 0 && s[dash1 - 1] != '-'; dash1--)
		;
	if (dash1 < 2 || dash2 - dash1 < 6 || dash2 - dash1 > 10)
		return 0;
	for (i = dash1; i < dash2; i++)
		if (!is_k8s_safe(s[i]))
			return 0;
	return 1;
}

int ctrprompt_line(const char *t, size_t len)
{
	size_t i = 0, u, h;
	int bracket = 0;

	if (len > 256)
		len = 256;
	while (i < len && (t[i] == ' ' || t[i] == '\t'))
		i++;
	/* "(base) ", "(venv) " */
	while (i < len && t[i] == '(') {
		size_t j = i + 1;

		while (j < len && j - i < 64 && t[j] != ')' && t[j] != ' ')
			j++;
		if (j >= len || t[j] != ')' || j + 1 >= len || t[j + 1] != ' ')
			return 0;
		i = j + 2;
	}
	/* CentOS-style "[root@5561000296a4 /]#" */
	if (i < len && t[i] == '[') {
		bracket = 1;
		i++;
	}
	if ((len - i >= 12 && !strncmp(t + i, "Singularity>", 12)) ||
	    (len - i >= 10 && !strncmp(t + i, "Apptainer>", 10)))
		return 1;
	if (len - i >= 15 && !strncmp(t + i, "I have no name!", 15))
		u = i + 15;
	else
		for (u = i; u < len && u - i < 32 && is_name(t[u]); u++)
			;
	if (u == i || u >= len || t[u] != '@')
		return 0;
	for (h = u + 1; h < len && h - u <= 64 && (is_name(t[h])); h++)
		;
	if (h >= len || (t[h] != ':' && !(bracket && t[h] == ' ')))
		return 0;
	return container_host(t + u + 1, h - u - 1);
}
