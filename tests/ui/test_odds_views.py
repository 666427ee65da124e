"""How ``/odds`` reads: percentages to one decimal, the inputs used, one line per defense (R9-R16)."""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

from bot.encounter.odds import DefenseOdds, EncounterOdds, NumbersOdds
from bot.rules.dice import Advantage, Modifier
from bot.rules.odds import AttackOdds, attack_odds
from bot.rules.options import PassiveTie, RuleOptions
from bot.ui.odds_views import defense_heading, encounter_reply, numbers_reply, odds_line, percent


def test_percent_rounds_to_one_decimal() -> None:
    assert percent(0.05) == "5.0%"
    assert percent(float(Fraction(1, 3))) == "33.3%"
    assert percent(float(Fraction(2, 3))) == "66.7%"
    assert percent(1.0) == "100.0%"


def test_r13_odds_line_against_a_passive_defense_has_no_counterattack() -> None:
    odds = attack_odds(attack_dice=1, attack_bonus=5, passive_defense=10)
    assert odds_line(odds, active=False, missile=False) == (
        "Hit **75.0%** (5.0% critical) · Bind 5.0% · Miss 20.0% (5.0% fumble)"
    )


def test_r14_odds_line_against_an_active_defense_shows_the_counterattack_and_missile_near_misses() -> None:
    odds = AttackOdds(
        hit=Fraction(1, 2),
        critical=Fraction(1, 20),
        miss=Fraction(2, 5),
        bind=Fraction(1, 10),
        fumble=Fraction(1, 40),
        counterattack=Fraction(3, 40),
        near_miss=Fraction(1, 8),
    )
    assert odds_line(odds, active=True, missile=True) == (
        "Hit **50.0%** (5.0% critical) · Bind 10.0% · Miss 40.0% (2.5% fumble, 12.5% near miss) · "
        "Counterattack 7.5%"
    )


def test_numbers_reply_states_every_input() -> None:
    odds = attack_odds(
        attack_dice=2,
        attack_bonus=-1,
        defense_dice=3,
        defense_bonus=4,
        void=True,
        attack_advantage=Advantage.ADVANTAGE,
    )
    asked = NumbersOdds(
        dice=2,
        bonus=-1,
        advantage=Advantage.ADVANTAGE,
        missile=False,
        odds=odds,
        defense_dice=3,
        defense_bonus=4,
        void=True,
    )
    reply = numbers_reply(asked)
    assert (
        "Attack: 2 dice -1 with advantage (one extra die, R10) against an active defense of 3 dice +4"
        in reply
    )
    assert "void: no weapon or shield DB and no Bind" in reply
    assert reply.endswith(odds_line(odds, active=True, missile=False))


def test_defense_headings_say_how_the_target_defends() -> None:
    odds = attack_odds(attack_dice=1, attack_bonus=0, passive_defense=10)
    passive = DefenseOdds(odds, (Modifier(label="Base", value=8), Modifier(label="Prowess", value=2)))
    assert (
        defense_heading("Bandit", passive)
        == "**If Bandit defends passively**: 10 (Base +8, Prowess +2) (R13)"
    )
    undefended = DefenseOdds(odds, (Modifier(label="Undefended", value=2),), undefended="unconscious")
    assert defense_heading("Bandit", undefended) == (
        "**Bandit is unconscious and cannot defend**: undefended, 2 (R13)"
    )
    active = DefenseOdds(
        odds, (Modifier(label="Prowess", value=2), Modifier(label="Dex", value=-1)), dice=2, shield=True
    )
    assert defense_heading("Bandit", active) == (
        "**If Bandit defends actively with all 2 dice left + 1 free shield die**: "
        "+1 (Prowess +2, Dex -1) (R14)"
    )


def test_fight_reply_escapes_names_and_lists_notes() -> None:
    odds = attack_odds(attack_dice=1, attack_bonus=4, passive_defense=11)
    fight = EncounterOdds(
        attacker="*Ansel*",
        target="Bandit",
        dice=1,
        dice_left=1,
        weapon="Sword, Arming",
        attack_type="chop",
        kind="attack",
        range_label="Onset",
        bonus=(Modifier(label="Prowess", value=1), Modifier(label="Reach", value=3)),
        advantage=Advantage.NONE,
        situations=("attacker is frightened", "your `situation:`"),
        missile=False,
        defenses=(DefenseOdds(odds, (Modifier(label="Base", value=11),)),),
        notes=("Bandit is a spirit.",),
    )
    reply = encounter_reply(fight)
    assert reply.startswith("🎯 **\\*Ansel\\* → Bandit**")
    escaped_once = encounter_reply(replace(fight, target="*Bandit*"))
    assert escaped_once.startswith("🎯 **\\*Ansel\\* → \\*Bandit\\***")
    assert "**If \\*Bandit\\* defends passively**" in escaped_once
    assert (
        "**\\*Ansel\\***: 1 die, Sword, Arming, chop at Onset range: +4 (Prowess +1, Reach +3) (R11)" in reply
    )
    assert "No net advantage: attacker is frightened; your `situation:` cancel out (R10, R25)" in reply
    assert reply.endswith("-# Bandit is a spirit.")


def test_r13_odds_line_says_how_often_a_passive_tie_may_be_declared_a_bind() -> None:
    """``passive_tie: declared``: the tie is part of the miss, and the line says so."""
    odds = attack_odds(
        attack_dice=1,
        attack_bonus=4,
        passive_defense=14,
        options=RuleOptions(passive_tie=PassiveTie.DECLARED),
    )
    assert odds_line(odds, active=False, missile=False) == (
        "Hit **50.0%** (5.0% critical) · Bind 0.0% · "
        "Miss 50.0% (5.0% fumble, 5.0% a tie either side may declare a Bind, R13)"
    )
