/* Each rank contributes rank+1; every rank checks the allreduce sum. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long mine = rank + 1, sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  long expected = (long)size * (size + 1) / 2;
  printf("rank %d of %d: allreduce sum %ld (expected %ld) %s\n", rank, size, sum, expected,
         sum == expected ? "OK" : "WRONG");
  MPI_Finalize();
  return sum == expected ? 0 : 1;
}
