/* layers.c - names of the layers and statuses; see layers.h. */
#include "knowledge/layers.h"

#include <string.h>

static const char *const layer_names[LAYER_COUNT] = {
	"hardware", "kernel", "containers", "devices", "driver", "cuda", "libraries", "frameworks",
};

const char *layer_name(enum layer_id l)
{
	return (unsigned)l < LAYER_COUNT ? layer_names[l] : "?";
}

int layer_from_name(const char *s)
{
	for (int l = 0; s && l < LAYER_COUNT; l++)
		if (!strcmp(layer_names[l], s))
			return l;
	return -1;
}

const char *status_name(enum status s)
{
	switch (s) {
	case STATUS_OK: return "ok";
	case STATUS_SKIPPED: return "skipped";
	case STATUS_WARN: return "warn";
	case STATUS_FAIL: return "fail";
	case STATUS_BLOCKED: return "blocked";
	}
	return "?";
}
