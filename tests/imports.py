"""What a module of the project imports, read from its source: for the purity tests."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imports(path: Path) -> set[str]:
    """Every module ``path`` imports, relative imports resolved against its package."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.add(node.module or "")
                continue
            package = list(path.resolve().relative_to(ROOT).parent.parts)
            package = package[: len(package) + 1 - node.level]
            found.add(".".join([*package, node.module] if node.module else package))
    return found
