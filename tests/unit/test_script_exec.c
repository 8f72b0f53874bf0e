/*
 * test_script_exec.c - reading the program a wrapper script execs, from the
 * wrappers seen on real machines to the ones it must refuse to guess about.
 */
#include "tap.h"

#include "probes/libraries/script_exec.h"

#include <string.h>

static const char *target(const char *text, const char *name)
{
	static struct buf out = BUF_INIT;

	buf_reset(&out);
	if (script_exec_target(text, strlen(text), name, &out) != 0)
		return NULL;
	return out.s;
}

static void test_real_wrappers(void)
{
	/* this project's CI machine's /usr/local/bin/nvcc, byte for byte */
	CHECK_STR(target("#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc \"$@\"\n", "nvcc"),
		  "/usr/local/cuda-13.0/bin/nvcc");
	/* without exec, quoted, after comments and set lines, CRLF */
	CHECK_STR(target("#!/bin/bash\r\n# pin the toolkit\r\nset -e\r\n"
			 "'/opt/cuda 12/bin/nvcc' \"$@\"\r\n", "nvcc"),
		  "/opt/cuda 12/bin/nvcc");
	CHECK_STR(target("#!/bin/sh\n  exec \"/usr/local/cuda-12.4/bin/nvcc\"\n", "nvcc"),
		  "/usr/local/cuda-12.4/bin/nvcc");
	/* no trailing newline */
	CHECK_STR(target("#!/bin/sh\nexec /x/bin/nvcc", "nvcc"), "/x/bin/nvcc");
}

static void test_refusals(void)
{
	/* not a script: an ELF file's first bytes */
	CHECK(target("\177ELF\2\1\1", "nvcc") == NULL);
	CHECK(target("", "nvcc") == NULL);
	CHECK(target("#!", "nvcc") == NULL);
	/* the #! line itself is not a command */
	CHECK(target("#!/usr/local/cuda/bin/nvcc\n", "nvcc") == NULL);
	/* shell expansions: the value is unknown without running the shell */
	CHECK(target("#!/bin/sh\nexec \"$CUDA_HOME/bin/nvcc\" \"$@\"\n", "nvcc") == NULL);
	CHECK(target("#!/bin/sh\nexec ~/cuda/bin/nvcc\n", "nvcc") == NULL);
	CHECK(target("#!/bin/sh\nexec /usr/local/cuda-*/bin/nvcc\n", "nvcc") == NULL);
	CHECK(target("#!/bin/sh\nexec `which nvcc`\n", "nvcc") == NULL);
	/* relative paths, other programs, names that only end like nvcc */
	CHECK(target("#!/bin/sh\nexec bin/nvcc\n", "nvcc") == NULL);
	CHECK(target("#!/bin/sh\nexec /usr/bin/ccache /usr/local/cuda/bin/nvcc\n", "nvcc") == NULL);
	CHECK(target("#!/bin/sh\nexec /usr/bin/mynvcc\n", "nvcc") == NULL);
	CHECK(target("#!/bin/sh\nexec /nvcc\n", "nvcc") == NULL);
	/* an open quote, quotes glued to text */
	CHECK(target("#!/bin/sh\nexec \"/usr/local/cuda/bin/nvcc\n", "nvcc") == NULL);
	CHECK(target("#!/bin/sh\nexec \"/a\"/bin/nvcc\n", "nvcc") == NULL);
	CHECK(target("#!/bin/sh\n# exec /usr/local/cuda/bin/nvcc\n", "nvcc") == NULL);
	CHECK(target("#!/bin/sh\nexec\n", "nvcc") == NULL);
	CHECK(target("#!/bin/sh\nexec /a/bin/nvcc\n", "") == NULL);
}

static void test_first_match_wins(void)
{
	CHECK_STR(target("#!/bin/sh\nif [ -x /a ]; then\n/first/bin/nvcc \"$@\"\nfi\n"
			 "exec /second/bin/nvcc\n", "nvcc"), "/first/bin/nvcc");
}

int main(void)
{
	RUN(test_real_wrappers);
	RUN(test_refusals);
	RUN(test_first_match_wins);
	return tap_done();
}
