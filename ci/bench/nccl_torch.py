"""All-reduce bus bandwidth and latency, 8 B to 1 GiB, on 2 GPUs with PyTorch's
torch.distributed (NCCL backend, one process per GPU, float32 sum), timed like
ci/bench/nccl_baseline.cu: warm-up, then N back-to-back all-reduces timed on the host around a
final synchronisation. Rank 0 prints CSV: bytes,time_us,algbw_GBs,busbw_GBs.

    python3 ci/bench/nccl_torch.py [max_bytes]
"""
import os
import sys
import time

# Shared hosts: NVLink multicast off in this process and in the spawned ranks, before NCCL loads.
os.environ["NCCL_NVLS_ENABLE"] = "0"

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402


def iters_for(nbytes):
    iters = min(max((4 << 30) // nbytes, 20), 1000)
    return iters // 10 + 5, iters


def rank_main(rank, world, max_bytes, port):
    os.environ["NCCL_NVLS_ENABLE"] = "0"
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dev = torch.device("cuda", rank)
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=dev)
    buf = torch.ones(max_bytes // 4, dtype=torch.float32, device=dev)
    if rank == 0:
        print(f"# torch {torch.__version__}, NCCL {'.'.join(map(str, torch.cuda.nccl.version()))}",
              file=sys.stderr)
        print("bytes,time_us,algbw_GBs,busbw_GBs", flush=True)
    nbytes = 8
    while nbytes <= max_bytes:
        t = buf[: nbytes // 4]
        warm, iters = iters_for(nbytes)
        for _ in range(warm):
            dist.all_reduce(t, op=dist.ReduceOp.SUM)
        torch.cuda.synchronize(dev)
        dist.barrier()
        torch.cuda.synchronize(dev)
        t0 = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(t, op=dist.ReduceOp.SUM)
        torch.cuda.synchronize(dev)
        us = (time.perf_counter() - t0) * 1e6 / iters
        if rank == 0:
            algbw = nbytes / us / 1e3
            print(f"{nbytes},{us:.3f},{algbw:.3f},{algbw * 2 * (world - 1) / world:.3f}", flush=True)
        nbytes *= 2
    dist.destroy_process_group()


def main():
    max_bytes = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 30
    world = 2
    if torch.cuda.device_count() < world:
        sys.exit(f"needs {world} GPUs, found {torch.cuda.device_count()}")
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(rank_main, args=(world, max_bytes, port), nprocs=world, join=True)


if __name__ == "__main__":
    main()
