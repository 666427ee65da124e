"""Martial Feats applied by their effect (R13, R14, R17), the passive tie a side declares a Bind (R13),
and Damage to Weapons During Binds (R17): fixed dice, each test quoting the Codex's sentence."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

import pytest

from bot.rules.attack_rolls import Attack, attack_bonus
from bot.rules.defenses import active_defense_bonus, passive_defense
from bot.rules.dice import ScriptedDice
from bot.rules.engagement import Range
from bot.rules.equipment import AttackType
from bot.rules.errors import IllegalAction
from bot.rules.exchange import resolve_attack, resolve_exchange
from bot.rules.feats import MartialFeat, bind_feat
from bot.rules.judgement import Outcome, passive_ties_declared
from bot.rules.odds import attack_odds
from bot.rules.options import PassiveTie, RuleOptions
from tests.rules.conftest import bow, breakdown, fighter, shield

DECLARED = RuleOptions(passive_tie=PassiveTie.DECLARED)
WEAPON_DAMAGE = RuleOptions(weapon_damage_in_binds=True)


def chop(**over: object) -> Attack:
    fields: dict[str, object] = {"attack_type": AttackType.CHOP, "dice": 1, "range": Range.MELEE}
    return Attack(**(fields | over))


# ----------------------------------------------------------------------------- the defense feats


def test_missile_parrying_counts_the_weapon_db_against_missiles() -> None:
    """Codex: "Your weapons Defense bonus does not apply in Active Defense against Missiles (unless you
    have the Missile Parrying MF), but your shields Defense bonus does." """
    plain = fighter("Brun")
    parrying = fighter("Brun", feats=frozenset({MartialFeat.MISSILE_PARRYING}))
    without = active_defense_bonus(plain, missile=True, at=Range.ONSET, shield=False, void=False)
    with_feat = active_defense_bonus(parrying, missile=True, at=Range.ONSET, shield=False, void=False)
    assert breakdown(without) == (("Prowess", 2), ("Dex", 0))
    assert breakdown(with_feat) == (("Prowess", 2), ("Dex", 0), ("Arming Sword", 3))
    # Still not at Grapple, where no weapon DB counts (R12); and a void defense counts none (R14).
    assert breakdown(
        active_defense_bonus(parrying, missile=True, at=Range.GRAPPLE, shield=False, void=False)
    ) == (
        ("Prowess", 2),
        ("Dex", 0),
    )


def test_the_shield_and_weapon_feat_adds_both_defense_bonuses() -> None:
    """Codex: "Normally when fighting with a shield, either the weapon's defense value OR the shields
    defense value is used to calculate Active Defense (whichever is higher). [...] Certain Martial Feats
    allow you to combine the DB of your shield with that of your weapon." """
    plain = fighter("Brun", shield=shield())
    combined = fighter("Brun", shield=shield(), feats=frozenset({MartialFeat.SHIELD_AND_WEAPON}))
    assert breakdown(active_defense_bonus(plain, missile=False, at=Range.MELEE, shield=True, void=False)) == (
        ("Prowess", 2),
        ("Dex", 0),
        ("Round Shield", 4),
    )
    assert breakdown(
        active_defense_bonus(combined, missile=False, at=Range.MELEE, shield=True, void=False)
    ) == (("Prowess", 2), ("Dex", 0), ("Arming Sword", 3), ("Round Shield", 4))
    # Without the shield in the defense there is nothing to add to.
    assert breakdown(
        active_defense_bonus(combined, missile=False, at=Range.MELEE, shield=False, void=False)
    ) == (("Prowess", 2), ("Dex", 0), ("Arming Sword", 3))


def test_the_passive_weapon_feat_counts_the_weapon_db_in_passive_defense() -> None:
    """Codex: "Normally weapon defense does not apply to Passive Defense (some Martial Feats trump this,
    see Martial Feats), but Shield Defense always does apply." """
    assert passive_defense(fighter("Brun")).total == 8 + 2
    feat = fighter("Brun", feats=frozenset({MartialFeat.PASSIVE_WEAPON}))
    assert passive_defense(feat).total == 8 + 2 + 3
    assert passive_defense(feat, at=Range.GRAPPLE).total == 8 + 2  # no weapon DB at Grapple (R12)
    assert passive_defense(feat, missile=True).total == 8 + 2  # nor against missiles, without parrying
    both = fighter("Brun", feats=frozenset({MartialFeat.PASSIVE_WEAPON, MartialFeat.MISSILE_PARRYING}))
    assert passive_defense(both, missile=True).total == 8 + 2 + 3
    # With a shield: the better of the two, or both with the feat that adds them.
    shielded = fighter("Brun", shield=shield(), feats=frozenset({MartialFeat.PASSIVE_WEAPON}))
    assert passive_defense(shielded).total == 8 + 2 + 4
    adding = shielded.model_copy(update={"feats": shielded.feats | {MartialFeat.SHIELD_AND_WEAPON}})
    assert passive_defense(adding).total == 8 + 2 + 4 + 3


def test_feats_the_odds_see_are_the_ones_the_attack_uses() -> None:
    """The exact odds take the defense's bonus from the same functions: a defender with Missile Parrying
    shot at is as hard to hit in /odds as in /attack."""
    archer = fighter("Ansel", weapon=bow())
    parrying = fighter("Brun", feats=frozenset({MartialFeat.MISSILE_PARRYING}))
    bonus = active_defense_bonus(parrying, missile=True, at=Range.ONSET, shield=False, void=False)
    shot = Attack(attack_type=AttackType.PIERCE, dice=1, range=Range.ONSET)
    # Attack 10 + 2 + 2 = 14 against a defense of 9 + 5 = 14: a miss (not above), where without the
    # feat the defense is 11 and the shot hits.
    result = resolve_attack(
        archer, parrying, shot, ScriptedDice([10, 9, 1]), defense="active", defense_dice=1
    )
    assert result.defense.total == 14
    assert result.outcome is Outcome.MISS
    odds = attack_odds(
        attack_dice=1, attack_bonus=4, defense_dice=1, defense_bonus=sum(m.value for m in bonus)
    )
    assert odds == attack_odds(attack_dice=1, attack_bonus=4, defense_dice=1, defense_bonus=5)


def test_bind_feats_are_bind_and_strike_and_mutieren() -> None:
    """Codex: "If two opponents both have MF triggered by a Bind, such as for example if the attacker has
    Mutieren MF but the defender has Bind & Strike MF, these attacks take place simultaneously." """
    assert bind_feat({MartialFeat.MUTIEREN}) is MartialFeat.MUTIEREN
    assert bind_feat({MartialFeat.BIND_AND_STRIKE, MartialFeat.FUHLEN}) is MartialFeat.BIND_AND_STRIKE
    assert bind_feat({MartialFeat.FUHLEN, MartialFeat.MISSILE_PARRYING}) is None


# ----------------------------------------------------------------------------- the passive tie


def test_a_passive_tie_is_a_bind_by_default() -> None:
    """Today's reading (the default): every tie against a passive defense is a Bind."""
    result = resolve_attack(fighter(), fighter("Brun"), chop(), ScriptedDice([5]))  # 5 + 5 = 10 = 8 + 2
    assert result.outcome is Outcome.BIND
    assert not result.judgement.declarable


def test_with_declared_ties_a_passive_tie_is_a_miss_a_side_may_declare_a_bind() -> None:
    """Codex: "A die roll value which is equal to the targets Passive Defense is a Miss, but it also
    counts as a Bind. Either attacker or defender can declare a Bind if they have any MP remaining." """
    assert passive_ties_declared(DECLARED)
    result = resolve_attack(fighter(), fighter("Brun"), chop(), ScriptedDice([5]), options=DECLARED)
    assert result.outcome is Outcome.MISS
    assert result.judgement.declarable
    assert result.judgement.rule == "R13"
    declared = resolve_exchange(
        fighter(),
        fighter("Brun"),
        result.attack,
        result.defense,
        ScriptedDice([]),
        DECLARED,
        bind_declared=True,
    )
    assert declared.outcome is Outcome.BIND
    assert declared.judgement.rule == "R13"


def test_only_a_passive_tie_can_be_declared_a_bind() -> None:
    result = resolve_attack(fighter(), fighter("Brun"), chop(), ScriptedDice([6, 1]), options=DECLARED)
    assert result.hit
    with pytest.raises(IllegalAction, match="Only a tie against a passive defense"):
        resolve_exchange(
            fighter(),
            fighter("Brun"),
            result.attack,
            result.defense,
            ScriptedDice([1]),
            DECLARED,
            bind_declared=True,
        )


def test_declared_ties_move_the_bind_odds_into_the_miss() -> None:
    """The exact odds follow the option: the tie's face leaves the Bind for the miss, counted apart."""
    today = attack_odds(attack_dice=1, attack_bonus=4, passive_defense=14)
    declared = attack_odds(attack_dice=1, attack_bonus=4, passive_defense=14, options=DECLARED)
    assert today.bind == Fraction(1, 20)
    assert today.declarable == 0
    assert declared.bind == 0
    assert declared.declarable == Fraction(1, 20)
    assert declared.miss == today.miss + Fraction(1, 20)
    # A missile's tie is a near miss first (missile_tie), never a Bind to declare.
    shot = attack_odds(attack_dice=1, attack_bonus=4, passive_defense=14, missile=True, options=DECLARED)
    assert shot.declarable == 0
    assert shot.near_miss == Fraction(1, 20)


# ----------------------------------------------------------------------------- weapon damage in binds


def test_weapon_damage_in_binds_is_off_by_default() -> None:
    """Codex: "If you are using the optional rule Damage to Weapons During Binds the attacker has
    potentially damaged the defenders weapon." Without the option, a Bind leaves the weapon alone."""
    result = resolve_attack(fighter(), fighter("Brun"), chop(), ScriptedDice([5]))
    assert result.outcome is Outcome.BIND
    assert result.weapon_damage is None


def test_weapon_damage_in_binds_names_the_defenders_weapon_and_fuhlen_is_immune() -> None:
    """Codex: "(On the other hand the Fuhlen MF confers immunity from your weapon being damaged in a
    bind.)" The Codex gives no number for the damage: how much is the GM's."""
    bound = resolve_attack(fighter(), fighter("Brun"), chop(), ScriptedDice([5]), options=WEAPON_DAMAGE)
    assert bound.weapon_damage is not None
    assert (bound.weapon_damage.weapon, bound.weapon_damage.fuhlen) == ("Arming Sword", False)
    fuhlen = fighter("Brun", feats=frozenset({MartialFeat.FUHLEN}))
    immune = resolve_attack(fighter(), fuhlen, chop(), ScriptedDice([5]), options=WEAPON_DAMAGE)
    assert immune.weapon_damage is not None
    assert immune.weapon_damage.fuhlen
    # A Bind on an active shield defense strikes the shield (R17), not the weapon.
    shielded = fighter("Brun", shield=shield())
    on_shield = resolve_attack(
        fighter(),
        shielded,
        chop(),
        ScriptedDice([9, 9, 2, 1]),
        defense="active",
        defense_dice=1,
        shield=True,
        options=WEAPON_DAMAGE,
    )
    assert on_shield.outcome is Outcome.BIND
    assert on_shield.shield_damage is not None
    assert on_shield.weapon_damage is None
    # A miss or a hit damages no weapon.
    missed = resolve_attack(fighter(), fighter("Brun"), chop(), ScriptedDice([2]), options=WEAPON_DAMAGE)
    assert missed.weapon_damage is None


# ----------------------------------------------------------------------------- attacking a shield


def test_a_shield_is_attacked_like_armor() -> None:
    """Codex: "A shield used for Passive Defense may also be targeted for attack like Armor (see Attacking
    Armor)" — "Hardness is deducted as Damage Reduction and any remaining damage is applied against the
    armor's Hit Points"; a shield's Toughness plays the Hardness (R17)."""
    shielded = fighter("Brun", shield=shield())  # passive 8 + 2 + 4 = 14
    result = resolve_attack(fighter(), shielded, chop(at_shield=True), ScriptedDice([12, 6]))
    assert result.hit  # 12 + 5 = 17
    assert result.damage is not None
    assert (result.damage.shield, result.damage.dr, result.damage.shield_damage) == ("Round Shield", 3, 3)
    assert result.damage.lethal == 0  # the bearer takes nothing


def test_an_attack_at_the_shield_needs_a_working_shield_and_strikes_nothing_else() -> None:
    with pytest.raises(IllegalAction, match="Brun carries no shield to attack"):
        resolve_attack(fighter(), fighter("Brun"), chop(at_shield=True), ScriptedDice([12, 6]))
    broken = fighter("Brun", shield=shield(), shield_hp=0)
    with pytest.raises(IllegalAction, match="Round Shield is already broken"):
        resolve_attack(fighter(), broken, chop(at_shield=True), ScriptedDice([12, 6]))
    shielded = fighter("Brun", shield=shield())
    with pytest.raises(IllegalAction, match="it cannot also strike at the armor"):
        resolve_attack(fighter(), shielded, chop(at_shield=True, at_armor=True), ScriptedDice([12, 6]))


# ----------------------------------------------------------------------------- the exact odds stay exact


@pytest.mark.parametrize(
    ("attack_dice", "defense_dice", "options"),
    [
        pytest.param(1, 0, DECLARED, id="1 die vs passive, declared ties"),
        pytest.param(2, 0, DECLARED, id="2 dice vs passive, declared ties"),
        pytest.param(1, 1, DECLARED, id="1 vs 1 active, declared ties"),
        pytest.param(1, 0, WEAPON_DAMAGE, id="1 die vs passive, weapon damage"),
    ],
)
def test_exact_odds_equal_a_full_enumeration_with_the_new_options_and_feats(
    attack_dice: int, defense_dice: int, options: RuleOptions
) -> None:
    """Every face of every die through resolve_attack, against a defender holding the feat that puts its
    weapon's DB in the passive defense: the counts are the exact odds, the declarable tie included."""
    attacker = fighter()
    defender = fighter("Brun", feats=frozenset({MartialFeat.PASSIVE_WEAPON}))
    attack = chop(dice=attack_dice)
    bonus = sum(m.value for m in attack_bonus(attacker, defender, attack))
    passive = passive_defense(defender, at=Range.MELEE).total
    defense_bonus = sum(
        m.value
        for m in active_defense_bonus(defender, missile=False, at=Range.MELEE, shield=False, void=False)
    )
    exact = attack_odds(
        attack_dice=attack_dice,
        attack_bonus=bonus,
        passive_defense=None if defense_dice else passive,
        defense_dice=defense_dice,
        defense_bonus=defense_bonus,
        options=options,
    )
    seen: Counter[str] = Counter()
    rolls = 0
    for faces in product(range(1, 21), repeat=attack_dice + defense_dice):
        result = resolve_attack(
            attacker,
            defender,
            attack,
            ScriptedDice(faces + (1,) * 8),
            defense="active" if defense_dice else "passive",
            defense_dice=defense_dice,
            options=options,
        )
        rolls += 1
        seen[result.outcome.value] += 1
        for flag in ("critical", "fumble", "counterattack", "near_miss", "declarable"):
            seen[flag] += getattr(result.judgement, flag)
    for name in ("hit", "miss", "bind", "critical", "fumble", "counterattack", "near_miss", "declarable"):
        assert Fraction(seen[name], rolls) == getattr(exact, name), name
