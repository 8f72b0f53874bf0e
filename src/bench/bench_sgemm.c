/* bench_sgemm.c - naive and blocked CPU SGEMM; see bench_sgemm.h. */
#include "bench/bench_sgemm.h"

#include <pthread.h>
#include <string.h>

#define KC 256
#define NC 512

void bench_sgemm_naive(int m, int n, int k, const float *a, const float *b, float *c)
{
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			float s = 0;

			for (int p = 0; p < k; p++)
				s += a[(long)i * k + p] * b[(long)p * n + j];
			c[(long)i * n + j] = s;
		}
}

struct bench_sgemm_job {
	int m0, m1, n, k;
	const float *a, *b;
	float *c;
};

static void bench_sgemm_rows(const struct bench_sgemm_job *job)
{
	int n = job->n, k = job->k;

	for (int i = job->m0; i < job->m1; i++)
		memset(job->c + (long)i * n, 0, sizeof(float) * (size_t)n);
	for (int jj = 0; jj < n; jj += NC) {
		int jn = n - jj < NC ? n - jj : NC;

		for (int pp = 0; pp < k; pp += KC) {
			int pn = k - pp < KC ? k - pp : KC;

			for (int i = job->m0; i < job->m1; i++) {
				float *restrict crow = job->c + (long)i * n + jj;
				const float *arow = job->a + (long)i * k + pp;

				for (int p = 0; p < pn; p++) {
					const float *restrict brow = job->b + (long)(pp + p) * n + jj;
					float aip = arow[p];

					for (int j = 0; j < jn; j++)
						crow[j] += aip * brow[j];
				}
			}
		}
	}
}

static void *bench_sgemm_thread(void *arg)
{
	bench_sgemm_rows(arg);
	return NULL;
}

void bench_sgemm_blocked(int m, int n, int k, const float *a, const float *b, float *c,
			 int threads)
{
	struct bench_sgemm_job jobs[64];
	pthread_t tid[64];
	int started[64] = { 0 };

	memset(jobs, 0, sizeof(jobs));
	if (threads < 1)
		threads = 1;
	if (threads > 64)
		threads = 64;
	if (threads > m)
		threads = m > 0 ? m : 1;
	for (int t = 0; t < threads; t++) {
		jobs[t] = (struct bench_sgemm_job){ (int)((long)m * t / threads),
			(int)((long)m * (t + 1) / threads), n, k, a, b, c };
		if (t > 0)
			started[t] = pthread_create(&tid[t], NULL, bench_sgemm_thread, &jobs[t]) == 0;
	}
	bench_sgemm_rows(&jobs[0]);
	for (int t = 1; t < threads; t++) {
		if (started[t])
			pthread_join(tid[t], NULL);
		else
			bench_sgemm_rows(&jobs[t]);	/* no thread: do it here */
	}
}
