/*
 * layers.h - the links of the chain and the statuses a check can end in.
 *
 * The layers are listed bottom-up: a failure of one blocks the ones above it
 * (report/report.h).  The cause catalogue (knowledge/causes.h) names the
 * layer each cause breaks, so these enums live below both.
 *
 *	for (int l = 0; l < LAYER_COUNT; l++) printf("%s\n", layer_name(l));
 */
#ifndef GD_LAYERS_H
#define GD_LAYERS_H

enum status {
	STATUS_OK,
	STATUS_SKIPPED,
	STATUS_WARN,
	STATUS_FAIL,
	STATUS_BLOCKED,		/* layers only */
};

enum layer_id {
	LAYER_HARDWARE,
	LAYER_KERNEL,
	LAYER_CONTAINERS,	/* the runtime injects the nodes and libraries above */
	LAYER_DEVICES,
	LAYER_DRIVER,
	LAYER_CUDA,
	LAYER_LIBRARIES,
	LAYER_FRAMEWORKS,
	LAYER_COUNT
};

const char *status_name(enum status s);
const char *layer_name(enum layer_id l);
/* The layer named s ("kernel"), or -1. */
int layer_from_name(const char *s);

#endif
