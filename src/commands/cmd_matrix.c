/* cmd_matrix.c - gpudoctor matrix.  (stub: to be filled by its owner) */
#include "commands/commands.h"

#include <stdio.h>
#include <string.h>

int cmd_matrix(int argc, char **argv, const struct gd_ctx *ctx)
{
	(void)ctx;
	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		puts("usage: gpudoctor matrix (not implemented yet)");
		return 0;
	}
	fputs("gpudoctor matrix: not implemented yet\n", stderr);
	return 2;
}
