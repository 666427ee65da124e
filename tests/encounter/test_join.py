"""Players' characters joining and leaving a fight (``/join``, ``/leave``) through ``Store.change``."""

from __future__ import annotations

from bot.catalog import Catalog
from bot.encounter import join
from bot.encounter.document import Encounter, player_holder
from bot.encounter.done import Done
from bot.encounter.permissions import Actor
from bot.rules.pool import Spend
from bot.store import Store
from bot.wording.roster import TURN_CUT_SHORT
from tests.encounter.conftest import (
    ANN,
    ANN_ACTS,
    BOB_ACTS,
    CATALOG,
    CHANNEL,
    GM,
    THE_GM,
    deal,
    logged,
    refused,
    saved,
)
from tests.sheets import character

# ----------------------------------------------------------------------------- players


def test_a_pool_is_sized_for_no_armor_when_the_catalog_has_no_no_armor_entry() -> None:
    sheet = character("Ansel")
    assert sheet.armor == "none"
    assert join.pool_armor(CATALOG, sheet) == CATALOG.armor("none")
    bare = Catalog(
        weapons=CATALOG.weapons,
        armors={key: armor for key, armor in CATALOG.armors.items() if key != "none"},
        shields=CATALOG.shields,
        monsters=CATALOG.monsters,
    )
    assert join.pool_armor(bare, sheet) is None
    assert join.pool_armor(bare, character("Ansel", armor="full_plate")) == CATALOG.armor("full_plate")


async def test_a_character_that_leaves_and_joins_again_comes_back_as_it_left(store: Store) -> None:
    """/leave then /join was a free full heal (HP 4/22, prone, pool spent came back 22/22, full pool):
    the fight keeps the character as it left and gives it back."""
    sheet = character("Cedric", hp=22)
    armor = join.pool_armor(CATALOG, sheet)
    _, done = await store.change(CHANNEL, ANN, lambda e: join.join(e, ANN, "Ann", sheet, armor))

    def hurt(encounter: Encounter) -> Done[None]:
        cedric = encounter.combatant("Cedric")
        cedric.hp = 4
        cedric.add_condition("prone")
        cedric.pool.spend(2, Spend.ATTACK)
        return Done(None)

    await store.change(CHANNEL, ANN, hurt)
    await store.change(CHANNEL, ANN, lambda e: join.leave(e, Actor(ANN), "Ann", "Cedric"))
    _, back = await store.change(CHANNEL, ANN, lambda e: join.join(e, ANN, "Ann", sheet, armor))
    assert back.returning
    cedric = (await saved(store)).combatant("Cedric")
    assert (cedric.id, cedric.hp, cedric.max_hp, cedric.conditions) == (done.combatant.id, 4, 22, ["prone"])
    assert cedric.pool.remaining == cedric.pool.size - 2
    assert (await saved(store)).departed == []
    log = [entry.text for entry in await store.read_log(channel_id=CHANNEL)]
    assert log[-1] == "Ann brought Cedric back, as they left: HP 4/22"


async def test_a_player_joins_with_a_saved_character(store: Store) -> None:
    sheet = character("Cedric", prowess=3)
    armor = join.pool_armor(CATALOG, sheet)
    _, done = await store.change(CHANNEL, ANN, lambda e: join.join(e, ANN, "Ann", sheet, armor))
    joined = done.combatant
    assert not done.returning
    assert (joined.name, joined.owner_id, joined.holder, joined.pool.size) == (
        "Cedric",
        ANN,
        player_holder(ANN),
        4,
    )
    assert (await saved(store)).combatant("Cedric") == joined
    log = await store.read_log(channel_id=CHANNEL)
    assert [(entry.text, entry.data) for entry in log] == [
        ("Ann joined with Cedric", {"combatant": joined.id})
    ]

    await refused(store, lambda e: join.join(e, ANN, "Ann", sheet, armor), "Cedric is already in this fight")


async def test_a_player_takes_out_their_only_character(store: Store) -> None:
    _, left = await store.change(CHANNEL, ANN, lambda e: join.leave(e, ANN_ACTS, "Ann", None))
    assert (left.combatant.name, left.discarded, left.cut_short) == ("Ansel", True, False)
    assert [c.name for c in (await saved(store)).combatants if c.owner_id == ANN] == []
    assert await logged(store) == ["Ann took Ansel out of the fight"]


async def test_a_player_takes_out_only_their_own_and_the_gm_anyones(store: Store) -> None:
    await refused(store, lambda e: join.leave(e, BOB_ACTS, "Bob", "Ansel"), "Ansel is not yours")
    await refused(store, lambda e: join.leave(e, Actor(99), "Eve", None), "You have no character")
    await refused(store, lambda e: join.leave(e, THE_GM, "GM", "Bandit 1"), "the GM takes NPCs out")
    _, left = await store.change(CHANNEL, GM, lambda e: join.leave(e, THE_GM, "GM", "ansel"))
    assert left.combatant.name == "Ansel"
    assert await logged(store) == ["GM took Ansel out of the fight"]


async def test_r2_leaving_on_ones_own_turn_ends_it(store: Store) -> None:
    dealt = await deal(store, "KS", "QS", "JS")
    assert dealt.initiative.turn_of == player_holder(ANN)
    fight, left = await store.change(CHANNEL, ANN, lambda e: join.leave(e, ANN_ACTS, "Ann", None))
    assert (left.discarded, left.cut_short) == (True, True)
    assert fight.initiative.turn_of is None
    assert player_holder(ANN) not in fight.initiative.cards
    assert await logged(store) == ["Ann took Ansel out of the fight", TURN_CUT_SHORT]
