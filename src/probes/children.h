/*
 * children.h - the child sides of the isolated probes: `gpudoctor __probe NAME`.
 *
 * Anything that loads a foreign library or touches the driver runs in a
 * child (core/child.h) that re-executes gpudoctor as `__probe NAME ARGS`;
 * commands/cmd_probe.c dispatches NAME to one of these.  Each writes
 * key=value lines (core/kv.h) on stdout and ends with "end", and returns its
 * exit status.  The definitions live beside the probe they serve (the
 * driver, cuda, libraries and containers layers here, bench/ and watch/
 * above), so that no probe includes commands/.
 *
 *	int rc = probe_main_cuda(argc, argv);	// in the child, after exec
 */
#ifndef GD_PROBES_CHILDREN_H
#define GD_PROBES_CHILDREN_H

int probe_main_nvml(int argc, char **argv);		/* probes/driver/nvml_child.c */
int probe_main_cuda(int argc, char **argv);		/* probes/cuda/cuda_child.c */
int probe_main_libversion(int argc, char **argv);	/* probes/libraries/libversion_child.c */
int probe_main_devopen(int argc, char **argv);		/* probes/containers/devopen_child.c */
int probe_main_bench(int argc, char **argv);		/* bench/bench_child.c */
int probe_main_nvml_sampler(int argc, char **argv);	/* watch/sampler_child.c */
int probe_main_burn(int argc, char **argv);		/* burn/burn_child.c */

#endif
