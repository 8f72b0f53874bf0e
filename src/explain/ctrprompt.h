/*
 * ctrprompt.h - whether a pasted line starts with the shell prompt of a
 * container, which says where the log was taken even when nothing else does.
 *
 * Docker and Podman name a container's host after the first 12 hex digits
 * of its id, so a shell inside one prompts "root@5561000296a4:/app#"; a pod
 * of a Kubernetes Deployment is named "<deployment>-<template hash>-<5>",
 * both suffixes drawn from the API server's safe alphabet
 * (bcdfghjklmnpqrstvwxz2456789), and Singularity/Apptainer prompt
 * "Singularity>" / "Apptainer>".  A user unknown to the image's passwd
 * (docker run -u 1000) reads "I have no name!@<id>".  Leading "(env) "
 * prefixes of conda and venv are skipped.
 *
 * explain's rules cannot see this with a literal, so logmatch sets the
 * evidence literal CTRPROMPT_EV (when a rule's condition names it, through
 * the @in-container and @container-word sets of explain.tsv) on every line
 * this accepts:
 *
 *	if (ctrprompt_line(text, len)) m->ev_seen[idx] = 1;
 */
#ifndef GD_CTRPROMPT_H
#define GD_CTRPROMPT_H

#include <stddef.h>

/* The evidence literal a container prompt stands for (lower case, as conditions store it). */
#define CTRPROMPT_EV "<container-shell-prompt>"

/* 1 when text (len bytes, not NUL-terminated) starts with a container's shell prompt. */
int ctrprompt_line(const char *text, size_t len);

#endif
