from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.dice import Advantage
from bot.rules.morale import MoraleStanding
from bot.rules.situations import (
    NumbersTarget,
    Situation,
    hits_automatically,
    morale_situation,
    numbers_situation,
    situational_advantage,
)

ADV, DIS, NONE = Advantage.ADVANTAGE, Advantage.DISADVANTAGE, Advantage.NONE

TEXT = {
    Situation.UNTRAINED_MOUNTED_MELEE: DIS,
    Situation.RANGED_FROM_MOVING_HORSE: DIS,
    Situation.FOOTMAN_AGAINST_RIDER: DIS,
    Situation.KNIGHT_AGAINST_FOOTMAN: ADV,
    Situation.KNIGHT_AGAINST_HORSE_ATTACKER: ADV,
    Situation.PRONE_TARGET_MELEE: ADV,
    Situation.PRONE_TARGET_RANGED: DIS,
    Situation.NUMBERS_AGAINST_LONE_FOOTMAN: ADV,
    Situation.NUMBERS_AGAINST_LARGE_MONSTER: ADV,
    Situation.NUMBERS_AGAINST_TWO_FOOTMEN: ADV,
    Situation.SPEARS_AGAINST_LONE_HORSEMAN: ADV,
    Situation.SHIELD_WALL: DIS,
    Situation.ATTACKER_SCALING: DIS,
    Situation.TARGET_SCALING: ADV,
    Situation.UNSEEN_ATTACKER: ADV,
    Situation.RANGED_LONG_RANGE: DIS,
    Situation.THROWN_LONG_RANGE: DIS,
    Situation.COVER: DIS,
    Situation.SHOOTING_INTO_MELEE: DIS,
    Situation.ATTACKER_FRIGHTENED: DIS,
    Situation.ATTACKER_ROUTED: DIS,
}


def test_r25_every_situation_has_the_effect_of_the_text_and_a_label() -> None:
    assert set(TEXT) == set(Situation)
    for situation, effect in TEXT.items():
        assert situation.effect is effect
        assert situation.label


def test_r25_no_situation_is_no_advantage() -> None:
    result = situational_advantage([])
    assert result.advantage is NONE
    assert result.labels == ()
    assert not result.cancelled


def test_r25_advantage_and_disadvantage_cancel() -> None:
    result = situational_advantage([Situation.PRONE_TARGET_MELEE, Situation.SHIELD_WALL])
    assert result.advantage is NONE
    assert result.cancelled
    assert result.labels == ("prone target, in melee", "target in a shield wall")


def test_r25_several_of_one_kind_count_once() -> None:
    result = situational_advantage([Situation.COVER, Situation.RANGED_LONG_RANGE, Situation.COVER])
    assert result.advantage is DIS
    assert result.situations == (Situation.COVER, Situation.RANGED_LONG_RANGE)
    assert not result.cancelled


def test_r25_extra_advantage_takes_part_in_the_netting() -> None:
    assert situational_advantage([Situation.UNSEEN_ATTACKER], extra=ADV).advantage is ADV
    cancelled = situational_advantage([Situation.COVER], extra=ADV)
    assert cancelled.advantage is NONE
    assert cancelled.cancelled
    assert situational_advantage([], extra=DIS).advantage is DIS


@pytest.mark.parametrize(
    ("standing", "situation"),
    [
        (MoraleStanding.STEADY, None),
        (MoraleStanding.ROUTED, Situation.ATTACKER_ROUTED),
        (MoraleStanding.FRIGHTENED, Situation.ATTACKER_FRIGHTENED),
    ],
)
def test_r25_morale_puts_routed_and_frightened_attackers_at_disadvantage(
    standing: MoraleStanding, situation: Situation | None
) -> None:
    assert morale_situation(standing) is situation


@pytest.mark.parametrize(
    ("target", "needed", "situation"),
    [
        (NumbersTarget.LONE_FOOTMAN, 2, Situation.NUMBERS_AGAINST_LONE_FOOTMAN),
        (NumbersTarget.LARGE_MONSTER, 4, Situation.NUMBERS_AGAINST_LARGE_MONSTER),
        (NumbersTarget.TWO_FOOTMEN, 5, Situation.NUMBERS_AGAINST_TWO_FOOTMEN),
        (NumbersTarget.LONE_HORSEMAN, 2, Situation.SPEARS_AGAINST_LONE_HORSEMAN),
    ],
)
def test_r25_numbers_need_enough_attackers(target: NumbersTarget, needed: int, situation: Situation) -> None:
    assert numbers_situation(needed - 1, target) is None
    assert numbers_situation(needed, target) is situation
    assert numbers_situation(needed + 3, target) is situation


@pytest.mark.parametrize("target", [NumbersTarget.HUGE_MONSTER, NumbersTarget.CONSTRUCT])
def test_r25_numbers_never_help_against_huge_monsters_or_constructs(target: NumbersTarget) -> None:
    assert numbers_situation(50, target) is None


@pytest.mark.parametrize(
    ("helpless", "ranged", "automatic"),
    [(True, False, True), (True, True, False), (False, False, False), (False, True, False)],
)
def test_r25_helpless_target_is_hit_automatically_in_melee_only(
    helpless: bool, ranged: bool, automatic: bool
) -> None:
    assert hits_automatically(helpless, ranged) is automatic


_MIRROR = {ADV: DIS, DIS: ADV, NONE: NONE}


@given(st.integers(0, 5), st.integers(0, 5))
def test_r25_net_advantage_is_symmetric(advantages: int, disadvantages: int) -> None:
    assert Advantage.net(disadvantages, advantages) is _MIRROR[Advantage.net(advantages, disadvantages)]


@given(st.lists(st.sampled_from(list(Situation))), st.sampled_from([ADV, DIS, NONE]), st.randoms())
def test_r25_order_does_not_change_the_net(
    situations: list[Situation], extra: Advantage, rng: random.Random
) -> None:
    shuffled = list(situations)
    rng.shuffle(shuffled)
    forward = situational_advantage(situations, extra)
    assert situational_advantage(shuffled, extra).advantage is forward.advantage
    kinds = {s.effect for s in situations} | {extra}
    assert forward.cancelled is ({ADV, DIS} <= kinds)
    assert (forward.advantage is NONE) is (forward.cancelled or kinds <= {NONE})


def test_r25_option_routed_attackers_without_disadvantage() -> None:
    assert morale_situation(MoraleStanding.ROUTED, routed_too=False) is None
    assert morale_situation(MoraleStanding.FRIGHTENED, routed_too=False) is Situation.ATTACKER_FRIGHTENED
