"""A character sheet for tests that need one and do not care about its numbers."""

from __future__ import annotations

from typing import Any

from bot.characters import Character


def character(name: str = "Ansel", **over: Any) -> Character:
    """Prowess 2 (a pool of 3, R6), Dex +1, HP 12, an arming sword; ``over`` changes any field."""
    fields: dict[str, Any] = {
        "name": name,
        "prowess": 2,
        "dexterity": 1,
        "wisdom": 0,
        "charisma": -1,
        "proficiency": 2,
        "hp": 12,
        "weapon": "arming_sword",
    }
    return Character(**(fields | over))
