"""What a reminder says: whom it pings, what waits, for how long, and how to act on it."""

from __future__ import annotations

from datetime import timedelta

from bot.encounter.reminders import Reminded, Wait, WaitKind
from bot.ui.reminder_views import reminder_announcement
from tests.ui.attack_views.duels import ALICE, GM, NOW, attacked, duel


def test_a_turn_waiting_pings_its_player_and_says_for_how_long() -> None:
    encounter = duel()
    holder = encounter.initiative.turn_of
    assert holder is not None
    wait = Wait(key="turn", kind=WaitKind.TURN, since=NOW, ping=[ALICE], holders=[holder])
    announcement = reminder_announcement(encounter, Reminded([wait], NOW + timedelta(hours=5)))
    [line] = announcement.lines
    assert line.startswith(f"⏰ <@{ALICE}>: it has been 5 hours since your turn (**Alice**, K♠) began")
    assert line.endswith("or press **Next** on the tracker.")
    assert announcement.ping == [ALICE]


def test_a_defense_waiting_names_both_sides_and_pings_each_user_once() -> None:
    encounter = duel()
    exchange = attacked(encounter, [15]).exchange
    waits = [
        Wait(key="x", kind=WaitKind.DEFENSE, since=NOW, ping=[GM.user_id], exchange=exchange),
        Wait(key="y", kind=WaitKind.DEFENSE, since=NOW, ping=[GM.user_id], exchange=exchange),
    ]
    announcement = reminder_announcement(encounter, Reminded(waits, NOW + timedelta(hours=1)))
    assert announcement.lines[0] == (
        f"⏰ <@{GM.user_id}>: **Alice**'s attack has waited 1 hour for **Bandit**'s defense; pick one with "
        "the buttons of the attack's message."
    )
    assert announcement.ping == [GM.user_id]
