#!/usr/bin/env bash
# Two-rank data-parallel ResNet-50 training throughput of hetbench-train
# (libtorch, C++, MPI allreduce) against PyTorch DistributedDataParallel
# (Debian's python3-torch, gloo backend, started by torchrun) on the same
# model, batch and threads, on this machine, side by side in one run.
#
# The model is hetbench's --size preset of ResNet-50 v1.5 (torchvision's
# Bottleneck, stride on conv2, [3, 4, 6, 3], 7x7 stride-2 stem, max pool, fc)
# with every channel count times the width multiplier (llround, at least 1),
# rebuilt in Python from torchvision's Bottleneck the way
# workloads/train/models.cc builds it; both sides print their parameter count
# and the script stops if the counts differ.
#   tiny:  32x32 images, width 0.25, 10 classes
#   small: 128x128 images, width 0.5, 1000 classes
# Both sides: BATCH samples per rank, THREADS torch threads per rank
# (OMP_NUM_THREADS too), SGD (lr 0.001, momentum 0.9, weight decay 5e-5),
# cross entropy, 4 synthetic batches per rank cycled, gradient buckets of
# 25 MiB, the first step left out. hetbench-train runs twice, with
# --overlap on (each bucket's allreduce starts during backward, as DDP does)
# and --overlap off (all allreduces after backward).
#
# Step times: hetbench-train's step_time is the mean over ranks of each
# rank's mean step time; DDP's is the largest of the ranks' means (an
# all_reduce MAX; the ranks meet at every step's allreduce, so the two
# differ little). The fastest step is the slowest rank's fastest step on
# both sides (the least disturbed step, the steadier figure on a shared
# machine).
#
# Also the allreduce itself: hetbench-comm's allreduce of the gradient's
# bytes (parameters x 4) over the same 2 MPI ranks, next to hetbench-train's
# per-step allreduce and rank_wait (--overlap off), and their ratio.
#
# The runs are interleaved ROUNDS times (hetbench --overlap on, --overlap off,
# DDP, hetbench-comm) so that other load on the machine falls on all of them
# alike; reported are the medians over the rounds and the fastest step of all
# rounds.
#
# torchrun of torch 1.13 under Python 3.11 fails on its default --redirects 0
# (Std.from_str returns None); the script passes --redirects 1 --tee 2 (stdout
# to a log folder, stderr shown), and rank 0 writes its summary to a file.
#
# Needs Open MPI's mpirun, python3-torch and python3-torchvision.
# Usage: bench/train_vs_ddp.sh [path/to/hetbench-train]   (default build/hetbench-train;
#        hetbench-comm is taken from the same folder)
# Environment: ROUNDS (3), BATCH (8), THREADS (1), SIZES ("tiny small"),
#              STEPS (60, for tiny), SMALL_STEPS (12, for small),
#              COMM_ITERS (50, hetbench-comm timed calls).
#
# Needs: a build (./scripts/build: build/hetbench-train), Open MPI and
# python3-torch (./scripts/deps) and python3-torchvision (./scripts/deps
# --bench).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="$(realpath "${1:-$here/../build/hetbench-train}")"
comm="$(dirname "$bin")/hetbench-comm"
rounds="${ROUNDS:-3}" batch="${BATCH:-8}" threads="${THREADS:-1}" sizes="${SIZES:-tiny small}"
tiny_steps="${STEPS:-60}" small_steps="${SMALL_STEPS:-12}" comm_iters="${COMM_ITERS:-50}"
python=/usr/bin/python3 torchrun=/usr/bin/torchrun
[ -x "$comm" ] || { echo "no hetbench-comm next to $bin" >&2; exit 1; }
work="$(mktemp -d /tmp/hb_ddp_bench_XXXXXX)"
trap 'rm -rf "$work"' EXIT
export OMP_NUM_THREADS="$threads" MKL_NUM_THREADS="$threads"
mpi=(mpirun --oversubscribe --bind-to none --mca btl_vader_single_copy_mechanism none -np 2)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)

cat > "$work/ddp.py" <<'EOF'
import math, sys, time
import torch, torch.distributed as dist, torch.nn as nn
from torchvision.models.resnet import Bottleneck

threads, batch, steps, size, classes = (int(a) for a in sys.argv[1:6])
width, out = float(sys.argv[6]), sys.argv[7]
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
torch.set_num_threads(threads)
torch.manual_seed(42)

def scaled(c):  # models.cc Scaled(): std::llround (half away from zero), at least 1
    return max(1, int(math.floor(c * width + 0.5)))

class ResNet50(nn.Module):  # models.cc ResNet50, with torchvision's Bottleneck
    def __init__(self):
        super().__init__()
        inplanes = scaled(64)
        self.conv1 = nn.Conv2d(3, inplanes, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(inplanes)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        layers = []
        for i, blocks in enumerate((3, 4, 6, 3)):
            planes, mods = scaled(64 << i), []
            for b in range(blocks):
                stride = 2 if b == 0 and i > 0 else 1
                down = None
                if stride != 1 or inplanes != planes * 4:
                    down = nn.Sequential(nn.Conv2d(inplanes, planes * 4, 1, stride, bias=False),
                                         nn.BatchNorm2d(planes * 4))
                mods.append(Bottleneck(inplanes, planes, stride, down))
                inplanes = planes * 4
            layers.append(nn.Sequential(*mods))
        self.layer1, self.layer2, self.layer3, self.layer4 = layers
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(inplanes, classes)
        for m in self.modules():
            if isinstance(m, nn.Conv2d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))

model = ResNet50()
params = sum(p.numel() for p in model.parameters())
model.train()
ddp = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=25)
opt = torch.optim.SGD(ddp.parameters(), lr=0.001, momentum=0.9, weight_decay=5e-5)
loss_fn = nn.CrossEntropyLoss()
gen = torch.Generator().manual_seed(42000 + rank)
pool = [(torch.randn(batch, 3, size, size, generator=gen), torch.randint(classes, (batch,), generator=gen))
        for _ in range(4)]
times = []
for step in range(steps):
    t0 = time.perf_counter()
    x, y = pool[step % len(pool)]
    loss = loss_fn(ddp(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    loss.item()
    times.append(time.perf_counter() - t0)
t = torch.tensor([sum(times[1:]) / (len(times) - 1), min(times[1:])], dtype=torch.float64)
tmax, tsum = t.clone(), t.clone()
dist.all_reduce(tmax, op=dist.ReduceOp.MAX)
dist.all_reduce(tsum, op=dist.ReduceOp.SUM)
if rank == 0:
    with open(out, "w") as f:
        print(f"parameters: {params}", file=f)
        print(f"throughput: {batch * world / tmax[0].item():.6g} samples/s", file=f)
        print(f"step_time: {tmax[0].item():.6g} s", file=f)
        print(f"step_time_rank_mean: {tsum[0].item() / world:.6g} s", file=f)
        print(f"step_time_min: {tmax[1].item():.6g} s", file=f)
dist.destroy_process_group()
EOF

value() { sed -n "s/^$1: \([0-9.e+-]*\).*/\1/p" "$2" | head -1; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
# hetbench-comm's time column (us, mean per call, max over ranks) of its one size.
comm_us() { awk '!/^#/ && NF >= 9 && $1 ~ /^[0-9]+$/ {print $6; exit}' "$1"; }
run_or_show() {  # run_or_show LOG CMD...: run, and on failure show the log
  local log="$1"; shift
  "$@" > "$log" 2>&1 || { echo "failed: $*" >&2; tail -30 "$log" >&2; exit 1; }
}

echo "2-rank data-parallel ResNet-50 training: hetbench-train (MPI) vs PyTorch DDP (gloo)"
echo "batch $batch per rank, $threads thread(s) per rank, $rounds rounds, sizes: $sizes"
echo "host: $(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
echo "torch $("$python" -c 'import torch, torchvision; print(torch.__version__, "torchvision", torchvision.__version__)'), $(mpirun --version | head -1)"
for size in $sizes; do
  case "$size" in
    tiny) img=32 classes=10 width=0.25 steps="$tiny_steps" ;;
    small) img=128 classes=1000 width=0.5 steps="$small_steps" ;;
    *) echo "unknown size '$size' (tiny, small)" >&2; exit 1 ;;
  esac
  common=(--model resnet50 --size "$size" --batch-size "$batch" --steps "$steps" --threads "$threads"
          --optimizer sgd --lr 0.001 --synthetic-batches 4 --warmup-steps 1 --eval-batches 1 --bucket-mb 25)
  echo
  echo "== $size: ${img}x${img}, width $width, $classes classes, $steps steps (first left out)"
  for r in $(seq 1 "$rounds"); do
    run_or_show "$work/${size}_on_$r.out" "${mpi[@]}" "$bin" "${common[@]}" --overlap on
    run_or_show "$work/${size}_off_$r.out" "${mpi[@]}" "$bin" "${common[@]}" --overlap off
    run_or_show "$work/${size}_ddp_$r.log" "$torchrun" --standalone --nproc_per_node 2 --redirects 1 --tee 2 \
      --log_dir "$work/torchrun_logs" "$work/ddp.py" "$threads" "$batch" "$steps" "$img" "$classes" "$width" \
      "$work/${size}_ddp_$r.out"
    if [ "$r" = 1 ]; then
      pc=$(value parameters "$work/${size}_off_1.out") pp=$(value parameters "$work/${size}_ddp_1.out")
      echo "parameters: hetbench-train $pc, DDP $pp"
      [ "$pc" = "$pp" ] || { echo "parameter count mismatch" >&2; exit 1; }
      bytes=$((pc * 4))
    fi
    run_or_show "$work/${size}_comm_$r.out" "${mpi[@]}" "$comm" --op allreduce --min-bytes "$bytes" \
      --max-bytes "$bytes" --iters "$comm_iters" --warmup 5
    printf 'round %s: s/step (fastest): overlap on %s (%s), overlap off %s (%s), DDP %s (%s); comm %s us\n' "$r" \
      "$(value step_time "$work/${size}_on_$r.out")" "$(value step_time_min "$work/${size}_on_$r.out")" \
      "$(value step_time "$work/${size}_off_$r.out")" "$(value step_time_min "$work/${size}_off_$r.out")" \
      "$(value step_time "$work/${size}_ddp_$r.out")" "$(value step_time_min "$work/${size}_ddp_$r.out")" \
      "$(comm_us "$work/${size}_comm_$r.out")"
  done

  collect() { for r in $(seq 1 "$rounds"); do value "$1" "$work/${size}_$2_$r.out"; done; }
  fastest() { collect step_time_min "$1" | sort -g | head -1; }
  on=$(collect throughput on | median) off=$(collect throughput off | median) ddp=$(collect throughput ddp | median)
  onmin=$(fastest on) offmin=$(fastest off) ddpmin=$(fastest ddp)
  ddpmean=$(collect step_time_rank_mean ddp | median)
  ar=$(collect allreduce off | median) wait=$(collect rank_wait off | median)
  arn=$(collect allreduce on | median) waitn=$(collect rank_wait on | median)
  cu=$(for r in $(seq 1 "$rounds"); do comm_us "$work/${size}_comm_$r.out"; done | median)
  awk -v on="$on" -v off="$off" -v d="$ddp" -v om="$onmin" -v fm="$offmin" -v dm="$ddpmin" -v b="$((batch * 2))" \
      -v dmean="$ddpmean" -v ar="$ar" -v w="$wait" -v arn="$arn" -v wn="$waitn" -v cu="$cu" -v bytes="$bytes" 'BEGIN {
    printf "median throughput (samples/s): overlap on %.4g, overlap off %.4g, DDP %.4g (DDP with the ranks mean step time: %.4g)\n", on, off, d, b / dmean
    printf "  ratio hetbench/DDP: overlap on %.3f, overlap off %.3f\n", on / d, off / d
    printf "fastest step (samples/s):      overlap on %.4g, overlap off %.4g, DDP %.4g\n", b / om, b / fm, b / dm
    printf "  ratio hetbench/DDP: overlap on %.3f, overlap off %.3f\n", dm / om, dm / fm
    printf "allreduce of %d bytes: hetbench-comm %.4g ms; hetbench-train --overlap off: allreduce %.4g ms + rank_wait %.4g ms per step\n", bytes, cu / 1000, ar * 1000, w * 1000
    printf "  ratio allreduce / hetbench-comm %.2f, (allreduce + rank_wait) / hetbench-comm %.2f\n", ar * 1e6 / cu, (ar + w) * 1e6 / cu
    printf "  (--overlap on: allreduce wait after backward %.4g ms + rank_wait %.4g ms per step)\n", arn * 1000, wn * 1000
  }'
  echo "last hetbench-train --overlap off breakdown (s/step):"
  grep -E '^(forward|backward|rank_wait|allreduce|optimizer|step_time|step_time_min):' "$work/${size}_off_$rounds.out" |
    sed 's/^/  /'
done
