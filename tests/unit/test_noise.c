/* test_noise.c - labelling known harmless framework messages (data/noise.tsv). */
#include "tap.h"

#include "knowledge/noise.h"

static void test_match(void)
{
	const struct noise_row *n;

	n = noise_match("tensorflow", "2.15.0",
			"E0000 cuda_dnn.cc:9261] Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered");
	CHECK(n != NULL);
	if (n)
		CHECK(strstr(n->meaning, "harmless") != NULL);
	/* outside the versions it is known for */
	CHECK(noise_match("tensorflow", "2.19.0",
			  "Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered") == NULL);
	/* 2.17.1 is inside "2.14-2.17" */
	CHECK(noise_match("tensorflow", "2.17.1",
			  "Unable to register cuDNN factory: Attempting to register factory for plugin cuDNN when one has already been registered") != NULL);
	/* any framework */
	CHECK(noise_match("torch", NULL, "successful NUMA node read from SysFS had negative value (-1), but there must be at least one NUMA node") != NULL);
	/* a real problem is not noise */
	CHECK(noise_match("tensorflow", "2.15.0", "Could not find cuda drivers on your machine, GPU will not be used.") == NULL);
	CHECK(noise_match("tensorflow", "2.15.0", "") == NULL);
	CHECK(noise_match("tensorflow", "2.15.0", NULL) == NULL);
}

int main(void)
{
	RUN(test_match);
	return tap_done();
}
