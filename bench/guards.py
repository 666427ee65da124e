"""Goal 8's in-process guards of one tree's bot, printed as JSON: ``/attack``'s p50 over the floor's with
one interaction in flight, and its throughput over the floor's with ten (``bench/latency.py``'s in-process
measurement, no latency, no rate limits, as the guards were set).

Run by ``bench/goals.py`` on the bot of the commit before issue 29 (``e4c8bfb``, through
``bench/cpu.py``'s :func:`~cpu.run_in`: that commit's ``bot/`` with this tree's ``bench/`` and ``tests/``),
so that ``make bench`` shows each guard beside that commit's own figure, measured the same way on the
same machine: the guards' levels were those of about that commit, with the benchmark and fake Discord
of their day. A script of its own, like ``bench/apart_bot.py``: the packages that commit did not pin
are blocked before its modules load.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.e2e when run as a script

from apart_bot import without_unpinned


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interactions", type=int, default=1000, help="per command (default 1000)")
    parser.add_argument(
        "--json", action="store_true", help="(always JSON; accepted for bench/cpu.py's run_in)"
    )
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)
    without_unpinned()
    import latency  # only now: the bot's modules, without what the tree does not pin

    alone, _ = asyncio.run(latency.measure(args.interactions, 20, 1, latency.GUARDS))
    ten, _ = asyncio.run(latency.measure(args.interactions, 20, 10, latency.GUARDS))
    print(json.dumps(latency.guard_figures(alone, ten)))


if __name__ == "__main__":
    main()
