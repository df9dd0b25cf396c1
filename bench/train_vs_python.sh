#!/usr/bin/env bash
# ResNet-50 training throughput of hetbench-train (libtorch, C++) against the
# same model and settings in Debian's python3-torch + python3-torchvision
# (torchvision.models.resnet50), on this machine, side by side in one run:
# batch 8, 224x224, 2 threads, SGD (momentum 0.9, weight decay 5e-5,
# lr 0.1 x 8/256), cross entropy, 4 synthetic batches cycled, the first step
# left out. Also the cost of hetbench-train's timing breakdown and MLPerf
# logging: the same run with --no-breakdown.
#
# The three runs are interleaved ROUNDS times so that other load on the
# machine falls on all of them alike; reported are the medians of the mean
# step times and the fastest step of all rounds (the least disturbed one,
# the steadier figure on a shared machine).
#
# Needs python3-torchvision: ./scripts/deps --bench installs it.
# Usage: bench/train_vs_python.sh [path/to/hetbench-train]   (default build/hetbench-train)
# Environment: STEPS (12), ROUNDS (3), THREADS (2), BATCH (8), SIZE (224).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(realpath "${1:-$here/../build/hetbench-train}")"
steps="${STEPS:-12}" rounds="${ROUNDS:-3}" threads="${THREADS:-2}" batch="${BATCH:-8}" size="${SIZE:-224}"
python=/usr/bin/python3
work="$(mktemp -d /tmp/hb_train_bench_XXXXXX)"
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS="$threads" MKL_NUM_THREADS="$threads"

cat > "$work/resnet50.py" <<'EOF'
import sys, time
import torch, torchvision
threads, batch, steps, size = (int(a) for a in sys.argv[1:5])
torch.set_num_threads(threads)
torch.manual_seed(42)
model = torchvision.models.resnet50()
model.train()
opt = torch.optim.SGD(model.parameters(), lr=0.1 * batch / 256, momentum=0.9, weight_decay=5e-5)
loss_fn = torch.nn.CrossEntropyLoss()
gen = torch.Generator().manual_seed(42000)
pool = [(torch.randn(batch, 3, size, size, generator=gen), torch.randint(1000, (batch,), generator=gen))
        for _ in range(4)]
times = []
for step in range(steps):
    t0 = time.perf_counter()
    x, y = pool[step % len(pool)]
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    loss.item()
    times.append(time.perf_counter() - t0)
mean = sum(times[1:]) / (len(times) - 1)
print(f"throughput: {batch / mean:.6g} samples/s")
print(f"step_time: {mean:.6g} s")
print(f"step_time_min: {min(times[1:]):.6g} s")
EOF

common=(--model resnet50 --image-size "$size" --batch-size "$batch" --steps "$steps" --threads "$threads"
        --synthetic-batches 4 --warmup-steps 1 --eval-batches 1)
value() { sed -n "s/^$1: \([0-9.e+-]*\).*/\1/p" "$2" | head -1; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

echo "ResNet-50 training, batch $batch, ${size}x${size}, $threads threads, $steps steps (first left out), $rounds rounds"
echo "host: $(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
for r in $(seq 1 "$rounds"); do
  "$bin" "${common[@]}" > "$work/cpp_$r.out"
  "$bin" "${common[@]}" --no-breakdown > "$work/cppnb_$r.out"
  "$python" "$work/resnet50.py" "$threads" "$batch" "$steps" "$size" > "$work/py_$r.out"
  printf 'round %s: hetbench-train %s s/step (fastest %s), --no-breakdown %s (%s), python %s (%s)\n' "$r" \
    "$(value step_time "$work/cpp_$r.out")" "$(value step_time_min "$work/cpp_$r.out")" \
    "$(value step_time "$work/cppnb_$r.out")" "$(value step_time_min "$work/cppnb_$r.out")" \
    "$(value step_time "$work/py_$r.out")" "$(value step_time_min "$work/py_$r.out")"
done

collect() { for r in $(seq 1 "$rounds"); do value "$1" "$work/$2_$r.out"; done; }
cpp=$(collect throughput cpp | median) cppnb=$(collect throughput cppnb | median) py=$(collect throughput py | median)
cppmin=$(collect step_time_min cpp | sort -g | head -1) cppnbmin=$(collect step_time_min cppnb | sort -g | head -1)
pymin=$(collect step_time_min py | sort -g | head -1)
awk -v c="$cpp" -v n="$cppnb" -v p="$py" -v cm="$cppmin" -v nm="$cppnbmin" -v pm="$pymin" -v b="$batch" 'BEGIN {
  printf "median of means: hetbench-train %.4g img/s, python3-torch %.4g img/s, ratio %.3f\n", c, p, c / p
  printf "fastest step:    hetbench-train %.4g img/s, python3-torch %.4g img/s, ratio %.3f\n", b / cm, b / pm, pm / cm
  printf "breakdown + MLLOG cost (fastest steps): %.4g s vs %.4g s with --no-breakdown: %+.2f%% of step time\n", cm, nm, (cm / nm - 1) * 100
  printf "breakdown + MLLOG cost (medians): %.4g vs %.4g img/s: %+.2f%% of step time\n", c, n, (n / c - 1) * 100
}'
echo "last hetbench-train breakdown (s/step):"
grep -E '^(data_wait|h2d_copy|forward|backward|allreduce|optimizer|step_time|step_time_min|breakdown_error):' "$work/cpp_$rounds.out" | sed 's/^/  /'
