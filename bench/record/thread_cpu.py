#!/usr/bin/env python3
"""Which threads of a program take the CPU: runs COMMAND, samples every thread of it and of its descendants
(/proc/PID/task/TID/stat) every 0.2 s, and prints, once it ends, each thread's user + system CPU seconds at its
last sample, the most first, with its wall time. Made to see what a recorded program's extra threads (CUPTI's,
perfhound record's) cost it, beside the same program run plain.

  bench/record/thread_cpu.py [--top N] -- COMMAND...

Prints one JSON line: {"command", "wall_s", "cpu_s" (all threads), "threads": [{"process", "thread", "cpu_s"}]}.
A thread that ends between samples keeps its last sample, so short-lived threads may be under-counted."""
import argparse
import json
import os
import subprocess
import time

TICK = os.sysconf("SC_CLK_TCK")


def stat_fields(path):
    """The fields after the command name (which may hold spaces and parentheses), and the name."""
    with open(path) as f:
        text = f.read()
    name = text[text.index("(") + 1:text.rindex(")")]
    return name, text[text.rindex(")") + 2:].split()


def descendants(root):
    """root and every process below it, from each process's parent id."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                _, fields = stat_fields(f"/proc/{entry}/stat")
            except (OSError, ValueError):
                continue
            children.setdefault(int(fields[1]), []).append(int(entry))  # field 4, ppid
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def sample(root, seen):
    for pid in descendants(root):
        try:
            process, _ = stat_fields(f"/proc/{pid}/stat")
            tids = os.listdir(f"/proc/{pid}/task")
        except (OSError, ValueError):
            continue
        for tid in tids:
            try:
                thread, fields = stat_fields(f"/proc/{pid}/task/{tid}/stat")
            except (OSError, ValueError):
                continue
            # utime and stime: fields 14 and 15 of stat, 12 and 13 after the name
            seen[(pid, int(tid))] = (process, thread, (int(fields[11]) + int(fields[12])) / TICK)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        parser.error("no COMMAND given after --")
    seen = {}
    started = time.monotonic()
    child = subprocess.Popen(command)
    while child.poll() is None:
        sample(child.pid, seen)
        time.sleep(0.2)
    wall = time.monotonic() - started
    threads = sorted(seen.values(), key=lambda t: -t[2])
    print(json.dumps({"command": " ".join(command), "wall_s": round(wall, 2),
                      "cpu_s": round(sum(t[2] for t in threads), 2),
                      "threads": [{"process": p, "thread": t, "cpu_s": round(c, 2)} for p, t, c in threads[:args.top]]}))


if __name__ == "__main__":
    main()
