#!/usr/bin/env bash
# hetbench-train on an NVIDIA GPU, in one run that fits in 10 minutes
# (issue 18, item 5): builds hetbench-train against the machine's own
# PyTorch CMake package (CUDA libtorch), trains all three models with
# --device cuda at the small sizes, measures what the breakdown's device
# synchronisations cost (the same runs with --no-breakdown), reads NVML's
# power and utilisation, and re-runs bench/gpu_check.sh (NCCL correctness
# at every size).
#
#   bench/gpu_train_check.sh [BUILD_DIR]   # BUILD_DIR: the CPU build's folder, for gpu_check.sh (default build)
#
# Needs python3 with a CUDA build of torch (`import torch;
# torch.cuda.is_available()`), CMake, Ninja and a C++20 compiler. The GPU
# build goes to build-gpu/ (configured with HETBENCH_BUILD_TESTS off).
# Environment: STEPS (20), BATCH (16), ROUNDS (2). Prints one line per
# check and a table for bench/RESULTS.md; exit status 0 when all passed.
set -u
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/.."
cpu_build="${1:-$root/build}"
steps="${STEPS:-20}" batch="${BATCH:-16}" rounds="${ROUNDS:-2}"
failed=0
say() { echo "=== $*"; }

command -v nvidia-smi >/dev/null && nvidia-smi -L
prefix="$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null)"
cuda="$(python3 -c 'import torch; print(torch.cuda.is_available())' 2>/dev/null)"
say "torch CMake prefix: ${prefix:-none}; torch.cuda.is_available(): ${cuda:-no python torch}"
if [ -z "$prefix" ] || [ "$cuda" != "True" ]; then
  say "FAIL: no CUDA PyTorch here"; exit 1
fi

start=$SECONDS
if ! cmake -S "$root" -B "$root/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release -DHETBENCH_BUILD_TESTS=OFF \
      -DCMAKE_PREFIX_PATH="$prefix" >"$root/build-gpu.log" 2>&1 ||
   ! ninja -C "$root/build-gpu" -j"$(nproc)" hetbench-train >>"$root/build-gpu.log" 2>&1; then
  say "FAIL: build (tail of build-gpu.log)"; tail -30 "$root/build-gpu.log"; exit 1
fi
bin="$root/build-gpu/hetbench-train"
say "build: PASS ($((SECONDS - start)) s)"

value() { sed -n "s/^$1: \([0-9.e+-]*\).*/\1/p" <<<"$2" | head -1; }
printf '| model | samples/s | step_time_min, breakdown on | off | breakdown cost | GPU power | GPU util | MLLOG check |\n|---|---|---|---|---|---|---|---|\n' > /tmp/gpu_train_table.md
for model in resnet50 deepcam cosmoflow; do
  b=$batch; [ "$model" = deepcam ] && b=4
  common=(--model "$model" --size small --device cuda --batch-size "$b" --steps "$steps" --warmup-steps 3)
  on_min=1e9 off_min=1e9 out=""
  for r in $(seq 1 "$rounds"); do
    out=$("$bin" "${common[@]}" --mllog-file "/tmp/gpu_$model.mllog" 2>&1); rc=$?
    if [ $rc -ne 0 ]; then say "FAIL: $model --device cuda exit $rc"; echo "$out" | tail -20; failed=1; continue 2; fi
    off=$("$bin" "${common[@]}" --no-breakdown 2>&1)
    on_min=$(awk -v a="$on_min" -v b="$(value step_time_min "$out")" 'BEGIN {print (b < a) ? b : a}')
    off_min=$(awk -v a="$off_min" -v b="$(value step_time_min "$off")" 'BEGIN {print (b < a) ? b : a}')
  done
  check=$("$bin" --check-mllog "/tmp/gpu_$model.mllog" | tail -1)
  cost=$(awk -v a="$on_min" -v b="$off_min" 'BEGIN {printf "%+.2f %%", (a / b - 1) * 100}')
  say "$model: $(value throughput "$out") samples/s, fastest step $on_min s (breakdown) vs $off_min s: $cost;" \
      "gpu_power_avg $(value gpu_power_avg "$out") W, gpu_util_avg $(value gpu_util_avg "$out") %; $check"
  grep -E '^(data_wait|h2d_copy|forward|backward|rank_wait|allreduce|optimizer|breakdown_error|nvml):' <<<"$out" | sed 's/^/    /'
  printf '| %s | %s | %s s | %s s | %s | %s W | %s %% | %s |\n' "$model" "$(value throughput "$out")" "$on_min" "$off_min" \
    "$cost" "$(value gpu_power_avg "$out")" "$(value gpu_util_avg "$out")" "${check##*: }" >> /tmp/gpu_train_table.md
done

say "bench/gpu_check.sh $cpu_build"
if [ -x "$cpu_build/hetbench-comm-nccl" ]; then
  "$here/gpu_check.sh" "$cpu_build" || failed=1
else
  say "FAIL: $cpu_build/hetbench-comm-nccl not built"; failed=1
fi
cat /tmp/gpu_train_table.md
if [ "$failed" = 0 ]; then say "gpu_train_check: all passed ($SECONDS s)"; else say "gpu_train_check: FAILED ($SECONDS s)"; fi
exit "$failed"
