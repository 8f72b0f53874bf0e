/*
 * inventory_json.h - printing the inventory as the "inventory" object of
 * gpudoctor.check/1.  One function per layer, each in its own file; unknown
 * facts are null.  Presentation only: nothing here probes or judges.
 */
#ifndef GD_INVENTORY_JSON_H
#define GD_INVENTORY_JSON_H

struct inventory;
struct json;
struct kb;

/* Writes "inventory": { "gpus": [...], "driver": {...}, "cuda": {...}, ... } */
/* kb (may be NULL) adds knowledge to facts: GPU names and compute capabilities by PCI id. */
void inventory_json(const struct inventory *inv, const struct kb *kb, struct json *j);

/* Each writes its own keys into the already-open inventory object. */
void inventory_json_platform(const struct inventory *inv, struct json *j);	/* "platform" */
void inventory_json_hardware(const struct inventory *inv, const struct kb *kb, struct json *j);	/* "gpus", "nvswitches", "pcie_bridges", "iommu" */
void inventory_json_kernel(const struct inventory *inv, struct json *j);	/* "kernel" */
void inventory_json_containers(const struct inventory *inv, struct json *j);	/* "containers" */
void inventory_json_devices(const struct inventory *inv, struct json *j);	/* "devices" */
void inventory_json_driver(const struct inventory *inv, struct json *j);	/* "driver" */
void inventory_json_cuda(const struct inventory *inv, struct json *j);		/* "cuda" */
void inventory_json_libraries(const struct inventory *inv, struct json *j);	/* "libraries" */
void inventory_json_frameworks(const struct inventory *inv, struct json *j);	/* "frameworks" */
void inventory_json_pyenvs(const struct inventory *inv, struct json *j);	/* "python_environments" */

#endif
