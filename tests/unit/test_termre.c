/*
 * test_termre.c - the vocabulary tier's matcher (explain/termre.h) against
 * its specification, glibc's regexec: every term row of the embedded table
 * and a set of patterns that use each construct termre reads, over
 * generated texts (domain words, error words and their near misses, word
 * and non-word neighbours, case, NUL), with and without REG_NOTBOL and
 * REG_NOTEOL; and what termre and rulecheck refuse.
 */
#include "tap.h"

#include "explain/logrules.h"
#include "explain/rulecheck.h"
#include "explain/termre.h"

#include <ctype.h>
#include <regex.h>
#include <stdlib.h>

static unsigned long rng = 88172645463325252ul;

static unsigned long next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Words of the rows and their near misses: the texts are made of these, glued by neighbours. */
static const char *const words[] = {
	"gres", "gresx", "xgres", "dkms", "/dkms", "dkms/", "nouveau", "nouveaux", "mig", "mig-enabled",
	"mig/", "mig-x", "migx", "sm_80", "sm80", "sm 8.0", "sm_9", "sm_100a", "capability", "capability: 8.6",
	"capability v7.0", "compute capability", "8.6 capability", "fabric manager", "fabricmanager",
	"fabric  manager", "cgroup v2", "cgroups v2", "cgroupv2", "cgroup2", "unified_cgroup",
	"cgroup subsystem devices", "nvidia-container", "libnvidia-container", "container toolkit",
	"nvidia-docker", "broken", "not work", "n't work", "p2p", "p2px", "peer-to-peer", "peer to peer",
	"shm", "shm.", "/dev/shm", "shm_open", "shm-size", "nvidia-uvm", "nvidia_uvm", "net/ib", "net/ibp",
	"infiniband", "roce", "ibv_reg_mr", "ibv_", "nccl", "ncclx", "NCCL", "error", "erro", "ERROR",
	"fail", "fai", "fatal", "cannot", "can't", "unable", "unabl", "not found", "no such", "denied",
	"refused", "invalid", "timeout", "timed out", "times out", "time out", "timeouts", "warn", "hang",
	"hangs", "hangsx", "hung", "stuck", "stuc", "exceeded", "mismatch", "unsupported", "unsupporte",
	"not supported", "insufficient", "deadlock", "deadlocks", "frozen", "never returns", "freez",
	"wrong result", "incorrect", "corrupt", "garbage", "silently drop", "zeroed", "too old",
	"requires", "is not defined", "and higher", "or newer", "no longer supported", "incompatible",
	"not compatible", "do not work", "does not work", "x", "abc", "7", "_",
	/* the sys block (round 13): subjects of the kernel, devices, tools, containers, ECC, IOMMU and their kinds' words */
	"nvidia.ko", "nvidia kernel module", "module nvidia", "module nvidia_uvm", "modprobe nvidia", "nvidia-drm",
	"nvidia_modeset", "kmod-nvidia", "uvm kernel module", "uvm driver", "/dev/nvidia0", "/dev/nvidiactl",
	"nvidiactl", "/dev/dri/renderD128", "nvcc", "nvcc:", "ptxas", "ptxas.exe", "xnvcc", "cuobjdump",
	"nvidia-container-runtime", "nvidia-container-runtime-hook", "nvidia runtime", "nvidia-container-toolkit",
	"nvidia-ctk", "ecc", "eccx", "double bit", "dbe", "row remap", "retired pages", "iommu", "acs", "acsx",
	"amd-vi", "dmar", "io_page_fault", "no such file", "could not load", "failed to open", "unable to locate",
	"could not be found", "not installed", "is missing", "not loaded", "not available", "does not exist",
	"is not recognized as", "was ", "command ", "permission denied", "operation not permitted", "access denied",
	"insufficient permissions", "version mismatch", "requires version", "older than", "does not match",
	"is not supported by", "uncorrectable", "detected", "encountered", "fault",
	"nccl", "hangs", "stuck",	/* again: the longer list must not dilute term-nccl-hang's pairs below the floor */
	/* lib13: the library subjects (sonames, DLLs, bare names, a wheel's path) and the missing/version kinds */
	"libcudnn", "libcudnn_ops_infer.so.8", "cudnn64_8.dll", "cudnn_cnn_infer64_8.dll", "cudnn", "/cudnn/",
	"libcudart.so.12", "cudart64_110.dll", "cudart", "cuda runtime", "libcublas", "cublasLt64_12.dll",
	"cublas", "libcufft", "nvrtc", "nvrtc64_120_0.dll", "libcuda.so.1", "libcudax", "nvcuda.dll",
	"libnvidia-ml.so.1", "nvml", "nvml/", "libnccl.so.2", "libnccl-net.so", "nccl library", "could not load",
	"failed to open", "missing", "not installed", "could not be found", "version mismatch", "need at least",
	"incompatibility", "newer than", "expected 8.9 but", "does not match",
	/* the ctr tier (round 13): its subjects and the missing, permission and pod-error kinds */
	"nvidia-container-toolkit", "nvidia-container-cli", "nvidia-ctk", "runtime: nvidia",
	"nvidia-device-plugin", "gpu-feature-discovery", "nvidia-operator-validator", "plugin-validation",
	"toolkit fails validation", "crashloopbackoff", "permission denied", "permission error",
	"insufficient permission", "was missing", "not installed", "--gpus", "gpus-per-node", "gres=(null)",
	"constraindevices", "not showing",
	/* the fw rows (round 13): frameworks, GPU words, and the words of their kinds */
	"torch", "tensorflow", "paddlepaddle", "jaxlib", "onnxruntime", "gpu", "GPU", "cuda", "cuda:0",
	"not detected", "cannot use", "can't find", "falling back to cpu", "cpu version", "cpu-only",
	"not compiled with cuda", "built without gpu", "nvidia driver", "driver", "older than",
	"out of memory", "cudaMalloc", "gpu memory", "failed to allocate", "resource_exhausted",
	"torch cuda not available", "GPU not detected by tensorflow", "paddle cannot use gpu",
	"nvidia driver is too old", "unavailable", "jax",
};
static const char *const glue[] = { " ", "", "/", "-", "_", ".", ":", "\n", "  ", "x", "9", "\t" };

static size_t gen_text(char *buf, size_t cap)
{
	size_t n = 0, want = next_rand() % 220;

	while (n < want) {
		const char *w;
		size_t l;

		switch (next_rand() % 10) {
		case 0:	/* a run of filler: pushes pairs past the gap */
			l = next_rand() % 90;
			if (n + l >= cap)
				return n;
			memset(buf + n, next_rand() % 2 ? ' ' : 'a', l);
			n += l;
			continue;
		case 1:
			w = glue[next_rand() % (sizeof(glue) / sizeof(glue[0]))];
			break;
		case 2:	/* a NUL: '.' does not match it */
			if (next_rand() % 4 == 0) {
				if (n + 1 >= cap)
					return n;
				buf[n++] = 0;
				continue;
			}
			w = " ";
			break;
		default:
			w = words[next_rand() % (sizeof(words) / sizeof(words[0]))];
		}
		l = strlen(w);
		if (n + l >= cap)
			return n;
		for (size_t i = 0; i < l; i++)	/* case flips: the rows ignore case */
			buf[n + i] = next_rand() % 5 == 0 ? (char)toupper((unsigned char)w[i]) : w[i];
		n += l;
		if (n < cap && next_rand() % 2)
			buf[n++] = ' ';
	}
	return n;
}

/* The number of texts where termre and regexec disagree, out of n; the first printed. */
static int compare(const char *pattern, int icase, int n, int *matched)
{
	struct termre *t;
	struct termre_scratch s;
	regex_t re;
	const char *why = NULL;
	char buf[1024];
	int bad = 0;

	*matched = 0;
	if (termre_compile(pattern, icase, &t, &why) < 0) {
		printf("# termre refused %s: %s\n", pattern, why);
		return n;
	}
	if (regcomp(&re, pattern, REG_EXTENDED | (icase ? REG_ICASE : 0)) != 0) {
		termre_free(t);
		printf("# regcomp refused %s\n", pattern);
		return n;
	}
	termre_scratch_init(&s);
	for (int i = 0; i < n; i++) {
		size_t len = gen_text(buf, sizeof(buf));
		int notbol = (int)(next_rand() % 2), noteol = (int)(next_rand() % 2);
		regmatch_t pm[1];
		int want, got;

		pm[0].rm_so = 0;
		pm[0].rm_eo = (regoff_t)len;
		want = regexec(&re, buf, 1, pm, REG_STARTEND | (notbol ? REG_NOTBOL : 0) |
			       (noteol ? REG_NOTEOL : 0)) == 0;
		termre_scratch_newtext(&s);
		got = termre_match(t, buf, len, notbol, noteol, &s);
		*matched += want;
		if (got != want) {
			if (!bad++) {
				printf("# %s: termre %d, regexec %d (notbol %d noteol %d) on \"", pattern, got, want,
				       notbol, noteol);
				for (size_t k = 0; k < len; k++)
					printf(isprint((unsigned char)buf[k]) ? "%c" : "\\x%02x", (unsigned char)buf[k]);
				printf("\"\n");
			}
		}
	}
	termre_scratch_release(&s);
	regfree(&re);
	termre_free(t);
	return bad;
}

/* Every term row of the embedded table: the same answer as its regex, on texts where it matches and where it does not. */
static void test_rows_agree(void)
{
	struct logrules r;
	size_t nterm = 0;

	if (logrules_load(NULL, &r, NULL) < 0) {
		CHECK(0);
		return;
	}
	for (size_t i = 0; i < r.n; i++) {
		const struct logrule *rule = &r.v[i];
		int matched;

		if (!logrule_is_term(rule) || rule->kind != LR_RE)
			continue;
		nterm++;
		CHECK(rule->tm != NULL);
		CHECK_INT(compare(rule->pattern, 1, 4000, &matched), 0);
		/*
		 * The texts are drawn from every block's words, so a row whose pairs
		 * are rare in them (each block that joins the list dilutes the
		 * others) gets five times the texts before the floor is judged.
		 */
		if (matched <= 20)
			CHECK_INT(compare(rule->pattern, 1, 20000, &matched), 0);
		if (matched <= 20 || matched >= 3980)
			printf("# %s: %d texts matched\n", rule->id, matched);
		CHECK(matched > 20);	/* the texts reach both answers */
		CHECK(matched < 3980);
	}
	CHECK(nterm >= 12);
	logrules_release(&r);
}

/* Each construct termre reads, alone and in a chain: brackets, ranges, case folding, anchors, repetitions. */
static void test_constructs_agree(void)
{
	static const char *const pats[] = {
		"gres.{0,5}error",
		"\\bgres\\b.{0,80}(error|fail)|(error|fail).{0,80}\\bgres\\b",
		"(^|[^/])\\bdkms\\b($|[^/]).{0,20}(fail|error)",
		"\\bmig\\b($|[^-/]|-[^e]).{0,10}(unable|error)",
		"[^a-c]x.{0,3}[a-z_]+",
		"[]a-]r.{0,4}o",
		"[A-Z]{2,3}.{0,2}[0-9]",
		"sm[ _]?[0-9]{2,3}[af]?\\b.{0,9}(unsupported|requires)",
		"capability:? *v?[0-9]+\\.[0-9].{0,7}too old",
		"\\bibv_[a-z_]+.{0,8}(error|fail)",
		"(nvidia-container|container[- ]toolkit).{0,80}(broken|n't work).{0,80}(cgroups? ?v2|cgroup2)",
		"a.{0,3}b.{0,3}c.{0,3}d",
		"(a|ab)(c|bcd)?.{0,2}x*y",
		"^gres.{0,10}error$",
		"\\.{0,0}",
		"x.{0,0}y",
		"(shm\\b($|[^.])|/dev/shm).{0,6}(bus error|no space)",
		"ERROR.{0,4}Gres",
		"t.{0,2}[[]x",
	};
	for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
		int matched;

		CHECK_INT(compare(pats[i], 1, 1500, &matched), 0);
		CHECK_INT(compare(pats[i], 0, 1500, &matched), 0);
	}
}

/* What the matcher cannot run is refused with a reason, and rulecheck refuses such a term row. */
static void test_refusals(void)
{
	static const char *const bad[] = {
		"(a)\\1.{0,5}b", "[[:alpha:]].{0,5}b", "a.*b", ".{0,5}b", "a.{0,5}", "a\\wb",
		"a.{0,5}.{0,5}b", "a**", "a{2}{3}", "(a|)b", "()", "a)", "\\", "[a", "", "a{x}", "[z-a]",
	};
	const char *why;
	struct termre *t;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why = NULL;
		CHECK_INT(termre_compile(bad[i], 1, &t, &why), -1);
		CHECK(why != NULL && *why);
		if (termre_compile(bad[i], 1, &t, &why) == 0)
			termre_free(t);
	}
	CHECK_INT(rulecheck_row("term-x", "gres.*error", &why), -1);
	CHECK(strstr(why, "without a bound") != NULL);
	CHECK_INT(rulecheck_row("term-x", "[[:digit:]]+.{0,80}error", &why), -1);
	CHECK(strstr(why, "class") != NULL);
	/* an exact row keeps what glibc reads */
	CHECK_INT(rulecheck_row("x-row", "gres.*error", &why), 0);
	CHECK_INT(rulecheck_row("term-x", "\\bgres\\b.{0,80}(error|fail)", &why), 0);
}

/* A table whose term row the matcher cannot run does not load, and says which row and why. */
static void test_table_refuses(void)
{
	const char *text = "id\tprio\tclass\tmatch\tpattern\tanchor\tcaptures\tcauses\tlayer\tsays\tsource\n"
			   "term-x\t200\tscope\trei\tgres.{0,80}(err)(or)\tgres\terr,or\t-\t-\t-\t-\n";
	struct logrules r;
	struct err e = ERR_INIT;

	CHECK_INT(logrules_parse("test", text, strlen(text), &r, &e), -1);
	CHECK(strstr(e.msg, "term-x") != NULL && strstr(e.msg, "captures nothing") != NULL);
	logrules_release(&r);
}

/* Texts longer than the visit table allows are handed back (-1), never cut short. */
static void test_too_long(void)
{
	struct termre *t;
	struct termre_scratch s;
	const char *why;
	size_t len = TERMRE_MAX_VISIT;
	char *big = malloc(len);

	CHECK_INT(termre_compile("(error|fail).{0,80}\\bgres\\b", 1, &t, &why), 0);
	memset(big, 'e', len);
	termre_scratch_init(&s);
	CHECK_INT(termre_match(t, big, len, 0, 0, &s), -1);
	memcpy(big + 1000, " error gres ", 12);
	CHECK_INT(termre_match(t, big, 2000, 0, 0, &s), 1);
	termre_scratch_release(&s);
	termre_free(t);
	free(big);
}

int main(void)
{
	RUN(test_rows_agree);
	RUN(test_constructs_agree);
	RUN(test_refusals);
	RUN(test_table_refuses);
	RUN(test_too_long);
	return tap_done();
}
