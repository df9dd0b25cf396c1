/* Dense matrix multiply C = A x B (n x n, double), blocked i-k-j loops.
 * Reports GFLOP/s counting 2 n^3 floating-point operations (one multiply
 * and one add per inner step), decimal giga (1e9). Usage: matmul N REPS
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 256;
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  if (n < 8 || reps < 1) {
    fprintf(stderr, "ERROR: need N >= 8 and REPS >= 1\n");
    return 2;
  }
  double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n),
         *c = malloc(sizeof(double) * n * n);
  if (!a || !b || !c) return 3;
  for (long i = 0; i < (long)n * n; i++) { a[i] = 1.0 + (i % 7); b[i] = 1.0 / (1 + i % 5); }
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    for (long i = 0; i < (long)n * n; i++) c[i] = 0;
    double t = now();
    for (int i = 0; i < n; i++)
      for (int k = 0; k < n; k++) {
        double aik = a[(long)i * n + k];
        for (int j = 0; j < n; j++) c[(long)i * n + j] += aik * b[(long)k * n + j];
      }
    double d = now() - t;
    if (d < best) best = d;
  }
  /* Check one element against a direct dot product. */
  double ref = 0;
  for (int k = 0; k < n; k++) ref += a[k] * b[(long)k * n + 1];
  int ok = (c[1] - ref) < 1e-9 * ref && (ref - c[1]) < 1e-9 * ref;
  printf("n=%d reps=%d time=%.6f s\n", n, reps, best);
  printf("GFLOP/s: %.3f\n", 2.0 * n * n * n / best / 1e9);
  printf("check: %s\n", ok ? "passed" : "FAILED");
  free(a); free(b); free(c);
  return 0;
}
