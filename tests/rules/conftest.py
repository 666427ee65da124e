"""Shared test equipment and fighters for the rules tests (house values, built inline).

Plain builder functions: each takes keyword overrides, so a test states only what matters to it.
Import them with ``from tests.rules.conftest import ...``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bot.rules.cards import Card, InitiativeDeck, full_deck
from bot.rules.dice import Modifier
from bot.rules.equipment import Armor, Shield, Weapon
from bot.rules.fighter import Fighter


def sword(**over: Any) -> Weapon:
    """An arming sword: M, Reach 3, Speed 3, DB 3, 1d8, S C P, primary C P."""
    fields: dict[str, Any] = {
        "key": "arming_sword",
        "name": "Arming Sword",
        "source": "house value",
        "size": "M",
        "reach": 3,
        "speed": 3,
        "defense": 3,
        "damage": "1d8",
        "types": ["slash", "chop", "pierce"],
        "primary": ["chop", "pierce"],
    }
    return Weapon(**(fields | over))


def dagger(**over: Any) -> Weapon:
    """A small dagger: T, Reach 0, Speed 6, DB 0, 1d6, S P, primary P, AP 2, not martial."""
    fields: dict[str, Any] = {
        "key": "dagger",
        "name": "Dagger",
        "source": "house value",
        "size": "T",
        "reach": 0,
        "speed": 6,
        "defense": 0,
        "damage": "1d6",
        "types": ["slash", "pierce"],
        "primary": ["pierce"],
        "armor_piercing": 2,
        "martial": False,
    }
    return Weapon(**(fields | over))


def mace(**over: Any) -> Weapon:
    """A light mace: S, Reach 2, Speed 3, DB 2, 1d6, B, primary B."""
    fields: dict[str, Any] = {
        "key": "mace",
        "name": "Mace",
        "source": "house value",
        "size": "S",
        "reach": 2,
        "speed": 3,
        "defense": 2,
        "damage": "1d6",
        "types": ["bash"],
        "primary": ["bash"],
    }
    return Weapon(**(fields | over))


def bow(**over: Any) -> Weapon:
    """A missile weapon: Reach 2 (its close-range bonus), DB 0, 1d8 pierce."""
    fields: dict[str, Any] = {
        "key": "bow",
        "name": "Bow",
        "source": "house value",
        "size": "M",
        "reach": 2,
        "speed": 0,
        "defense": 0,
        "damage": "1d8",
        "types": ["pierce"],
        "primary": ["pierce"],
        "kind": "missile",
        "two_handed": True,
    }
    return Weapon(**(fields | over))


def mail(**over: Any) -> Armor:
    """Heavy mail: DR 8/16/24, Bypass -5, Max Dex +1 (costs a pool die), Hardness 5, 20 HP."""
    fields: dict[str, Any] = {
        "key": "mail",
        "name": "Mail",
        "source": "house value",
        "dr_pierce": 8,
        "dr_chop": 16,
        "dr_slash": 24,
        "bypass": -5,
        "max_dex": 1,
        "hardness": 5,
        "hp": 20,
        "weight": "heavy",
        "ac_base": 15,
    }
    return Armor(**(fields | over))


def gambeson(**over: Any) -> Armor:
    """Light padded armor: DR 3/6/3, Bypass -6, Max Dex +3."""
    fields: dict[str, Any] = {
        "key": "gambeson",
        "name": "Gambeson",
        "source": "house value",
        "dr_pierce": 3,
        "dr_chop": 6,
        "dr_slash": 3,
        "bypass": -6,
        "max_dex": 3,
        "hardness": 1,
        "hp": 10,
        "weight": "light",
        "ac_base": 12,
    }
    return Armor(**(fields | over))


def shield(**over: Any) -> Shield:
    """A round shield: DB 4, Toughness 3, 20 HP."""
    fields: dict[str, Any] = {
        "key": "round_shield",
        "name": "Round Shield",
        "source": "house value",
        "defense": 4,
        "toughness": 3,
        "hp": 20,
    }
    return Shield(**(fields | over))


def fighter(name: str = "Ansel", prowess: int = 2, **over: Any) -> Fighter:
    """A fighter with a sword (Prowess 2, Dex +0, no armor or shield unless given)."""
    fields: dict[str, Any] = {"name": name, "prowess": prowess, "weapon": sword()}
    return Fighter(**(fields | over))


def breakdown(modifiers: Iterable[Modifier]) -> tuple[tuple[str, int], ...]:
    """A bonus breakdown as (label, value) pairs, to compare with a literal."""
    return tuple((m.label, m.value) for m in modifiers)


def card(code: str) -> Card:
    """A card by its code: ``"AS"``, ``"10H"``, ``"BJ"``."""
    return Card.model_validate(code)


def deck_dealing(*codes: str) -> InitiativeDeck:
    """A full 54-card deck whose next draws are ``codes``, in that order (R1, R2)."""
    top = [card(code) for code in codes]
    rest = [c for c in full_deck() if c not in top]
    return InitiativeDeck(draw_pile=rest + top[::-1])


# The duel of the odds tests and of bench/odds_simulation.py: a longsword against an arming sword.
LONGSWORD = Weapon(
    key="longsword",
    name="Longsword",
    source="published table",
    size="L",
    reach=5,
    speed=3,
    defense=4,
    damage="1d10",
    types=["slash", "chop", "pierce"],
    primary=["chop", "pierce"],
)
ARMING_SWORD = LONGSWORD.model_copy(
    update={"key": "arming", "name": "Arming sword", "reach": 3, "defense": 3}
)
ODDS_ATTACKER = Fighter(name="Attacker", prowess=3, dex_mod=1, weapon=LONGSWORD)
ODDS_DEFENDER = Fighter(name="Defender", prowess=2, dex_mod=2, weapon=ARMING_SWORD)
