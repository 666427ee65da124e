"""The encounter package stays plain work on documents: no Discord, no database, no event loop.

It may import the standard library (less what does I/O or concurrency), pydantic, the rules core and
the project's other plain modules (the catalog's types, characters, guild settings, table options,
dice notation).
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ENCOUNTER = Path(__file__).resolve().parents[2] / "bot" / "encounter"
MODULES = sorted(ENCOUNTER.rglob("*.py"))
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
}


def package_of(path: Path) -> list[str]:
    """The package ``path`` is in: ``bot.encounter``, or one of its subpackages."""
    return ["bot", "encounter", *path.relative_to(ENCOUNTER).parent.parts]


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, relative imports resolved against the package it is in."""
    package_parts = package_of(path)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.add(node.module or "")
                continue
            package = package_parts[: len(package_parts) + 1 - node.level]
            found.add(".".join([*package, node.module] if node.module else package))
    return found


def test_the_package_has_its_modules() -> None:
    names = {path.stem if path.stem != "__init__" else path.parent.name for path in MODULES}
    assert {"document", "records", "permissions", "errors", "fighters", "done", "attacks"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ENCOUNTER)))
def test_encounter_module_knows_no_discord_database_or_event_loop(path: Path) -> None:
    modules = imports(path)
    roots = {module.split(".")[0] for module in modules}
    third_party = {r for r in roots if r not in sys.stdlib_module_names and r not in {"__future__", "bot"}}
    assert third_party <= ALLOWED_THIRD_PARTY, f"{path.name} imports {third_party - ALLOWED_THIRD_PARTY}"
    assert not roots & FORBIDDEN_STDLIB, f"{path.name} imports {roots & FORBIDDEN_STDLIB}"
    project = {m for m in modules if m.split(".")[0] == "bot"}
    outside = {m for m in project if not any(m == a or m.startswith(f"{a}.") for a in ALLOWED_PROJECT)}
    assert not outside, f"{path.name} imports {outside}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ENCOUNTER)))
def test_encounter_module_never_uses_the_global_random(path: Path) -> None:
    """Dice come from an injected source (:class:`~bot.rules.dice.DiceSource`)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    assert not any(isinstance(node, ast.Name) and node.id == "random" for node in ast.walk(tree))
    assert "random" not in {module.split(".")[0] for module in imports(path)}
