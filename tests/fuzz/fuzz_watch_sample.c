/*
 * fuzz_watch_sample.c - libFuzzer target for what `watch` takes from its
 * NVML sampler child: that child loads a foreign library (the driver's
 * NVML, or --sample-nvml's), so its key=value lines are outside input.
 * kvlist_parse on the raw bytes, then the daemon's readers of a sample:
 * gpus_from_sample (watch/judge.c: names, UUIDs, bus ids, counters),
 * judge (the findings and their titles), prom_render (the Prometheus
 * text every scraper parses) and report_plain (GET /, a terminal's).  The same bytes are also read as the health
 * child's list of findings (health_layers_from_kv), the other child whose
 * records a parent turns into a verdict.
 *
 * fuzz-links: libgd.a (built by run-fuzz.sh with the sanitizers)
 *
 * Invariants: at most WATCH_MAX_GPUS GPUs; a bus id is empty or the
 * normalized "dddd:bb:dd.f"; the exposition has no control byte but the
 * line ends, and every line is a comment or a sample whose label values
 * close their quotes; the plain report has no control byte but the line
 * ends; health's line stays 80 printable characters.
 */
#include "core/buf.h"
#include "core/kv.h"
#include "health/health.h"
#include "health/health_layers.h"
#include "watch/daemon.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A sample line: NAME, optional {labels with closed quotes}, a space, a value. */
static int sample_line_ok(const char *s, size_t n)
{
	size_t i = 0;
	int quoted = 0;

	if (n && s[0] == '#')
		return 1;
	while (i < n && s[i] != '{' && s[i] != ' ')
		i++;
	if (i < n && s[i] == '{') {
		for (i++; i < n; i++) {
			if (quoted && s[i] == '\\') {
				i++;
				continue;
			}
			if (s[i] == '"')
				quoted = !quoted;
			else if (!quoted && s[i] == '}')
				break;
		}
		if (i >= n || quoted)
			return 0;
		i++;
	}
	return i < n && s[i] == ' ';
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct wd w;
	static struct watch_opts o;
	char *text = malloc(size ? size : 1);
	struct buf out = BUF_INIT;
	struct health h;
	int bad = 0;

	if (!text)
		abort();
	memcpy(text, data, size);
	memset(&w, 0, sizeof(w));
	w.o = &o;
	w.npci = -1;
	report_init(&w.rep);
	report_init(&w.st_rep);
	kvlist_parse(&w.smp.last, text, size);
	w.smp.have_sample = 1;
	w.smp.init_failed = !kv_get(&w.smp.last, "init.result");
	gpus_from_sample(&w);
	if (w.ngpus > WATCH_MAX_GPUS || w.ngpus < -1)
		abort();
	for (int i = 0; i < w.ngpus; i++)
		if (w.gpus[i].bus_id[0] && strlen(w.gpus[i].bus_id) != 12)
			abort();
	judge(&w);
	prom_render(&w, &out);
	for (size_t i = 0, start = 0; i < out.len; i++) {
		unsigned char c = (unsigned char)out.s[i];

		if ((c < 0x20 && c != '\n') || c == 0x7f)
			abort();
		if (c == '\n') {
			if (!sample_line_ok(out.s + start, i - start))
				abort();
			start = i + 1;
		}
	}
	/* the plain-text report (GET /, --once) reaches a terminal: no control byte */
	buf_reset(&out);
	report_plain(&w, &out);
	for (size_t i = 0; i < out.len; i++) {
		unsigned char c = (unsigned char)out.s[i];

		if ((c < 0x20 && c != '\n') || c == 0x7f)
			abort();
	}
	buf_release(&out);
	report_release(&w.rep);
	report_release(&w.st_rep);
	kvlist_release(&w.smp.last);

	health_init(&h);
	{
		struct kvlist kv = KVLIST_INIT;

		kvlist_parse(&kv, text, size);
		if (health_layers_from_kv(&kv, &h, &bad) >= 0)
			health_verdict(&h);
		kvlist_release(&kv);
	}
	if (strlen(h.line) > HEALTH_LINE_MAX)
		abort();
	health_release(&h);
	free(text);
	return 0;
}
