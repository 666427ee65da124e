"""The ui package only renders: it builds text, embeds and discord.ui components from what it is given,
and never talks to Discord or the database itself.

Discord's value types (``discord.ui`` components, ``discord.Embed``, ``discord.File``,
``discord.AllowedMentions``, ``discord.Colour``) are fine; awaiting anything, sending, editing,
deleting or fetching is the cogs' and the boards' work, and so is reading or writing the store.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.imports import imports

BOT = Path(__file__).resolve().parents[2] / "bot"
UI = BOT / "ui"
MODULES = sorted(UI.rglob("*.py"))

CLIENT_CALLS = {"send", "send_message", "edit", "edit_message", "edit_original_response", "reply", "delete"}
"""Methods of Discord's client objects (a channel, a message, an interaction's response) that talk to it;
and any ``fetch_…``."""

KNOWN_STORE_IMPORTS = {
    "fight_log.py": {"bot.store"},
    "rolls.py": {"bot.store"},
    "encounter_views.py": {"bot.store", "bot.store.upgrades"},
    "server_views.py": {"bot.store"},
    "errors.py": {"bot.store.receipts"},
}
"""What is left to move out of the store, the records its answers are: the log's and the history's
(``LogEntry``, ``EndedEncounter``, ``HistoryStep``, ``ENDED_KEPT``), a fight set aside
(``SetAsideFight``, and ``NEWER``, its reason when a newer Pommel wrote it), what forgetting a server
took (``ForgottenGuild``) and where a committed change is kept (``Record``). The views only read them;
no new module may join them, and one that no longer needs its import must leave this list."""

KNOWN_ASYNC = {"charts.py": {"drawn"}}
"""Awaited on purpose: a chart is drawn on the charts' thread, so the event loop goes on (this awaits the
loop, never Discord)."""


def test_the_package_has_its_views() -> None:
    names = {path.stem for path in MODULES}
    assert {"tracker", "init_views", "encounter_views", "maneuver_views", "request", "result"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(UI)))
def test_ui_module_never_reads_or_writes_the_store(path: Path) -> None:
    store = {m for m in imports(path) if m == "bot.store" or m.startswith("bot.store.")}
    known = KNOWN_STORE_IMPORTS.get(path.name, set()) if path.parent == UI else set()
    assert store <= known, f"{path.name} imports {store - known}"
    assert known <= store, f"{path.name} no longer imports {known - store}: take it off the list"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(UI)))
def test_ui_module_never_talks_to_discord(path: Path) -> None:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    known = KNOWN_ASYNC.get(path.name, set()) if path.parent == UI else set()
    allowed = [
        node for node in ast.walk(tree) if isinstance(node, ast.AsyncFunctionDef) and node.name in known
    ]
    within = {id(inner) for node in allowed for inner in ast.walk(node)}
    awaits = [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Await | ast.AsyncFunctionDef | ast.AsyncWith | ast.AsyncFor)
        and id(node) not in within
    ]
    assert not awaits, f"{path.name} awaits or is async at lines {awaits}"
    assert {node.name for node in allowed} == known, f"{path.name}: {known} are no longer async"
    calls = [
        f"{node.func.attr} (line {node.lineno})"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and (node.func.attr in CLIENT_CALLS or node.func.attr.startswith("fetch_"))
    ]
    assert not calls, f"{path.name} calls Discord: {calls}"
