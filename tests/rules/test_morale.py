from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from bot.rules.dice import Advantage, ScriptedDice
from bot.rules.errors import IllegalAction
from bot.rules.morale import (
    CombatGroup,
    GroupMember,
    MemberStatus,
    MoraleStanding,
    MoraleSubject,
    MoraleTriggerReason,
    morale_check,
    morale_triggers,
    rally,
)
from tests.rules.conftest import breakdown

ORC = MoraleSubject(name="Orc", morale=1)


# --- R21: the check -------------------------------------------------------------------------------


def test_r21_npc_passes_at_exactly_11() -> None:
    result = morale_check(ScriptedDice([10]), ORC)
    assert result.roll is not None
    assert result.roll.faces == (10,)
    assert breakdown(result.modifiers) == (("morale", 1),)
    assert result.total == 11
    assert result.target == 11
    assert result.passed
    assert result.standing is MoraleStanding.STEADY


def test_r21_npc_fails_at_10_and_is_routed() -> None:
    result = morale_check(ScriptedDice([9]), ORC)
    assert result.total == 10
    assert not result.passed
    assert result.standing is MoraleStanding.ROUTED


def test_r21_fail_without_escape_is_frightened() -> None:
    result = morale_check(ScriptedDice([9]), ORC, can_escape=False)
    assert not result.passed
    assert result.standing is MoraleStanding.FRIGHTENED


def test_r21_pc_rolls_with_wis_and_proficiency() -> None:
    hero = MoraleSubject(name="Hugh", player_character=True, wis_mod=1, proficiency=2)
    result = morale_check(ScriptedDice([8]), hero)
    assert breakdown(result.modifiers) == (("WIS", 1), ("proficiency", 2))
    assert result.modifier_total == 3
    assert result.total == 11
    assert result.passed


def test_r21_pc_has_no_morale_number() -> None:
    with pytest.raises(ValidationError):
        MoraleSubject(name="Hugh", player_character=True, morale=2)


def test_r21_monster_without_morale_is_immune_and_rolls_no_dice() -> None:
    skeleton = MoraleSubject(name="Skeleton")
    dice = ScriptedDice([])
    result = morale_check(dice, skeleton)
    assert skeleton.immune
    assert result.immune
    assert result.roll is None
    assert result.total is None
    assert result.passed
    assert result.standing is MoraleStanding.STEADY
    assert dice.remaining == 0


def test_r21_joker_adds_2_to_morale() -> None:
    without = morale_check(ScriptedDice([8]), ORC)
    with_joker = morale_check(ScriptedDice([8]), ORC, joker_bonus=2)
    assert not without.passed
    assert breakdown(with_joker.modifiers) == (("morale", 1), ("Joker", 2))
    assert with_joker.total == 11
    assert with_joker.passed


@pytest.mark.parametrize(
    ("advantage", "kept", "passed"),
    [(Advantage.ADVANTAGE, 15, True), (Advantage.DISADVANTAGE, 4, False)],
)
def test_r21_advantage_is_2d20_keep_high_or_low(advantage: Advantage, kept: int, passed: bool) -> None:
    result = morale_check(ScriptedDice([4, 15]), ORC, advantage=advantage)
    assert result.roll is not None
    assert result.roll.faces == (4, 15)
    assert result.roll.value == kept
    assert result.roll.committed == 0
    assert result.passed is passed


def test_r21_a_pass_returns_a_routed_subject_to_steady() -> None:
    routed = ORC.model_copy(update={"standing": MoraleStanding.ROUTED})
    result = morale_check(ScriptedDice([12]), routed)
    assert result.previous is MoraleStanding.ROUTED
    assert result.standing is MoraleStanding.STEADY


@given(face=st.integers(1, 20), morale=st.integers(-5, 10), joker=st.sampled_from([0, 2]))
def test_r21_pass_exactly_when_total_reaches_11(face: int, morale: int, joker: int) -> None:
    result = morale_check(ScriptedDice([face]), MoraleSubject(name="X", morale=morale), joker_bonus=joker)
    assert result.total == face + morale + joker
    assert result.passed is (face + morale + joker >= 11)
    assert (result.standing is MoraleStanding.STEADY) is result.passed


# --- R23: rally -----------------------------------------------------------------------------------

CAPTAIN = MoraleSubject(name="Captain", morale=2, cha_mod=1)
ROUTED_ORC = MoraleSubject(name="Routed orc", morale=1, standing=MoraleStanding.ROUTED)
FRIGHTENED_ORC = MoraleSubject(name="Cornered orc", morale=1, standing=MoraleStanding.FRIGHTENED)
STEADY_ORC = MoraleSubject(name="Steady orc", morale=1)


def test_r23_leader_rallies_with_a_plain_cha_check_at_11() -> None:
    dice = ScriptedDice([10, 10])
    result = rally(dice, CAPTAIN, is_leader=True, allies=[ROUTED_ORC])
    assert result.roll.faces == (10,)
    assert result.advantage is Advantage.NONE
    assert breakdown(result.modifiers) == (("CHA", 1),)
    assert result.total == 11
    assert result.success
    (reroll,) = result.rerolls
    assert reroll.roll is not None
    assert reroll.roll.advantage is Advantage.NONE
    assert reroll.previous is MoraleStanding.ROUTED
    assert reroll.standing is MoraleStanding.STEADY
    assert result.returned == ("Routed orc",)
    assert dice.remaining == 0


def test_r23_rally_by_non_leader_is_at_disadvantage() -> None:
    dice = ScriptedDice([18, 9])
    result = rally(dice, CAPTAIN, is_leader=False, allies=[ROUTED_ORC])
    assert result.advantage is Advantage.DISADVANTAGE
    assert result.roll.faces == (18, 9)
    assert result.roll.value == 9
    assert result.total == 10
    assert not result.success
    assert result.rerolls == ()
    assert dice.remaining == 0


def test_r23_non_leader_disadvantage_cancels_with_other_advantage() -> None:
    result = rally(ScriptedDice([12, 1]), CAPTAIN, False, [ROUTED_ORC], advantage=Advantage.ADVANTAGE)
    assert result.advantage is Advantage.NONE
    assert result.success


@pytest.mark.parametrize("standing", [MoraleStanding.ROUTED, MoraleStanding.FRIGHTENED])
def test_r23_rally_refused_for_a_rallier_that_failed_morale(standing: MoraleStanding) -> None:
    dice = ScriptedDice([])
    shaken_captain = CAPTAIN.model_copy(update={"standing": standing})
    with pytest.raises(IllegalAction, match="cannot rally"):
        rally(dice, shaken_captain, is_leader=True, allies=[ROUTED_ORC])
    assert dice.remaining == 0


def test_r23_rally_refused_when_nobody_needs_it() -> None:
    with pytest.raises(IllegalAction, match="nobody"):
        rally(ScriptedDice([]), CAPTAIN, is_leader=True, allies=[STEADY_ORC])


def test_r23_frightened_ally_rerolls_at_disadvantage_and_routed_normally() -> None:
    # CHA 10+1; routed orc 10+1 passes; frightened orc rolls 18 and 5, keeps 5, stays frightened.
    dice = ScriptedDice([10, 10, 18, 5])
    result = rally(dice, CAPTAIN, True, [ROUTED_ORC, STEADY_ORC, FRIGHTENED_ORC])
    assert [r.subject for r in result.rerolls] == ["Routed orc", "Cornered orc"]
    routed, frightened = result.rerolls
    assert routed.standing is MoraleStanding.STEADY
    assert frightened.roll is not None
    assert frightened.roll.advantage is Advantage.DISADVANTAGE
    assert frightened.roll.value == 5
    assert not frightened.passed
    assert frightened.standing is MoraleStanding.FRIGHTENED
    assert result.returned == ("Routed orc",)
    assert dice.remaining == 0


def test_r23_failed_reroll_keeps_a_routed_ally_routed() -> None:
    result = rally(ScriptedDice([15, 2]), CAPTAIN, True, [ROUTED_ORC])
    (reroll,) = result.rerolls
    assert reroll.standing is MoraleStanding.ROUTED


def test_r23_joker_adds_to_the_rally_and_to_allies_on_the_card() -> None:
    on_card = rally(ScriptedDice([8, 8]), CAPTAIN, True, [ROUTED_ORC], joker_bonus=2)
    assert breakdown(on_card.modifiers) == (("CHA", 1), ("Joker", 2))
    assert on_card.total == 11
    assert on_card.rerolls[0].total == 11
    assert on_card.rerolls[0].passed
    off_card = rally(ScriptedDice([8, 8]), CAPTAIN, True, [ROUTED_ORC], joker_bonus=2, allies_on_card=False)
    assert off_card.success
    assert off_card.rerolls[0].total == 9
    assert not off_card.rerolls[0].passed


def test_r23_rallied_ally_with_no_morale_number_rolls_nothing() -> None:
    routed_zombie = MoraleSubject(name="Zombie", standing=MoraleStanding.ROUTED)
    dice = ScriptedDice([11])
    result = rally(dice, CAPTAIN, True, [routed_zombie])
    assert result.rerolls[0].immune
    assert dice.remaining == 0


# --- R22: triggers --------------------------------------------------------------------------------


def _group(*statuses: MemberStatus, leader: int | None = 0, pcs: bool = False) -> CombatGroup:
    return CombatGroup(
        name="Bandits",
        player_characters=pcs,
        members=tuple(
            GroupMember(id=f"b{i}", name=f"Bandit {i}", is_leader=i == leader, status=status)
            for i, status in enumerate(statuses)
        ),
    )


A = MemberStatus.ACTIVE


@pytest.mark.parametrize(
    "status",
    [MemberStatus.DEAD, MemberStatus.FLED, MemberStatus.CAPTURED, MemberStatus.DISABLED, MemberStatus.DOWN],
)
def test_r22_leader_lost_proposes_a_check(status: MemberStatus) -> None:
    before = _group(A, A, A, A, A)
    after = _group(status, A, A, A, A)
    (trigger,) = morale_triggers(before, after)
    assert trigger.reason is MoraleTriggerReason.LEADER_LOST
    assert trigger.group == "Bandits"
    assert status.value in trigger.detail
    assert trigger.checkers == ("b1", "b2", "b3", "b4")


def test_r22_leader_already_out_does_not_trigger_again() -> None:
    before = _group(MemberStatus.DOWN, A, A, A, A)
    after = _group(MemberStatus.DEAD, A, A, A, A)
    assert morale_triggers(before, after) == []


def test_r22_follower_lost_is_not_a_leader_trigger() -> None:
    assert morale_triggers(_group(A, A, A, A, A), _group(A, MemberStatus.DEAD, A, A, A)) == []


def test_r22_half_down_threshold_crosses_once() -> None:
    d = MemberStatus.DEAD
    one = _group(A, A, A, d, leader=None)
    two = _group(A, A, d, d, leader=None)
    three = _group(A, d, d, d, leader=None)
    assert morale_triggers(_group(A, A, A, A, leader=None), one) == []
    (trigger,) = morale_triggers(one, two)
    assert trigger.reason is MoraleTriggerReason.HALF_DOWN
    assert trigger.detail == "2 of 4 are out of the fight."
    assert trigger.checkers == ("b0", "b1")
    assert morale_triggers(two, three) == []


@pytest.mark.parametrize(("size", "needed"), [(2, 1), (3, 2), (5, 3), (6, 3)])
def test_r22_half_rounds_to_at_least_half(size: int, needed: int) -> None:
    def with_out(n: int) -> CombatGroup:
        return _group(*([MemberStatus.FLED] * n + [A] * (size - n)), leader=None)

    assert morale_triggers(with_out(needed - 1), with_out(needed - 1)) == []
    assert morale_triggers(with_out(needed - 2 if needed > 1 else 0), with_out(needed - 1)) == []
    assert [t.reason for t in morale_triggers(with_out(needed - 1), with_out(needed))] == [
        MoraleTriggerReason.HALF_DOWN
    ]


def test_r22_leader_and_half_in_one_change_give_both_reasons() -> None:
    triggers = morale_triggers(_group(A, A, A, A), _group(MemberStatus.CAPTURED, MemberStatus.DEAD, A, A))
    assert [t.reason for t in triggers] == [MoraleTriggerReason.LEADER_LOST, MoraleTriggerReason.HALF_DOWN]


def test_r22_pc_group_never_triggers() -> None:
    before = _group(A, A, A, A, pcs=True)
    after = _group(MemberStatus.DEAD, MemberStatus.DOWN, MemberStatus.DOWN, A, pcs=True)
    assert morale_triggers(before, after) == []


def test_r22_nobody_left_active_proposes_nothing() -> None:
    assert morale_triggers(_group(A), _group(MemberStatus.DEAD)) == []


@given(st.lists(st.sampled_from(list(MemberStatus)), min_size=1, max_size=8), st.data())
def test_r22_half_down_fires_only_on_the_crossing(statuses: list[MemberStatus], data: st.DataObject) -> None:
    later = [data.draw(st.sampled_from([s, MemberStatus.DEAD])) for s in statuses]
    before, after = _group(*statuses, leader=None), _group(*later, leader=None)
    fired = [t for t in morale_triggers(before, after) if t.reason is MoraleTriggerReason.HALF_DOWN]
    expected = after.half_down and not before.half_down and any(s is A for s in later)
    assert bool(fired) is expected
    assert len(fired) <= 1
