"""The encounter package stays plain work on documents: no Discord, no database, no event loop; and so
do the words its log lines are written in (``bot/wording``), which it imports.

It may import the standard library (less what does I/O or concurrency), pydantic, the rules core and
the project's other plain modules (the catalog's types, characters, guild settings, table options,
dice notation).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

from tests.imports import imports

BOT = Path(__file__).resolve().parents[2] / "bot"
ENCOUNTER = BOT / "encounter"
WORDING = BOT / "wording"
MODULES = sorted([*ENCOUNTER.rglob("*.py"), *WORDING.rglob("*.py")])
"""The encounter's modules (its subpackages too) and the wording's, checked alike."""
ALLOWED_THIRD_PARTY = {"pydantic", "pydantic_core", "d20"}
FORBIDDEN_STDLIB = {
    "asyncio",
    "sqlite3",
    "socket",
    "subprocess",
    "threading",
    "os",
    "io",
    "pathlib",
    "shutil",
}
ALLOWED_PROJECT = {
    "bot.rules",
    "bot.encounter",
    "bot.catalog",
    "bot.characters",
    "bot.guild_settings",
    "bot.table_options",
    "bot.notation",
    "bot.wording",
}


def test_the_package_has_its_modules() -> None:
    names = {path.stem if path.stem != "__init__" else path.parent.name for path in ENCOUNTER.rglob("*.py")}
    assert {"document", "records", "permissions", "errors", "fighters", "done", "attacks"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(BOT)))
def test_encounter_module_knows_no_discord_database_or_event_loop(path: Path) -> None:
    modules = imports(path)
    roots = {module.split(".")[0] for module in modules}
    third_party = {r for r in roots if r not in sys.stdlib_module_names and r not in {"__future__", "bot"}}
    assert third_party <= ALLOWED_THIRD_PARTY, f"{path.name} imports {third_party - ALLOWED_THIRD_PARTY}"
    assert not roots & FORBIDDEN_STDLIB, f"{path.name} imports {roots & FORBIDDEN_STDLIB}"
    project = {m for m in modules if m.split(".")[0] == "bot"}
    outside = {m for m in project if not any(m == a or m.startswith(f"{a}.") for a in ALLOWED_PROJECT)}
    assert not outside, f"{path.name} imports {outside}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(BOT)))
def test_encounter_module_never_uses_the_global_random(path: Path) -> None:
    """Dice come from an injected source (:class:`~bot.rules.dice.DiceSource`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert not any(isinstance(node, ast.Name) and node.id == "random" for node in ast.walk(tree))
    assert "random" not in {module.split(".")[0] for module in imports(path)}
