"""Exact attack odds (R9, R10, R13, R14, R16, R18): they sum to 1 and match every roll of the dice.

The odds are checked exactly against a full enumeration of small cases: every face of every die,
scripted through ``resolve_attack``, the call the bot makes. The seeded Monte-Carlo check of larger
pools is a benchmark, not a test: ``python bench/odds_simulation.py``.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.attack_rolls import Attack, attack_bonus
from bot.rules.defenses import active_defense_bonus
from bot.rules.dice import Advantage, ScriptedDice
from bot.rules.engagement import Range
from bot.rules.equipment import AttackType
from bot.rules.exchange import resolve_attack
from bot.rules.judgement import Outcome
from bot.rules.odds import attack_odds, counting_die_distribution
from tests.rules.conftest import ODDS_ATTACKER, ODDS_DEFENDER

DAMAGE_FACES = (1,) * 8
"""Scripted after the d20s of a roll: enough 1s for the damage of any hit here (weapon + crit dice)."""


def test_r9_counting_die_of_one_die_is_uniform() -> None:
    assert counting_die_distribution(1) == tuple(Fraction(1, 20) for _ in range(20))


def test_r10_disadvantage_on_one_die_is_two_d20_keep_low() -> None:
    dist = counting_die_distribution(1, Advantage.DISADVANTAGE)
    keep_low = [Fraction(2 * (20 - f) + 1, 400) for f in range(1, 21)]
    assert list(dist) == keep_low


def test_r9_fumble_needs_every_die_to_show_one() -> None:
    odds = attack_odds(attack_dice=3, attack_bonus=0, passive_defense=10)
    assert odds.fumble == Fraction(1, 20**3)


def test_r13_passive_tie_is_a_bind_of_one_face() -> None:
    odds = attack_odds(attack_dice=1, attack_bonus=4, passive_defense=14)
    assert odds.bind == Fraction(1, 20)  # a 10 ties
    assert odds.hit == Fraction(10, 20)  # 11..20 (a natural 20 always hits, R16)
    assert odds.critical == Fraction(1, 20)


def test_r14_defender_natural_20_gives_counterattack_odds() -> None:
    odds = attack_odds(attack_dice=1, attack_bonus=0, defense_dice=1, defense_bonus=0)
    # A defender 20 against any attacker face (R14.3/R14.4), or an attacker fumble against a defender
    # face of 2..19 (R14.5; both 1 is a Bind by R14.1).
    assert odds.counterattack == Fraction(20, 400) + Fraction(18, 400)


@given(
    attack_dice=st.integers(1, 4),
    attack_bonus=st.integers(-10, 15),
    defense_dice=st.integers(0, 5),
    defense_bonus=st.integers(-5, 15),
    passive=st.integers(2, 30),
    void=st.booleans(),
    missile=st.booleans(),
    attack_advantage=st.sampled_from(list(Advantage)),
)
def test_exact_odds_sum_to_one(
    attack_dice: int,
    attack_bonus: int,
    defense_dice: int,
    defense_bonus: int,
    passive: int,
    void: bool,
    missile: bool,
    attack_advantage: Advantage,
) -> None:
    odds = attack_odds(
        attack_dice=attack_dice,
        attack_bonus=attack_bonus,
        passive_defense=None if defense_dice else passive,
        defense_dice=defense_dice,
        defense_bonus=defense_bonus,
        void=void,
        missile=missile,
        attack_advantage=attack_advantage,
    )
    assert odds.hit + odds.miss + odds.bind == 1
    assert 0 <= odds.critical <= odds.hit
    assert 0 <= odds.fumble <= odds.miss
    assert sum(counting_die_distribution(attack_dice, attack_advantage)) == 1


ENUMERATED = [
    pytest.param(1, 0, Advantage.NONE, False, id="1 die vs passive"),
    pytest.param(2, 0, Advantage.NONE, False, id="2 dice vs passive"),
    pytest.param(1, 0, Advantage.DISADVANTAGE, False, id="1 die, disadvantage, vs passive"),
    pytest.param(2, 0, Advantage.ADVANTAGE, False, id="2 dice, advantage, vs passive"),
    pytest.param(1, 1, Advantage.NONE, False, id="1 vs 1 active"),
    pytest.param(1, 1, Advantage.NONE, True, id="1 vs 1 active, void"),
    pytest.param(2, 1, Advantage.NONE, False, id="2 vs 1 active"),
    pytest.param(1, 1, Advantage.DISADVANTAGE, False, id="1 with disadvantage vs 1 active"),
]


@pytest.mark.parametrize(("attack_dice", "defense_dice", "advantage", "void"), ENUMERATED)
def test_exact_odds_equal_a_full_enumeration_of_scripted_attacks(
    attack_dice: int, defense_dice: int, advantage: Advantage, void: bool
) -> None:
    """Every combination of faces, each equally likely, through resolve_attack: the counts are the odds."""
    attacker, defender = ODDS_ATTACKER, ODDS_DEFENDER
    attack = Attack(attack_type=AttackType.CHOP, dice=attack_dice, range=Range.MELEE, advantage=advantage)
    bonus = sum(m.value for m in attack_bonus(attacker, defender, attack))
    defense_bonus = sum(
        m.value
        for m in active_defense_bonus(defender, missile=False, at=Range.MELEE, shield=False, void=void)
    )
    passive = 8 + defender.prowess + defender.dex_mod
    exact = attack_odds(
        attack_dice=attack_dice,
        attack_bonus=bonus,
        passive_defense=None if defense_dice else passive,
        defense_dice=defense_dice,
        defense_bonus=defense_bonus,
        attack_advantage=advantage,
        void=void,
    )
    attack_rolled = attack_dice + (advantage is not Advantage.NONE)
    seen: Counter[str] = Counter()
    rolls = 0
    for faces in product(range(1, 21), repeat=attack_rolled + defense_dice):
        result = resolve_attack(
            attacker,
            defender,
            attack,
            ScriptedDice(faces + DAMAGE_FACES),
            defense="active" if defense_dice else "passive",
            defense_dice=defense_dice,
            void=void,
        )
        defended = result.defense.roll.faces if result.defense.roll is not None else ()
        assert result.attack.roll.faces + defended == faces  # the script went to the pool dice, in order
        rolls += 1
        seen[result.outcome.value] += 1
        seen["critical"] += result.judgement.critical
        seen["fumble"] += result.judgement.fumble
        seen["counterattack"] += result.judgement.counterattack
        seen["near_miss"] += result.judgement.near_miss
    assert rolls == 20 ** (attack_rolled + defense_dice)
    for name in (*(o.value for o in Outcome), "critical", "fumble", "counterattack", "near_miss"):
        assert Fraction(seen[name], rolls) == getattr(exact, name), name
