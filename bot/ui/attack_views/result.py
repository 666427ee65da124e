"""The result of an attack: a resolved exchange (both rolls, the outcome, the damage, the HP left and
what may follow), and an attack against AC (R24)."""

from __future__ import annotations

from ...encounter.document import Encounter
from ...encounter.records import Exchange, ReactionKind
from ...encounter.results import AcAttack, ExchangeReport
from ...rules.exchange import AttackResult
from ...rules.judgement import Outcome
from ...wording.phrases import dice_count
from ...wording.spirits import banishment_line
from ..morale_views import proposal_line
from ..tracker import name
from .follow_ups import bind_attack_lines, follow_up_lines, knockout_lines
from .lines import (
    attack_headline,
    attack_line,
    breakdown,
    clip,
    damage_line,
    defense_line,
    hp_line,
    notes_lines,
    outcome_line,
    roll_situation,
    stray_line,
)


def result_content(encounter: Encounter, exchange: Exchange, weapon: str, report: ExchangeReport) -> str:
    """The whole exchange: both rolls, the outcome, the damage and its DR, the HP left, what may follow."""
    result = exchange.result
    assert result is not None, "only a resolved exchange has a result"
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    lines = [attack_headline(encounter, exchange, weapon), attack_line(result.attack)]
    if report.decided_by == "timeout":
        lines.append(
            "⏰ Nobody picked a defense in time: "
            f"**{encounter.table.defense_policy.value}** (the table's policy)."
        )
    lines.append(defense_line(result.defense))
    if exchange.cover_dice and result.defense.active:
        lines.append(
            f"🧱 {name(defender.name)}'s cover: +{dice_count(exchange.cover_dice)} free against the missile "
            "(one per 25%, R14)"
        )
    if result.desperation is not None:
        stood = _which_defense_stands(result, improved=bool(report.desperation_improved))
        lines.append(
            "😱 Desperation defense (R15): "
            f"{breakdown(result.desperation.roll, result.desperation.bonus)} — {stood}"
        )
        if report.swap_initiative:
            lines.append(f"🔄 {name(defender.name)} had the initiative: the two swap it next round (R15).")
        elif report.pool_penalty:
            lines.append(
                f"📉 {name(defender.name)} loses {dice_count(report.pool_penalty)} next round (R6, R15)."
            )
    if report.chose_die is not None:
        who = attacker if report.chose_die == "attacker" else defender
        lines.append(f"🎯 {name(who.name)} counts another die to force a Bind (R9).")
    if report.declared_bind is not None:
        who = attacker if report.declared_bind == "attacker" else defender
        lines.append(f"⛓️ {name(who.name)} declares the tie with the passive defense a Bind (R13).")
    lines.append(outcome_line(result.judgement, name(attacker.name), name(defender.name)))
    if result.judgement.fumble and exchange.allies_in_melee:
        lines.append(stray_line(exchange.allies_in_melee, name(defender.name)))
    if result.outcome is Outcome.BIND:
        lines.append(BIND_FOLLOWS)
    if exchange.applied.range_before is not None:
        lines.append(
            f"🤼 **{name(attacker.name)}** grapples **{name(defender.name)}**: "
            "they are at Grapple range (R12)"
            + (
                f"; {name(defender.name)} may take an opportunity attack first."
                if encounter.reaction(defender, attacker, ReactionKind.OPPORTUNITY) is not None
                else "."
            )
        )
    elif result.damage is not None:
        at_armor = result.attack.attack.at_armor
        broken = defender.armor_hp == 0 and not at_armor
        lines.append(
            damage_line(result.damage, weapon_name(result, weapon), at_armor=at_armor, broken_armor=broken)
        )
        if result.damage.armor_damage:
            lines.append(
                f"🪖 {name(defender.name)}'s armor: {defender.armor_hp} HP left{_broken(defender.armor_hp)}"
            )
        elif result.damage.shield is not None:
            left = defender.shield_hp if result.damage.shield_damage else "no damage; all its"
            lines.append(f"🛡️ {name(defender.name)}'s shield: {left} HP left{_broken(defender.shield_hp)}")
        else:
            lines.append(hp_line(defender, report.hp_before, report.nonlethal_before))
    if result.shield_damage is not None:
        shield = result.shield_damage
        lines.append(
            f"🛡️ The Bind strikes the shield (R17): {shield.rolled} - Toughness {shield.toughness} = "
            f"**{shield.damage}** to {shield.shield}"
            + (f"; {defender.shield_hp} HP left{_broken(defender.shield_hp)}" if shield.damage else "")
        )
    if result.weapon_damage is not None:
        lines.append(weapon_damage_line(result, name(defender.name)))
    lines += bind_attack_lines(encounter, exchange)
    banished = banishment_line(defender, report.hp_before)
    if banished is not None:
        lines.append(f"✨ {name(banished)}.")
    lines += knockout_lines(encounter, exchange)
    lines += follow_up_lines(encounter, exchange)
    lines += [proposal_line(proposal) for proposal in report.proposals]
    return clip("\n".join(lines))


def weapon_damage_line(result: AttackResult, defender: str) -> str:
    """R17 (option ``weapon_damage_in_binds``): the Bind may have damaged the defender's weapon; the
    Codex gives no number, so the GM says how much; Fuhlen is immune."""
    damage = result.weapon_damage
    assert damage is not None
    if damage.fuhlen:
        return (
            f"🗡️ Damage to Weapons During Binds (R17): {defender} has **Fuhlen**, so the {damage.weapon} "
            "takes no damage."
        )
    return (
        f"🗡️ Damage to Weapons During Binds (R17): the Bind may have damaged {defender}'s "
        f"**{damage.weapon}**; the Codex gives no number, so how much is the GM's."
    )


def _which_defense_stands(result: AttackResult, *, improved: bool) -> str:
    """R15: the better of the two defenses stands; say which, and truly (better for the defender, not
    always the higher total: two hits are the same outcome, whatever the totals)."""
    if improved:
        return "it stands"
    desperate = result.desperation
    if desperate is not None and desperate.total >= result.defense.total:
        return "no better an outcome, so the first defense stands"
    return "the first defense was better and stands"


BIND_FOLLOWS = (
    "⛓️ What may follow the Bind: either side may try to seize or disarm the other's weapon, or use a "
    "Martial Feat a Bind triggers (the GM rules on it)."
)
"""What may follow a Bind (the Codex Martialis' "Binding"), said under every Bind."""


def weapon_name(result: AttackResult, weapon: str) -> str:
    damage = result.damage
    return damage.weapon if damage is not None else weapon


def _broken(hp: int | None) -> str:
    return " — **broken**: no protection until repaired" if hp == 0 else ""


def ac_attack_content(encounter: Encounter, attack: AcAttack, weapon: str) -> str:
    """R24: the plain d20 against AC, and the damage on a hit."""
    attacker = encounter.combatant(attack.attacker)
    defender = encounter.combatant(attack.defender)
    roll = attack.roll
    opening = {17: " (at least 17 through a window, R25)", 21: " (at least 21 behind an arrow slit, R25)"}
    behind = opening.get(roll.armor_class, "") if defender.position.opening == roll.armor_class else ""
    lines = [
        f"⚔️ **{name(attacker.name)}** attacks **{name(defender.name)}** against AC — {weapon}"
        f"{roll_situation(roll.advantage, attack.situations)}",
        *notes_lines(attack.notes),
        f"🎲 {breakdown(roll.roll, attack.bonus + [m for m in roll.modifiers if m.label == 'Joker'])} "
        f"against **AC {roll.armor_class}**{behind} (R24)",
    ]
    if roll.hit:
        crit = " — **natural 20: critical!**" if roll.natural_20 else ""
        lines.append(f"💥 **Hit**{crit}")
    else:
        lines.append("💨 **Miss**" + (" — natural 1" if roll.natural_1 and roll.automatic else ""))
        if roll.natural_1 and attack.allies_in_melee:
            lines.append(stray_line(attack.allies_in_melee, name(defender.name)))
    if attack.damage is not None:
        lines.append(damage_line(attack.damage, attack.damage.weapon))
        lines.append(hp_line(defender, attack.hp_before, defender.nonlethal - attack.damage.nonlethal))
        banished = banishment_line(defender, attack.hp_before)
        if banished is not None:
            lines.append(f"✨ {name(banished)}.")
    return clip("\n".join(lines))
