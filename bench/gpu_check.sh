#!/usr/bin/env bash
# Checks hetbench's GPU programs on a machine with (at least) one NVIDIA GPU,
# in well under 3 minutes: hetbench-compute-cuda (cuBLAS fp32/fp16/bf16 GEMM,
# cuDNN fp32 convolution, all verified against naive loops) and
# hetbench-comm-nccl (every collective over NCCL on one rank, data checked,
# plus the device-to-device copy baseline), and that both stop cleanly when
# no GPU is visible.
#
#   bench/gpu_check.sh BUILD_DIR        # BUILD_DIR holds the hetbench-* programs
#
# With one GPU NCCL has one rank: its collectives are local copies, busbw's
# factor is 0 for allreduce, allgather and reduce_scatter (nccl-tests'
# formulas with n = 1) and 1 for broadcast, so the figures to read are
# algbw and the memcpy line. With several GPUs set HB_RANKS=N for N ranks.
# Uses mpirun (Open MPI) when it is on PATH, else runs the program as an MPI
# singleton. The programs find libcudart, libcublas, libcudnn and libnccl
# where the build found them (RUNPATH); on a machine that has them
# elsewhere (e.g. in PyTorch's nvidia/*/lib folders) put those folders in
# LD_LIBRARY_PATH first. Exit status: 0 when every check passed, 1
# otherwise.
#
# Needs: an NVIDIA GPU with its driver (nvidia-smi) and a build made with
# the CUDA 13 toolkit in /usr/local/cuda (./scripts/build finds nvcc and
# builds the -cuda/-nccl programs); Open MPI from ./scripts/deps.
set -u
B=${1:?usage: $0 BUILD_DIR}
RANKS=${HB_RANKS:-1}
if command -v mpirun >/dev/null; then
  LAUNCH=(mpirun --allow-run-as-root --oversubscribe -np "$RANKS")
else
  LAUNCH=()
fi
failed=0
check() {  # check NAME PATTERN COMMAND...: run it, print its output, look for PATTERN
  local name=$1 pattern=$2 out rc start=$SECONDS
  shift 2
  echo "=== $name: $*"
  out=$("$@" 2>&1)
  rc=$?
  echo "$out"
  if grep -Eq "$pattern" <<<"$out"; then
    echo "=== $name: PASS (exit $rc, $((SECONDS - start)) s)"
  else
    echo "=== $name: FAIL (exit $rc, $((SECONDS - start)) s; expected /$pattern/)"
    failed=1
  fi
}

command -v nvidia-smi >/dev/null && nvidia-smi -L

# GEMM: 8192^3 is ~1.1 TFLOP a call: long enough to time, a few seconds in all.
check compute-cuda 'verification: OK' \
  "$B/hetbench-compute-cuda" --gemm 8192 --dtype fp32,fp16,bf16 --conv resnet50-layer3 --batch 64 --iters 10 --warmup 2
check compute-cuda-conv1 'verification: OK' \
  "$B/hetbench-compute-cuda" --gemm none --conv resnet50-conv1 --batch 64 --iters 10 --warmup 2

for op in allreduce allgather reduce_scatter broadcast memcpy; do
  check "comm-nccl-$op" '^errors: 0$' \
    "${LAUNCH[@]}" "$B/hetbench-comm-nccl" --op "$op" --min-bytes 8 --max-bytes 1G --factor 8 --iters 20 --warmup 5
done
# The MPI backend of the same program, on host memory.
check comm-nccl-mpi-backend '^errors: 0$' \
  "${LAUNCH[@]}" "$B/hetbench-comm-nccl" --backend mpi --op allreduce --min-bytes 8 --max-bytes 16M --factor 16 --iters 5

# No GPU visible: a message and exit 2, not a crash.
check compute-cuda-no-gpu 'error: no usable GPU' env CUDA_VISIBLE_DEVICES= "$B/hetbench-compute-cuda" --gemm 64
check comm-nccl-no-gpu 'error: no usable GPU' env CUDA_VISIBLE_DEVICES= "${LAUNCH[@]}" "$B/hetbench-comm-nccl" --max-bytes 1K

if [ "$failed" = 0 ]; then echo "gpu_check: all passed"; else echo "gpu_check: FAILED"; fi
exit "$failed"
