"""The result of an attack: every roll with its dice, the outcome and its ruling, the damage after DR and
the HP left (R13, R14, R17, R24)."""

from __future__ import annotations

from bot.encounter.attacks import Declaration, ExchangeAction, ac_attack
from bot.rules.dice import ScriptedDice
from bot.ui.attack_views.result import ac_attack_content, result_content
from tests.ui.attack_views.duels import (
    CATALOG,
    GM,
    answered,
    attacked,
    duel,
    hit_on_the_passive_defense,
    weapon,
)


def test_r13_a_hit_against_the_passive_defense_shows_the_damage_and_the_hp_left() -> None:
    encounter = duel()
    exchange, report = hit_on_the_passive_defense(encounter)
    assert result_content(encounter, exchange, weapon(exchange), report).splitlines() == [
        "⚔️ **Alice** attacks **Bandit** — Sword, Arming, pierce, 1 die at Onset",
        "🎲 Attack: **15** +2 Prowess +3 Reach = **20**",
        "🛡️ Passive defense (R13): +8 Base +1 Prowess +1 Dex = **10**",
        "💥 **Hit** — against the passive defense (R13)",
        "🩸 Damage: Sword, Arming [6] 6 = 6 - DR 3 (Gambeson, Light) → **3**",
        "❤️ **Bandit**: HP 11 → **8**/11",
    ]


def test_r15_a_hit_through_an_active_defense_offers_the_desperation_defense() -> None:
    encounter = duel()
    exchange = attacked(encounter, [15]).exchange
    report = answered(encounter, exchange, ExchangeAction.ACTIVE, [3, 5], dice=1)
    lines = result_content(encounter, exchange, weapon(exchange), report).splitlines()
    assert "🛡️ Active defense, 1 die: **3** +1 Prowess +1 Dex +3 Sword, Messer = **8**" in lines
    assert "💥 **Hit** — totals compared (R14.7)" in lines
    assert lines[-1] == "😱 Bandit may make a **desperation defense** with the last die left (R15)."


def test_r24_an_attack_against_ac_shows_the_d20_the_ac_and_the_damage() -> None:
    encounter = duel()
    done = ac_attack(
        encounter,
        CATALOG,
        GM,
        who="Alice",
        target="Bandit",
        declared=Declaration(dice=1),
        dice=ScriptedDice([17, 5]),
    )
    content = ac_attack_content(encounter, done.result, CATALOG.weapon(done.result.weapon).name)
    assert content.splitlines() == [
        "⚔️ **Alice** attacks **Bandit** against AC — Sword, Arming",
        "🎲 **17** +2 Prowess +3 Reach = **22** against **AC 13** (R24)",
        "💥 **Hit**",
        "🩸 Damage: Sword, Arming [5] 5 = 5 → **5**",
        "❤️ **Bandit**: HP 11 → **6**/11",
    ]


def test_a_name_users_typed_is_escaped_in_the_result() -> None:
    encounter = duel()
    exchange, report = hit_on_the_passive_defense(encounter)
    encounter.combatant("Bandit").name = "*Bandit*"
    content = result_content(encounter, exchange, weapon(exchange), report)
    assert "**\\*Bandit\\***" in content
    assert "❤️ **\\*Bandit\\***: HP 11 → **8**/11" in content
