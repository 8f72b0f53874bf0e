/*
 * inventory_json_hardware.c - "gpus", "nvswitches", "pcie_bridges" and "iommu" of
 * the inventory JSON.
 *
 * "name", "architecture" and "compute_capability" come from the knowledge
 * base by PCI id (null when the id is not in it): they are what --no-load
 * knows of a GPU without a driver.
 */
#include "render/inventory_json.h"
#include "core/json.h"
#include "core/xalloc.h"
#include "inventory/inventory.h"
#include "knowledge/kb.h"

#include <stdio.h>
#include <stdlib.h>

static void hex_id(struct json *j, const char *key, long v, int digits)
{
	char s[24];

	if (v < 0) {
		json_null(j, key);
		return;
	}
	snprintf(s, sizeof(s), "0x%0*lx", digits, v);
	json_str(j, key, s);
}

static void fn_json(const struct hw_pci_fn *f, const struct kb *kb, struct json *j, int with_name)
{
	json_obj_begin(j, NULL);
	json_str(j, "bdf", f->bdf);
	hex_id(j, "vendor_id", f->vendor, 4);
	hex_id(j, "device_id", f->device, 4);
	json_obj_begin(j, "subsystem");
	hex_id(j, "vendor_id", f->subsys_vendor, 4);
	hex_id(j, "device_id", f->subsys_device, 4);
	json_obj_end(j);
	hex_id(j, "class", f->class_code, 6);
	json_str(j, "driver", f->driver);
	if (with_name) {
		const struct kb_gpu *g = kb && f->vendor >= 0 && f->device >= 0
			? kb_gpu_by_pci(kb, (unsigned)f->vendor, (unsigned)f->device) : NULL;
		char cc[16];

		json_str(j, "name", g ? g->name : NULL);
		json_str(j, "architecture", g ? g->arch : NULL);
		if (g && g->cc_major >= 0) {
			snprintf(cc, sizeof(cc), "%d.%d", g->cc_major, g->cc_minor);
			json_str(j, "compute_capability", cc);
		} else {
			json_null(j, "compute_capability");
		}
	}
	json_obj_begin(j, "link");
	json_str(j, "speed", f->link_speed);
	json_str(j, "max_speed", f->link_max_speed);
	json_num(j, "speed_gts", f->speed_gts);
	json_num(j, "max_speed_gts", f->max_speed_gts);
	json_int_nonneg(j, "width", f->width);
	json_int_nonneg(j, "max_width", f->max_width);
	json_obj_end(j);
	json_int_nonneg(j, "numa_node", f->numa_node);
	if (with_name) {
		json_obj_begin(j, "bar1");
		json_int_nonneg(j, "size_mib", f->bar1_size >= 0 ? f->bar1_size >> 20 : -1);
		json_tribool(j, "assigned", f->bar1_assigned);
		json_obj_end(j);
		json_int_nonneg(j, "iommu_group", f->iommu_group);
		json_str(j, "iommu_group_type", f->iommu_type);
		json_str_array(j, "upstream_bridges", f->upstream, f->nupstream);
	}
	json_obj_end(j);
}

static void bridge_json(const struct hw_bridge *b, struct json *j)
{
	json_obj_begin(j, NULL);
	json_str(j, "bdf", b->bdf);
	if (b->acs_ctl >= 0) {
		json_bool(j, "acs", 1);
		hex_id(j, "acs_ctl", b->acs_ctl, 4);
		json_bool(j, "acs_source_validation", (b->acs_ctl & HW_ACS_SV) != 0);
		json_bool(j, "acs_p2p_request_redirect", (b->acs_ctl & HW_ACS_RR) != 0);
		json_bool(j, "acs_p2p_completion_redirect", (b->acs_ctl & HW_ACS_CR) != 0);
	} else {
		if (b->acs_ctl == -2)
			json_bool(j, "acs", 0);
		else
			json_null(j, "acs");
		json_null(j, "acs_ctl");
		json_null(j, "acs_source_validation");
		json_null(j, "acs_p2p_request_redirect");
		json_null(j, "acs_p2p_completion_redirect");
	}
	json_obj_end(j);
}

void inventory_json_hardware(const struct inventory *inv, const struct kb *kb, struct json *j)
{
	const struct hw_inventory *hw = &inv->hw;

	json_arr_begin(j, "gpus");
	for (size_t i = 0; i < hw->ngpus; i++)
		fn_json(&hw->gpus[i], kb, j, 1);
	json_arr_end(j);
	json_arr_begin(j, "nvswitches");
	for (size_t i = 0; i < hw->nnvswitches; i++)
		fn_json(&hw->nvswitches[i], kb, j, 0);
	json_arr_end(j);
	json_arr_begin(j, "pcie_bridges");
	for (size_t i = 0; i < hw->nbridges; i++)
		bridge_json(&hw->bridges[i], j);
	json_arr_end(j);
	json_obj_begin(j, "iommu");
	json_int_nonneg(j, "units", hw->iommu_units);
	json_int_nonneg(j, "groups", hw->iommu_groups);
	json_str(j, "cmdline", hw->iommu_cmdline);
	json_obj_end(j);
}
