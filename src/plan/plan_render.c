/*
 * plan_render.c - print a plan: text for people, JSON (gpudoctor.plan/1)
 * and a POSIX shell script.  The script runs with `set -eu`; a step whose
 * verification already passes is skipped, every other step runs its commands
 * and then its verification, and the script stops at the first failed one.
 * A step that needs a reboot ends the script there (run it again after the
 * reboot: the steps already done verify and are skipped).  A stopped plan's
 * script exits 1 at that step with the reason.  Text from the machine is
 * escaped by core/termesc (on the terminal and in the script's comments).
 */
#include "plan/plan.h"
#include "core/json.h"
#include "core/termesc.h"

#include <stdio.h>
#include <string.h>

static const char *state_name(enum plan_state st)
{
	return st == PLAN_DONE ? "done" : st == PLAN_STOP ? "stop" : "todo";
}

void plan_render_text(const struct plan *p, struct buf *out)
{
	buf_puts(out, "gpudoctor plan: ");
	termesc_buf(out, p->framework);
	buf_puts(out, " ");
	termesc_buf(out, p->release);
	if (p->gpu[0]) {
		buf_puts(out, " on ");
		termesc_buf(out, p->gpu);
	}
	buf_puts(out, "\n(nothing is run: paste the commands, or gpudoctor plan --format sh > install.sh)\n");
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_step *s = &p->steps[i];

		buf_printf(out, "\n%zu. [%s] %-12s ", i + 1, state_name(s->state), s->id);
		termesc_buf(out, s->title);
		buf_puts(out, "\n");
		if (s->why[0]) {
			buf_puts(out, "       ");
			termesc_buf(out, s->why);
			buf_puts(out, "\n");
		}
		for (size_t k = 0; k < s->ncmds; k++) {
			buf_puts(out, "       $ ");
			termesc_buf(out, s->cmds[k]);
			buf_puts(out, "\n");
		}
		if (s->reboot && s->state == PLAN_TODO)
			buf_puts(out, "       $ sudo reboot\n");
		if (s->verify) {
			buf_puts(out, "       verify: ");
			termesc_buf(out, s->verify);
			buf_puts(out, "\n");
		}
	}
	for (size_t i = 0; i < p->nnotes; i++) {
		buf_puts(out, i ? "" : "\n");
		buf_puts(out, "note: ");
		termesc_buf(out, p->notes[i]);
		buf_puts(out, "\n");
	}
	if (p->stopped)
		buf_puts(out, "\nresult: the plan stops at the step marked [stop]; the reason is given there\n");
	else
		buf_puts(out, "\nresult: run the [todo] steps in order, each followed by its verify line\n");
}

void plan_render_json(const struct plan *p, struct buf *out)
{
	struct json j;

	json_init(&j, 1);
	json_obj_begin(&j, NULL);
	json_str(&j, "schema", "gpudoctor.plan/1");
	json_str(&j, "kb_as_of", p->kb_as_of[0] ? p->kb_as_of : NULL);
	json_str(&j, "framework", p->framework);
	json_str(&j, "release", p->release);
	json_str(&j, "install", p->install[0] ? p->install : NULL);
	json_str(&j, "gpu", p->gpu[0] ? p->gpu : NULL);
	json_str(&j, "family", p->family[0] ? p->family : NULL);
	json_str(&j, "repository", p->repo[0] ? p->repo : NULL);
	json_str(&j, "venv", p->venv);
	json_bool(&j, "stopped", p->stopped);
	json_arr_begin(&j, "steps");
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_step *s = &p->steps[i];

		json_obj_begin(&j, NULL);
		json_str(&j, "id", s->id);
		json_str(&j, "state", state_name(s->state));
		json_str(&j, "title", s->title);
		json_str(&j, "why", s->why[0] ? s->why : NULL);
		json_str_array(&j, "commands", s->cmds, s->ncmds);
		json_bool(&j, "reboot", s->reboot && s->state == PLAN_TODO);
		json_str(&j, "verify", s->verify);
		json_str(&j, "layer", s->layer);
		json_obj_end(&j);
	}
	json_arr_end(&j);
	json_arr_begin(&j, "notes");
	for (size_t i = 0; i < p->nnotes; i++)
		json_str(&j, NULL, p->notes[i]);
	json_arr_end(&j);
	json_obj_end(&j);
	buf_puts(out, j.out.s);
	buf_puts(out, "\n");
	json_release(&j);
}

/* A comment block: every line starts with "# ". */
static void comment(struct buf *out, const char *prefix, const char *text)
{
	buf_puts(out, "# ");
	buf_puts(out, prefix);
	termesc_buf(out, text);
	buf_puts(out, "\n");
}

void plan_render_sh(const struct plan *p, struct buf *out)
{
	struct buf body = BUF_INIT;
	int uses_fail = 0, stopped = 0;

	for (size_t i = 0; i < p->n && !stopped; i++) {
		const struct plan_step *s = &p->steps[i];

		buf_printf(&body, "\n# step %zu (%s): ", i + 1, s->id);
		termesc_buf(&body, s->title);
		buf_puts(&body, "\n");
		if (s->why[0])
			comment(&body, "", s->why);
		if (s->state == PLAN_STOP) {
			buf_printf(&body, "echo 'gpudoctor plan: stopped at step %zu (%s); see the reason above' >&2\n"
				   "exit 1\n", i + 1, s->id);
			stopped = 1;
			break;
		}
		if (s->state == PLAN_DONE || !s->ncmds) {
			buf_printf(&body, "echo 'step %zu (%s): already done'\n", i + 1, s->id);
			if (s->verify) {
				buf_printf(&body, "if ! { %s; }; then step_failed %zu; fi\n", s->verify, i + 1);
				uses_fail = 1;
			}
			continue;
		}
		if (s->verify)
			buf_printf(&body, "if %s; then\n\techo 'step %zu (%s): already done'\nelse\n", s->verify, i + 1,
				   s->id);
		for (size_t k = 0; k < s->ncmds; k++)
			buf_printf(&body, "%s%s\n", s->verify ? "\t" : "", s->cmds[k]);
		if (s->reboot) {
			buf_printf(&body, "%secho 'step %zu (%s): reboot now, then run this script again'\n%sexit 0\n",
				   s->verify ? "\t" : "", i + 1, s->id, s->verify ? "\t" : "");
		} else if (s->verify) {
			buf_printf(&body, "\tif ! { %s; }; then step_failed %zu; fi\n", s->verify, i + 1);
			uses_fail = 1;
		}
		if (s->verify)
			buf_puts(&body, "fi\n");
	}
	if (!stopped)
		buf_puts(&body, "\necho 'gpudoctor plan: every step is done and verified'\n");

	buf_puts(out, "#!/bin/sh\n");
	/* machine values are single-quoted so that a '$' or '`' in them stays literal (shq) */
	buf_puts(out, "# shellcheck disable=SC2016\n");
	comment(out, "gpudoctor plan: ", p->framework);
	comment(out, "release: ", p->release);
	if (p->gpu[0])
		comment(out, "gpu: ", p->gpu);
	buf_puts(out, "# Each step runs only when its verification does not pass yet, and is verified\n"
		      "# after it; the script stops at the first verification that fails.  A step\n"
		      "# that needs a reboot ends the script: reboot and run it again.\n"
		      "set -eu\n");
	if (uses_fail)
		buf_puts(out, "\nstep_failed() {\n\techo \"gpudoctor plan: step $1 failed its verification\" >&2\n"
			      "\texit 1\n}\n");
	buf_add(out, body.s ? body.s : "", body.len);
	buf_release(&body);
}
