/*
 * test_containers.c - the containers layer's parsers: the toolkit's reading
 * of NVIDIA_VISIBLE_DEVICES / NVIDIA_DRIVER_CAPABILITIES, the JSON/YAML and
 * TOML readers, the CDI spec, the configs, and the /proc parsers.
 */
#include "tap.h"
#include "cfg/doc.h"
#include "cfg/toml.h"
#include "probes/containers/containers.h"
#include "rules/ctr_require.h"

#include <stdlib.h>
#include <string.h>

struct kv { const char *k, *v; };

static const char *get(const char *name, void *arg)
{
	for (const struct kv *p = arg; p->k; p++)
		if (!strcmp(p->k, name))
			return p->v;
	return NULL;
}

static void resolve(struct kv *vars, struct ctr_env *env)
{
	ctr_env_resolve(get, vars, NULL, env);
}

static void test_env_devices(void)
{
	struct ctr_env e;
	struct kv unset[] = { { NULL, NULL } };
	struct kv empty[] = { { "NVIDIA_VISIBLE_DEVICES", "" }, { NULL, NULL } };
	struct kv list[] = { { "NVIDIA_VISIBLE_DEVICES", "0, 1 ,GPU-abc" }, { NULL, NULL } };
	struct kv voidl[] = { { "NVIDIA_VISIBLE_DEVICES", "0,void" }, { NULL, NULL } };
	struct kv none_all[] = { { "NVIDIA_VISIBLE_DEVICES", "none,all" }, { NULL, NULL } };
	struct kv all_none[] = { { "NVIDIA_VISIBLE_DEVICES", "all,none" }, { NULL, NULL } };

	resolve(unset, &e);
	CHECK_INT(e.visible, CTR_VIS_VOID);
	ctr_env_release(&e);
	resolve(empty, &e);
	CHECK_INT(e.visible, CTR_VIS_VOID);
	ctr_env_release(&e);
	resolve(list, &e);
	CHECK_INT(e.visible, CTR_VIS_LIST);
	CHECK_INT(e.ndevices, 3);
	ctr_env_release(&e);
	resolve(voidl, &e);
	CHECK_INT(e.visible, CTR_VIS_VOID);
	ctr_env_release(&e);
	resolve(none_all, &e);
	CHECK_INT(e.visible, CTR_VIS_NONE);
	ctr_env_release(&e);
	resolve(all_none, &e);
	CHECK_INT(e.visible, CTR_VIS_ALL);
	ctr_env_release(&e);
}

static void test_env_caps_and_legacy(void)
{
	struct ctr_env e;
	char buf[128];
	struct kv legacy[] = { { "CUDA_VERSION", "10.2.89" }, { NULL, NULL } };
	struct kv modern[] = { { "CUDA_VERSION", "12.8.1" }, { "NVIDIA_REQUIRE_CUDA", "cuda>=12.8" },
			       { NULL, NULL } };
	struct kv legacy_empty[] = { { "CUDA_VERSION", "10.2.89" }, { "NVIDIA_REQUIRE_CUDA", "" },
				     { "NVIDIA_DRIVER_CAPABILITIES", "" }, { NULL, NULL } };
	struct kv util[] = { { "NVIDIA_DRIVER_CAPABILITIES", "utility" }, { NULL, NULL } };
	struct kv all[] = { { "NVIDIA_DRIVER_CAPABILITIES", "all,bogus" }, { NULL, NULL } };
	struct kv bogus[] = { { "NVIDIA_DRIVER_CAPABILITIES", "compute, bogus ,x" }, { NULL, NULL } };

	resolve(legacy, &e);
	CHECK_INT(e.legacy, 1);
	CHECK_INT(e.visible, CTR_VIS_ALL);
	CHECK_STR(ctr_caps_str(e.caps, buf, sizeof(buf)), "all");
	CHECK_INT(e.caps_from, 2);
	ctr_env_release(&e);
	resolve(modern, &e);
	CHECK_INT(e.legacy, 0);
	CHECK_INT(e.visible, CTR_VIS_VOID);
	CHECK_STR(ctr_caps_str(e.caps, buf, sizeof(buf)), "compute,utility");
	ctr_env_release(&e);
	/* legacy, but the variable is set (empty): the default, not all */
	resolve(legacy_empty, &e);
	CHECK_INT(e.legacy, 1);
	CHECK_STR(ctr_caps_str(e.caps, buf, sizeof(buf)), "compute,utility");
	CHECK_INT(e.caps_from, 0);
	ctr_env_release(&e);
	resolve(util, &e);
	CHECK_INT(e.caps, CTR_CAP_UTILITY);
	ctr_env_release(&e);
	resolve(all, &e);
	CHECK_INT(e.caps, CTR_CAP_ALL);
	CHECK(e.caps_unknown == NULL);
	ctr_env_release(&e);
	resolve(bogus, &e);
	CHECK_INT(e.caps, CTR_CAP_COMPUTE);
	CHECK_STR(e.caps_unknown, "bogus,x");
	ctr_env_release(&e);
}

static void test_yaml_shapes(void)
{
	static const char y[] =
		"# comment\n---\nkind: nvidia.com/gpu\ndevices:\n- name: \"0\"\n  containerEdits:\n"
		"    deviceNodes:\n    - path: /dev/nvidia0\n      hostPath: '/dev/nvidia0'\n"
		"list: [a, \"b\",\n  c]  # trailing\nflow: {x: 1, y: [2]}\nempty:\nblock: |\n  one\n  two\n";
	struct doc d;
	struct err e = ERR_INIT;
	const struct doc *dev, *node;

	CHECK_INT(doc_parse_yaml(y, strlen(y), &d, &e), 0);
	CHECK_STR(doc_str(doc_get(&d, "kind")), "nvidia.com/gpu");
	dev = doc_at(doc_get(&d, "devices"), 0);
	CHECK_STR(doc_str(doc_get(dev, "name")), "0");
	node = doc_at(doc_get(doc_get(dev, "containerEdits"), "deviceNodes"), 0);
	CHECK_STR(doc_str(doc_get(node, "hostPath")), "/dev/nvidia0");
	CHECK_INT(doc_len(doc_get(&d, "list")), 3);
	CHECK_STR(doc_str(doc_at(doc_get(&d, "list"), 2)), "c");
	CHECK_STR(doc_str(doc_at(doc_get(doc_get(&d, "flow"), "y"), 0)), "2");
	CHECK_INT(doc_get(&d, "empty")->type, DOC_NULL);
	CHECK_STR(doc_str(doc_get(&d, "block")), "one\ntwo");
	doc_release(&d);
}

static void test_parse_errors(void)
{
	struct doc d;
	struct toml t;
	struct err e = ERR_INIT;
	char deep[200];

	CHECK_INT(doc_parse_yaml("a: b\n  c: d\n", 12, &d, &e), -1);
	CHECK(strstr(e.msg, "line 2") != NULL);
	CHECK_INT(doc_parse_json("{\"a\": [1, 2}", 12, &d, &e), -1);
	CHECK_INT(doc_parse_json("\"abc", 4, &d, &e), -1);
	CHECK(strstr(e.msg, "unterminated") != NULL);
	memset(deep, '[', sizeof(deep));
	CHECK_INT(doc_parse_json(deep, sizeof(deep), &d, &e), -1);
	CHECK(strstr(e.msg, "deeper") != NULL);
	CHECK_INT(toml_parse("[a\nb = 1\n", 9, &t, &e), -1);
	CHECK_INT(toml_parse("a = \"x\n", 7, &t, &e), -1);
	CHECK(strstr(e.msg, "line 1") != NULL);
}

static void test_json_escapes(void)
{
	static const char j[] = "{\"k\": \"a\\u00e9\\ud83d\\ude00\\n\", \"b\": true, \"n\": null}";
	struct doc d;
	struct err e = ERR_INIT;

	CHECK_INT(doc_parse_json(j, strlen(j), &d, &e), 0);
	CHECK_STR(doc_str(doc_get(&d, "k")), "a\xc3\xa9\xf0\x9f\x98\x80\n");
	CHECK_INT(doc_bool(doc_get(&d, "b")), 1);
	doc_release(&d);
}

static void test_toml_containerd(void)
{
	static const char t[] =
		"version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
		"  default_runtime_name = \"nvidia\"\n"
		"  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n"
		"    BinaryName = \"/usr/bin/nvidia-container-runtime\"\n"
		"[plugins.\"io.containerd.grpc.v1.cri\"]\n  enable_cdi = true\n"
		"  cdi_spec_dirs = [\"/etc/cdi\",\n   \"/var/run/cdi\"] # two\n";
	struct ctr_host h;
	struct err e = ERR_INIT;

	memset(&h, 0, sizeof(h));
	h.containerd_cdi = -1;
	CHECK_INT(ctr_read_containerd_config(t, strlen(t), &h, &e), 0);
	CHECK_INT(h.containerd_nvidia_runtime, 1);
	CHECK_STR(h.containerd_default_runtime, "nvidia");
	CHECK_INT(h.containerd_cdi, 1);
	free(h.containerd_default_runtime);
}

static void test_toolkit_and_docker(void)
{
	static const char ctk[] =
		"[nvidia-container-cli]\nno-cgroups = true\n[nvidia-container-runtime]\nmode = \"cdi\"\n"
		"[nvidia-container-runtime.modes.cdi]\nspec-dirs = [\"/etc/cdi\", \"relative\", \"/srv/cdi\"]\n";
	static const char dj[] =
		"{\"default-runtime\": \"nvidia\", \"runtimes\": {\"nvidia\": {\"path\": "
		"\"/usr/bin/nvidia-container-runtime\"}, \"crun\": {\"path\": \"crun\"}}, "
		"\"features\": {\"cdi\": true}}";
	struct ctr_host h;
	struct err e = ERR_INIT;

	memset(&h, 0, sizeof(h));
	CHECK_INT(ctr_read_toolkit_config(ctk, strlen(ctk), &h, &e), 0);
	CHECK_INT(h.no_cgroups, 1);
	CHECK_STR(h.toolkit_mode, "cdi");
	CHECK_INT(h.nspec_dirs, 2);
	CHECK_STR(h.spec_dirs[1], "/srv/cdi");
	CHECK_INT(ctr_read_docker_daemon(dj, strlen(dj), &h, &e), 0);
	CHECK_INT(h.docker_nvidia_runtime, 1);
	CHECK_STR(h.docker_default_runtime, "nvidia");
	CHECK_INT(h.docker_cdi, 1);
	CHECK_INT(h.ndocker_runtimes, 2);
	CHECK_STR(h.docker_runtimes[0], "nvidia=/usr/bin/nvidia-container-runtime");
	CHECK_INT(ctr_read_docker_daemon("[1]", 3, &h, &e), -1);
	free(h.toolkit_mode);
	for (size_t i = 0; i < h.nspec_dirs; i++)
		free(h.spec_dirs[i]);
	free(h.spec_dirs);
	for (size_t i = 0; i < h.ndocker_runtimes; i++)
		free(h.docker_runtimes[i]);
	free(h.docker_runtimes);
	free(h.docker_default_runtime);
}

static void test_cdi_spec(void)
{
	static const char y[] =
		"cdiVersion: 0.6.0\nkind: nvidia.com/gpu\ndevices:\n  - name: gpu0\n    containerEdits:\n"
		"      deviceNodes:\n        - path: /dev/nvidia0\n"
		"containerEdits:\n  mounts:\n    - hostPath: /usr/lib/x86_64-linux-gnu/libcuda.so.570.86.10\n"
		"      containerPath: /usr/lib/x86_64-linux-gnu/libcuda.so.570.86.10\n"
		"    - hostPath: /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.570.86.10\n"
		"    - hostPath: /usr/bin/nvidia-smi\n"
		"  hooks:\n    - hookName: createContainer\n      path: /usr/bin/nvidia-cdi-hook\n"
		"      args: [nvidia-cdi-hook, enable-cuda-compat, --host-driver-version=570.86.10]\n";
	struct cdi_spec s;

	memset(&s, 0, sizeof(s));
	CHECK_INT(ctr_read_cdi_spec("nvidia.yaml", y, strlen(y), &s), 0);
	CHECK_STR(s.kind, "nvidia.com/gpu");
	CHECK_INT(s.ndevices, 1);
	CHECK_STR(s.devices[0], "gpu0");
	CHECK_INT(s.npaths, 5);
	CHECK_INT(s.nlib_versions, 1);
	CHECK_STR(s.lib_versions[0], "570.86.10");
	CHECK_STR(s.host_driver_version, "570.86.10");
	cdi_spec_release(&s);
	CHECK_INT(ctr_read_cdi_spec("x.json", "{\"devices\": []}", 15, &s), -1);
	CHECK(s.error && strstr(s.error, "kind"));
	cdi_spec_release(&s);
}

static void test_lib_version(void)
{
	char v[64];

	CHECK_INT(ctr_driver_lib_version("libcuda.so.580.95.05", v, sizeof(v)), 0);
	CHECK_STR(v, "580.95.05");
	CHECK_INT(ctr_driver_lib_version("libnvidia-ml.so.535.104.05", v, sizeof(v)), 0);
	CHECK_INT(ctr_driver_lib_version("libcuda.so.1", v, sizeof(v)), -1);
	CHECK_INT(ctr_driver_lib_version("libcuda.so.1.1", v, sizeof(v)), -1);	/* Jetson compat */
	CHECK_INT(ctr_driver_lib_version("libcudart.so.12.8.90", v, sizeof(v)), -1);
	CHECK_INT(ctr_driver_lib_version("libfoo.so.580.95.05", v, sizeof(v)), -1);
}

static void test_proc_parsers(void)
{
	static const char limits[] =
		"Limit                     Soft Limit           Hard Limit           Units     \n"
		"Max locked memory         65536                unlimited            bytes     \n";
	static const char mounts[] =
		"overlay / overlay rw 0 0\nshm /dev/shm tmpfs rw,nosuid,nodev,noexec,relatime,size=65536k 0 0\n";
	static const char mountinfo[] =
		"1204 1191 0:131 / /dev/shm rw,nosuid - tmpfs shm rw,size=2g\n"
		"100 90 259:1 /x /usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05 ro - ext4 /dev/root rw\n";
	long long soft, hard;

	CHECK_INT(ctr_parse_limits_memlock(limits, strlen(limits), &soft, &hard), 0);
	CHECK_INT(soft, 65536);
	CHECK_INT(hard, -2);
	CHECK_INT(ctr_parse_limits_memlock("x\n", 2, &soft, &hard), -1);
	CHECK_INT(ctr_parse_shm_size(mounts, strlen(mounts)), 65536LL * 1024);
	CHECK_INT(ctr_parse_shm_size(mountinfo, strlen(mountinfo)), 2LL * 1024 * 1024 * 1024);
	CHECK_INT(ctr_parse_shm_size("x", 1), -1);
	CHECK_INT(ctr_mountinfo_has(mountinfo, strlen(mountinfo),
				    "/usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05"), 1);
	CHECK_INT(ctr_mountinfo_has(mountinfo, strlen(mountinfo), "/usr/lib/libcuda.so.1"), 0);
	CHECK_INT(ctr_devices_list_allows("a *:* rwm\n", 10, 195), 1);
	CHECK_INT(ctr_devices_list_allows("c 195:0 rw\n", 11, 195), 1);
	CHECK_INT(ctr_devices_list_allows("c 195:* r\nc 1:3 rwm\n", 20, 195), 0);
	CHECK_INT(ctr_devices_list_allows("", 0, 195), 0);
}

static void test_requires(void)
{
	struct ctr_require_facts f = { "13.0", "580.95.05", "9.0", NULL };
	struct ctr_env e;
	char failed[128];
	char *envp[] = { "NVIDIA_REQUIRE_CUDA=cuda>=12.8", "NVIDIA_REQUIRE_JETPACK=csv-mounts=all",
			 "NVIDIA_REQUIRE_ARCH=arch>=8.0", "PATH=/bin", NULL };
	struct kv legacy[] = { { "CUDA_VERSION", "11.0.3" }, { "NVIDIA_DISABLE_REQUIRE", "true" },
			       { NULL, NULL } };

	CHECK_INT(ctr_require_eval("cuda>=12.8", &f, failed, sizeof(failed)), 1);
	CHECK_INT(ctr_require_eval("cuda>=13.1", &f, failed, sizeof(failed)), 0);
	CHECK_STR(failed, "cuda>=13.1");
	CHECK_INT(ctr_require_eval("cuda>=13.0.0", &f, failed, sizeof(failed)), 1);
	/* space: or; comma: and (the CUDA images' own NVIDIA_REQUIRE_CUDA shape) */
	CHECK_INT(ctr_require_eval("cuda>=13.1 brand=tesla,driver>=535,driver<536", &f, failed,
				   sizeof(failed)), 0);
	CHECK_INT(ctr_require_eval("cuda>=13.1 brand=tesla,driver>=580,driver<581", &f, failed,
				   sizeof(failed)), -1);	/* the brand is not known */
	CHECK_INT(ctr_require_eval("cuda>=13.1 driver>=580,driver<581", &f, failed, sizeof(failed)), 1);
	CHECK_INT(ctr_require_eval("arch>=9.0,arch<10", &f, failed, sizeof(failed)), 1);
	CHECK_INT(ctr_require_eval("arch=8.6", &f, failed, sizeof(failed)), 0);
	CHECK_INT(ctr_require_eval("bogus", &f, failed, sizeof(failed)), -1);
	CHECK_INT(ctr_require_eval("", &f, failed, sizeof(failed)), -1);
	f.brand = "GeForce";
	CHECK_INT(ctr_require_eval("brand=geforce", &f, failed, sizeof(failed)), 1);
	ctr_env_resolve(get, legacy, envp, &e);
	CHECK_INT(e.nrequires, 3);
	CHECK_STR(e.requires[0], "NVIDIA_REQUIRE_CUDA=cuda>=12.8");
	CHECK_STR(e.requires[1], "NVIDIA_REQUIRE_ARCH=arch>=8.0");
	CHECK_STR(e.requires[2], "CUDA_VERSION=cuda>=11.0");
	CHECK_INT(e.require_disabled, 1);
	ctr_env_release(&e);
}

int main(void)
{
	RUN(test_requires);
	RUN(test_env_devices);
	RUN(test_env_caps_and_legacy);
	RUN(test_yaml_shapes);
	RUN(test_parse_errors);
	RUN(test_json_escapes);
	RUN(test_toml_containerd);
	RUN(test_toolkit_and_docker);
	RUN(test_cdi_spec);
	RUN(test_lib_version);
	RUN(test_proc_parsers);
	return tap_done();
}
