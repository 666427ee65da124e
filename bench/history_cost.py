"""What keeping the fight's history costs: a change's write time, and the database's growth per 100 steps.

Run on demand (``.venv/bin/python bench/history_cost.py``), never as a pass/fail test. On a real SQLite
file (WAL, ``synchronous=FULL``), a six-fighter fight takes the same change (an HP change) two ways in
alternation, in the same run: as a step of the fight (it logs a line, so the store keeps the fight as it
was before it, for an undo) and as bookkeeping (it logs nothing, so nothing is kept). The ratio of the
two medians is the cost of the history; the growth is the file's size after each 100 steps.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # for tests.sheets when run as a script

from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.store import open_store
from tests.sheets import character

CHANNEL, GUILD, GM = 100, 10, 1


def hurt(logged: bool) -> Callable[[Encounter], Done[None]]:
    def change(encounter: Encounter) -> Done[None]:
        fighter = encounter.combatants[0]
        fighter.hp = fighter.max_hp - 1 if fighter.hp == fighter.max_hp else fighter.max_hp
        return Done(None, log=[f"{fighter.name} HP {fighter.hp}"] if logged else [])

    return change


def size_of(path: Path) -> int:
    """The database's size as its latest commit left it (pages in use, WAL included), in bytes."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        (count,) = db.execute("PRAGMA page_count").fetchone()
        (size,) = db.execute("PRAGMA page_size").fetchone()
    return int(count) * int(size)


async def run(steps: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "pommel.db"
        store = await open_store(path)
        try:
            encounter = Encounter(channel_id=CHANNEL, guild_id=GUILD, gm_id=GM)
            for n in range(6):
                encounter.join(GM + n, character(f"Fighter {n}"), None)
            await store.save_encounter(encounter)
            kept: list[float] = []
            bare: list[float] = []
            sizes = [size_of(path)]
            for step in range(1, steps + 1):
                for logged, times in ((True, kept), (False, bare)):
                    started = time.perf_counter()
                    await store.change(CHANNEL, GM, hurt(logged))
                    times.append(time.perf_counter() - started)
                if step % 100 == 0:
                    sizes.append(size_of(path))
        finally:
            await store.close()
    p50_kept, p50_bare = statistics.median(kept) * 1000, statistics.median(bare) * 1000
    print(f"{steps} changes each way, alternating, on a real file:")
    print(f"  with history (a logged step): p50 {p50_kept:.2f} ms")
    print(f"  without (bookkeeping):       p50 {p50_bare:.2f} ms")
    print(f"  ratio {p50_kept / p50_bare:.2f}x (the log line itself included)")
    growth = [(b - a) / 1024 for a, b in itertools.pairwise(sizes)]
    print("  database growth per 100 steps of each kind (KiB): " + ", ".join(f"{g:.0f}" for g in growth))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    asyncio.run(run(parser.parse_args().steps))


if __name__ == "__main__":
    main()
