/* A STREAM-like memory bandwidth kernel (after John McCalpin's STREAM).
 * Copy, Scale, Add and Triad over arrays of N doubles; reports the best
 * rate of NTIMES repetitions in MB/s, counting bytes as STREAM does
 * (Copy/Scale: 2 x 8 x N bytes, Add/Triad: 3 x 8 x N bytes; 1 MB = 1e6 B).
 * Usage: stream [N] [NTIMES]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 4000000;
  int ntimes = argc > 2 ? atoi(argv[2]) : 10;
  if (n < 1000 || ntimes < 2) {
    fprintf(stderr, "ERROR: need N >= 1000 and NTIMES >= 2\n");
    return 2;
  }
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  if (!a || !b || !c) {
    fprintf(stderr, "ERROR: cannot allocate %ld doubles\n", 3 * n);
    return 3;
  }
  const double scalar = 3.0;
#pragma omp parallel for
  for (long j = 0; j < n; j++) { a[j] = 1.0; b[j] = 2.0; c[j] = 0.0; }

  double best[4] = {1e30, 1e30, 1e30, 1e30};
  for (int k = 0; k < ntimes; k++) {
    double t = now();
#pragma omp parallel for
    for (long j = 0; j < n; j++) c[j] = a[j];
    double t1 = now();
#pragma omp parallel for
    for (long j = 0; j < n; j++) b[j] = scalar * c[j];
    double t2 = now();
#pragma omp parallel for
    for (long j = 0; j < n; j++) c[j] = a[j] + b[j];
    double t3 = now();
#pragma omp parallel for
    for (long j = 0; j < n; j++) a[j] = b[j] + scalar * c[j];
    double t4 = now();
    if (k == 0) continue; /* the first pass warms caches and pages */
    double d[4] = {t1 - t, t2 - t1, t3 - t2, t4 - t3};
    for (int i = 0; i < 4; i++) if (d[i] < best[i]) best[i] = d[i];
  }
  /* Expected values after ntimes iterations, as STREAM's checkSTREAMresults. */
  double aj = 1.0, bj = 2.0, cj = 0.0;
  for (int k = 0; k < ntimes; k++) { cj = aj; bj = scalar * cj; cj = aj + bj; aj = bj + scalar * cj; }
  long wrong = 0;
  for (long j = 0; j < n; j++)
    if (fabs(a[j] - aj) > 1e-8 * aj || fabs(b[j] - bj) > 1e-8 * bj || fabs(c[j] - cj) > 1e-8 * cj) wrong++;

  int threads = 1;
#ifdef _OPENMP
  threads = omp_get_max_threads();
#endif
  printf("STREAM-like: N=%ld, NTIMES=%d, threads=%d\n", n, ntimes, threads);
  const char *names[4] = {"Copy", "Scale", "Add", "Triad"};
  const double bytes[4] = {2.0 * 8 * n, 2.0 * 8 * n, 3.0 * 8 * n, 3.0 * 8 * n};
  for (int i = 0; i < 4; i++) printf("%s: %12.1f MB/s\n", names[i], bytes[i] / best[i] / 1e6);
  printf("wrong: %ld\n", wrong);
  if (wrong == 0) printf("Solution Validates\n");
  free(a); free(b); free(c);
  return 0;
}
