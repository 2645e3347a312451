"""A launch-heavy PyTorch program for perfhound record's overhead and fidelity checks (bench/RESULTS.md).

Many tiny elementwise kernels on a 4096-element tensor: the GPU idles between launches, so the host's launch
path is what the run is made of, the case where a tracer's per-call cost shows most. Prints one JSON line:
the loop's wall time (after a warm-up, synchronized) and the process's.

  python3 launch_heavy.py [--iters N] [--numel N] [--profile kineto.json]   # --profile: torch.profiler over the same work
  python3 launch_heavy.py --mode busy                            # bf16 4096^3 matmuls: the GPU kept busy

--mode busy is the other end for the fidelity check: a GPU-bound loop (a matmul and two elementwise kernels an
iteration), where neither tracer's host overhead moves the GPU's busy share.
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
    parser.add_argument("--mode", choices=["launch", "busy"], default="launch")
    parser.add_argument("--numel", type=int, default=4096, help="launch mode: elements per tensor (larger: longer kernels)")
    args = parser.parse_args()
    if args.mode == "busy" and args.iters == parser.get_default("iters"):
        args.iters = 2000
    profiler = contextlib.nullcontext()
    if args.profile:
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        profiler = torch.profiler.profile(activities=activities)
    with profiler as prof:
        if args.mode == "launch":
            x = torch.ones(args.numel, device="cuda")
            step = lambda x: x * 1.0001 + 0.5  # noqa: E731
            kernels_per_step = 2
        else:
            g = torch.Generator(device="cuda").manual_seed(0)
            x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16, generator=g)
            w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16, generator=g) / 64
            step = lambda x: torch.tanh(torch.matmul(x, w) * 0.5)  # noqa: E731
            kernels_per_step = 3
        for _ in range(args.warmup):
            x = step(x)
        torch.cuda.synchronize()
        # The loop as a range both tracers see: NVTX for perfhound record (CUPTI's markers), record_function
        # for torch.profiler (which does not record NVTX); `perfhound trace --range loop` reads either.
        loop_range = torch.profiler.record_function("loop") if args.profile else contextlib.nullcontext()
        with loop_range:
            torch.cuda.nvtx.range_push("loop")
            start = time.perf_counter()
            for _ in range(args.iters):
                x = step(x)
            torch.cuda.synchronize()
            loop_s = time.perf_counter() - start
            torch.cuda.nvtx.range_pop()
    if args.profile:
        prof.export_chrome_trace(args.profile)
    print(json.dumps({"mode": args.mode, "numel": args.numel, "iters": args.iters, "kernels": kernels_per_step * (args.iters + args.warmup),
                      "loop_s": loop_s, "per_iter_us": loop_s / args.iters * 1e6, "checksum": float(x.flatten()[0].item()),
                      "process_s": time.perf_counter() - PROCESS_START}))


if __name__ == "__main__":
    main()
