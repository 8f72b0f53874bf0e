/* ident.c - exact GPU identities; see ident.h. */
#include "watch/ident.h"
#include "watch/kmsg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int gpu_ident_parse(const char *s, struct gpu_ident *id)
{
	size_t n = s ? strlen(s) : 0;

	memset(id, 0, sizeof(*id));
	id->index = -1;
	if (n == 0 || n >= sizeof(id->text))
		return -1;
	if (!strcmp(s, "all")) {
		id->kind = GPU_ID_ALL;
		snprintf(id->text, sizeof(id->text), "all");
		return 0;
	}
	if (strspn(s, "0123456789") == n) {
		if (n > 4)
			return -1;
		id->kind = GPU_ID_INDEX;
		id->index = atoi(s);
		snprintf(id->text, sizeof(id->text), "%d", id->index);
		return 0;
	}
	if (!strncmp(s, "GPU-", 4) || !strncmp(s, "MIG-", 4)) {
		if (strspn(s + 4, "0123456789abcdefABCDEF-") != n - 4 || n == 4)
			return -1;
		id->kind = GPU_ID_UUID;
		memcpy(id->text, s, n + 1);
		return 0;
	}
	if (strchr(s, ':') && kmsg_norm_bus_id(s, n, id->text, sizeof(id->text)) == 0) {
		id->kind = GPU_ID_PCI;
		return 0;
	}
	return -1;
}

int gpu_ident_match(const struct gpu_ident *id, int index, const char *pci, const char *uuid)
{
	switch (id->kind) {
	case GPU_ID_ALL:
		return 1;
	case GPU_ID_INDEX:
		return index >= 0 && index == id->index;
	case GPU_ID_PCI:
		return pci && *pci && !strcmp(pci, id->text);
	case GPU_ID_UUID:
		return uuid && *uuid && !strcmp(uuid, id->text);
	}
	return 0;
}
