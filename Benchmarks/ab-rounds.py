#!/usr/bin/env python3
"""Two builds of shop-replay side by side, round by round (docs/BENCHMARKS.md, issue 38).

    Benchmarks/ab-rounds.py OLD NEW V1_JOURNAL V2_JOURNAL [ROUNDS]

Each round runs three cases back to back, the order rotated through all six:
A = OLD on the version-1 journal, B = NEW on it, C = NEW on the version-2 journal.
For each command (verify, replay with every view, view lists, view stats): the
median wall and CPU time (user + system of the child) of each case, and the
median over the rounds of B / A and C / A, each ratio taken from runs seconds
apart, so that a machine whose speed drifts from minute to minute cancels out.
And C / B: given a copy of V1_JOURNAL as V2_JOURNAL, B and C are the same build
on the same bytes, and C / B is the method's own scatter (what it cannot tell
from 1).
"""
import resource
import statistics
import subprocess
import sys
import time

old, new, v1, v2 = sys.argv[1:5]
rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 12
cases = {"A": (old, v1), "B": (new, v1), "C": (new, v2)}
commands = {
    "verify": ["verify", "--journal"],
    "replay": ["bench", "--child-replay"],
    "view lists": ["view", "lists", "--no-snapshot", "--json", "--journal"],
    "view stats": ["view", "stats", "--no-snapshot", "--json", "--journal"],
}


def run(binary, args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([binary] + args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"{binary} {' '.join(args)}: exit {done.returncode}: {done.stderr[:300]!r}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


orders = ["ABC", "BCA", "CAB", "ACB", "BAC", "CBA"]
times = {(case, name): [] for case in cases for name in commands}
for round in range(rounds):
    for case in orders[round % len(orders)]:
        binary, journal = cases[case]
        for name, args in commands.items():
            times[(case, name)].append(run(binary, args + [journal]))

print("| command | A wall · CPU s | B | C | B ÷ A, wall · CPU | C ÷ A, wall · CPU | C ÷ B, wall · CPU |")
print("|---|---|---|---|---|---|---|")
for name in commands:
    medians = [f"{statistics.median(w for w, _ in times[(c, name)]):.3f} · {statistics.median(u for _, u in times[(c, name)]):.3f}" for c in "ABC"]
    ratios = []
    for base, case in ("AB", "AC", "BC"):
        pairs = list(zip(times[(base, name)], times[(case, name)]))
        ratios.append(f"{statistics.median(b[0] / a[0] for a, b in pairs):.3f} · {statistics.median(b[1] / a[1] for a, b in pairs):.3f}")
    print(f"| {name} | {' | '.join(medians)} | {' | '.join(ratios)} |")
