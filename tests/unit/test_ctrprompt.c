/*
 * test_ctrprompt.c - a container's shell prompt as evidence (explain/ctrprompt.h),
 * and the interactive Python result joined to its expression (explain/logjoin.h):
 * what round 11 added to explain for the container logs.
 */
#include "tap.h"

#include "explain/ctrprompt.h"
#include "explain/logjoin.h"
#include "explain/logmatch.h"
#include "explain/lognorm.h"
#include "explain/logrules.h"

#include <string.h>

static int prompt(const char *s)
{
	return ctrprompt_line(s, strlen(s));
}

static void test_prompts(void)
{
	/* docker/podman: the host is the container id's first 12 hex digits */
	CHECK(prompt("root@5561000296a4:~/testsuite/validation_tests/chai-cuda# nvidia-smi"));
	CHECK(prompt("(base) root@a2d7b9b1e3ab:~/FasterLivePortrait# python app.py --mode onnx"));
	CHECK(prompt("I have no name!@0f1e2d3c4b5a:/workspace$ python train.py"));
	CHECK(prompt("[root@5561000296a4 /]# nvidia-smi"));
	CHECK(prompt("Singularity> nvidia-smi"));
	CHECK(prompt("Apptainer> python -c 'import torch'"));
	/* a Deployment's pod: <name>-<template hash>-<5>, Kubernetes' safe alphabet */
	CHECK(prompt("root@vllm-server-7d9f8c6b5-x2k4z:/app# nvidia-smi"));
	/* near misses: a host's name, 11 or 13 hex digits, upper case, a mail address */
	CHECK(!prompt("root@gpu-node-01:~# nvidia-smi"));
	CHECK(!prompt("user@desktop:~$ nvidia-smi"));
	CHECK(!prompt("root@5561000296a:~# nvidia-smi"));
	CHECK(!prompt("root@5561000296a4b:~# nvidia-smi"));
	CHECK(!prompt("root@5561000296A4:~# nvidia-smi"));
	CHECK(!prompt("contact support@5561000296a4: not a prompt"));
	CHECK(!prompt("root@my-deployment-abcdef-12345:/# ls"));	/* vowels, 1 and 3: not the safe alphabet */
	CHECK(!prompt(""));
	CHECK(!prompt("@"));
	CHECK(!prompt("(((((("));
	CHECK(!ctrprompt_line("root@5561000296a4:", 17));	/* the length is the bound, not a NUL */
}

/* A table with one rule named on the prompt's evidence; one REPL rule. */
#define HEAD "id\tprio\tclass\tmatch\tpattern\tanchor\tcaptures\tcauses\tlayer\tsays\tsource\n"
static const char table[] = HEAD
	"m\t1\tcause\tlit\tDriver/library version mismatch\t-\t-\t"
	"driver-library-mismatch;image-ships-libcuda?+docker|" CTRPROMPT_EV "\t-\t-\t-\n"
	"t\t2\tcause\tre\tis_available\\(\\) False\tis_available\t-\t"
	"container-gpu-not-requested\t-\t-\t-\n";

struct run {
	struct logrules r;
	struct logmatch m;
	struct logjoin j;
	struct lognorm n;
};

static void run_log(struct run *x, const char *log)
{
	logmatch_init(&x->m, &x->r);
	logjoin_init(&x->j, &x->m);
	lognorm_init(&x->n, logjoin_line_cb, &x->j);
	lognorm_feed(&x->n, log, strlen(log));
	lognorm_finish(&x->n);
	logjoin_finish(&x->j);
}

static void end_log(struct run *x)
{
	lognorm_release(&x->n);
	logjoin_release(&x->j);
	logmatch_release(&x->m);
}

static const struct logmatch_hit *hit_of(const struct logmatch *m, const char *id)
{
	for (size_t i = 0; i < m->nhits; i++)
		if (!strcmp(m->hits[i].rule->id, id))
			return &m->hits[i];
	return NULL;
}

static void test_prompt_is_evidence(void)
{
	struct run x;
	const struct logrule *rule;

	CHECK(logrules_parse("test", table, strlen(table), &x.r, NULL) == 0);
	rule = logrules_find(&x.r, "m");
	CHECK(rule != NULL);
	if (!rule) {
		logrules_release(&x.r);
		return;
	}
	run_log(&x, "root@5561000296a4:~# nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\n");
	CHECK(x.m.ev_prompt >= 0);
	CHECK(logmatch_cond_seen(&x.m, &rule->cond[1]));
	end_log(&x);
	/* the same error on a host's prompt: no evidence of a container */
	run_log(&x, "root@gpu-node-01:~# nvidia-smi\nFailed to initialize NVML: Driver/library version mismatch\n");
	CHECK(!logmatch_cond_seen(&x.m, &rule->cond[1]));
	end_log(&x);
	logrules_release(&x.r);
}

static void test_repl_join(void)
{
	struct run x;

	CHECK(logrules_parse("test", table, strlen(table), &x.r, NULL) == 0);
	run_log(&x, ">>> import torch\n>>> torch.cuda.is_available()\nFalse\n");
	CHECK(hit_of(&x.m, "t") != NULL);
	end_log(&x);
	run_log(&x, "In [2]: torch.cuda.is_available()\nOut[2]: False\n");
	CHECK(hit_of(&x.m, "t") == NULL);	/* the rule reads no Out[N]: the join keeps it, the rule decides */
	end_log(&x);
	/* not a result: a sentence after a call is not joined into one */
	run_log(&x, ">>> torch.cuda.is_available()\nFalse alarm, it works now\n");
	CHECK(hit_of(&x.m, "t") == NULL);
	end_log(&x);
	logrules_release(&x.r);
}

int main(void)
{
	RUN(test_prompts);
	RUN(test_prompt_is_evidence);
	RUN(test_repl_join);
	return tap_done();
}
