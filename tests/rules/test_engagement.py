"""Range per pair: Onset, Melee, Grapple, and what changes it (R12)."""

from __future__ import annotations

import pytest

from bot.rules.attack_rolls import Attack, roll_attack
from bot.rules.dice import ScriptedDice
from bot.rules.engagement import Engagement, Range, check_weapon_at_range, pair_key, plan_range_change
from bot.rules.equipment import AttackType
from bot.rules.errors import IllegalAction
from bot.rules.pool import MartialPool, Spend
from tests.rules.conftest import bow, dagger, fighter, mace, sword


def test_r12_a_pair_starts_at_onset() -> None:
    assert Engagement().range is Range.ONSET


def test_r12_pair_key_is_the_same_whichever_side_is_named_first() -> None:
    assert pair_key("brun", "ansel") == pair_key("ansel", "brun") == "ansel|brun"


def test_r12_first_attack_of_a_round_is_at_onset() -> None:
    engagement = Engagement()
    assert engagement.record_attack(1) is Range.ONSET
    assert engagement.range is Range.ONSET


def test_r12_second_attack_in_a_round_puts_the_pair_in_melee() -> None:
    engagement = Engagement()
    engagement.record_attack(1)
    assert engagement.range_for_attack(1) is Range.MELEE
    assert engagement.record_attack(1) is Range.MELEE
    assert engagement.range is Range.MELEE


def test_r12_two_attacks_of_two_dice_each_keep_onset() -> None:
    engagement = Engagement()
    assert engagement.record_attack(2) is Range.ONSET
    assert engagement.record_attack(3) is Range.ONSET
    assert engagement.range is Range.ONSET


def test_r12_one_die_attack_after_a_two_dice_attack_goes_to_melee() -> None:
    engagement = Engagement()
    engagement.record_attack(2)
    assert engagement.record_attack(1) is Range.MELEE


def test_r12_two_dice_attack_after_a_one_die_attack_goes_to_melee() -> None:
    engagement = Engagement()
    engagement.record_attack(1)
    assert engagement.record_attack(2) is Range.MELEE


def test_r12_missiles_stay_at_onset_and_do_not_count() -> None:
    engagement = Engagement()
    engagement.record_attack(1, missile=True)
    engagement.record_attack(1, missile=True)
    assert engagement.range is Range.ONSET
    assert engagement.attacks_this_round == 0


def test_r12_melee_persists_across_new_round() -> None:
    engagement = Engagement()
    engagement.record_attack(1)
    engagement.record_attack(1)
    engagement.new_round()
    assert engagement.range is Range.MELEE
    assert engagement.attacks_this_round == 0
    assert engagement.record_attack(2) is Range.MELEE


def test_r12_new_round_resets_the_count_so_onset_survives_one_attack() -> None:
    engagement = Engagement()
    engagement.record_attack(2)
    engagement.new_round()
    assert engagement.record_attack(1) is Range.ONSET


def test_r12_grapple_persists_across_new_round() -> None:
    engagement = Engagement()
    engagement.enter_grapple()
    engagement.new_round()
    assert engagement.range is Range.GRAPPLE


@pytest.mark.parametrize(
    ("start", "target", "cost"),
    [
        (Range.ONSET, Range.MELEE, 1),
        (Range.MELEE, Range.ONSET, 1),
        (Range.GRAPPLE, Range.MELEE, 1),
        (Range.GRAPPLE, Range.ONSET, 2),
    ],
)
def test_r12_range_change_costs_1_mp_per_step(start: Range, target: Range, cost: int) -> None:
    change = plan_range_change(Engagement(range=start), target)
    assert change.old is start
    assert change.new is target
    assert change.cost == cost


def test_r12_range_change_cost_is_paid_from_the_pool() -> None:
    pool = MartialPool.full(3)
    change = plan_range_change(Engagement(range=Range.GRAPPLE), Range.ONSET)
    pool.spend(change.cost, Spend.RANGE_CHANGE)
    assert pool.remaining == 1


@pytest.mark.parametrize("start", [Range.ONSET, Range.MELEE])
def test_r12_grapple_cannot_be_entered_by_a_range_change(start: Range) -> None:
    engagement = Engagement(range=start)
    before = engagement.model_dump()
    with pytest.raises(IllegalAction, match="grapple"):
        plan_range_change(engagement, Range.GRAPPLE)
    assert engagement.model_dump() == before


def test_r12_changing_to_the_same_range_is_refused() -> None:
    with pytest.raises(IllegalAction, match="already at Melee"):
        plan_range_change(Engagement(range=Range.MELEE), Range.MELEE)


@pytest.mark.parametrize("target", [Range.MELEE, Range.ONSET])
def test_r12_leaving_grapple_provokes_an_opportunity_attack(target: Range) -> None:
    assert plan_range_change(Engagement(range=Range.GRAPPLE), target).provokes_opportunity_attack


@pytest.mark.parametrize(("start", "target"), [(Range.ONSET, Range.MELEE), (Range.MELEE, Range.ONSET)])
def test_r12_other_range_changes_provoke_nothing(start: Range, target: Range) -> None:
    assert not plan_range_change(Engagement(range=start), target).provokes_opportunity_attack


def test_r12_size_m_weapon_cannot_attack_at_grapple() -> None:
    with pytest.raises(IllegalAction, match="size M weapon"):
        check_weapon_at_range(sword(), Range.GRAPPLE)


def test_r12_size_m_weapon_cannot_start_a_grapple() -> None:
    with pytest.raises(IllegalAction, match="cannot start a grapple"):
        check_weapon_at_range(sword(), Range.MELEE, grapple=True)


@pytest.mark.parametrize("size", ["T", "S"])
def test_r12_dagger_size_t_or_s_can_attack_at_grapple_and_start_one(size: str) -> None:
    check_weapon_at_range(dagger(size=size), Range.GRAPPLE)
    check_weapon_at_range(dagger(size=size), Range.MELEE, grapple=True)


def test_r12_unarmed_can_grapple_whatever_its_size() -> None:
    fist = mace(key="fist", name="Fist", size="M", kind="unarmed", reach=0, speed=6)
    check_weapon_at_range(fist, Range.GRAPPLE, grapple=True)


def test_r12_missile_weapon_cannot_start_a_grapple() -> None:
    with pytest.raises(IllegalAction, match="missile"):
        check_weapon_at_range(bow(size="S"), Range.MELEE, grapple=True)


def test_r12_attack_with_a_sword_at_grapple_is_refused_before_any_die_is_rolled() -> None:
    dice = ScriptedDice([15])
    attack = Attack(attack_type=AttackType.PIERCE, dice=1, range=Range.GRAPPLE)
    with pytest.raises(IllegalAction, match="Grapple"):
        roll_attack(fighter(), fighter("Brun"), attack, dice)
    assert dice.remaining == 1


def test_r12_attack_with_a_dagger_at_grapple_is_allowed() -> None:
    attacker = fighter(weapon=dagger())
    attack = Attack(attack_type=AttackType.PIERCE, dice=1, range=Range.GRAPPLE)
    rolled = roll_attack(attacker, fighter("Brun"), attack, ScriptedDice([15]))
    assert rolled.total == 15 + 2 + 6  # face + Prowess + Speed
