"""Where the bot's CPU went, from ``POMMEL_BENCH_PROFILE``'s samples (``bench/apart_bot.py``).

Run on demand: ``POMMEL_BENCH_PROFILE=/tmp/p/bot python bench/cpu.py --runs 1`` writes a file of samples
per series (``/tmp/p/bot.<action>.<n>``: ``attack``, ``defense``, ``init``, ``floor``, and ``between``
for the untimed set-up), then ``python bench/profile_report.py /tmp/p/bot init --actions 240`` prints
the CPU per action of each thread, the functions it was spent in (the innermost Python function:
"self") and the calls it was spent under ("inside"), main thread first. ``bench/cpu.py`` runs each kind
of action 200 times and 40 more to warm up, hence 240.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path


def stacks_of(prefix: Path, label: str) -> Counter[str]:
    """The label's samples over all its series: each stack to its CPU seconds."""
    stacks: Counter[str] = Counter()
    for path in prefix.parent.glob(f"{prefix.name}.{label}.*"):
        stacks.update(json.loads(path.read_text()))
    return stacks


def report(stacks: Counter[str], actions: int, lines: int) -> None:
    per_thread: Counter[str] = Counter()
    inner: dict[str, Counter[str]] = {}
    inside: dict[str, Counter[str]] = {}
    for stack, seconds in stacks.items():
        thread, *frames = stack.split(";")
        per_thread[thread] += seconds
        inner.setdefault(thread, Counter())[frames[-1] if frames else "(no Python frame)"] += seconds
        for frame in set(frames):
            inside.setdefault(thread, Counter())[frame] += seconds
    total = sum(per_thread.values())
    print(f"{total / actions * 1e3:.3f} ms of CPU per action")
    for thread, seconds in sorted(per_thread.items(), key=lambda item: item[0] != "MainThread"):
        if seconds / actions < 5e-6:
            continue
        print(f"\n{thread}: {seconds / actions * 1e3:.3f} ms per action")
        for title, counter in (("self", inner[thread]), ("inside", inside[thread])):
            print(f"  {title}:")
            for frame, spent in counter.most_common(lines):
                print(f"  {spent / actions * 1e3:8.3f}  {frame}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix", type=Path, help="POMMEL_BENCH_PROFILE's value")
    parser.add_argument("label", help="attack, defense, init, floor or between")
    parser.add_argument("--actions", type=int, default=240, help="in its series (default 240)")
    parser.add_argument("--lines", type=int, default=25, help="functions listed of each kind (default 25)")
    args = parser.parse_args()
    report(stacks_of(args.prefix, args.label), args.actions, args.lines)


if __name__ == "__main__":
    main()
