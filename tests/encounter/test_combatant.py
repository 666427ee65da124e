"""A combatant's HP, conditions, stats and gear changed (``/combatant``) through ``Store.change``."""

from __future__ import annotations

import pytest

from bot.encounter import combatant
from bot.encounter.combatant import CombatantEdit, parse_hp_change
from bot.encounter.document import Encounter
from bot.encounter.results import HpChange
from bot.rules.errors import RulesError
from bot.rules.morale import MoraleTriggerReason
from bot.store import Store
from tests.encounter.conftest import (
    ANN,
    ANN_ACTS,
    BOB_ACTS,
    CATALOG,
    CHANNEL,
    GM,
    GUILD,
    THE_GM,
    logged,
    refused,
    saved,
)
from tests.sheets import character

# ----------------------------------------------------------------------------- HP and conditions


@pytest.mark.parametrize(
    ("text", "sign", "amount", "hp"),
    [("-5", "-", 5, 7), (" + 3 ", "+", 3, 15), ("12", "", 12, 12), ("-0", "-", 0, 12)],
)
def test_an_hp_change_takes_gives_or_sets(text: str, sign: str, amount: int, hp: int) -> None:
    change = parse_hp_change(text)
    assert change == HpChange(sign, amount)
    assert change.apply(12) == hp
    assert str(change) == f"{sign}{amount}"


@pytest.mark.parametrize("text", ["", "five", "-12345", "3-", "+-2", "1.5", "٣", "-٣"])
def test_anything_else_is_not_an_hp_change(text: str) -> None:
    with pytest.raises(RulesError, match=r"is not an HP change\. Write -5 to take 5 HP"):
        parse_hp_change(text)


async def test_a_player_changes_their_own_hp_within_bounds(store: Store) -> None:
    _, changed = await store.change(
        CHANNEL, ANN, lambda e: combatant.change_hp(e, ANN_ACTS, "Ann", "Ansel", HpChange("-", 30))
    )
    assert (changed.old, changed.combatant.hp, changed.proposals) == (12, -12, [])
    assert (await saved(store)).combatant("Ansel").hp == -12
    assert await logged(store) == ["Ann: Ansel HP 12 → -12 (-30) (down)"]
    await refused(
        store,
        lambda e: combatant.change_hp(e, ANN_ACTS, "Ann", "Bors", HpChange("-", 1)),
        "Bors is not yours",
    )


@pytest.mark.parametrize("change", [HpChange("-", 0), HpChange("+", 0), HpChange("", 12), HpChange("+", 5)])
async def test_an_hp_change_that_changes_nothing_is_refused_and_posts_nothing(
    store: Store, change: HpChange
) -> None:
    """`-0` (or +5 at full HP, or 12 at 12) used to post a public line about nothing."""
    await refused(
        store,
        lambda e: combatant.change_hp(e, ANN_ACTS, "Ann", "Ansel", change),
        r"Ansel is at HP 12/12, and `.*` leaves it there: nothing was changed or posted\.",
    )


async def test_r22_hp_taken_from_a_leader_proposes_the_groups_morale_check(store: Store) -> None:
    _, changed = await store.change(
        CHANNEL, GM, lambda e: combatant.change_hp(e, THE_GM, "GM", "Bandit 1", HpChange("", 0))
    )
    (proposal,) = changed.proposals
    assert (proposal.id, proposal.group, proposal.reason) == (1, "Bandits", MoraleTriggerReason.LEADER_LOST)
    fight = await saved(store)
    assert fight.morale_proposals == [proposal]
    assert fight.next_proposal == 2
    _, again = await store.change(
        CHANNEL, GM, lambda e: combatant.change_hp(e, THE_GM, "GM", "Bandit 2", HpChange("", 0))
    )
    assert again.proposals == []  # the open proposal answers for this too
    assert (await saved(store)).morale_proposals == [proposal]
    assert await logged(store) == ["GM: Bandit 1 HP 11 → 0 (0) (down)", "GM: Bandit 2 HP 11 → 0 (0) (down)"]


async def test_conditions_are_added_and_removed_by_their_player_or_the_gm(store: Store) -> None:
    assert combatant.condition_name("  knocked   flat ") == "knocked flat"
    with pytest.raises(RulesError, match="Name the condition"):
        combatant.condition_name("   ")
    _, added = await store.change(
        CHANNEL, ANN, lambda e: combatant.change_condition(e, ANN_ACTS, "Ann", "Ansel", "Prone", add=True)
    )
    assert (added.combatant.conditions, added.condition, added.added) == (["Prone"], "Prone", True)
    await refused(
        store,
        lambda e: combatant.change_condition(e, BOB_ACTS, "Bob", "Ansel", "prone", add=False),
        "Ansel is not yours",
    )
    await refused(
        store,
        lambda e: combatant.change_condition(e, ANN_ACTS, "Ann", "Ansel", "stunned", add=False),
        "stunned",
    )
    _, removed = await store.change(
        CHANNEL, GM, lambda e: combatant.change_condition(e, THE_GM, "GM", "Ansel", "prone", add=False)
    )
    assert (removed.condition, removed.added) == ("Prone", False)
    assert (await saved(store)).combatant("Ansel").conditions == []
    assert await logged(store) == ["Ann: Ansel is now Prone", "GM: Ansel is no longer Prone"]


# ----------------------------------------------------------------------------- the GM's edits


def test_an_edit_asks_for_something() -> None:
    with pytest.raises(RulesError, match="Say what to change"):
        CombatantEdit()
    with pytest.raises(RulesError, match="Say what to change"):
        CombatantEdit(repair=False)
    assert CombatantEdit(repair=True).repair
    assert CombatantEdit(leader=False).leader is False


async def test_r6_the_gm_edits_stats_and_gear_and_the_pool_follows(store: Store) -> None:
    edit = CombatantEdit(name="Bandit Chief", prowess=3, max_hp=8, shield="buckler", off_hand="none")
    await refused(
        store, lambda e: combatant.edit_combatant(e, ANN_ACTS, "Ann", CATALOG, "Bandit 1", edit), "GM"
    )
    _, edited = await store.change(
        CHANNEL, GM, lambda e: combatant.edit_combatant(e, THE_GM, "GM", CATALOG, "Bandit 1", edit)
    )
    assert edited.name == "Bandit 1"
    assert edited.changes == [
        ("name", "Bandit 1", "Bandit Chief"),
        ("Prowess", 1, 3),
        ("max HP", 11, 8),
        ("HP", 11, 8),
        ("shield", None, "Buckler"),
        ("off hand", "Dagger, Small", None),
        ("Martial Pool", 2, 4),
    ]
    chief = (await saved(store)).combatant("Bandit Chief")
    assert (chief.prowess, chief.max_hp, chief.hp, chief.shield, chief.off_hand) == (3, 8, 8, "buckler", None)
    assert chief.pool.size == 4
    assert await logged(store) == [
        "GM edited Bandit 1: name Bandit 1 → Bandit Chief; Prowess 1 → 3; max HP 11 → 8; HP 11 → 8; "
        "shield None → Buckler; off hand Dagger, Small → None; Martial Pool 2 → 4"
    ]


async def test_an_edit_to_the_values_it_has_changes_and_logs_nothing(store: Store) -> None:
    before = await saved(store)
    fight, edited = await store.change(
        CHANNEL,
        GM,
        lambda e: combatant.edit_combatant(e, THE_GM, "GM", CATALOG, "Ansel", CombatantEdit(prowess=2)),
    )
    assert edited == combatant.Edited("Ansel", [])
    assert fight.combatant("Ansel") == before.combatant("Ansel")
    assert await logged(store) == []


async def test_r26_an_edit_the_hands_cannot_hold_saves_nothing(store: Store) -> None:
    both_hands = CombatantEdit(weapon="greatsword", shield="heater")
    await refused(
        store,
        lambda e: combatant.edit_combatant(e, THE_GM, "GM", CATALOG, "Ansel", both_hands),
        "needs both hands",
    )
    await refused(
        store,
        lambda e: combatant.edit_combatant(e, THE_GM, "GM", CATALOG, "Ansel", CombatantEdit(name="bors")),
        "Bors is already in this fight",
    )


def test_a_refused_edit_leaves_the_document_as_it_was() -> None:
    encounter = Encounter(channel_id=CHANNEL, guild_id=GUILD, gm_id=GM)
    encounter.join(ANN, character("Ansel"), None)
    encounter.add_npcs(CATALOG.monster("bandit"), None, count=2, leader=True)
    before = encounter.model_dump()
    edits = {
        "needs both hands": CombatantEdit(name="Chief", prowess=4, weapon="greatsword", shield="heater"),
        "no armor called": CombatantEdit(name="Chief", leader=True, armor="plate of dreams"),
    }
    for says, edit in edits.items():
        with pytest.raises(RulesError, match=says):
            combatant.edit_combatant(encounter, THE_GM, "GM", CATALOG, "Bandit 2", edit)
        assert encounter.model_dump() == before


async def test_r22_a_new_leader_takes_over_from_the_old(store: Store) -> None:
    _, edited = await store.change(
        CHANNEL,
        GM,
        lambda e: combatant.edit_combatant(e, THE_GM, "GM", CATALOG, "Bandit 2", CombatantEdit(leader=True)),
    )
    assert edited.changes == [("Bandit 1 leader", "yes", "no"), ("leader", "no", "yes")]
    fight = await saved(store)
    assert [c.name for c in fight.combatants if c.leader] == ["Bandit 2"]
