/*
 * finding_record.h - one finding as one line of key=value fields: the wire
 * format of findings between gpudoctor's processes and files (watch's state
 * file, health's layer child, `watch --ack`'s view of the state).
 *
 *	cause=gpu-xid-error status=fail layer=driver gpu=1 pci=0000:18:00.0 xid=48 action=reset-gpu title=XID 48 ...
 *
 * Fields are separated by one space; values have no blanks, except title,
 * which is always last and runs to the end of the line (control bytes become
 * spaces).  Absent scope fields mean unknown.  The reader is strict: an
 * unknown cause id, status, layer, action or field is a parse error (the
 * caller counts it), never a free string; docs/watch-state.md is the
 * reference.
 *
 *	struct finding f;
 *	finding_record_write(&b, &f0);			// no newline
 *	if (finding_record_parse(line, len, &f, &e) == 0) {
 *		... f.cause, f.status, f.gpu, f.pci, finding_action(&f) ...
 *		finding_release(&f);
 *	}
 */
#ifndef GD_FINDING_RECORD_H
#define GD_FINDING_RECORD_H

#include <stddef.h>

#include "core/buf.h"
#include "core/err.h"
#include "report/report.h"

void finding_record_write(struct buf *out, const struct finding *f);
/* 0 and f filled (release it), or -1 with why in e and f empty. */
int finding_record_parse(const char *line, size_t len, struct finding *f, struct err *e);

#endif
