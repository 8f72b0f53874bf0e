/*
 * loop.c - the daemon: one poll loop over the kernel log, the listen socket
 * and its connections, the NVML sampler and static-check children, and a
 * timer (the poll timeout) for sweeps, deadlines and the systemd watchdog.
 * Nothing in the loop blocks: every descriptor is non-blocking, every child
 * has a deadline.
 */
#include "watch/daemon.h"
#include "core/safefile.h"
#include "watch/policy.h"
#include "watch/selfstat.h"
#include "core/ctx.h"
#include "core/fs.h"
#include "core/xalloc.h"
#include "knowledge/kb.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_flag;

static void on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void status_line(const struct wd *w, char *out, size_t size)
{
	int warn = 0, fail = 0;

	for (size_t i = 0; i < w->rep.n; i++)
		if (w->rep.findings[i].status == STATUS_FAIL)
			fail++;
		else
			warn++;
	snprintf(out, size, "STATUS=%s: %d failing, %d warnings, %d GPUs",
		 w->rep.status == STATUS_FAIL ? "fail" : w->rep.status == STATUS_WARN ? "warn" : "ok", fail, warn,
		 w->ngpus < 0 ? 0 : w->ngpus);
}

/* A cheap signature of what xid-history holds, to write it only on change. */
static unsigned long long xid_signature(const struct wd *w)
{
	unsigned long long s = (unsigned long long)w->npast * 1000003u + (unsigned)w->acks_done * 7919u +
			       w->acks_sum;

	for (int i = 0; i < w->nxids; i++)
		s = s * 31 + w->xids[i].count * 7 + (unsigned)w->xids[i].fatal + (unsigned)w->xids[i].xid;
	return s;
}

static void publish(struct wd *w)
{
	static unsigned long long last_sig = ~0ull;
	static enum status last_status = STATUS_OK;
	unsigned long long sig;

	judge(w);
	w->updated = (long long)time(NULL);
	if (state_write(w) < 0 && w->o->log && w->sweeps <= 1)
		w->o->log("watch: cannot write the state file in the state directory");
	sig = xid_signature(w);
	if (sig != last_sig) {
		xids_save_history(w);
		last_sig = sig;
	}
	prom_write_textfile(w);
	if (w->ready_sent && w->rep.status != last_status) {
		char st[160];

		status_line(w, st, sizeof(st));
		notify_send(&w->nt, st);
	}
	last_status = w->rep.status;
}

/* Is everything the first sweep waits for in? */
static int first_sweep_done(const struct wd *w)
{
	if (w->st_runs == 0 || w->st_running)
		return 0;
	if ((w->o->ctx->no_load && !w->o->sample_nvml) || !w->smp.lib)
		return 1;
	return w->smp.have_sample || w->smp.hang;
}

static void maybe_ready(struct wd *w)
{
	char msg[200], st[160];

	if (w->ready_sent || !first_sweep_done(w))
		return;
	status_line(w, st, sizeof(st));
	snprintf(msg, sizeof(msg), "READY=1\n%s", st);
	notify_send(&w->nt, msg);
	w->ready_sent = 1;
}

static void sweep(struct wd *w, double now)
{
	w->sweeps++;
	xids_read_file(w, now);
	w->kfd_paused = 0;
	if (w->kfd >= 0)
		xids_read_kmsg(w, now);
	pci_refresh(w, now);
	static_maybe_start(w, now);
	sampler_tick(&w->smp, now);
	xids_apply_acks(w);
	publish(w);
	maybe_ready(w);
	w->loop_progress = now;
}

/*
 * The static check names NVML's library; (re)start the sampler on it.  Not
 * with --sample-nvml: that library is the process's own (the container's),
 * and the tree's is never loaded.
 */
static void after_static(struct wd *w, const char *nvml_lib)
{
	if (w->o->sample_nvml || w->o->ctx->no_load || !nvml_lib || !*nvml_lib)
		return;
	if (w->smp.lib && !strcmp(w->smp.lib, nvml_lib))
		return;
	/* The sampler's child loads it as this (root) process: never a file,
	   or a directory on its way, that another user could replace, the
	   rule --sample-nvml's library obeys.  Refused, nothing is sampled. */
	{
		struct err e2 = ERR_INIT;

		if (safefile_check_trusted(nvml_lib, &e2) < 0) {
			if (strcmp(w->nvml_refused, nvml_lib) && w->o->log) {
				char *m = xasprintf("watch: NVML library refused, not sampled: %s", e2.msg);

				w->o->log(m);
				free(m);
			}
			size_t n = strnlen(nvml_lib, sizeof(w->nvml_refused) - 1);

			memcpy(w->nvml_refused, nvml_lib, n);
			w->nvml_refused[n] = 0;
			return;
		}
	}
	sampler_release(&w->smp);
	sampler_init(&w->smp, w->o->ctx->self_exe, nvml_lib, w->o->ctx->timeout);
	sampler_tick(&w->smp, wd_now());
	/* The fingerprint now covers NVML's file too; that alone is no change. */
	static_fingerprint(w, w->fingerprint, sizeof(w->fingerprint));
}

static void read_boot_id(struct wd *w)
{
	struct buf b = BUF_INIT;

	if (fs_read_line(w->o->ctx->root, "/proc/sys/kernel/random/boot_id", &b, NULL) == 0 &&
	    b.len > 0 && b.len < sizeof(w->boot_id) && !strpbrk(b.s, " \t\n="))
		snprintf(w->boot_id, sizeof(w->boot_id), "%s", b.s);
	else
		snprintf(w->boot_id, sizeof(w->boot_id), "unknown");
	buf_release(&b);
}

static int load_policy(struct wd *w, struct err *e)
{
	struct err e2 = ERR_INIT;
	struct buf text = BUF_INIT;
	int r;

	if (policy_builtin(w->o->policy, &w->policy) == 0)
		return 0;
	/* The file is read from "/" (never inside --root): a relative name
	   would be checked where it resolves from the working directory and
	   read from another place. */
	if (w->o->policy[0] != '/')
		return err_set(e, "--policy '%s': not nvidia, conservative or an absolute path",
			       w->o->policy);
	/* Its rules decide which XIDs drain or reboot the node: a file another
	   user could rewrite ("13 reboot") would hand them that decision. */
	if (safefile_check_trusted(w->o->policy, &e2) < 0)
		return err_set(e, "--policy refused: %s", e2.msg);
	if (fs_read_file("/", w->o->policy, 1 << 20, &text, e) < 0)
		return err_set(e, "--policy '%s': not nvidia, conservative or a readable file",
			       w->o->policy);
	r = policy_parse(w->o->policy, text.s, text.len, &w->policy, e);
	buf_release(&text);
	return r;
}

/*
 * watch runs as root: a state or textfile directory another user can write
 * to (without the sticky bit) or owns, or a file in it another user owns,
 * could steer `health` or plant links.  Refuse to start instead.
 */
static int check_dirs(const struct watch_opts *o, struct err *e)
{
	static const char *const files[] = { "state", "xid-history", "acks" };
	struct err e2 = ERR_INIT;

	if (safefile_check_dir(o->state_dir, &e2) < 0)
		return err_set(e, "--state-dir refused: %s", e2.msg);
	if (o->textfile_dir && safefile_check_dir(o->textfile_dir, &e2) < 0)
		return err_set(e, "--textfile refused: %s", e2.msg);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *p = xasprintf("%s/%s", o->state_dir, files[i]);
		int r = safefile_check_file(p, &e2);

		free(p);
		if (r < 0)
			return err_set(e, "--state-dir refused: %s", e2.msg);
	}
	return 0;
}

/*
 * --kmsg-file: a regular file or a FIFO is read as lines at each sweep; a
 * character device (the Kubernetes DaemonSet passes /dev/kmsg) is read one
 * record per read() like /dev/kmsg, from its first record on, and polled.
 * Opened non-blocking either way: a FIFO without a writer, or a device with
 * nothing new, never holds the loop.
 */
static int open_kmsg_file(struct wd *w, const char *path, struct err *e)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return err_set_errno(e, "--kmsg-file '%s'", path);
	if (fstat(fd, &st) < 0) {
		close(fd);
		return err_set_errno(e, "--kmsg-file '%s'", path);
	}
	if (S_ISCHR(st.st_mode)) {
		w->kfd = fd;
	} else if (S_ISREG(st.st_mode) || S_ISFIFO(st.st_mode)) {
		w->kfile_fd = fd;
	} else {
		close(fd);
		return err_set(e, "--kmsg-file '%s': not a file, a FIFO or a character device", path);
	}
	return 0;
}

static int setup(struct wd *w, const struct watch_opts *o, struct err *e)
{
	struct stat st;

	memset(w, 0, sizeof(*w));
	w->o = o;
	w->t0 = wd_now();
	w->ngpus = -1;
	w->npci = -1;
	w->kfd = w->kfile_fd = w->lfd = -1;
	buf_init(&w->kfile_part);
	report_init(&w->rep);
	report_init(&w->st_rep);
	for (int i = 0; i < WD_MAX_CONNS; i++)
		w->conns[i].fd = -1;
	/* --sample-nvml: sampled from the start, whatever the static check finds. */
	sampler_init(&w->smp, o->ctx->self_exe, o->sample_nvml, o->ctx->timeout);
	notify_init(&w->nt);
	/* It is loaded as root (in the sampler's child, at the first tick):
	   never a file another user could replace. */
	if (o->sample_nvml) {
		struct err e2 = ERR_INIT;

		if (safefile_check_trusted(o->sample_nvml, &e2) < 0)
			return err_set(e, "--sample-nvml refused: %s", e2.msg);
	}
	if (load_policy(w, e) < 0)
		return -1;
	/* Its tables set severities, and so what drains a node. */
	if (kb_open_trusted(o->ctx->kb_dir, (struct kb **)&w->kb, e) < 0)
		return -1;
	if (stat(o->state_dir, &st) < 0 && mkdir(o->state_dir, 0755) < 0)
		return err_set_errno(e, "--state-dir '%s'", o->state_dir);
	if (check_dirs(o, e) < 0)
		return -1;
	read_boot_id(w);
	xids_load_history(w);
	if (server_listen(w) < 0)
		return err_set_errno(e, "--listen '%s': cannot listen there", o->listen);
	if (o->kmsg_file) {
		if (open_kmsg_file(w, o->kmsg_file, e) < 0)
			return -1;
	} else if (!strcmp(o->ctx->root, "/")) {
		if (xids_open_kmsg(w) < 0 && o->log)
			o->log("watch: cannot read /dev/kmsg: XIDs are not watched (run as root or give CAP_SYSLOG)");
	}
	pci_rescan(w);
	if (o->sample_nvml && o->log) {
		char *m = xasprintf("watch: NVML sampled from %s (--sample-nvml: this process's own root; "
				    "no library of the --root tree is loaded)", o->sample_nvml);

		o->log(m);
		free(m);
	}
	return 0;
}

static void teardown(struct wd *w)
{
	notify_send(&w->nt, "STOPPING=1");
	if (w->st_running) {
		struct child_result r = CHILD_RESULT_INIT;

		child_cancel(&w->st_child, &r);
		child_result_release(&r);
	}
	sampler_release(&w->smp);
	for (int i = 0; i < WD_MAX_CONNS; i++)
		if (w->conns[i].fd >= 0) {
			close(w->conns[i].fd);
			free(w->conns[i].in);
			buf_release(&w->conns[i].out);
		}
	if (w->lfd >= 0)
		close(w->lfd);
	if (w->kfd >= 0)
		close(w->kfd);
	if (w->kfile_fd >= 0)
		close(w->kfile_fd);
	buf_release(&w->kfile_part);
	report_release(&w->rep);
	report_release(&w->st_rep);
	notify_release(&w->nt);
	kb_close((struct kb *)w->kb);
}

int watch_run(const struct watch_opts *o, struct err *e)
{
	static struct wd wd;	/* large: keep it off the stack */
	struct wd *w = &wd;
	struct sigaction sa;
	struct pollfd pfd[WD_MAX_CONNS + 8];
	int cidx[WD_MAX_CONNS + 8];
	double next_sweep, next_wd = 0;
	int ret = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (setup(w, o, e) < 0) {
		teardown(w);
		return -1;
	}
	next_sweep = wd_now();
	if (w->nt.watchdog_usec)
		next_wd = wd_now();
	while (!stop_flag) {
		double now = wd_now(), wake;
		int n = 0, timeout_ms;

		if (now >= next_sweep) {
			sweep(w, now);
			next_sweep += o->interval;
			if (next_sweep <= now)
				next_sweep = now + o->interval;
		}
		if (o->once && w->ready_sent)
			break;
		/* WATCHDOG=1 only while sweeps keep coming: a stuck sweep starves systemd. */
		if (w->nt.watchdog_usec && now >= next_wd) {
			double period = (double)w->nt.watchdog_usec / 1e6;

			if (now - w->loop_progress <= fmax(2 * o->interval, period))
				notify_send(&w->nt, "WATCHDOG=1");
			next_wd = now + period / 2;
		}
		wake = next_sweep;
		if (w->nt.watchdog_usec && next_wd < wake)
			wake = next_wd;
		if ((w->smp.state == SAMPLER_STARTING || w->smp.state == SAMPLER_BUSY) &&
		    w->smp.deadline < wake)
			wake = w->smp.deadline;
		if (server_poll_fd(w, now, &wake) >= 0) {
			pfd[n].fd = w->lfd;
			pfd[n].events = POLLIN;
			cidx[n++] = -1;
		}
		if (w->kfd >= 0 && !w->kfd_paused) {
			pfd[n].fd = w->kfd;
			pfd[n].events = POLLIN;
			cidx[n++] = -2;
		}
		if (sampler_fd(&w->smp) >= 0) {
			pfd[n].fd = sampler_fd(&w->smp);
			pfd[n].events = POLLIN;
			cidx[n++] = -3;
		}
		if (static_fd(w) >= 0) {
			pfd[n].fd = static_fd(w);
			pfd[n].events = POLLIN;
			cidx[n++] = -4;
		}
		for (int i = 0; i < WD_MAX_CONNS; i++) {
			if (w->conns[i].fd < 0)
				continue;
			pfd[n].fd = w->conns[i].fd;
			pfd[n].events = w->conns[i].writing ? POLLOUT : POLLIN;
			cidx[n++] = i;
			if (w->conns[i].deadline < wake)
				wake = w->conns[i].deadline;
		}
		timeout_ms = (int)ceil((wake - now) * 1000.0);
		if (timeout_ms < 0)
			timeout_ms = 0;
		if (poll(pfd, (nfds_t)n, timeout_ms) < 0) {
			if (errno == EINTR)
				continue;
			ret = err_set_errno(e, "poll");
			break;
		}
		now = wd_now();
		for (int k = 0; k < n; k++) {
			if (!pfd[k].revents)
				continue;
			if (cidx[k] == -1) {
				server_accept(w, now);
			} else if (cidx[k] == -2) {
				xids_read_kmsg(w, now);
				publish(w);
			} else if (cidx[k] == -3) {
				double ok_before = w->smp.last_ok;

				sampler_readable(&w->smp, now);
				if (w->smp.last_ok != ok_before) {
					int first = w->nvml_at == 0;

					gpus_from_sample(w);
					if (first) {
						/* Acks naming a GPU index can be matched now. */
						w->acks_mtime = -1;
						xids_apply_acks(w);
					}
					w->nvml_at = now;
					publish(w);
					maybe_ready(w);
				}
			} else if (cidx[k] == -4) {
				static_readable(w, now);
				after_static(w, w->st_nvml_lib);
				publish(w);
				maybe_ready(w);
			} else if (w->conns[cidx[k]].fd == pfd[k].fd) {
				server_io(w, cidx[k], pfd[k].revents, now);
			}
		}
		server_expire(w, now);
		/* A request past its deadline is ended now, not at the next sweep. */
		if ((w->smp.state == SAMPLER_STARTING || w->smp.state == SAMPLER_BUSY) &&
		    now >= w->smp.deadline) {
			sampler_tick(&w->smp, now);
			publish(w);
			maybe_ready(w);
		}
	}
	if (o->once && o->print) {
		struct buf b = BUF_INIT;

		report_plain(w, &b);
		o->print(b.s, b.len);
		buf_release(&b);
	}
	if (!ret && o->once)
		ret = w->rep.status == STATUS_FAIL ? 1 : 0;
	teardown(w);
	return ret;
}
