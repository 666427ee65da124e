"""What /move, /range, /save and /pool show, for the cases the end-to-end tests do not reach."""

from __future__ import annotations

import pytest

from bot.catalog import load_catalog
from bot.encounter.document import Encounter
from bot.encounter.maneuvers import MoveOutcome, RangeOutcome, SaveOutcome
from bot.rules.dice import Advantage, ScriptedDice
from bot.rules.engagement import Engagement, Range, plan_range_change
from bot.rules.movement import move, run
from bot.rules.pool import Spend
from bot.rules.saves import saving_throw
from bot.ui.announcements import CONTENT_LIMIT
from bot.ui.maneuver_views import move_reply, pool_report, range_announcement, save_reply
from bot.wording.phrases import ordinal
from tests import sheets

CATALOG = load_catalog()


def fight(bandits: int = 1) -> Encounter:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    alice = sheets.character("Alice")
    encounter.join(7, alice, CATALOG.armor(alice.armor))
    encounter.add_npcs(
        CATALOG.monster("bandit"), CATALOG.armor("light_gambeson"), count=bandits, group="Bandits"
    )
    return encounter


@pytest.mark.parametrize(
    ("n", "text"), [(1, "1st"), (2, "2nd"), (3, "3rd"), (4, "4th"), (11, "11th"), (12, "12th"), (22, "22nd")]
)
def test_ordinal(n: int, text: str) -> None:
    assert ordinal(n) == text


def test_r19_running_with_no_dice_left_says_so() -> None:
    encounter = fight()
    alice = encounter.combatant("Alice")
    alice.pool.spend(3, Spend.MOVEMENT)
    result = run(alice.pool, 3)
    assert move_reply(MoveOutcome(alice, result)) == (
        "🏃 **Alice** runs (4 moves this round, no dice left) — 0/3 dice left. "
        "No more moves this round (R19)."
    )


def test_r19_a_move_reply_escapes_the_name() -> None:
    encounter = fight()
    alice = encounter.combatant("Alice")
    alice.name = "*Alice*"
    reply = move_reply(MoveOutcome(alice, move(alice.pool, 0)))
    assert reply.startswith("🏃 **\\*Alice\\***")


def test_r3_a_save_reply_shows_a_joker_bonus_apart_from_the_save_bonus() -> None:
    """Saves get no Joker bonus today (R3: JOKER_BONUS_ROLLS); should that change, the reply shows it."""
    alice = fight().combatant("Alice")
    result = saving_throw(ScriptedDice([11]), pool_dice=0, bonus=3 + 2, target=15)
    reply = save_reply(SaveOutcome(alice, result, joker=2))
    assert "**11** → 11 +3 +2 Joker (R3) = `16` vs 15: ✅ **saved**" in reply


def test_r10_a_save_reply_names_advantage() -> None:
    alice = fight().combatant("Alice")
    result = saving_throw(
        ScriptedDice([3, 14]), pool_dice=0, bonus=0, target=15, advantage=Advantage.ADVANTAGE
    )
    reply = save_reply(SaveOutcome(alice, result))
    assert "with 1 free die with advantage (one extra die, R10)" in reply
    assert "~~3~~, **14** → 14 +0 = `14` vs 15: ❌ **failed**" in reply


def test_r12_leaving_grapple_from_a_fallen_opponent_provokes_nothing() -> None:
    encounter = fight()
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    bandit.hp = 0
    change = plan_range_change(Engagement(range=Range.GRAPPLE), Range.MELEE)
    announcement = range_announcement(RangeOutcome(alice, bandit, change, None, controller=9), actor_id=7)
    assert "but **Bandit** is out of the fight" in announcement.content
    assert announcement.ping == []


def test_r12_leaving_grapple_with_a_foe_without_dice_left_offers_it_nothing_and_pings_nobody() -> None:
    """A foe with no Martial Pool die left cannot take the opportunity attack (R7): it is owed none,
    the reply says why, and nobody is pinged for an attack that cannot be made (no buttons follow)."""
    encounter = fight()
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    bandit.pool.spend(2, Spend.ATTACK)
    change = plan_range_change(Engagement(range=Range.GRAPPLE), Range.MELEE)
    changed = RangeOutcome(alice, bandit, change, None, controller=9)
    announcement = range_announcement(changed, actor_id=7)
    assert (
        "Leaving Grapple would provoke an opportunity attack (R12), but **Bandit** has no Martial Pool "
        "dice left this round."
    ) in announcement.content
    assert "the buttons below" not in announcement.content
    assert announcement.ping == []


def test_pool_report_for_a_big_group_stays_within_one_message() -> None:
    encounter = fight(bandits=59)
    report = pool_report(encounter, encounter.combatants[1:])
    assert len(report) <= CONTENT_LIMIT
    lines = report.splitlines()
    assert lines[1:3] == ["**Bandit 1** · ●● 2/2", "**Bandit 2** · ●● 2/2"]
    assert len(lines) == 1 + 59 + 1
    assert lines[-1] == "Dice left and moves made, one line each; `/pool who:` gives one in full."


def test_pool_report_for_a_big_group_of_the_longest_names_counts_them_by_dice_left() -> None:
    encounter = fight(bandits=59)
    for n, bandit in enumerate(encounter.combatants[1:], start=1):
        bandit.name = f"{'Sworn Blade of the Northern Marches':.<58} No {n:02d}"
    encounter.combatants[1].pool.spend(1, Spend.MOVEMENT)
    report = pool_report(encounter, encounter.combatants[1:])
    assert len(report) <= CONTENT_LIMIT
    lines = report.splitlines()
    assert lines[1] == "●○ 1/2 dice left (1): **Sworn Blade of the No….... No 01**"
    assert lines[2].startswith("●● 2/2 dice left (58): **Sworn Blade of the No….... No 02**, ")
    assert lines[2].endswith("more (see the tracker)")


def test_r12_pool_says_at_which_range_the_combatant_is_with_whom_and_onset_with_everyone_else() -> None:
    encounter = fight(bandits=3)
    (wolf,) = encounter.add_npcs(CATALOG.monster("goblin"), None, count=1, name="Wolf")
    alice = encounter.combatant("Alice")
    bandit_1, bandit_2, bandit_3 = (encounter.combatant(f"Bandit {n}") for n in (1, 2, 3))
    encounter.engagement(bandit_2, alice).range = Range.MELEE
    encounter.engagement(alice, bandit_1).range = Range.MELEE
    encounter.engagement(alice, wolf).enter_grapple()
    encounter.engagement(alice, bandit_3).record_attack(1)  # attacked once: still at Onset
    encounter.engagement(bandit_3, wolf).range = Range.MELEE  # not Alice's
    ranges = (
        "Ranges: at Grapple with **Wolf**; at Melee with **Bandit 1**, **Bandit 2**; "
        "at Onset with everyone else (R12)"
    )
    assert pool_report(encounter, [alice]).splitlines()[-1] == ranges
    assert pool_report(encounter, [bandit_3]).splitlines()[-1] == (
        "Ranges: at Melee with **Wolf**; at Onset with everyone else (R12)"
    )
    encounter.remove(wolf)
    assert pool_report(encounter, [alice]).splitlines()[-1] == (
        "Ranges: at Melee with **Bandit 1**, **Bandit 2**; at Onset with everyone else (R12)"
    )
    assert "Ranges" not in pool_report(encounter, [bandit_3])


def test_r12_pool_of_one_at_melee_with_a_whole_fight_of_the_longest_names_stays_within_one_message() -> None:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    encounter.add_npcs(CATALOG.monster("bandit"), None, count=1, name="Alice")
    encounter.add_npcs(CATALOG.monster("bandit"), None, count=59, name="_" * 60, group="Bandits")
    alice, *others = encounter.combatants
    for other in others:
        encounter.engagement(alice, other).range = Range.MELEE
    report = pool_report(encounter, [alice])
    assert len(report) <= CONTENT_LIMIT
    assert report.splitlines()[-1].startswith("Ranges: at Melee with **\\_")
    assert report.endswith("more (see the tracker); at Onset with everyone else (R12)")
