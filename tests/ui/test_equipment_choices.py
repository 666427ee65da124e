"""The catalog as an autocomplete offers it: each entry named with what tells it apart, within
Discord's limits, "nothing" first where nothing is a choice."""

from __future__ import annotations

from bot.catalog import load_catalog
from bot.ui.equipment_choices import (
    CHOICE_NAME_LIMIT,
    choice_name,
    monster_choices,
    shield_or_nothing_choices,
    weapon_choices,
)

CATALOG = load_catalog()


def test_an_entry_is_offered_with_its_numbers_and_chosen_by_its_key() -> None:
    [sword] = weapon_choices(CATALOG, "arming")
    assert (sword.name, sword.value) == ("Sword, Arming (1d8, reach 3, speed 3)", "arming_sword")
    assert [c.name for c in monster_choices(CATALOG, "bandit")][:2] == [
        "Bandit (Prowess 1, 11 HP)",
        "Bandit Captain (Prowess 3, 27 HP)",
    ]


def test_no_shield_leads_the_shields_unless_something_else_was_typed() -> None:
    offered = shield_or_nothing_choices(CATALOG, "")
    assert [c.name for c in offered[:2]] == ["No shield", "Buckler (defense +1)"]
    assert [c.name for c in shield_or_nothing_choices(CATALOG, "buck")][:1] == ["Buckler (defense +1)"]


def test_a_long_name_drops_its_hint_then_is_cut_short() -> None:
    assert choice_name("x" * 99, "hint") == "x" * 99
    cut = choice_name("y" * 120, "hint")
    assert len(cut) == CHOICE_NAME_LIMIT
    assert cut.endswith("…")
