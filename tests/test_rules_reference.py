"""The project explains its own rulings: docs/RULES.md has R1-R27, every citation names one of them,
and nothing points at files outside the repository (the ``../shared`` folder users never have)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs" / "RULES.md"
RULING_NUMBERS = range(1, 28)

HEADING = re.compile(r"^## R(\d+) — ", re.MULTILINE)
CITATION = re.compile(r"\bR(\d{1,2})\b")
RANGE = re.compile(r"\bR(\d{1,2})\s*[-\u2013]\s*R?(\d{1,2})\b")
"""``R9-R17``, the same with an en dash, or ``R9-17``: both ends are cited (``CITATION`` misses a bare
``17``)."""

CITING = ("bot", "cogs", "docs", "README.md")
"""Where rulings are cited for readers: code, command descriptions, data files (``bot/data``) and
documentation."""
SELF_CONTAINED = (
    "bot",
    "cogs",
    "docs",
    "tests",
    "bench",
    "README.md",
    "Makefile",
    "pyproject.toml",
    ".ci",
    "deploy",
)
OUTSIDE = ("../shared", "shared/RULINGS", "shared/discord-api")
SKIPPED_DIRECTORIES = {"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis"}


def text_files(*places: str) -> Iterator[tuple[Path, str]]:
    """Every text file under ``places`` (files or folders of the repository), with its text."""
    for place in places:
        path = ROOT / place
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for candidate in candidates:
            if SKIPPED_DIRECTORIES & set(candidate.relative_to(ROOT).parts):
                continue
            try:
                yield candidate, candidate.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue  # not text


def cited(text: str) -> set[int]:
    """The ruling numbers a text cites, both ends of a range included."""
    numbers = {int(n) for n in CITATION.findall(text)}
    for first, last in RANGE.findall(text):
        numbers |= {int(first), int(last)}
    return numbers


def test_the_helpers_read_citations_and_ranges() -> None:
    assert cited("R3, R14.3 and R6/R15; not R2D2 nor PR12") == {3, 6, 14, 15}
    assert cited("(R9-R17), R21\u2013R23 and R1-5") == {1, 5, 9, 17, 21, 23}
    assert HEADING.findall("## R1 — Cards\n### R2 — no\n## R3 - no\n## R27 — Spirits") == ["1", "27"]


def test_rules_md_has_one_section_per_ruling() -> None:
    headings = Counter(int(n) for n in HEADING.findall(RULES.read_text(encoding="utf-8")))
    missing = [n for n in RULING_NUMBERS if n not in headings]
    repeated = [n for n, count in headings.items() if count > 1]
    unknown = [n for n in headings if n not in RULING_NUMBERS]
    assert not missing, f"docs/RULES.md has no '## R<n> — ' heading for {missing}"
    assert not repeated, f"docs/RULES.md has more than one heading for {repeated}"
    assert not unknown, f"docs/RULES.md has headings for rulings that do not exist: {unknown}"


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces made hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_rules_md_links_go_to_its_headings() -> None:
    text = RULES.read_text(encoding="utf-8")
    anchors = {slug(heading) for heading in re.findall(r"^#{1,6} (.+)$", text, re.MULTILINE)}
    links = re.findall(r"\]\(#([^)]+)\)", text)
    broken = sorted(set(links) - anchors)
    assert not broken, f"docs/RULES.md links to headings it does not have: {broken}"
    unlisted = [n for n in RULING_NUMBERS if not any(link.startswith(f"r{n}--") for link in links)]
    assert not unlisted, f"the contents of docs/RULES.md do not link to {unlisted}"


def test_every_citation_names_a_ruling() -> None:
    wrong = [
        f"{path.relative_to(ROOT)}: R{number}"
        for path, text in text_files(*CITING)
        for number in sorted(cited(text))
        if number not in RULING_NUMBERS
    ]
    assert not wrong, "citations of rulings that docs/RULES.md does not have:\n" + "\n".join(wrong)


@pytest.mark.parametrize("outside", OUTSIDE)
def test_nothing_points_outside_the_repository(outside: str) -> None:
    me = Path(__file__).resolve()
    mentions = [
        f"{path.relative_to(ROOT)}:{number}"
        for path, text in text_files(*SELF_CONTAINED)
        if path.resolve() != me
        for number, line in enumerate(text.splitlines(), start=1)
        if outside in line
    ]
    assert not mentions, f"{outside!r} is not part of the project; mentioned at:\n" + "\n".join(mentions)
