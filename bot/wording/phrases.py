"""The small phrases every log line and reply shares: dice counted, bonuses signed, names listed
within a budget, a possessive, a roll's faces in plain text."""

from __future__ import annotations

from ..encounter.combatants import Combatant
from ..rules.dice import Advantage, PoolRoll

Change = tuple[str, object, object]
"""What an edit or an options change changed: a label (or an option's field), the old value and the new."""


def dice_count(n: int) -> str:
    """``1 die``, ``3 dice``, ``no dice``."""
    if n == 0:
        return "no dice"
    return f"{n} {'die' if n == 1 else 'dice'}"


def signed(value: int) -> str:
    return f"{value:+d}"


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def dice_left(combatant: Combatant) -> str:
    """``1/3 dice left`` (R7: what is not spent stays for active defense)."""
    pool = combatant.pool
    return f"{pool.remaining}/{pool.size} {'die' if pool.size == 1 else 'dice'} left"


def listing(items: list[str], separator: str, limit: int) -> str:
    """Items joined until ``limit`` characters; the rest are counted ("… and 12 more, on the tracker")."""
    text = ""
    for index, item in enumerate(items):
        candidate = item if not text else text + separator + item
        if len(candidate) > limit:
            rest = f"… and {len(items) - index} more (see the tracker)"
            return f"{text}{separator}{rest}" if text else rest
        text = candidate
    return text


def possessive(name: str) -> str:
    """``name``'s, or ``name``' for a name ending in s (a group: "Bandits' turn"); bold Markdown kept."""
    return f"{name}'" if name.rstrip("*").endswith(("s", "S")) else f"{name}'s"


def plain_roll(roll: PoolRoll) -> str:
    """``20 (7)``: the die that counts, then the others in brackets (plain text, for the log)."""
    others = [str(face) for index, face in enumerate(roll.faces) if index != roll.counting]
    return f"{roll.value} ({', '.join(others)})" if others else str(roll.value)


def situation_words(advantage: Advantage) -> str:
    return {
        Advantage.ADVANTAGE: " with advantage",
        Advantage.DISADVANTAGE: " with disadvantage",
    }.get(advantage, "")
