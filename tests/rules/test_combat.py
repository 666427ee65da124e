"""Attacks and defenses: bonus, passive and active defense, the R14 order, desperation, criticals, armor
and two weapons (R11, R13-R18, R26).

Unless a test says otherwise: Ansel attacks with Prowess 2 and an arming sword (Reach 3, Speed 3, DB 3,
1d8), so a 1-die attack at Onset totals face + 5. Brun defends with Prowess 2, Dex +1 and the same
sword: passive 8 + 2 + 1 = 11, active face + 2 + 1 + 3 = face + 6.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.rules.attack_rolls import (
    Attack,
    AttackKind,
    attack_bonus,
    check_attack,
    check_two_weapons,
    roll_attack,
    weapon_bonus,
)
from bot.rules.damage import roll_damage
from bot.rules.defenses import passive_defense, roll_active_defense
from bot.rules.dice import Modifier, ScriptedDice
from bot.rules.engagement import Range
from bot.rules.equipment import AttackType
from bot.rules.errors import IllegalAction
from bot.rules.exchange import AttackResult, desperation_defense, resolve_attack, resolve_exchange
from bot.rules.fighter import Fighter
from bot.rules.judgement import Outcome
from bot.rules.options import BashCritical, CriticalDamage, MissileTie, RuleOptions
from bot.rules.pool import MartialPool, Spend
from tests.rules.conftest import bow, dagger, fighter, gambeson, mace, mail, shield, sword

PIERCE = AttackType.PIERCE
CHOP = AttackType.CHOP
SLASH = AttackType.SLASH
BASH = AttackType.BASH


def ansel(**over: Any) -> Fighter:
    return fighter("Ansel", **over)


def brun(**over: Any) -> Fighter:
    return fighter("Brun", **({"dex_mod": 1} | over))


def stab(**over: Any) -> Attack:
    """A 1-die pierce attack at Onset unless overridden."""
    return Attack(**({"attack_type": PIERCE, "dice": 1} | over))


def resolve(
    faces: list[int],
    attack: Attack | None = None,
    *,
    attacker: Fighter | None = None,
    defender: Fighter | None = None,
    **kw: Any,
) -> AttackResult:
    """resolve_attack with exactly these faces (attack dice, defense dice, damage dice, in that order)."""
    dice = ScriptedDice(faces)
    result = resolve_attack(attacker or ansel(), defender or brun(), attack or stab(), dice, **kw)
    assert dice.remaining == 0, "every scripted face is used"
    return result


def active(faces: list[int], attack: Attack | None = None, dice: int = 1, **kw: Any) -> AttackResult:
    return resolve(faces, attack, defense="active", defense_dice=dice, **kw)


# --------------------------------------------------------------------------------- R11 bonus


def test_r11_reach_at_onset() -> None:
    assert weapon_bonus(sword(reach=5, speed=2), Range.ONSET) == Modifier(label="Reach", value=5)


@pytest.mark.parametrize("at", [Range.MELEE, Range.GRAPPLE])
def test_r11_speed_at_melee_and_grapple(at: Range) -> None:
    assert weapon_bonus(dagger(reach=1, speed=6), at) == Modifier(label="Speed", value=6)


@pytest.mark.parametrize("kind", [AttackKind.COUNTERATTACK, AttackKind.OPPORTUNITY])
@pytest.mark.parametrize("at", [Range.ONSET, Range.MELEE])
def test_r11_speed_always_for_counterattacks_and_opportunity_attacks(kind: AttackKind, at: Range) -> None:
    assert weapon_bonus(sword(reach=5, speed=2), at, kind) == Modifier(label="Speed", value=2)


def test_r11_counterattack_at_onset_totals_with_speed() -> None:
    attacker = ansel(weapon=sword(reach=5, speed=2))
    rolled = roll_attack(attacker, brun(), stab(kind=AttackKind.COUNTERATTACK), ScriptedDice([11]))
    assert rolled.total == 11 + 2 + 2


def test_r11_joker_adds_2() -> None:
    parts = attack_bonus(ansel(), brun(), stab(joker_bonus=2))
    assert Modifier(label="Joker", value=2) in parts


def test_r11_two_weapons_adds_1() -> None:
    parts = attack_bonus(ansel(off_hand=dagger()), brun(), stab(two_weapons=True))
    assert Modifier(label="Two weapons", value=1) in parts


def test_r11_bypass_penalty_is_in_the_breakdown() -> None:
    parts = attack_bonus(ansel(), brun(armor=mail()), stab(bypass=True))
    assert Modifier(label="Bypass Mail", value=-5) in parts


def test_r11_no_bypass_line_without_bypass() -> None:
    parts = attack_bonus(ansel(), brun(armor=mail()), stab())
    assert [p.label for p in parts] == ["Prowess", "Reach"]


def test_r11_total_is_counting_die_plus_every_modifier() -> None:
    attacker = ansel(weapon=sword(reach=5, speed=2), off_hand=dagger())
    attack = stab(dice=2, joker_bonus=2, two_weapons=True, bypass=True, situational=-1)
    rolled = roll_attack(attacker, brun(armor=mail()), attack, ScriptedDice([7, 14]))
    assert rolled.bonus == [
        Modifier(label="Prowess", value=2),
        Modifier(label="Reach", value=5),
        Modifier(label="Joker", value=2),
        Modifier(label="Two weapons", value=1),
        Modifier(label="Bypass Mail", value=-5),
        Modifier(label="Situational", value=-1),
    ]
    assert rolled.total == 14 + 2 + 5 + 2 + 1 - 5 - 1


def test_r11_melee_attack_total_uses_speed() -> None:
    attacker = ansel(weapon=sword(reach=5, speed=2))
    rolled = roll_attack(attacker, brun(), stab(range=Range.MELEE), ScriptedDice([9]))
    assert rolled.total == 9 + 2 + 2


# --------------------------------------------------------------------------------- R13 passive defense


def test_r13_passive_is_8_plus_prowess_capped_dex_and_shield_db_without_weapon_db() -> None:
    defender = brun(dex_mod=3, armor=mail(max_dex=1), shield=shield(defense=2))
    defense = passive_defense(defender)
    assert defense.total == 8 + 2 + 1 + 2
    assert "Arming Sword" not in [part.label for part in defense.bonus]
    assert not defense.active


def test_r13_passive_without_armor_uses_the_full_dex() -> None:
    assert passive_defense(brun(dex_mod=3)).total == 8 + 2 + 3


def test_r13_broken_shield_gives_no_passive_db() -> None:
    assert passive_defense(brun(shield=shield(defense=2), shield_hp=0)).total == 11


def test_r13_attack_total_equal_to_passive_is_a_miss_and_a_bind() -> None:
    defender = brun(dex_mod=3, armor=mail(max_dex=1), shield=shield(defense=2))  # passive 13
    result = resolve([8], defender=defender)  # 8 + 5 = 13
    assert result.attack.total == 13
    assert result.outcome is Outcome.BIND
    assert not result.hit
    assert result.damage is None
    assert result.judgement.rule == "R13"


def test_r13_attack_total_above_passive_hits() -> None:
    result = resolve([7, 4])  # 7 + 5 = 12 > 11; 1d8 damage 4
    assert result.hit
    assert result.damage is not None
    assert result.damage.lethal == 4


def test_r13_attack_total_below_passive_misses() -> None:
    result = resolve([5])  # 10 < 11
    assert result.outcome is Outcome.MISS


def test_r13_undefended_is_2_against_melee() -> None:
    assert passive_defense(brun(dex_mod=3), undefended=True).total == 2
    result = resolve([2, 6], defense="undefended")  # 7 > 2
    assert result.hit


def test_r13_undefended_is_8_against_missiles() -> None:
    assert passive_defense(brun(), missile=True, undefended=True).total == 8
    archer = ansel(weapon=bow())
    result = resolve([5, 3], attacker=archer, defense="undefended")  # 5 + 2 + Reach 2 = 9 > 8
    assert result.defense.total == 8
    assert result.hit


# --------------------------------------------------------------------------------- R14 the order


def test_r14_step1_both_natural_1_is_a_bind_and_nobody_fumbles() -> None:
    result = active([1, 1])
    assert result.outcome is Outcome.BIND
    assert result.judgement.rule == "R14.1"
    assert not result.judgement.fumble
    assert not result.judgement.counterattack


def test_r14_step2_defender_natural_1_is_an_automatic_hit() -> None:
    result = active([2, 1, 4])  # 7 against 1 + 6 = 7: equal totals would miss
    assert result.attack.total == result.defense.total == 7
    assert result.hit
    assert result.judgement.rule == "R14.2"


def test_r14_step2_defender_choosing_a_natural_1_is_an_automatic_hit() -> None:
    attacker, defender = ansel(), brun()
    dice = ScriptedDice([2, 1, 9, 4])
    rolled = roll_attack(attacker, defender, stab(), dice)
    defense = roll_active_defense(defender, rolled, dice, committed=2).choose(0)
    assert defense.total == 7 == rolled.total
    result = resolve_exchange(attacker, defender, rolled, defense, dice)
    assert result.hit
    assert result.judgement.rule == "R14.2"


def test_r14_step3_attacker_natural_20_hits_and_crits_above_the_defense() -> None:
    result = active([20, 15, 4, 5])  # 25 > 21; 1d8 4 + pierce crit d6 5
    assert result.hit
    assert result.judgement.rule == "R14.3"
    assert result.judgement.critical
    assert result.damage is not None
    assert result.damage.critical_faces == (5,)
    assert result.damage.lethal == 9


def test_r14_step3_attacker_natural_20_equal_to_the_defense_hits_without_crit() -> None:
    result = active([20, 19, 4])  # 25 = 25
    assert result.hit
    assert result.judgement.rule == "R14.3"
    assert not result.judgement.critical


def test_r14_step3_attacker_natural_20_below_the_defense_still_hits_without_crit() -> None:
    result = active([20, 19, 4], stab(situational=-10))  # 15 < 25
    assert result.attack.total == 15
    assert result.hit
    assert not result.judgement.critical


def test_r14_step3_both_natural_20_is_a_hit_and_a_counterattack() -> None:
    result = active([20, 20, 6])  # 25 < 26
    assert result.hit
    assert result.judgement.rule == "R14.3"
    assert result.judgement.counterattack
    assert not result.judgement.critical


def test_r14_step4_defender_natural_20_is_a_miss_and_a_counterattack() -> None:
    result = active([18, 20], stab(situational=10))  # 33 > 26 still misses
    assert result.outcome is Outcome.MISS
    assert result.judgement.rule == "R14.4"
    assert result.judgement.counterattack
    assert result.counterattacker == "Brun"


def test_r14_step5_attacker_fumble_is_a_miss_and_a_counterattack() -> None:
    result = active([1, 10])
    assert result.outcome is Outcome.MISS
    assert result.judgement.rule == "R14.5"
    assert result.judgement.fumble
    assert result.judgement.counterattack


def test_r14_step5_every_attack_die_showing_1_fumbles() -> None:
    result = active([1, 1, 10], stab(dice=2))
    assert result.judgement.rule == "R14.5"
    assert result.judgement.fumble


def test_r14_step5_choosing_the_1_from_1_and_7_is_not_a_fumble() -> None:
    attacker, defender = ansel(), brun()
    dice = ScriptedDice([1, 7, 10])
    rolled = roll_attack(attacker, defender, stab(dice=2), dice).choose(0)
    defense = roll_active_defense(defender, rolled, dice, committed=1)
    result = resolve_exchange(attacker, defender, rolled, defense, dice)
    assert result.outcome is Outcome.MISS
    assert result.judgement.rule == "R14.7"
    assert not result.judgement.fumble
    assert not result.judgement.counterattack


def test_r14_step6_same_face_is_a_bind_whatever_the_totals() -> None:
    result = active([12, 12], stab(situational=10))  # 27 > 18
    assert result.outcome is Outcome.BIND
    assert result.judgement.rule == "R14.6"
    assert result.damage is None


def test_r14_step6_void_defense_has_no_bind_and_totals_decide() -> None:
    result = active([12, 12, 3], void=True)  # 17 > 12 + 2 + 1 (no weapon DB)
    assert result.defense.total == 15
    assert result.hit
    assert result.judgement.rule == "R14.7"


def test_r14_step7_attack_total_above_defense_hits() -> None:
    result = active([15, 8, 5])  # 20 > 14
    assert result.hit
    assert result.judgement.rule == "R14.7"
    assert result.damage is not None
    assert result.damage.lethal == 5


def test_r14_step7_equal_totals_miss() -> None:
    result = active([14, 13])  # 19 = 19
    assert result.attack.total == result.defense.total == 19
    assert result.outcome is Outcome.MISS
    assert result.judgement.rule == "R14.7"


def test_r14_step7_lower_total_misses() -> None:
    assert active([10, 13]).outcome is Outcome.MISS  # 15 < 19


def test_r14_active_defense_total_is_die_prowess_capped_dex_and_weapon_db() -> None:
    result = active([5, 9], defender=brun(dex_mod=4, armor=gambeson(max_dex=2)))
    assert result.defense.total == 9 + 2 + 2 + 3


def test_r14_active_defense_needs_a_pool_die() -> None:
    attacker, defender = ansel(), brun(shield=shield())
    rolled = roll_attack(attacker, defender, stab(), ScriptedDice([10]))
    with pytest.raises(IllegalAction, match="at least one Martial Pool die"):
        roll_active_defense(defender, rolled, ScriptedDice([]), committed=0, shield=True)


def test_r14_shield_adds_a_free_die_and_its_better_db() -> None:
    result = active([10, 6, 9], defender=brun(shield=shield(defense=4)), shield=True)
    assert result.defense.roll is not None
    assert result.defense.roll.faces == (6, 9)
    assert result.defense.roll.committed == 1
    assert result.defense.bonus[-1] == Modifier(label="Round Shield", value=4)
    assert result.defense.total == 9 + 2 + 1 + 4
    assert result.outcome is Outcome.MISS  # 15 < 16


def test_r14_weapon_db_counts_when_better_than_the_shield_db() -> None:
    result = active([10, 6, 9], defender=brun(shield=shield(defense=2)), shield=True)
    assert result.defense.bonus[-1] == Modifier(label="Arming Sword", value=3)
    assert result.defense.total == 9 + 2 + 1 + 3


def test_r14_weapon_db_does_not_count_against_missiles() -> None:
    result = active([10, 15], attacker=ansel(weapon=bow()))  # 14 < 18
    assert result.defense.total == 15 + 2 + 1
    assert result.outcome is Outcome.MISS


def test_r14_shield_db_counts_against_missiles() -> None:
    result = active([10, 6, 9], attacker=ansel(weapon=bow()), defender=brun(shield=shield()), shield=True)
    assert result.defense.total == 9 + 2 + 1 + 4


def test_r14_cover_adds_a_free_die_per_quarter_against_missiles() -> None:
    attacker, defender = ansel(weapon=bow()), brun()
    rolled = roll_attack(attacker, defender, stab(), ScriptedDice([10]))
    dice = ScriptedDice([3, 16, 7])
    defense = roll_active_defense(defender, rolled, dice, committed=1, cover_quarters=2)
    assert dice.remaining == 0
    assert defense.roll is not None
    assert defense.roll.faces == (3, 16, 7)
    assert defense.roll.committed == 1
    assert defense.total == 16 + 3


def test_r14_cover_adds_nothing_against_melee() -> None:
    attacker, defender = ansel(), brun()
    rolled = roll_attack(attacker, defender, stab(), ScriptedDice([10]))
    dice = ScriptedDice([3, 16, 7])
    defense = roll_active_defense(defender, rolled, dice, committed=1, cover_quarters=2)
    assert defense.roll is not None
    assert defense.roll.faces == (3,)
    assert dice.remaining == 2


def test_r14_no_weapon_db_at_grapple() -> None:
    attacker = ansel(weapon=dagger())
    result = active([10, 15], stab(range=Range.GRAPPLE), attacker=attacker)  # 10 + 2 + Speed 6 = 18
    assert result.defense.total == 15 + 2 + 1
    assert result.outcome is Outcome.MISS


def test_r14_no_active_shield_at_grapple() -> None:
    attacker, defender = ansel(weapon=dagger()), brun(shield=shield())
    rolled = roll_attack(attacker, defender, stab(range=Range.GRAPPLE), ScriptedDice([10]))
    with pytest.raises(IllegalAction, match="passively only"):
        roll_active_defense(defender, rolled, ScriptedDice([5, 5]), committed=1, shield=True)


def test_r14_shield_still_defends_passively_at_grapple() -> None:
    result = resolve(
        [7], stab(range=Range.GRAPPLE), attacker=ansel(weapon=dagger()), defender=brun(shield=shield())
    )
    assert result.defense.total == 8 + 2 + 1 + 4
    assert result.attack.total == 7 + 2 + 6
    assert result.outcome is Outcome.BIND  # 15 = 15


# --------------------------------------------------------------------------------- R15 desperation


def _hit_on_active(faces: list[int] | None = None) -> AttackResult:
    first = active(faces or [15, 5, 6])  # 20 > 11, 1d8 6
    assert first.hit
    return first


def test_r15_better_second_defense_stands() -> None:
    first = _hit_on_active()
    dice = ScriptedDice([18, 3])
    outcome = desperation_defense(first, ansel(), brun(), dice, dice_left=2, defender_has_initiative=False)
    assert dice.remaining == 0
    assert outcome.improved
    assert outcome.result.outcome is Outcome.MISS  # 20 < 24
    assert outcome.result.damage is None
    assert outcome.result.desperation is not None
    assert outcome.result.desperation.roll is not None
    assert outcome.result.desperation.roll.faces == (18, 3)


def test_r15_worse_second_defense_leaves_the_first_hit_standing() -> None:
    first = _hit_on_active()
    dice = ScriptedDice([7, 2])  # 13 < 20: hit again (its 1d8 is rolled and discarded)
    outcome = desperation_defense(first, ansel(), brun(), dice, dice_left=1, defender_has_initiative=False)
    assert not outcome.improved
    assert outcome.result.hit
    assert outcome.result.damage is not None
    assert outcome.result.damage.faces == (6,)
    assert outcome.result.desperation is not None


def test_r15_a_bind_on_the_second_defense_stands() -> None:
    first = _hit_on_active()
    outcome = desperation_defense(
        first, ansel(), brun(), ScriptedDice([15]), dice_left=1, defender_has_initiative=False
    )
    assert outcome.improved
    assert outcome.result.outcome is Outcome.BIND


def test_r15_refused_after_a_passive_defense() -> None:
    first = resolve([15, 6])
    assert first.hit
    with pytest.raises(IllegalAction, match="active defense only"):
        desperation_defense(
            first, ansel(), brun(), ScriptedDice([]), dice_left=2, defender_has_initiative=False
        )


def test_r15_refused_when_the_attack_did_not_hit() -> None:
    first = active([5, 15])
    with pytest.raises(IllegalAction, match="did not"):
        desperation_defense(
            first, ansel(), brun(), ScriptedDice([]), dice_left=2, defender_has_initiative=False
        )


def test_r15_refused_without_dice_left() -> None:
    with pytest.raises(IllegalAction, match="at least one die"):
        desperation_defense(
            _hit_on_active(), ansel(), brun(), ScriptedDice([]), dice_left=0, defender_has_initiative=False
        )


def test_r15_defender_with_the_initiative_swaps_initiative() -> None:
    outcome = desperation_defense(
        _hit_on_active(), ansel(), brun(), ScriptedDice([18]), dice_left=1, defender_has_initiative=True
    )
    assert outcome.swap_initiative
    assert outcome.pool_penalty == 0


def test_r15_defender_without_the_initiative_loses_a_die_next_round() -> None:
    pool = MartialPool.full(3)
    pool.spend(1, Spend.ACTIVE_DEFENSE)
    left = pool.spend_all(Spend.DESPERATION_DEFENSE)
    outcome = desperation_defense(
        _hit_on_active(),
        ansel(),
        brun(),
        ScriptedDice([18, 2]),
        dice_left=left,
        defender_has_initiative=False,
    )
    assert not outcome.swap_initiative
    assert outcome.pool_penalty == 1
    pool.penalty_next_round += outcome.pool_penalty
    assert pool.refill(3) == 2


# --------------------------------------------------------------------------------- R16 criticals


def _crit(attacker: Fighter, attack: Attack, faces: list[int], options: RuleOptions | None = None) -> Any:
    dice = ScriptedDice(faces)
    damage = roll_damage(attacker, brun(), attack, dice, critical=True, options=options)
    assert dice.remaining == 0
    return damage


@pytest.mark.parametrize(
    ("weapon", "attack_type", "crit_face", "sides"),
    [
        (mace(), BASH, 6, 6),
        (sword(), PIERCE, 6, 6),
        (sword(), CHOP, 8, 8),
        (sword(), SLASH, 10, 10),
    ],
)
def test_r16_crit_die_by_attack_type(
    weapon: Any, attack_type: AttackType, crit_face: int, sides: int
) -> None:
    damage = _crit(ansel(weapon=weapon), stab(attack_type=attack_type), [4, crit_face])
    assert damage.critical_die == sides
    assert damage.critical_faces == (crit_face,)
    assert damage.critical_damage == crit_face
    assert damage.before_dr == 4 + crit_face


def test_r16_dynamic_crit_rolls_one_die_per_attack_die_for_a_primary_type() -> None:
    damage = _crit(ansel(), stab(attack_type=PIERCE, dice=3), [4, 1, 2, 3])
    assert damage.dynamic
    assert damage.critical_faces == (1, 2, 3)
    assert damage.critical_damage == 6
    assert damage.lethal == 10


def test_r16_dynamic_crit_with_two_chop_dice_rolls_2d8() -> None:
    damage = _crit(ansel(), stab(attack_type=CHOP, dice=2), [4, 8, 7])
    assert damage.critical_die == 8
    assert damage.critical_faces == (8, 7)


def test_r16_non_primary_type_rolls_one_crit_die_whatever_the_dice() -> None:
    damage = _crit(ansel(), stab(attack_type=SLASH, dice=3), [4, 9])
    assert not damage.dynamic
    assert damage.critical_faces == (9,)


def test_r16_primary_type_with_one_die_rolls_one_crit_die() -> None:
    damage = _crit(ansel(), stab(attack_type=PIERCE, dice=1), [4, 5])
    assert not damage.dynamic
    assert damage.critical_faces == (5,)


def test_r16_dynamic_criticals_off_rolls_one_crit_die() -> None:
    damage = _crit(ansel(), stab(dice=3), [4, 5], RuleOptions(dynamic_criticals=False))
    assert damage.critical_faces == (5,)


def test_r16_option_simple_crit_is_always_one_d10() -> None:
    options = RuleOptions(critical_damage=CriticalDamage.SIMPLE_D10)
    damage = _crit(ansel(), stab(dice=3), [4, 10], options)
    assert damage.critical_die == 10
    assert damage.critical_faces == (10,)
    assert damage.lethal == 14


def test_r16_option_double_damage_doubles_the_weapon_roll() -> None:
    options = RuleOptions(critical_damage=CriticalDamage.DOUBLE)
    damage = _crit(ansel(), stab(dice=3), [5], options)
    assert damage.critical_faces == ()
    assert damage.critical_damage == 5
    assert damage.lethal == 10


def test_r16_bash_crit_is_nonlethal_by_default() -> None:
    damage = _crit(ansel(weapon=mace()), stab(attack_type=BASH), [3, 5])
    assert damage.lethal == 3
    assert damage.nonlethal == 5
    assert damage.knockout_threat is None


def test_r16_option_bash_crit_knockout_threat_is_basic_plus_crit() -> None:
    options = RuleOptions(bash_critical=BashCritical.KNOCKOUT)
    damage = _crit(ansel(weapon=mace()), stab(attack_type=BASH), [3, 5], options)
    assert damage.knockout_threat == 8
    assert damage.nonlethal == 0
    assert damage.lethal == 3


def test_r16_knockout_threat_is_taken_before_dr_and_the_basic_damage_after_it() -> None:
    options = RuleOptions(bash_critical=BashCritical.KNOCKOUT)
    dice = ScriptedDice([6, 5])  # mace 1d6 6, bash crit d6 5, against mail DR 8 (Pierce column)
    damage = roll_damage(
        ansel(weapon=mace()), brun(armor=mail()), stab(attack_type=BASH), dice, critical=True, options=options
    )
    assert damage.knockout_threat == 11
    assert damage.lethal == 0
    assert damage.nonlethal == 0


def test_r16_natural_20_against_passive_hits_but_crits_only_above_it() -> None:
    low = resolve([20, 4], stab(situational=-20))  # 5 < 11
    assert low.hit
    assert not low.judgement.critical
    high = resolve([20, 4, 6])  # 25 > 11
    assert high.judgement.critical


# --------------------------------------------------------------------------------- R17 armor

BIG = "3d10"


def _damage(
    attacker: Fighter,
    defender: Fighter,
    attack: Attack,
    faces: list[int],
    options: RuleOptions | None = None,
    critical: bool = False,
) -> Any:
    dice = ScriptedDice(faces)
    damage = roll_damage(attacker, defender, attack, dice, critical=critical, options=options)
    assert dice.remaining == 0
    return damage


@pytest.mark.parametrize("attack_type", [PIERCE, CHOP, SLASH])
def test_r17_pierce_column_by_default(attack_type: AttackType) -> None:
    damage = _damage(
        ansel(weapon=sword(damage=BIG)), brun(armor=mail()), stab(attack_type=attack_type), [10] * 3
    )
    assert damage.dr == 8
    assert damage.lethal == 22


@pytest.mark.parametrize(("attack_type", "dr"), [(PIERCE, 8), (CHOP, 16), (SLASH, 24)])
def test_r17_option_attack_types_vs_armor_uses_the_type_column(attack_type: AttackType, dr: int) -> None:
    options = RuleOptions(attack_types_vs_armor=True)
    damage = _damage(
        ansel(weapon=sword(damage=BIG)), brun(armor=mail()), stab(attack_type=attack_type), [10] * 3, options
    )
    assert damage.dr == dr
    assert damage.lethal == 30 - dr


def test_r17_option_attack_types_vs_armor_bash_uses_pierce() -> None:
    options = RuleOptions(attack_types_vs_armor=True)
    damage = _damage(
        ansel(weapon=mace(damage=BIG)), brun(armor=mail()), stab(attack_type=BASH), [10] * 3, options
    )
    assert damage.dr == 8


def test_r17_armor_piercing_lowers_dr() -> None:
    damage = _damage(ansel(weapon=dagger(damage=BIG)), brun(armor=mail()), stab(), [10] * 3)
    assert damage.dr == 6
    assert damage.armor_piercing == 2
    assert damage.lethal == 24


def test_r17_armor_piercing_never_takes_dr_below_0() -> None:
    weapon = dagger(damage="1d6", armor_piercing=10)
    damage = _damage(ansel(weapon=weapon), brun(armor=gambeson()), stab(), [4])
    assert damage.dr == 0
    assert damage.lethal == 4


def test_r17_damage_below_dr_does_nothing() -> None:
    damage = _damage(ansel(), brun(armor=mail()), stab(), [5])
    assert damage.lethal == 0


def test_r17_crit_and_joker_are_combined_with_weapon_damage_before_dr() -> None:
    damage = _damage(ansel(), brun(armor=mail()), stab(joker_bonus=2), [5, 4], critical=True)
    assert damage.before_dr == 5 + 2 + 4
    assert damage.lethal == 11 - 8


def test_r17_bypass_penalty_applies_to_the_total() -> None:
    result = resolve([8], stab(bypass=True), defender=brun(dex_mod=0, armor=mail()))  # 8 + 5 - 5 = 8 < 10
    assert result.attack.total == 8
    assert result.outcome is Outcome.MISS


def test_r17_bypass_hit_ignores_dr() -> None:
    result = resolve([12, 7], stab(bypass=True), defender=brun(dex_mod=0, armor=mail()))  # 12 > 10
    assert result.hit
    assert result.damage is not None
    assert result.damage.bypassed
    assert result.damage.dr == 0
    assert result.damage.lethal == 7


def test_r17_bypass_needs_working_armor() -> None:
    with pytest.raises(IllegalAction, match="no working armor"):
        roll_attack(ansel(), brun(), stab(bypass=True), ScriptedDice([10]))
    with pytest.raises(IllegalAction, match="no working armor"):
        roll_attack(ansel(), brun(armor=mail(), armor_hp=0), stab(bypass=True), ScriptedDice([10]))


def test_r17_attacking_the_armor_damages_the_armor_minus_hardness_not_hp() -> None:
    damage = _damage(ansel(weapon=sword(damage=BIG)), brun(armor=mail()), stab(at_armor=True), [10, 9, 8])
    assert damage.dr == 5
    assert damage.armor_damage == 27 - 5
    assert damage.lethal == 0
    assert damage.nonlethal == 0


def test_r17_attacking_the_armor_below_hardness_does_nothing() -> None:
    damage = _damage(ansel(), brun(armor=mail()), stab(at_armor=True), [4])
    assert damage.armor_damage == 0
    assert damage.lethal == 0


def test_r17_armor_at_0_hp_gives_no_dr() -> None:
    damage = _damage(ansel(weapon=sword(damage=BIG)), brun(armor=mail(), armor_hp=0), stab(), [10] * 3)
    assert damage.dr == 0
    assert damage.lethal == 30


def test_r17_damaged_armor_above_0_hp_keeps_its_dr() -> None:
    damage = _damage(ansel(weapon=sword(damage=BIG)), brun(armor=mail(), armor_hp=1), stab(), [10] * 3)
    assert damage.dr == 8


def test_r17_bind_against_an_active_shield_damages_the_shield() -> None:
    result = active([12, 12, 5, 8], defender=brun(shield=shield(toughness=3)), shield=True)
    assert result.outcome is Outcome.BIND
    assert result.shield_damage is not None
    assert result.shield_damage.faces == (8,)
    assert result.shield_damage.toughness == 3
    assert result.shield_damage.damage == 5
    assert result.damage is None


def test_r17_bind_without_an_active_shield_damages_no_shield() -> None:
    result = active([12, 12], defender=brun(shield=shield()))
    assert result.outcome is Outcome.BIND
    assert result.shield_damage is None


# --------------------------------------------------------------------------------- R18 fumble vs passive


def test_r18_natural_1_against_passive_is_a_miss_and_a_fumble() -> None:
    result = resolve([1], stab(situational=20))  # 26 would beat 11
    assert result.outcome is Outcome.MISS
    assert result.judgement.fumble
    assert result.judgement.rule == "R18"
    assert not result.judgement.counterattack


def test_r18_chosen_1_from_several_dice_against_passive_is_not_a_fumble() -> None:
    attacker, defender = ansel(), brun()
    rolled = roll_attack(attacker, defender, stab(dice=2), ScriptedDice([1, 7])).choose(0)
    result = resolve_exchange(attacker, defender, rolled, passive_defense(defender), ScriptedDice([]))
    assert result.outcome is Outcome.MISS  # 6 < 11
    assert not result.judgement.fumble


# --------------------------------------------------------------------------------- R26 two weapons


def _dual(**over: Any) -> Fighter:
    return ansel(off_hand=dagger(), **over)


def test_r26_two_weapons_adds_1_to_the_attack() -> None:
    rolled = roll_attack(_dual(), brun(), stab(two_weapons=True), ScriptedDice([10]))
    assert rolled.total == 10 + 2 + 3 + 1


def test_r26_both_damages_rolled_and_the_better_kept() -> None:
    result = resolve([15, 3, 5], stab(two_weapons=True), attacker=_dual())  # d8 3, d6 5
    assert result.damage is not None
    assert result.damage.weapon_damage == 3
    assert result.damage.off_hand_damage == 5
    assert result.damage.off_hand_weapon == "Dagger"
    assert result.damage.lethal == 5
    assert result.damage.before_dr == 5  # the better weapon's damage is the one before DR


def test_r26_main_weapon_damage_kept_when_better() -> None:
    result = resolve([15, 7, 2], stab(two_weapons=True), attacker=_dual())
    assert result.damage is not None
    assert result.damage.lethal == 7


def test_r26_refused_without_an_off_hand_weapon() -> None:
    with pytest.raises(IllegalAction, match="needs an off-hand weapon"):
        check_two_weapons(sword(), None)


def test_r26_refused_with_a_two_handed_weapon() -> None:
    with pytest.raises(IllegalAction, match="cannot be used for two-weapon fighting"):
        check_two_weapons(sword(two_handed=True), dagger())


def test_r26_refused_with_a_spear() -> None:
    with pytest.raises(IllegalAction, match="cannot be used for two-weapon fighting"):
        check_two_weapons(sword(), dagger(spear_or_lance=True))


def test_r26_refused_when_both_weapons_are_martial() -> None:
    with pytest.raises(IllegalAction, match="Only one of the two weapons may be a martial weapon"):
        check_two_weapons(sword(), dagger(martial=True))


def test_r26_one_martial_and_one_simple_is_allowed() -> None:
    off = dagger()
    assert check_two_weapons(sword(), off) is off


def test_r26_refused_attack_rolls_no_die() -> None:
    dice = ScriptedDice([10])
    with pytest.raises(IllegalAction, match="needs an off-hand weapon"):
        roll_attack(ansel(), brun(), stab(two_weapons=True), dice)
    assert dice.remaining == 1


# --------------------------------------------------------------------------------- R14 missiles


def test_r14_step6_a_missile_tie_is_a_near_miss_by_default() -> None:
    result = active([9, 9], attacker=ansel(weapon=bow()))  # 13 against 12, but the faces tie
    assert result.outcome is Outcome.MISS
    assert result.judgement.near_miss
    assert result.judgement.rule == "R14.6"
    assert result.damage is None


def test_r14_step6_option_a_missile_tie_binds() -> None:
    options = RuleOptions(missile_tie=MissileTie.BIND)
    result = active([9, 9], attacker=ansel(weapon=bow()), options=options)
    assert result.outcome is Outcome.BIND


def test_r13_a_missile_equal_to_passive_defense_is_a_near_miss() -> None:
    result = resolve([7], attacker=ansel(weapon=bow()))  # 7 + 2 + 2 = 11 = 8 + 2 + 1
    assert result.outcome is Outcome.MISS
    assert result.judgement.near_miss


@pytest.mark.parametrize(
    ("option", "what"), [("bypass", "bypass the armor"), ("at_armor", "strike at the armor")]
)
def test_r12_a_grapple_cannot_also_bypass_or_strike_the_armor(option: str, what: str) -> None:
    """A grapple that hits deals no damage, so a bypass or a strike at the armor declared with it was
    silently dropped; it is refused, saying why."""
    grappler = ansel(weapon=dagger())
    with pytest.raises(IllegalAction, match=f"cannot also {what}"):
        check_attack(grappler, brun(armor=gambeson()), stab(grapple=True, **{option: True}))
