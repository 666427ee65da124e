"""``pommel backup`` of the database of a running bot, written to while the backup runs, then restored
into a new place with ``pommel restore`` and checked with ``pommel check``: every roll the bot answered
before the backup began is in it. A plain copy of the database file taken at the same moment misses
some (they are still in the write-ahead log), which is why the test would fail on one.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

from .fake_discord import FakeDiscord, World
from .processes import ROOT, SETTINGS, BotProcess, send, slash

ROLLS = 30


def pommel(database: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in SETTINGS}
    return subprocess.run(
        [sys.executable, "-m", "bot", *arguments],
        cwd=database.parent,  # no .env there
        env={**environment, "DATABASE_PATH": str(database), "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def rolled_modifiers(database: Path) -> set[int]:
    """The modifiers of the ``1d20+N`` rolls logged in ``database`` (none when it has no log table: a
    plain copy of a file whose every change is still in the write-ahead log has not even the tables)."""
    with sqlite3.connect(database) as db:
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'log'").fetchone() is None:
            return set()
        rows = db.execute("SELECT data FROM log WHERE kind = 'roll'").fetchall()
    found = set()
    for (data,) in rows:
        matched = re.search(r'"expression":\s*"1d20\s*\+\s*(\d+)"', data)
        if matched:
            found.add(int(matched[1]))
    return found


async def test_a_backup_of_a_running_bot_holds_everything_answered_before_it_began(
    fake_discord: FakeDiscord, world: World, tmp_path: Path
) -> None:
    database = tmp_path / "live" / "pommel.sqlite3"
    database.parent.mkdir()
    process = BotProcess(fake_discord, str(database), [0], 1, tmp_path / "pommel.log")

    async def roll(modifier: int) -> tuple[int, bool]:
        inter = slash(
            fake_discord,
            "roll dice",
            user=world.player,
            channel=world.table,
            options={"expression": f"1d20+{modifier}"},
        )
        return modifier, await send(fake_discord, inter)

    try:
        await process.start()
        before = dict(await asyncio.gather(*(roll(n) for n in range(1, ROLLS + 1))))
        answered = {modifier for modifier, seen in before.items() if seen}
        assert answered == set(before), process.log_tail()

        # The plain copy and the backup begin now, while the bot goes on answering rolls.
        plain = tmp_path / "plain-copy.sqlite3"
        shutil.copyfile(database, plain)
        backup = tmp_path / "backup.sqlite3"
        during = asyncio.gather(*(roll(n) for n in range(ROLLS + 1, 2 * ROLLS + 1)))
        backed_up = await asyncio.to_thread(pommel, database, "backup", str(backup))
        await during
        assert backed_up.returncode == 0, backed_up.stderr
        assert f"to {backup}" in backed_up.stdout
    finally:
        await process.close()

    restored = tmp_path / "restored" / "pommel.sqlite3"
    restored.parent.mkdir()
    put_back = pommel(restored, "restore", str(backup))
    assert put_back.returncode == 0, put_back.stderr
    checked = pommel(restored, "check")
    assert checked.returncode == 0, checked.stderr
    assert "integrity check passed" in checked.stdout

    assert answered <= rolled_modifiers(restored)
    assert answered - rolled_modifiers(plain), "a plain copy of the file misses what is still in the WAL"
