"""The rules core stays pure: standard library, pydantic and itself; no Discord, no I/O, no asyncio."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[2] / "bot" / "rules"
ALLOWED_THIRD_PARTY = {"pydantic", "pydantic_core"}
FORBIDDEN_STDLIB = {"asyncio", "sqlite3", "socket", "subprocess", "os", "io", "pathlib", "shutil"}
MODULES = sorted(RULES.glob("*.py"))


def imported_roots(path: Path) -> set[str]:
    roots: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


def test_the_core_has_modules() -> None:
    assert len(MODULES) > 10


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_rules_module_imports_only_the_standard_library_and_pydantic(path: Path) -> None:
    roots = imported_roots(path)
    third_party = {r for r in roots if r not in sys.stdlib_module_names and r != "__future__"}
    assert third_party <= ALLOWED_THIRD_PARTY, f"{path.name} imports {third_party - ALLOWED_THIRD_PARTY}"
    assert not roots & FORBIDDEN_STDLIB, f"{path.name} imports {roots & FORBIDDEN_STDLIB}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_rules_module_never_uses_the_global_random(path: Path) -> None:
    """Dice come from an injected source; only dice.py may build one over ``random``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    calls = {
        f"random.{node.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "random"
    }
    allowed = {"random.Random", "random.SystemRandom"} if path.name == "dice.py" else set()
    assert calls <= allowed, f"{path.name} uses {calls - allowed}"
