"""``/move``, ``/range``, ``/save`` and ``/pool`` as use cases, without Discord (R7, R12, R19, R20).

Each operation runs on an in-memory store through :meth:`~bot.store.Store.change`, as the cogs run it:
the test reads back the saved document and the log. Round 1 is dealt from a stacked deck: Alice
(player 11, pool 3) holds K♠ and has the turn, Bob (player 12, pool 3) holds 7♦, the Bandit (the
GM's, pool 2) holds 2♣. A refusal must leave the document as it was and write no log line.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from bot.catalog import load_catalog
from bot.encounter import maneuvers
from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.errors import NotAllowed
from bot.encounter.permissions import Actor
from bot.encounter.records import Reaction, ReactionKind
from bot.rules.dice import Advantage, ScriptedDice
from bot.rules.engagement import Range
from bot.rules.errors import IllegalAction, RulesError
from bot.rules.pool import Spend
from bot.store import LogEntry, Store, open_store
from tests.rules.conftest import deck_dealing
from tests.sheets import character

CATALOG = load_catalog()
CHANNEL = 100
GM = Actor(user_id=1)
ALICE = Actor(user_id=11)
BOB = Actor(user_id=12)
NO_DICE = ScriptedDice([])

Operation = Callable[[Encounter], Done[Any]]


@pytest.fixture
async def store() -> AsyncIterator[Store]:
    opened = await open_store(":memory:")
    yield opened
    await opened.close()


def fight() -> Encounter:
    encounter = Encounter(channel_id=CHANNEL, guild_id=10, gm_id=GM.user_id)
    for actor, name in ((ALICE, "Alice"), (BOB, "Bob")):
        sheet = character(name)
        encounter.join(actor.user_id, sheet, CATALOG.armor(sheet.armor))
    bandit = CATALOG.monster("bandit")
    encounter.add_npcs(bandit, CATALOG.armor(bandit.armor or "none"), count=1)
    encounter.initiative.deck = deck_dealing("KS", "7D", "2C")
    encounter.deal(NO_DICE)
    return encounter


async def dealt(store: Store, edit: Callable[[Encounter], None] | None = None) -> Encounter:
    """The fight of round 1 saved in ``store``, changed by ``edit`` first."""
    encounter = fight()
    if edit is not None:
        edit(encounter)
    return await store.save_encounter(encounter)


async def log(store: Store) -> list[LogEntry]:
    return await store.read_log(channel_id=CHANNEL)


async def refused(store: Store, actor: Actor, operation: Operation, match: str) -> RulesError:
    """The operation is refused with ``match``; the saved fight and the log are as they were."""
    before, logged = await store.load_encounter(CHANNEL), await log(store)
    with pytest.raises(RulesError, match=re.escape(match)) as refusal:
        await store.change(CHANNEL, actor.user_id, operation)
    assert await store.load_encounter(CHANNEL) == before
    assert await log(store) == logged
    return refusal.value


def grapple(alice_and: str) -> Callable[[Encounter], None]:
    """Alice and ``alice_and`` in Grapple range, as a grapple attack would have left them (R12)."""

    def edit(encounter: Encounter) -> None:
        encounter.engagement(encounter.combatant("Alice"), encounter.combatant(alice_and)).enter_grapple()

    return edit


def move(actor: Actor, who: str | None = None, *, combat_range: bool = False) -> Operation:
    return lambda e: maneuvers.move(e, actor, who=who, combat_range=combat_range, by="Ann")


def run(actor: Actor, who: str | None = None) -> Operation:
    return lambda e: maneuvers.run(e, actor, who=who, by="Ann")


def change_range(actor: Actor, target: str, to: Range, who: str | None = None) -> Operation:
    return lambda e: maneuvers.change_range(e, actor, target=target, to=to, who=who, by="Ann")


def save(actor: Actor, rolling: ScriptedDice, target: int, **over: Any) -> Operation:
    options: dict[str, Any] = {
        "who": None,
        "dice": 0,
        "bonus": 0,
        "advantage": Advantage.NONE,
        "private": False,
    } | over
    return lambda e: maneuvers.saving_throw(e, actor, rolling, target=target, by="Ann", **options)


# ---------------------------------------------------------------------------------- /move (R19)


async def test_r19_a_free_move_then_a_paid_one_are_saved_with_their_log_lines(store: Store) -> None:
    await dealt(store)
    saved, first = await store.change(CHANNEL, ALICE.user_id, move(ALICE))
    assert (first.combatant.name, first.result.cost, first.result.moves_this_round) == ("Alice", 0, 1)
    saved, second = await store.change(CHANNEL, ALICE.user_id, move(ALICE))
    assert (second.result.cost, second.combat_range) == (1, False)

    assert await store.load_encounter(CHANNEL) == saved
    alice = saved.combatant("Alice")
    assert (alice.moves, alice.pool.remaining, dict(alice.pool.spent)) == (2, 2, {Spend.MOVEMENT: 1})
    assert [(entry.kind, entry.text, entry.data, entry.user_id) for entry in await log(store)] == [
        ("move", "Ann: Alice moves (1st move this round, free), 3/3 dice left", _spent("c1", 0, 3), 11),
        (
            "move",
            "Ann: Alice moves (2nd move this round, 1 die from the Martial Pool), 2/3 dice left",
            _spent("c1", 1, 2),
            11,
        ),
    ]


async def test_r19_combat_range_costs_a_die_even_on_the_free_move(store: Store) -> None:
    await dealt(store)
    saved, moved = await store.change(CHANNEL, ALICE.user_id, move(ALICE, combat_range=True))
    assert (moved.result.cost, moved.combat_range) == (1, True)
    assert saved.combatant("Alice").pool.spent == {Spend.MOVEMENT: 1}
    [entry] = await log(store)
    assert entry.text == (
        "Ann: Alice moves (1st move this round, free, but 1 die from the Martial Pool to enter or leave "
        "combat range), 2/3 dice left"
    )


async def test_r19_running_spends_the_whole_pool(store: Store) -> None:
    await dealt(store)
    saved, ran = await store.change(CHANNEL, ALICE.user_id, run(ALICE))
    assert ran.result.running
    alice = saved.combatant("Alice")
    assert (alice.moves, alice.pool.remaining) == (4, 0)
    [entry] = await log(store)
    assert entry.text == (
        "Ann: Alice runs (4 moves this round, spending the 3 dice left in the Martial Pool), 0/3 dice left"
    )
    assert entry.data == _spent("c1", 3, 0)


async def test_r19_the_gm_moves_the_npc_whose_turn_it_is(store: Store) -> None:
    def bandits_turn(encounter: Encounter) -> None:
        encounter.next_turn()
        encounter.next_turn()

    await dealt(store, bandits_turn)
    saved, moved = await store.change(CHANNEL, GM.user_id, move(GM))
    assert moved.combatant.name == "Bandit"
    assert saved.combatant("Bandit").moves == 1


@pytest.mark.parametrize(
    ("actor", "operation", "match"),
    [
        (BOB, move(BOB), "Bob can move only on their own turn, and it is Alice's turn."),
        (BOB, move(BOB, "Alice"), "Alice is not yours: only <@11> or the GM can move for them."),
        (GM, move(GM, "Bandit"), "Bandit can move only on their own turn"),
        (BOB, run(BOB), "Bob can move only on their own turn"),
    ],
)
async def test_r1_a_move_out_of_turn_or_for_another_changes_nothing(
    store: Store, actor: Actor, operation: Operation, match: str
) -> None:
    await dealt(store)
    await refused(store, actor, operation, match)


async def test_r19_a_fourth_walking_move_changes_nothing(store: Store) -> None:
    await dealt(store)
    for _ in range(3):
        await store.change(CHANNEL, ALICE.user_id, move(ALICE))
    await refused(store, ALICE, move(ALICE), "already moved 3 times this round; 3 moves is the most")


async def test_r19_running_after_a_save_changes_nothing(store: Store) -> None:
    def saved_once(encounter: Encounter) -> None:
        encounter.combatant("Alice").pool.spend(1, Spend.SAVE)

    await dealt(store, saved_once)
    await refused(store, ALICE, run(ALICE), "already spent dice on something else this round")


async def test_a_fallen_combatant_cannot_move(store: Store) -> None:
    def fall(encounter: Encounter) -> None:
        encounter.combatant("Alice").hp = 0

    await dealt(store, fall)
    await refused(store, ALICE, move(ALICE), "Alice is down and cannot move.")


def test_r19_run_and_combat_range_together_are_refused() -> None:
    with pytest.raises(IllegalAction, match="Pick one: `run`"):
        maneuvers.require_one_way_of_moving(run=True, combat_range=True)
    maneuvers.require_one_way_of_moving(run=True, combat_range=False)
    maneuvers.require_one_way_of_moving(run=False, combat_range=True)


# ---------------------------------------------------------------------------------- /range (R12)


async def test_r12_a_range_change_costs_a_die_per_step_and_is_saved_per_pair(store: Store) -> None:
    await dealt(store)
    saved, changed = await store.change(CHANNEL, ALICE.user_id, change_range(ALICE, "c3", Range.MELEE))
    assert (changed.mover.name, changed.target.name) == ("Alice", "Bandit")
    assert (changed.change.old, changed.change.new, changed.change.cost) == (Range.ONSET, Range.MELEE, 1)
    assert (changed.reaction, changed.owed, changed.controller) == (None, None, GM.user_id)

    assert await store.load_encounter(CHANNEL) == saved
    alice, bandit, bob = (saved.combatant(name) for name in ("Alice", "Bandit", "Bob"))
    assert saved.engagement(alice, bandit).range is Range.MELEE
    assert saved.engagement(alice, bob).range is Range.ONSET
    assert alice.pool.spent == {Spend.RANGE_CHANGE: 1}
    assert saved.reactions == []
    assert [(entry.kind, entry.text, entry.data) for entry in await log(store)] == [
        (
            "range",
            "Ann: Alice changed range with Bandit: Onset → Melee (1 die), 2/3 dice left",
            _spent("c1", 1, 2),
        )
    ]


async def test_r12_leaving_grapple_owes_the_opponent_an_opportunity_attack(store: Store) -> None:
    await dealt(store, grapple("Bob"))
    saved, changed = await store.change(CHANNEL, ALICE.user_id, change_range(ALICE, "Bob", Range.ONSET))
    owed = Reaction(
        kind=ReactionKind.OPPORTUNITY, by="c2", against="c1", round=1, reason="Alice left Grapple range"
    )
    assert (changed.change.cost, changed.reaction, changed.owed) == (2, owed, owed)
    assert changed.controller == BOB.user_id  # Bob's player is told
    assert saved.reactions == [owed]
    [entry] = await log(store)
    assert entry.text == (
        "Ann: Alice changed range with Bob: Grapple → Onset (2 dice), 1/3 dice left; "
        "Bob may make an opportunity attack on Alice"
    )


async def test_r12_leaving_grapple_with_a_fallen_opponent_owes_nothing(store: Store) -> None:
    def fallen_bandit(encounter: Encounter) -> None:
        grapple("Bandit")(encounter)
        encounter.combatant("Bandit").hp = 0

    await dealt(store, fallen_bandit)
    saved, changed = await store.change(CHANNEL, ALICE.user_id, change_range(ALICE, "Bandit", Range.MELEE))
    assert changed.change.provokes_opportunity_attack
    assert (changed.reaction, changed.owed) == (None, None)
    assert saved.reactions == []
    [entry] = await log(store)
    assert not entry.text.endswith("opportunity attack on Alice")


async def test_r12_leaving_grapple_with_an_opponent_without_dice_owes_nothing(store: Store) -> None:
    """An opponent with no Martial Pool die left cannot make the opportunity attack (R7): it is owed
    none (it used to be, and its player was pinged for an attack it could not take)."""

    def spent_bandit(encounter: Encounter) -> None:
        grapple("Bandit")(encounter)
        bandit = encounter.combatant("Bandit")
        bandit.pool.spend(bandit.pool.remaining, Spend.ATTACK)

    await dealt(store, spent_bandit)
    saved, changed = await store.change(CHANNEL, ALICE.user_id, change_range(ALICE, "Bandit", Range.MELEE))
    assert changed.change.provokes_opportunity_attack
    assert (changed.reaction, changed.owed) == (None, None)
    assert saved.reactions == []


def spend_two(encounter: Encounter) -> None:
    grapple("Bandit")(encounter)
    encounter.combatant("Alice").pool.spend(2, Spend.ATTACK)


@pytest.mark.parametrize(
    ("actor", "edit", "target", "to", "match"),
    [
        (ALICE, spend_two, "Bandit", Range.ONSET, "only 1 die remain in your Martial Pool this round"),
        (ALICE, None, "Bandit", Range.ONSET, "You are already at Onset range with that opponent."),
        (ALICE, None, "Bandit", Range.GRAPPLE, "Grapple range is entered only by a successful unarmed"),
        (ALICE, None, "Alice", Range.MELEE, "Range is kept between two combatants"),
        (ALICE, None, "Nobody", Range.MELEE, "Nobody called 'Nobody' is in this fight."),
        (BOB, None, "Bandit", Range.MELEE, "Bob can change range only on their own turn, and it is Alice's"),
    ],
)
async def test_r12_a_refused_range_change_changes_nothing(
    store: Store,
    actor: Actor,
    edit: Callable[[Encounter], None] | None,
    target: str,
    to: Range,
    match: str,
) -> None:
    await dealt(store, edit)
    await refused(store, actor, change_range(actor, target, to), match)


# ---------------------------------------------------------------------------------- /save (R20)


async def test_r20_a_save_with_pool_dice_spends_them_and_logs_every_die(store: Store) -> None:
    await dealt(store)
    saved, done = await store.change(
        CHANNEL, ALICE.user_id, save(ALICE, ScriptedDice([4, 17, 9]), 15, dice=2, bonus=3)
    )
    assert (done.combatant.name, done.result.total, done.result.success) == ("Alice", 20, True)
    assert done.joker == 0
    assert saved.combatant("Alice").pool.spent == {Spend.SAVE: 2}
    assert await store.load_encounter(CHANNEL) == saved
    [entry] = await log(store)
    assert (entry.kind, entry.text) == (
        "save",
        "Ann: Alice saving throw vs 15 with 2 dice from the pool: [4, 17, 9] keep 17 +3 = 20, saved; "
        "1/3 dice left",
    )
    assert entry.data == {
        "combatant": "c1",
        "faces": [4, 17, 9],
        "counting": 1,
        "bonus": 3,
        "total": 20,
        "target": 15,
        "success": True,
        "spent": 2,
        "private": False,
        "by": "Ann",  # who rolled, for a file that shows a private roll without its dice
    }


async def test_r20_a_save_out_of_turn_has_its_free_die_and_spends_nothing(store: Store) -> None:
    before = await dealt(store)
    saved, done = await store.change(
        CHANNEL, BOB.user_id, save(BOB, ScriptedDice([6]), 12, bonus=2, private=True)
    )
    assert (done.result.total, done.result.success) == (8, False)
    assert saved.combatant("Bob").pool == before.combatant("Bob").pool
    [entry] = await log(store)
    assert entry.text == (
        "Ann: Bob saving throw vs 12 with no dice from the pool: [6] keep 6 +2 = 8, failed; 3/3 dice left"
    )
    assert entry.data["private"] is True


async def test_r10_a_save_with_disadvantage_says_so_in_the_log(store: Store) -> None:
    await dealt(store)
    advantage = Advantage.DISADVANTAGE
    _, done = await store.change(
        CHANNEL, ALICE.user_id, save(ALICE, ScriptedDice([18, 6, 11]), 11, dice=1, advantage=advantage)
    )
    assert (done.result.roll.value, done.result.success) == (11, True)
    [entry] = await log(store)
    assert "with 1 die from the pool with disadvantage: [18, 6, 11] keep 11 +0 = 11, saved" in entry.text


@pytest.mark.parametrize(
    ("actor", "over", "match"),
    [
        (ALICE, {"dice": 4}, "You asked for 4 dice for saving throw, but only 3 dice remain"),
        (ALICE, {"who": "Bandit"}, "Bandit is not yours: only the GM can make a saving throw for them."),
    ],
)
async def test_r7_a_refused_save_rolls_nothing_and_changes_nothing(
    store: Store, actor: Actor, over: dict[str, Any], match: str
) -> None:
    await dealt(store)
    await refused(store, actor, save(actor, NO_DICE, 15, **over), match)


# ---------------------------------------------------------------------------------- /pool


def test_pool_subjects_are_the_one_named_else_ones_own() -> None:
    encounter = fight()
    assert [c.name for c in maneuvers.pool_subjects(encounter, BOB, "Alice")] == ["Alice"]
    assert [c.name for c in maneuvers.pool_subjects(encounter, BOB, None)] == ["Bob"]


def test_pool_subjects_for_the_gm_are_the_npcs_whose_turn_it_is() -> None:
    encounter = fight()
    with pytest.raises(IllegalAction, match="No NPC group's turn is in progress"):
        maneuvers.pool_subjects(encounter, GM, None)
    encounter.next_turn()
    encounter.next_turn()
    assert [c.name for c in maneuvers.pool_subjects(encounter, GM, None)] == ["Bandit"]


def test_pool_subjects_need_a_name_without_a_combatant() -> None:
    with pytest.raises(NotAllowed, match=re.escape("You have no combatant in this fight. Name one")):
        maneuvers.pool_subjects(fight(), Actor(user_id=99), None)


def _spent(combatant: str, spent: int, left: int) -> dict[str, Any]:
    return {"combatant": combatant, "spent": spent, "left": left}
