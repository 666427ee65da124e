"""Autocomplete over a channel's fight: combatants by id, NPC groups by card, conditions."""

from __future__ import annotations

from bot.catalog import load_catalog
from bot.characters import Character
from bot.encounter.document import Encounter
from bot.ui.combatant_choices import CONDITIONS, combatant_choices, condition_choices, npc_choices

CATALOG = load_catalog()


def fight() -> Encounter:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    alice = Character(
        name="Alice", prowess=2, dexterity=1, wisdom=0, charisma=0, proficiency=2, hp=14, weapon="longsword"
    )
    encounter.join(7, alice, CATALOG.armor(alice.armor))
    encounter.add_npcs(CATALOG.monster("bandit"), CATALOG.armor("light_gambeson"), count=2)
    encounter.add_npcs(CATALOG.monster("wolf"), None, count=1)
    return encounter


def test_combatants_are_offered_by_id_with_their_hp() -> None:
    encounter = fight()
    encounter.combatant("Bandit 2").hp = 0
    choices = combatant_choices(encounter, "")
    assert [(c.name, c.value) for c in choices] == [
        ("Alice (HP 14/14)", "c1"),
        ("Bandit 1 — Bandits (HP 11/11)", "c2"),
        ("Bandit 2 — Bandits (HP 0/11, down)", "c3"),
        ("Wolf (HP 11/11)", "c4"),
    ]
    assert [c.value for c in combatant_choices(encounter, "BANDITS")] == ["c2", "c3"]
    assert [c.value for c in combatant_choices(encounter, "", npcs_only=True)] == ["c2", "c3", "c4"]
    assert combatant_choices(None, "a") == []


def test_at_most_25_choices_of_at_most_100_characters() -> None:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    encounter.add_npcs(CATALOG.monster("goblin"), None, count=20, name="G" * 60, group="H" * 60)
    encounter.add_npcs(CATALOG.monster("goblin"), None, count=20, name="K" * 60, group="L" * 60)
    for choices in (combatant_choices(encounter, ""), npc_choices(encounter, "")):
        assert len(choices) == 25
        assert all(len(choice.name) <= 100 for choice in choices)


def test_npc_choices_offer_whole_groups_first() -> None:
    encounter = fight()
    choices = npc_choices(encounter, "ban")
    assert (choices[0].name, choices[0].value) == ("Bandits (the whole group of 2)", "g:bandits")
    assert [c.value for c in choices][1:] == ["c2", "c3"]
    assert [c.value for c in npc_choices(encounter, "wolf")] == ["c4"]  # a group of one is just the NPC


def test_a_group_is_found_by_its_card_or_its_name() -> None:
    encounter = fight()
    assert encounter.group_named("g:bandits") == "Bandits"
    assert encounter.group_named("bandits") == "Bandits"
    assert encounter.group_named("g:nobody") is None
    assert encounter.group_named("Alice") is None


def test_conditions_offered_to_add_and_to_remove() -> None:
    alice = fight().combatant("Alice")
    alice.conditions = ["Prone", "cursed"]
    adding = [c.value for c in condition_choices(alice, "", removing=False)]
    assert "prone" not in adding
    assert adding == [c for c in CONDITIONS if c != "prone"]
    assert [c.value for c in condition_choices(alice, "", removing=True)] == ["Prone", "cursed"]
    assert [c.value for c in condition_choices(alice, "cur", removing=True)] == ["cursed"]
    assert [c.value for c in condition_choices(None, "st", removing=False)] == ["stunned"]
