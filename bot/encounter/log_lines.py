"""The plain-text lines of an encounter's log, and the small wording they share with the replies.

A log line is written inside the operation's transaction and kept with the encounter's log: plain
text on one line, every number a GM needs when reading it back later (the log escapes Markdown when it
shows it). The replies in :mod:`bot.ui` use the same wording for the same things (dice counts, signed
bonuses, a move and its cost).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..rules.dice import Advantage, PoolRoll
from ..rules.engagement import RangeChange
from ..rules.movement import COMBAT_RANGE_COST, RUNNING_MOVES, MoveResult
from ..rules.saves import SaveResult
from .document import Combatant, Encounter
from .records import Exchange

if TYPE_CHECKING:  # the families import their log lines from here
    from .attacks import AcAttack, ExchangeReport
    from .morale import MoraleCheckReport, RallyReport
    from .spirits import SpiritAttack


def dice_count(n: int) -> str:
    """``1 die``, ``3 dice``, ``no dice``."""
    if n == 0:
        return "no dice"
    return f"{n} {'die' if n == 1 else 'dice'}"


def signed(value: int) -> str:
    return f"{value:+d}"


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
    elif damage is not None:
        line += f"; damage {damage.lethal}"
        if damage.nonlethal:
            line += f" + {damage.nonlethal} nonlethal"
        line += f"; HP {report.hp_before} → {defender.hp}"
    if result.shield_damage is not None:
        line += f"; {result.shield_damage.damage} to the shield, {defender.shield_hp} HP left"
    return line


def request_log_line(encounter: Encounter, exchange: Exchange) -> str:
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    roll = exchange.attack
    rolled = f"{plain_roll(roll.roll)} = {roll.total}"
    return f"{attacker.name} attacks {defender.name}: {rolled}; awaiting the defense"


def plain_roll(roll: PoolRoll) -> str:
    """``20 (7)``: the die that counts, then the others in brackets (plain text, for the log)."""
    others = [str(face) for index, face in enumerate(roll.faces) if index != roll.counting]
    return f"{roll.value} ({', '.join(others)})" if others else str(roll.value)


def ac_attack_log_line(encounter: Encounter, attack: AcAttack) -> str:
    """The log's plain-text line for an attack against AC (R24)."""
    attacker = encounter.combatant(attack.attacker)
    defender = encounter.combatant(attack.defender)
    verdict = "hit" if attack.roll.hit else "miss"
    damage = f", {attack.damage.lethal} damage" if attack.damage else ""
    return (
        f"{attacker.name} attacks {defender.name} against AC {attack.roll.armor_class}: "
        f"{attack.roll.total}, {verdict}{damage}"
    )


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def dice_left(combatant: Combatant) -> str:
    """``1/3 dice left`` (R7: what is not spent stays for active defense)."""
    pool = combatant.pool
    return f"{pool.remaining}/{pool.size} {'die' if pool.size == 1 else 'dice'} left"


def move_cost(result: MoveResult, *, combat_range: bool) -> str:
    """What a walking move cost: the move itself (free the first time) and combat range (1 MP)."""
    range_cost = COMBAT_RANGE_COST if combat_range else 0
    move_cost = result.cost - range_cost
    if not result.cost:
        return "free"
    if not range_cost:
        return f"{dice_count(move_cost)} from the Martial Pool"
    if not move_cost:
        return f"free, but {dice_count(range_cost)} from the Martial Pool to enter or leave combat range"
    return (
        f"{dice_count(result.cost)} from the Martial Pool: {move_cost} for the move, "
        f"{range_cost} to enter or leave combat range"
    )


def move_what(result: MoveResult, *, combat_range: bool) -> str:
    """The plain-text middle of a move's reply and log line: which move it was and what it cost."""
    if result.running:
        spent = (
            f"spending the {dice_count(result.cost)} left in the Martial Pool"
            if result.cost
            else "no dice left"
        )
        return f"runs ({RUNNING_MOVES} moves this round, {spent})"
    cost = move_cost(result, combat_range=combat_range)
    return f"moves ({ordinal(result.moves_this_round)} move this round, {cost})"


def move_log_line(by: str, combatant: Combatant, result: MoveResult, *, combat_range: bool) -> str:
    return f"{by}: {combatant.name} {move_what(result, combat_range=combat_range)}, {dice_left(combatant)}"


def range_log_line(
    by: str, mover: Combatant, target: Combatant, change: RangeChange, *, provoked: bool
) -> str:
    line = (
        f"{by}: {mover.name} changed range with {target.name}: {change.old.label} → {change.new.label} "
        f"({dice_count(change.cost)}), {dice_left(mover)}"
    )
    if provoked:
        line += f"; {target.name} may make an opportunity attack on {mover.name}"
    return line


def save_log_line(by: str, combatant: Combatant, result: SaveResult) -> str:
    roll = result.roll
    situation = {Advantage.ADVANTAGE: " with advantage", Advantage.DISADVANTAGE: " with disadvantage"}
    outcome = "saved" if result.success else "failed"
    return (
        f"{by}: {combatant.name} saving throw vs {result.target} "
        f"with {dice_count(roll.committed)} from the pool"
        f"{situation.get(roll.advantage, '')}: {list(roll.faces)} keep {roll.value} {signed(result.bonus)} "
        f"= {result.total}, {outcome}; {dice_left(combatant)}"
    )


def situation_words(advantage: Advantage) -> str:
    return {
        Advantage.ADVANTAGE: " with advantage",
        Advantage.DISADVANTAGE: " with disadvantage",
    }.get(advantage, "")


def check_log_line(by: str, who: str, report: MoraleCheckReport) -> str:
    """Plain text: ``Gamemaster: morale check for Bandits: Bandit 1 9+1=10 routed; Skeleton immune``."""
    parts: list[str] = []
    for combatant, result in report.results:
        if result.immune:
            parts.append(f"{combatant.name} immune")
            continue
        assert result.roll is not None
        faces = "/".join(str(face) for face in result.roll.faces)
        outcome = "holds" if result.passed else result.standing.value
        bonus = signed(result.modifier_total)
        parts.append(f"{combatant.name} {faces} keep {result.roll.value} {bonus} = {result.total} {outcome}")
    situation = situation_words(report.advantage)
    escape = "" if report.can_escape else " (cannot escape)"
    return f"{by}: morale check for {who}{situation}{escape}: {'; '.join(parts)}"


def rally_log_line(by: str, report: RallyReport) -> str:
    result = report.result
    faces = "/".join(str(face) for face in result.roll.faces)
    outcome = "succeeded" if result.success else "failed"
    back = ", ".join(result.returned) or "nobody"
    tail = f"; back: {back}" if result.success else ""
    return (
        f"{by}: {report.rallier.name} rallied (CHA {faces} keep {result.roll.value} "
        f"{signed(sum(m.value for m in result.modifiers))} = {result.total}) and {outcome}{tail}"
    )


def spirit_log_line(attack: SpiritAttack) -> str:
    """The fight log's line: plain text, every number, for the GM reading it later."""
    result = attack.result
    ability = result.ability.value
    outcome = (
        f"won, {ability} {result.score_before} → {result.score_after}"
        if result.attacker_wins
        else f"lost, {ability} stays {result.score_before}"
    )
    effect = f"; {attack.defender} is {result.effect.value}" if result.effect is not None else ""
    return (
        f"{attack.spirit} made a spiritual attack on {attack.defender}'s {ability}: "
        f"{result.attacker_total} vs {result.defender_total}, {outcome}{effect}"
    )
