"""The log's lines for ``/attack``: a request, a resolved exchange, a Will save against a Knock-Out,
an attack against AC (plain text, every die and total a GM needs when reading it back)."""

from __future__ import annotations

from collections.abc import Sequence

from ..encounter.document import Encounter
from ..encounter.records import Exchange
from ..encounter.results import AcAttack, ExchangeReport
from .phrases import plain_roll, signed
from .spirits import banishment_line


def exchange_log_line(encounter: Encounter, exchange: Exchange, report: ExchangeReport) -> str:
    """The log's plain-text line for a resolved exchange: every die, both totals, what it did."""
    result = exchange.result
    assert result is not None
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    outcome = "critical hit" if result.judgement.critical else result.outcome.value
    if result.judgement.fumble:
        outcome += " (fumble)"
    defense = "passive" if result.defense.roll is None else f"active {plain_roll(result.defense.roll)}"
    desperate = (
        f", desperation {plain_roll(result.desperation.roll)}"
        if result.desperation and result.desperation.roll
        else ""
    )
    line = (
        f"{attacker.name} → {defender.name}: attack {plain_roll(result.attack.roll)} = {result.attack.total} "
        f"vs {defense}{desperate} = {result.defense.total}: {outcome} ({result.judgement.rule})"
    )
    if exchange.applied.range_before is not None:
        return f"{line}; now at Grapple"
    damage = result.damage
    if damage is not None and damage.armor_damage:
        line += f"; {damage.armor_damage} to the armor, {defender.armor_hp} HP left"
    elif damage is not None and damage.shield is not None:
        line += f"; {damage.shield_damage} to the shield, {defender.shield_hp} HP left"
    elif damage is not None:
        line += f"; damage {damage.lethal}"
        if damage.nonlethal:
            line += f" + {damage.nonlethal} nonlethal"
        line += f"; HP {report.hp_before} → {defender.hp}"
    if result.shield_damage is not None:
        line += f"; {result.shield_damage.damage} to the shield, {defender.shield_hp} HP left"
    if report.declared_bind is not None:
        declarer = attacker if report.declared_bind == "attacker" else defender
        line += f"; {declarer.name} declares the tie a Bind"
    elif result.judgement.declarable:
        line += "; a tie either side with dice left may declare a Bind"
    if result.weapon_damage is not None:
        weapon = result.weapon_damage.weapon
        line += f"; {weapon} immune (Fuhlen)" if result.weapon_damage.fuhlen else f"; {weapon} may be damaged"
    if exchange.awaiting_knockout_save and not defender.out_of_the_fight:
        line += f"; Knock-Out threat {exchange.knockout_threat}: a Will save is owed"
    line += situations_note(exchange.situations)
    banished = banishment_line(defender, report.hp_before)
    return f"{line}; {banished}" if banished else line


def knockout_save_log_line(encounter: Encounter, exchange: Exchange) -> str:
    """R16, R20: the defender's Will save against a Knock-Out threat, and what it did."""
    defender = encounter.combatant(exchange.defender)
    save = exchange.knockout_save
    assert save is not None, "only a rolled Will save is logged"
    outcome = "knocked out (unconscious)" if exchange.knocked_out else "stays conscious"
    return (
        f"{defender.name}'s Will save against the Knock-Out threat of {exchange.knockout_threat}: "
        f"{plain_roll(save.roll)} {signed(save.bonus)} = {save.total}: {outcome}"
    )


def situations_note(situations: Sequence[str]) -> str:
    """R25: the situations on an attack, with their sources, for its log line (nothing when none)."""
    return f" [{'; '.join(situations)}]" if situations else ""


def request_log_line(encounter: Encounter, exchange: Exchange) -> str:
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    roll = exchange.attack
    rolled = f"{plain_roll(roll.roll)} = {roll.total}"
    waiting = f"awaiting the defense{situations_note(exchange.situations)}"
    return f"{attacker.name} attacks {defender.name}: {rolled}; {waiting}"


def ac_attack_log_line(encounter: Encounter, attack: AcAttack) -> str:
    """The log's plain-text line for an attack against AC (R24)."""
    attacker = encounter.combatant(attack.attacker)
    defender = encounter.combatant(attack.defender)
    verdict = "hit" if attack.roll.hit else "miss"
    damage = f", {attack.damage.lethal} damage" if attack.damage else ""
    banished = banishment_line(defender, attack.hp_before)
    return (
        f"{attacker.name} attacks {defender.name} against AC {attack.roll.armor_class}: "
        f"{attack.roll.total}, {verdict}{damage}{situations_note(attack.situations)}"
        + (f"; {banished}" if banished else "")
    )
