"""A launch-heavy PyTorch program for perfhound record's overhead and fidelity checks (bench/RESULTS.md).

Many tiny elementwise kernels on a 4096-element tensor: the GPU idles between launches, so the host's launch
path is what the run is made of, the case where a tracer's per-call cost shows most. Prints one JSON line:
the loop's wall time (after a warm-up, synchronized) and the process's.

  python3 launch_heavy.py [--iters N] [--numel N] [--profile kineto.json]   # --profile: torch.profiler over the same work
  python3 launch_heavy.py --mode busy                            # bf16 4096^3 matmuls: the GPU kept busy

  python3 launch_heavy.py --mode decode                          # a GPT-2-small-sized decode, eager

--mode decode is a launch-heavy program as users write them: a 12-layer, 768-wide transformer decoding one token
a step at batch 1 in eager mode (nn.Module calls, LayerNorm, Linear, SDPA over a 256-token KV cache, GELU),
about 14 small kernels a layer, the host's Python and launch path setting the pace. It prints "kernels": null
(counting them would take a profiler into the plain run); the recorded trace's count stands in.

--mode busy is the other end for the fidelity check: a GPU-bound loop (a matmul and two elementwise kernels an
iteration), where neither tracer's host overhead moves the GPU's busy share.

  python3 launch_heavy.py --mode decode --alternate 50            # recorded and unrecorded blocks in one process
  perfhound record --capture-range cudaProfilerApi -- python3 launch_heavy.py --mode decode --alternate 50

--alternate BLOCK measures a tracer's cost inside one process, where between processes the decoder's plain time
alone spreads +-28% (bench/RESULTS.md): after the warm-up the timed steps run in pairs of BLOCK-step blocks, one
inside a window (cudaProfilerStart .. cudaProfilerStop, which `perfhound record --capture-range cudaProfilerApi`
records and leaves the rest alone; or, with --window-tracer torch, a torch.profiler session) and one outside,
the order swapped every pair (ABBA) so neither side always runs first. Each block is synchronized and timed on its
own; the window is opened before the clock starts and closed after it stops, so turning the tracer on and off is
not counted. Under no tracer (plain) the two sides are the same work and their ratio is the control. The JSON line
then carries every block's time ("window_s", "outside_s"), the pairs' ratios and their median.
"""
import argparse
import contextlib
import json
import statistics
import time

PROCESS_START = time.perf_counter()

import torch  # noqa: E402  (timed from before the import, as the process is)


def decode_step(layers=12, width=768, heads=12, context=256, vocab=50257):
    """A GPT-2-small-sized decoder, one token a step at batch 1, random weights, a KV cache written in place."""
    import torch.nn.functional as F
    torch.manual_seed(0)
    head_dim = width // heads

    class Block(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1, self.ln2 = torch.nn.LayerNorm(width), torch.nn.LayerNorm(width)
            self.qkv, self.proj = torch.nn.Linear(width, 3 * width), torch.nn.Linear(width, width)
            self.fc, self.fc2 = torch.nn.Linear(width, 4 * width), torch.nn.Linear(4 * width, width)
            self.register_buffer("k", torch.randn(1, heads, context, head_dim) * 0.1)
            self.register_buffer("v", torch.randn(1, heads, context, head_dim))

        def forward(self, h, pos):
            q, k, v = self.qkv(self.ln1(h)).view(1, 1, 3, heads, head_dim).unbind(2)  # each (1, 1, heads, head_dim)
            self.k[:, :, pos] = k[:, 0]
            self.v[:, :, pos] = v[:, 0]
            a = F.scaled_dot_product_attention(q.transpose(1, 2), self.k, self.v)  # (1, heads, 1, head_dim)
            h = h + self.proj(a.transpose(1, 2).reshape(1, 1, width))
            return h + self.fc2(F.gelu(self.fc(self.ln2(h)), approximate="tanh"))

    model = torch.nn.ModuleDict({"emb": torch.nn.Embedding(vocab, width),
                                 "blocks": torch.nn.ModuleList(Block() for _ in range(layers)),
                                 "ln_f": torch.nn.LayerNorm(width),
                                 "head": torch.nn.Linear(width, vocab, bias=False)}).to("cuda", torch.bfloat16)
    position = [0]

    @torch.inference_mode()
    def step(token):
        pos = position[0]
        position[0] = (pos + 1) % context
        h = model["emb"](token).view(1, 1, width)
        for block in model["blocks"]:
            h = block(h, pos)
        return model["head"](model["ln_f"](h)).view(-1).argmax().view(1)  # stays on the GPU: no sync a step

    return torch.zeros(1, dtype=torch.long, device="cuda"), step


def cuda_profiler_window():
    """cudaProfilerStart .. cudaProfilerStop around a block; their return codes are ignored, as with no tool attached
    the calls do nothing and torch.cuda.profiler.start() would raise on an error code a driver may give then."""
    cudart = torch.cuda.cudart()

    @contextlib.contextmanager
    def window():
        cudart.cudaProfilerStart()
        try:
            yield
        finally:
            cudart.cudaProfilerStop()
    return window


def torch_profiler_window():
    """A torch.profiler session (CPU and CUDA activities) around a block; its trace is built on exit, off the clock."""
    activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
    return lambda: torch.profiler.profile(activities=activities)


def alternate(step, x, iters, block, window, gap_s):
    """iters steps as pairs of block-step blocks, one inside window() and one outside, in ABBA order; each block
    synchronized and timed alone. Returns the last x and the two lists of block times in seconds, pair by pair."""
    inside, outside = [], []
    for pair in range(iters // (2 * block)):
        for windowed in ((True, False) if pair % 2 == 0 else (False, True)):
            with window() if windowed else contextlib.nullcontext():
                start = time.perf_counter()
                for _ in range(block):
                    x = step(x)
                torch.cuda.synchronize()
                elapsed = time.perf_counter() - start
            (inside if windowed else outside).append(elapsed)
            # A pause between blocks, so what a tracer still does for a window (CUPTI's thread converting a full
            # buffer) overlaps the pause rather than the next block.
            time.sleep(gap_s)
    return x, inside, outside


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--iters", type=int, default=20000)
    parser.add_argument("--warmup", type=int, default=200)
    parser.add_argument("--profile", help="write torch.profiler's Chrome trace of the same work here")
    parser.add_argument("--mode", choices=["launch", "busy", "decode"], default="launch")
    parser.add_argument("--numel", type=int, default=4096, help="launch mode: elements per tensor (larger: longer kernels)")
    parser.add_argument("--alternate", type=int, metavar="BLOCK",
                        help="time the steps as pairs of BLOCK-step blocks, one inside a tracer window, one outside")
    parser.add_argument("--window-tracer", choices=["cuda-profiler", "torch"], default="cuda-profiler",
                        help="--alternate: what opens a window (cudaProfilerStart/Stop, or a torch.profiler session)")
    parser.add_argument("--gap-ms", type=float, default=20.0, help="--alternate: pause after each block")
    args = parser.parse_args()
    if args.alternate is not None and (args.alternate < 1 or args.iters < 2 * args.alternate or args.profile):
        parser.error("--alternate BLOCK needs 1 <= BLOCK <= iters / 2 and no --profile")
    if args.mode == "busy" and args.iters == parser.get_default("iters"):
        args.iters = 2000
    if args.mode == "decode" and args.iters == parser.get_default("iters"):
        args.iters = 200
    profiler = contextlib.nullcontext()
    if args.profile:
        activities = [torch.profiler.ProfilerActivity.CPU, torch.profiler.ProfilerActivity.CUDA]
        profiler = torch.profiler.profile(activities=activities)
    with profiler as prof:
        if args.mode == "launch":
            x = torch.ones(args.numel, device="cuda")
            step = lambda x: x * 1.0001 + 0.5  # noqa: E731
            kernels_per_step = 2
        elif args.mode == "decode":
            x, step = decode_step()
            kernels_per_step = None
        else:
            g = torch.Generator(device="cuda").manual_seed(0)
            x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16, generator=g)
            w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16, generator=g) / 64
            step = lambda x: torch.tanh(torch.matmul(x, w) * 0.5)  # noqa: E731
            kernels_per_step = 3
        for _ in range(args.warmup):
            x = step(x)
        torch.cuda.synchronize()
        if args.alternate is not None:
            window = cuda_profiler_window() if args.window_tracer == "cuda-profiler" else torch_profiler_window()
            x, inside, outside = alternate(step, x, args.iters, args.alternate, window, args.gap_ms / 1000)
            ratios = [a / b for a, b in zip(inside, outside)]
            print(json.dumps({"mode": args.mode, "numel": args.numel, "iters": len(inside + outside) * args.alternate,
                              "warmup": args.warmup, "block": args.alternate, "window_tracer": args.window_tracer,
                              "kernels_per_block": None if kernels_per_step is None else kernels_per_step * args.alternate,
                              "window_s": inside, "outside_s": outside, "median_ratio": statistics.median(ratios),
                              "window_slower_pairs": sum(r > 1 for r in ratios), "pairs": len(ratios),
                              "checksum": float(x.flatten()[0].item()), "process_s": time.perf_counter() - PROCESS_START}))
            return
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
    kernels = None if kernels_per_step is None else kernels_per_step * (args.iters + args.warmup)
    print(json.dumps({"mode": args.mode, "numel": args.numel, "iters": args.iters, "warmup": args.warmup, "kernels": kernels,
                      "loop_s": loop_s, "per_iter_us": loop_s / args.iters * 1e6, "checksum": float(x.flatten()[0].item()),
                      "process_s": time.perf_counter() - PROCESS_START}))


if __name__ == "__main__":
    main()
