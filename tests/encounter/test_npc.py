"""The GM's NPCs added to a fight and taken out of it (``/npc``) through ``Store.change``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bot.encounter import npc
from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.permissions import Actor
from bot.store import Store
from bot.wording.roster import TURN_CUT_SHORT
from tests.encounter.conftest import (
    ANN_ACTS,
    CATALOG,
    CHANNEL,
    GM,
    GUILD,
    THE_GM,
    deal,
    logged,
    refused,
    saved,
)
from tests.rules.conftest import card

# ----------------------------------------------------------------------------- NPCs


async def test_the_gm_adds_npcs_from_a_template(store: Store) -> None:
    def add(actor: Actor) -> Callable[[Encounter], Done[Any]]:
        return lambda e: npc.add_npcs(e, actor, "GM", CATALOG, "wolf", count=2, leader=True, hp=9)

    await refused(store, add(ANN_ACTS), "Only the GM of this fight")
    await refused(store, lambda e: npc.add_npcs(e, THE_GM, "GM", CATALOG, "wolff"), "no monster called")
    _, added = await store.change(CHANNEL, GM, add(THE_GM))
    assert [(npc.name, npc.group, npc.leader, npc.hp) for npc in added] == [
        ("Wolf 1", "Wolves", True, 9),
        ("Wolf 2", "Wolves", False, 9),
    ]
    assert [c.name for c in (await saved(store)).combatants][-2:] == ["Wolf 1", "Wolf 2"]
    assert await logged(store) == ["GM added Wolf 1, Wolf 2 (Wolf) to the group Wolves"]


async def test_one_npc_leaves_and_its_group_keeps_its_card(store: Store) -> None:
    await deal(store, "KS", "QS", "JS")
    fight, removal = await store.change(CHANNEL, GM, lambda e: npc.remove_npcs(e, THE_GM, "GM", "Bandit 2"))
    assert ([c.name for c in removal.removed], removal.emptied, removal.discarded) == (
        ["Bandit 2"],
        None,
        None,
    )
    assert [c.name for c in fight.combatants if c.group == "Bandits"] == ["Bandit 1", "Bandit 3"]
    assert await logged(store) == ["GM removed Bandit 2 from the fight"]


async def test_r2_the_whole_group_leaves_on_its_turn_and_discards_its_card(store: Store) -> None:
    dealt = await deal(store, "JS", "QS", "KS")
    assert dealt.initiative.turn_of == "g:bandits"
    fight, removal = await store.change(CHANNEL, GM, lambda e: npc.remove_npcs(e, THE_GM, "GM", "g:bandits"))
    assert [c.name for c in removal.removed] == ["Bandit 1", "Bandit 2", "Bandit 3"]
    assert (removal.emptied, removal.discarded, removal.cut_short) == ("Bandits", card("KS"), True)
    assert [c.name for c in fight.combatants] == ["Ansel", "Bors"]
    assert "g:bandits" not in fight.initiative.cards
    assert await logged(store) == [
        "GM removed Bandit 1, Bandit 2, Bandit 3 from the fight",
        f"the card of Bandits ({card('KS').label}) was discarded",
        TURN_CUT_SHORT,
    ]


async def test_npc_remove_refuses_a_player_and_anyone_but_the_gm(store: Store) -> None:
    await refused(store, lambda e: npc.remove_npcs(e, ANN_ACTS, "Ann", "Bandit 1"), "Only the GM")
    await refused(store, lambda e: npc.remove_npcs(e, THE_GM, "GM", "Ansel"), "is a player's character")
    await refused(store, lambda e: npc.remove_npcs(e, THE_GM, "GM", "Nobody"), "Nobody called 'Nobody'")


def test_npc_remove_means_an_npc_or_its_whole_group() -> None:
    encounter = Encounter(channel_id=CHANNEL, guild_id=GUILD, gm_id=GM)
    encounter.add_npcs(CATALOG.monster("bandit"), None, count=2, group="Bandits")
    assert [c.name for c in npc.npcs(encounter, "g:bandits")] == ["Bandit 1", "Bandit 2"]
    assert [c.name for c in npc.npcs(encounter, "bandits")] == ["Bandit 1", "Bandit 2"]
    assert [c.name for c in npc.npcs(encounter, "c2")] == ["Bandit 2"]
