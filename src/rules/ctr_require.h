/*
 * ctr_require.h - NVIDIA_REQUIRE_* constraints judged the way the NVIDIA
 * Container Toolkit judges them, against the facts of the inventory.
 *
 * rules_containers.c fills a struct ctr_require_facts from the inventory
 * (the driver's CUDA version, the driver version, a GPU's compute capability
 * and brand) and asks ctr_require_eval() about each NVIDIA_REQUIRE_* value
 * the containers probe recorded (inv->containers.env.requires):
 *
 *	struct ctr_require_facts f = { .cuda = "13.0", .driver = "580.95.05" };
 *	char failed[128];
 *	if (ctr_require_eval("cuda>=12.8 brand=tesla", &f, failed, sizeof(failed)) == 0)
 *		report the failing constraint;
 */
#ifndef GD_RULES_CTR_REQUIRE_H
#define GD_RULES_CTR_REQUIRE_H

#include <stddef.h>

/* The facts an NVIDIA_REQUIRE_* constraint is judged against (NULL unknown). */
struct ctr_require_facts {
	const char *cuda;	/* the driver's CUDA version, "13.0" */
	const char *driver;	/* "580.95.05" */
	const char *arch;	/* compute capability, "9.0" */
	const char *brand;	/* "geforce", ... */
};
/*
 * One NVIDIA_REQUIRE_* value as libnvidia-container evaluates it (space: or,
 * comma: and): 1 holds, 0 fails (failed: the first failing constraint),
 * -1 unknown.
 */
int ctr_require_eval(const char *pred, const struct ctr_require_facts *f, char *failed,
		     size_t failedsz);

#endif
