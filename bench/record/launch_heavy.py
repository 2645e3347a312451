"""A launch-heavy PyTorch program for perfhound record's overhead and fidelity checks (bench/RESULTS.md).

Many tiny elementwise kernels on a 4096-element tensor: the GPU idles between launches, so the host's launch
path is what the run is made of, the case where a tracer's per-call cost shows most. Prints one JSON line:
the loop's wall time (after a warm-up, synchronized) and the process's.

  python3 launch_heavy.py [--iters N] [--profile kineto.json]   # --profile: torch.profiler over the same work
"""
import argparse
import contextlib
import json
import time

PROCESS_START = time.perf_counter()

import torch  # noqa: E402  (timed from before the import, as the process is)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=20000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--profile", help="write torch.profiler's Chrome trace of the same work here")
    args = parser.parse_args()
    profiler = contextlib.nullcontext()
    if args.profile:
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        profiler = torch.profiler.profile(activities=activities)
    with profiler as prof:
        x = torch.ones(4096, device="cuda")
        for _ in range(args.warmup):
            x = x * 1.0001 + 0.5
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("loop")
        start = time.perf_counter()
        for _ in range(args.iters):
            x = x * 1.0001 + 0.5
        torch.cuda.synchronize()
        loop_s = time.perf_counter() - start
        torch.cuda.nvtx.range_pop()
    if args.profile:
        prof.export_chrome_trace(args.profile)
    print(json.dumps({"iters": args.iters, "kernels": 2 * (args.iters + args.warmup), "loop_s": loop_s,
                      "per_iter_us": loop_s / args.iters * 1e6, "checksum": float(x[0].item()),
                      "process_s": time.perf_counter() - PROCESS_START}))


if __name__ == "__main__":
    main()
