#!/usr/bin/python3
"""Python asyncio/aiohttp reference client for side-by-side runs with `perfhound load`.

Same work as perfhound load, done the way `vllm bench serve` does it (vLLM benchmarks/lib/
endpoint_request_func.py, async_request_openai_chat_completions): one aiohttp.ClientSession on a keep-alive
TCPConnector; POST /v1/chat/completions, stream=true, stream_options.include_usage; the SSE body read with
iter_any(), split on blank lines, "data: " stripped, each event json.loads'ed, "[DONE]" ends it.
time.perf_counter() is taken at every chunk with a non-empty choices[0].delta.content: TTFT = first such
chunk - send, ITL = gaps between them, E2E = last event - send.
Closed loop (--concurrency N): N workers, each sends the next request when its previous one ends.
Open loop (--rate R): Poisson arrivals (seeded exponential gaps), one asyncio task per request started at
its intended time; --concurrency caps requests in flight (0: none). Latency is also reported from the
intended time, and schedule lag = actual send - intended.
Prompts: --input-tokens words, seeded and different per request, from perfhound's 256-word vocabulary
(src/load/workload.cpp); bodies are serialized before the timed region. Output: one JSON line on stdout,
times in s, percentiles by numpy's default linear interpolation. Needs Debian's python3-aiohttp. E.g.:
  taskset -c 1 /usr/bin/python3 bench/load/aiohttp_client.py --url http://127.0.0.1:8000 \
      --concurrency 64 --requests 2000 --input-tokens 64 --max-tokens 256
"""
import argparse
import asyncio
import collections
import json
import random
import resource
import sys
import time

import aiohttp

VOCABULARY = """the of and to in is that for it as was with be by on not he this are or his from at which but
have an had they you were their one all we can her has there been if more when will would who so no she other
its may these about than into only some could them time two new also first any like our then out made up over
well most years what after such many much those how work must now do where your see even same way before
through back use each good between part very just because own world under life both still while last take
state long might place great used here should three people known day without year come system being said
number another high since found small point however form city right during end school power water down never
large often group make around off country within side public case less later again left among name line head
early home rather though came family order set given best several until find become next four local away based
having land held body game second far thus called began whole free open few give main young almost hand story
play real little human light music area party days course today along others fact seen room above house class
mean war film river series big top done town love old help start money face air close eyes road look night
black women white door true north south east west""".split()
assert len(VOCABULARY) == 256


def percentile(values, q):
    """numpy.percentile(values, q) with method='linear'; None for no values, the value itself for one."""
    if not values:
        return None
    s, pos = sorted(values), (len(values) - 1) * q / 100.0
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


class Result:
    """One request: intended and actual send (perf_counter s), TTFT, ITLs, E2E (s), content chunks, error."""

    def __init__(self, intended):
        self.intended, self.sent, self.ttft, self.e2e, self.error = intended, 0.0, None, None, None
        self.itl, self.chunks = [], 0


async def send(session, url, body, res):
    """One streamed chat request; fills res. Failures are recorded in res.error, never raised."""
    st = time.perf_counter()
    res.sent = st
    last_event = last_content = st
    try:
        async with session.post(url, data=body, headers={"Content-Type": "application/json"}) as resp:
            if resp.status != 200:
                res.error = f"http_{resp.status}"
                await resp.read()
                return
            buf, done = b"", False
            async for data in resp.content.iter_any():
                buf += data
                events = buf.split(b"\n\n")
                buf = events.pop()
                for event in events:
                    event = event.strip()
                    if not event or event.startswith(b":"):
                        continue
                    payload = event.removeprefix(b"data: ")
                    if payload == b"[DONE]":
                        done = True
                        continue
                    now = time.perf_counter()
                    chunk = json.loads(payload)
                    choices = chunk.get("choices")
                    if choices and choices[0].get("delta", {}).get("content"):
                        if res.ttft is None:
                            res.ttft = now - st
                        else:
                            res.itl.append(now - last_content)
                        last_content = now
                        res.chunks += 1
                    last_event = now
            res.error, res.e2e = (None, last_event - st) if done else ("stream_ended_without_done", None)
    except (aiohttp.ClientError, asyncio.TimeoutError, ValueError) as e:
        res.error = type(e).__name__


async def run(args):
    rng = random.Random(args.seed)
    base = args.url.rstrip("/")
    connector = aiohttp.TCPConnector(limit=args.concurrency, keepalive_timeout=60, force_close=False)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=6 * 3600)) as session:
        if not args.model:
            async with session.get(base + "/v1/models") as resp:
                args.model = (await resp.json())["data"][0]["id"]
        prompts = [" ".join(rng.choices(VOCABULARY, k=args.input_tokens)) for _ in range(args.requests)]
        bodies = [json.dumps({"model": args.model, "messages": [{"role": "user", "content": prompt}],
                              "max_tokens": args.max_tokens, "stream": True,
                              "stream_options": {"include_usage": True}}).encode() for prompt in prompts]
        url = base + "/v1/chat/completions"
        results = []
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        start = time.perf_counter()
        if args.rate is None:
            pending = iter(range(args.requests))

            async def worker():
                for i in pending:
                    res = Result(time.perf_counter())
                    results.append(res)
                    await send(session, url, bodies[i], res)

            await asyncio.gather(*(worker() for _ in range(args.concurrency)))
        else:
            gate = asyncio.Semaphore(args.concurrency) if args.concurrency else None

            async def one(i, res):
                if gate is None:
                    return await send(session, url, bodies[i], res)
                async with gate:
                    await send(session, url, bodies[i], res)

            tasks, intended = [], start
            for i in range(args.requests):
                delay = intended - time.perf_counter()
                if delay > 0:
                    await asyncio.sleep(delay)
                res = Result(intended)
                results.append(res)
                tasks.append(asyncio.create_task(one(i, res)))
                intended += rng.expovariate(args.rate)
            await asyncio.gather(*tasks)
        wall_s = time.perf_counter() - start
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    ok = [r for r in results if r.error is None]
    errors = dict(collections.Counter(r.error for r in results if r.error is not None))
    ttft = [r.ttft for r in ok if r.ttft is not None]
    itl = [x for r in ok for x in r.itl]
    e2e = [r.e2e for r in ok]
    lag = [r.sent - r.intended for r in results] if args.rate is not None else []
    chunks = sum(r.chunks for r in ok)
    out = {"client": "python-aiohttp", "mode": "closed" if args.rate is None else "open",
           "concurrency": args.concurrency, "rate_per_s": args.rate, "input_tokens": args.input_tokens,
           "max_tokens": args.max_tokens, "seed": args.seed,
           "requests": args.requests, "completed": len(ok), "failed": len(results) - len(ok), "errors": errors,
           "wall_s": wall_s, "requests_per_s": len(ok) / wall_s, "chunks": chunks, "chunks_per_s": chunks / wall_s}
    series = [("ttft", ttft), ("itl", itl), ("e2e", e2e)]
    if args.rate is not None:  # latency from the intended send time (wrk2's corrected latency)
        series += [("ttft_from_intended", [r.sent - r.intended + r.ttft for r in ok if r.ttft is not None]),
                   ("e2e_from_intended", [r.sent - r.intended + r.e2e for r in ok])]
    for name, vals in series + [("schedule_lag", lag)]:
        out[f"{name}_p50_s"], out[f"{name}_p99_s"] = percentile(vals, 50), percentile(vals, 99)
    end = resource.getrusage(resource.RUSAGE_SELF)
    out["cpu_s"] = end.ru_utime + end.ru_stime
    out["cpu_run_s"] = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
    out["python"], out["aiohttp"], out["argv"] = sys.version.split()[0], aiohttp.__version__, sys.argv
    print(json.dumps(out))


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", required=True, help="server base URL, e.g. http://127.0.0.1:8000")
    p.add_argument("--model", help="model name (default: the first of GET /v1/models)")
    p.add_argument("--concurrency", type=int, default=0, 
                   help="closed loop: workers; open loop: cap on requests in flight (0: none)")
    p.add_argument("--requests", type=int, required=True, help="requests to send")
    p.add_argument("--input-tokens", type=int, default=64, help="prompt length in words (one token each)")
    p.add_argument("--max-tokens", type=int, default=256, help="max_tokens of every request")
    p.add_argument("--rate", type=float, help="open loop: Poisson arrivals at this many requests/s")
    p.add_argument("--seed", type=int, default=1, help="seed of prompts and arrival times")
    args = p.parse_args()
    if args.requests < 1 or args.input_tokens < 1 or args.max_tokens < 1 or args.concurrency < 0:
        p.error("--requests, --input-tokens and --max-tokens must be >= 1 and --concurrency >= 0")
    if args.rate is None and args.concurrency < 1:
        p.error("closed loop needs --concurrency >= 1 (or give --rate R for open loop)")
    if args.rate is not None and not args.rate > 0:
        p.error(f"--rate: '{args.rate}' must be > 0 requests/s")
    asyncio.run(run(args))


if __name__ == "__main__":
    main()
