/*
 * pci.c - NVIDIA GPUs as the PCI bus sees them, independent of the driver:
 * a GPU that falls off the bus does not always log an XID, but its count
 * here and NVML's count then differ.  The directory is listed at start and
 * with each static check; each sweep only looks at the GPUs already known
 * (and their AER counters, where the kernel has them), to stay cheap.
 */
#include "watch/daemon.h"
#include "core/ctx.h"
#include "core/fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCI_DIR "/sys/bus/pci/devices"

void pci_rescan(struct wd *w)
{
	const char *root = w->o->ctx->root;
	char **names = NULL;
	size_t n = 0;
	struct buf path = BUF_INIT, v = BUF_INIT;

	w->npci = 0;
	if (fs_list_dir(root, PCI_DIR, &names, &n, NULL) < 0) {
		w->npci = -1;
		return;
	}
	for (size_t i = 0; i < n && w->npci < WD_MAX_PCI; i++) {
		unsigned long cls;

		if (strlen(names[i]) >= sizeof(w->pci[0]))
			continue;
		buf_reset(&path);
		buf_printf(&path, PCI_DIR "/%s/vendor", names[i]);
		if (fs_read_line(root, path.s, &v, NULL) < 0 || strcmp(v.s, "0x10de"))
			continue;
		buf_reset(&path);
		buf_printf(&path, PCI_DIR "/%s/class", names[i]);
		if (fs_read_line(root, path.s, &v, NULL) < 0)
			continue;
		cls = strtoul(v.s, NULL, 16);
		if ((cls >> 16) != 0x03)	/* display controllers: VGA and 3D */
			continue;
		snprintf(w->pci[w->npci], sizeof(w->pci[0]), "%s", names[i]);
		w->pci_present[w->npci] = 1;
		w->npci++;
	}
	fs_names_free(names, n);
	buf_release(&path);
	buf_release(&v);
}

/* "TOTAL_ERR_COR 3" of an aer_dev_* file, or -1. */
static long long aer_total(const char *root, const char *bdf, const char *file)
{
	struct buf path = BUF_INIT, text = BUF_INIT;
	long long v = -1;
	const char *p;

	buf_printf(&path, PCI_DIR "/%s/%s", bdf, file);
	if (fs_read_file(root, path.s, 8192, &text, NULL) == 0 && (p = strstr(text.s, "TOTAL_ERR_")))
		if (sscanf(p, "%*s %lld", &v) != 1)
			v = -1;
	buf_release(&path);
	buf_release(&text);
	return v;
}

void pci_refresh(struct wd *w, double now)
{
	const char *root = w->o->ctx->root;
	struct buf path = BUF_INIT;

	if (w->npci < 0)
		pci_rescan(w);
	w->pci_count = 0;
	for (int i = 0; i < w->npci; i++) {
		buf_reset(&path);
		buf_printf(&path, PCI_DIR "/%s/vendor", w->pci[i]);
		w->pci_present[i] = fs_exists(root, path.s);
		w->pci_count += w->pci_present[i];
		w->pci_aer[i][0] = aer_total(root, w->pci[i], "aer_dev_correctable");
		w->pci_aer[i][1] = aer_total(root, w->pci[i], "aer_dev_nonfatal");
		w->pci_aer[i][2] = aer_total(root, w->pci[i], "aer_dev_fatal");
	}
	buf_release(&path);
	w->pci_at = now;
}
