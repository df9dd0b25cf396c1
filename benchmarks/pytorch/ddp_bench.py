#!/usr/bin/env python3
"""A tiny data-parallel training benchmark for torchrun (benchmarks/torchrun.yaml).

Trains a small multilayer perceptron on synthetic data with
DistributedDataParallel: gloo on CPUs, NCCL on GPUs (one per local rank).
Start it with torchrun, which sets RANK, WORLD_SIZE, LOCAL_RANK,
MASTER_ADDR and MASTER_PORT; run alone it is one rank.

Every rank prints `rank R of W on HOST`; rank 0 prints the summary:

  world_size: 2
  throughput: 1234.5 samples/s     (global batch x timed steps / their time)
  step_time: 0.0123 s              (mean over the timed steps)
  final_loss: 0.98765
  parameters_in_sync: yes          (the same weights on every rank)

The first --warmup steps are not timed. Exit code 2 on bad arguments.
"""
import argparse
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.nn as nn


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=50, help="timed training steps")
    p.add_argument("--warmup", type=int, default=5, help="untimed steps first")
    p.add_argument("--batch-size", type=int, default=64, help="samples per rank and step")
    p.add_argument("--features", type=int, default=256, help="input width")
    p.add_argument("--hidden", type=int, default=512, help="hidden layer width")
    p.add_argument("--layers", type=int, default=4, help="hidden layers")
    p.add_argument("--device", choices=["auto", "cpu", "cuda"], default="auto")
    a = p.parse_args()
    for name in ("steps", "batch_size", "features", "hidden", "layers"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1")
    if a.warmup < 0:
        p.error("--warmup must not be negative")
    return a


def model_of(a):
    layers, width = [], a.features
    for _ in range(a.layers):
        layers += [nn.Linear(width, a.hidden), nn.ReLU()]
        width = a.hidden
    layers.append(nn.Linear(width, 10))
    return nn.Sequential(*layers)


def main():
    a = parse_args()
    use_cuda = a.device == "cuda" or (a.device == "auto" and torch.cuda.is_available())
    if use_cuda and not torch.cuda.is_available():
        print("ddp_bench: --device cuda, but this PyTorch sees no CUDA device", file=sys.stderr)
        return 2
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    distributed = "WORLD_SIZE" in os.environ and "MASTER_ADDR" in os.environ
    if distributed:
        dist.init_process_group("nccl" if use_cuda else "gloo")
        rank, world = dist.get_rank(), dist.get_world_size()
    else:
        rank, world = 0, 1
    device = torch.device("cuda", local_rank) if use_cuda else torch.device("cpu")
    if use_cuda:
        torch.cuda.set_device(device)
    # One write per line: the workers of a node share stdout.
    print(f"rank {rank} of {world} on {socket.gethostname()} ({device})\n", end="", flush=True)

    torch.manual_seed(1234)  # the same initial weights everywhere
    model = model_of(a).to(device)
    if distributed:
        model = nn.parallel.DistributedDataParallel(model, device_ids=[local_rank] if use_cuda else None)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(rank)  # each rank its own shard of data
    x = torch.randn(a.batch_size, a.features, generator=gen).to(device)
    y = torch.randint(0, 10, (a.batch_size,), generator=gen).to(device)

    def step():
        opt.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()  # DDP all-reduces the gradients here
        opt.step()
        return loss

    for _ in range(a.warmup):
        step()
    if use_cuda:
        torch.cuda.synchronize()
    if distributed:
        dist.barrier()
    start = time.perf_counter()
    for _ in range(a.steps):
        loss = step()
    if use_cuda:
        torch.cuda.synchronize()
    elapsed = time.perf_counter() - start

    # The slowest rank's time decides; the weights must agree everywhere.
    t = torch.tensor([elapsed], dtype=torch.float64, device=device)
    flat = torch.cat([p.detach().reshape(-1) for p in model.parameters()]).double()
    lo, hi = flat.clone(), flat.clone()
    if distributed:
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        dist.all_reduce(lo, op=dist.ReduceOp.MIN)
        dist.all_reduce(hi, op=dist.ReduceOp.MAX)
    elapsed = t.item()
    in_sync = bool(torch.equal(lo, hi))
    if rank == 0:
        print(f"world_size: {world}")
        print(f"throughput: {a.batch_size * world * a.steps / elapsed:.1f} samples/s")
        print(f"step_time: {elapsed / a.steps:.6f} s")
        print(f"final_loss: {loss.item():.5f}")
        print(f"parameters_in_sync: {'yes' if in_sync else 'no'}", flush=True)
    # No dist.destroy_process_group(): with gloo on Debian 12's PyTorch 1.13
    # it hangs now and then in both workers (3 runs in 4 on a busy 2-core
    # machine); the group goes with the process.
    return 0 if in_sync else 1


if __name__ == "__main__":
    sys.exit(main())
