"""Reminders on the document alone: what waits since when, who is pinged, and never twice."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.catalog import load_catalog
from bot.encounter.attacks import Declaration, declare_attack
from bot.encounter.document import Encounter, player_holder
from bot.encounter.initiative import press
from bot.encounter.permissions import Actor
from bot.encounter.reminders import NothingDue, WaitKind, remind
from bot.encounter.results import TurnAction
from bot.rules.dice import ScriptedDice
from bot.rules.turns import ClaimPause
from bot.table_options import TableOptions
from tests.rules.conftest import deck_dealing
from tests.sheets import character

CATALOG = load_catalog()
GM, ALICE, BOB = 1, 11, 12
LATER = timedelta(hours=7)


def fight(*cards: str, remind_after: int = 6, pause: ClaimPause = ClaimPause.NEVER) -> Encounter:
    """Alice (player 11), Bob (player 12) and a Bandit, dealt ``cards`` in that order by the GM."""
    table = TableOptions(remind_after_hours=remind_after, claim_pause=pause)
    encounter = Encounter(channel_id=5, guild_id=6, gm_id=GM, table=table)
    encounter.join(ALICE, character("Alice"), None)
    encounter.join(BOB, character("Bob"), None)
    bandit = CATALOG.monster("bandit")
    encounter.add_npcs(bandit, CATALOG.armor(bandit.armor or "none"), count=1)
    encounter.initiative.deck = deck_dealing(*cards)
    press(encounter, TurnAction.DEAL, Actor(GM), ScriptedDice([]))
    return encounter


def test_a_long_turn_pings_its_player_once() -> None:
    encounter = fight("KS", "5H", "2C")
    assert encounter.initiative.turn_of == player_holder(ALICE)
    began = encounter.waiting_since
    assert began is not None
    with pytest.raises(NothingDue):  # not long enough yet
        remind(encounter, began + timedelta(hours=5))
    [wait] = remind(encounter, began + LATER).result.waits
    assert (wait.kind, wait.ping, wait.since) == (WaitKind.TURN, [ALICE], began)
    with pytest.raises(NothingDue):  # never twice for the same wait
        remind(encounter, began + 2 * LATER)
    press(encounter, TurnAction.NEXT, Actor(ALICE), ScriptedDice([]))  # Bob's turn: a new wait
    assert encounter.waiting_since is not None
    assert encounter.waiting_since > began
    [wait] = remind(encounter, encounter.waiting_since + LATER).result.waits
    assert wait.ping == [BOB]


def test_an_npc_turn_pings_the_gm() -> None:
    encounter = fight("2S", "5H", "KC")
    assert encounter.waiting_since is not None
    [wait] = remind(encounter, encounter.waiting_since + LATER).result.waits
    assert wait.ping == [GM]


def test_a_defense_waiting_pings_the_defender_s_player() -> None:
    encounter = fight("2S", "5H", "KC")
    bandit, alice = encounter.combatant("Bandit"), encounter.combatant("Alice")
    asked = datetime(2026, 12, 1, tzinfo=UTC)
    declare_attack(
        encounter, CATALOG, Actor(GM), bandit, alice, Declaration(dice=1), ScriptedDice([15]), asked
    )
    encounter.reminded.append(encounter.waiting or "")  # the GM's turn was reminded already
    [wait] = remind(encounter, asked + LATER).result.waits
    assert (wait.kind, wait.ping, wait.since) == (WaitKind.DEFENSE, [ALICE], asked)
    with pytest.raises(NothingDue):
        remind(encounter, asked + 2 * LATER)


def test_an_offered_turn_pings_the_players_offered() -> None:
    # Alice holds, then Bob holds: the flow stops between turns to offer the turn to Alice (R4).
    encounter = fight("KS", "5H", "2C", pause=ClaimPause.HELD)
    press(encounter, TurnAction.HOLD, Actor(ALICE), ScriptedDice([]))
    press(encounter, TurnAction.HOLD, Actor(BOB), ScriptedDice([]))
    assert encounter.initiative.turn_of is None
    assert encounter.flow.offered == [player_holder(ALICE)]
    assert encounter.waiting_since is not None
    [wait] = remind(encounter, encounter.waiting_since + LATER).result.waits
    assert (wait.kind, wait.ping) == (WaitKind.OFFER, [ALICE])


def test_nothing_is_reminded_when_reminders_are_off() -> None:
    encounter = fight("KS", "5H", "2C", remind_after=0)
    assert encounter.waiting_since is not None
    with pytest.raises(NothingDue):
        remind(encounter, encounter.waiting_since + timedelta(days=30))


def test_a_turn_begun_unseen_counts_from_the_first_sweep() -> None:
    encounter = fight("KS", "5H", "2C")
    encounter.waiting = encounter.waiting_since = None  # begun by something other than a press
    first = datetime(2026, 12, 1, tzinfo=UTC)
    assert remind(encounter, first).result.waits == []  # starts counting
    assert encounter.waiting_since == first
    [wait] = remind(encounter, first + LATER).result.waits
    assert wait.ping == [ALICE]
