"""The lines every message about an attack is made of: the headline (both sides, the weapon, the
range, the situations), each roll with every die, the outcome and its ruling, the damage and its DR,
the HP left; and the whole kept within Discord's 2,000 characters."""

from __future__ import annotations

from collections.abc import Sequence

from ...encounter.combatants import Combatant
from ...encounter.document import Encounter
from ...encounter.records import Exchange
from ...rules.attack_rolls import AttackKind, AttackRoll
from ...rules.damage import DamageRoll
from ...rules.defenses import Defense
from ...rules.dice import Advantage, Modifier, PoolRoll
from ...rules.judgement import Judgement, Outcome
from ...wording.phrases import dice_count
from ..announcements import CONTENT_LIMIT, fitted
from ..rolls import pool_faces
from ..tracker import name


def breakdown(roll: PoolRoll | None, bonus: Sequence[Modifier]) -> str:
    """``**14**, ~~7~~ +2 Prowess +3 Reach = **19**``: every die, dropped ones struck through (R9)."""
    parts = [pool_faces(roll)] if roll is not None else []
    parts += [str(modifier) for modifier in bonus if modifier.value or roll is None]
    total = (roll.value if roll is not None else 0) + sum(m.value for m in bonus)
    return f"{' '.join(parts)} = **{total}**"


def roll_situation(advantage: Advantage, why: Sequence[str] = ()) -> str:
    """R10, R25: the roll's situation, with the situations the fight applied by itself."""
    reasons = f" ({'; '.join(why)})" if why else ""
    if advantage is Advantage.ADVANTAGE:
        return f", with advantage{reasons}"
    if advantage is Advantage.DISADVANTAGE:
        return f", at disadvantage{reasons}"
    return f", advantage and disadvantage cancel{reasons}" if why else ""


def attack_headline(encounter: Encounter, exchange: Exchange, weapon: str) -> str:
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    attack = exchange.attack.attack
    kind = "" if attack.kind is AttackKind.NORMAL else f" ({attack.kind.value})"
    extras = [
        label
        for flag, label in (
            (attack.grapple, "grapple"),
            (attack.bypass, "bypassing the armor"),
            (attack.at_armor, "at the armor"),
            (attack.at_shield, "at the shield"),
            (attack.two_weapons, "two weapons"),
        )
        if flag
    ]
    extra = f", {', '.join(extras)}" if extras else ""
    headline = (
        f"⚔️ **{name(attacker.name)}** attacks **{name(defender.name)}**{kind} — {weapon}, "
        f"{attack.attack_type.value}, {dice_count(attack.dice)} at {attack.range.label}"
        f"{extra}{roll_situation(exchange.attack.roll.advantage, exchange.situations)}"
    )
    return "\n".join([headline, *notes_lines(exchange.notes)])


def notes_lines(notes: Sequence[str]) -> list[str]:
    """What the fight's situations did besides advantage (R25): each on a line of its own."""
    return [f"📌 {note}" for note in notes]


def stray_line(allies: Sequence[str], target: str) -> str:
    """R25: a critical failure shooting into a melee hits the ally instead of the target: named when
    there is one, else the GM picks which."""
    if len(allies) == 1:
        return (
            f"🎯 Shooting into the melee, the fumble hits **{name(allies[0])}** instead of {target} (R25): "
            "the GM applies the damage with `/combatant hp`."
        )
    listed = ", ".join(name(ally) for ally in allies)
    return (
        f"🎯 Shooting into the melee, the fumble hits one of {listed} instead of {target} (R25): "
        "the GM picks which and applies the damage with `/combatant hp`."
    )


def attack_line(roll: AttackRoll) -> str:
    return f"🎲 Attack: {breakdown(roll.roll, roll.bonus)}"


def defense_line(defense: Defense) -> str:
    if defense.roll is None:
        what = "Undefended (R13)" if defense.mode == "undefended" else "Passive defense (R13)"
        return f"🛡️ {what}: {breakdown(None, defense.bonus)}"
    how = ["void" if defense.void else "", "with the shield" if defense.shield else ""]
    detail = ", ".join(part for part in how if part)
    detail = f", {detail}" if detail else ""
    return (
        f"🛡️ Active defense, {dice_count(defense.roll.committed)}{detail}"
        f"{roll_situation(defense.roll.advantage)}: "
        f"{breakdown(defense.roll, defense.bonus)}"
    )


_RULE_TEXT = {
    "R14.1": "both counting dice are natural 1s",
    "R14.2": "the defender's counting die is a natural 1",
    "R14.3": "a natural 20",
    "R14.4": "the defender's natural 20",
    "R14.5": "the attacker fumbled",
    "R14.6": "the counting dice show the same number",
    "R14.7": "totals compared",
    "R13": "against the passive defense",
    "R16": "a natural 20",
    "R18": "every die that could count shows 1",
    "R25": "a helpless target is hit automatically in melee",
}


def outcome_line(judgement: Judgement, attacker: str, defender: str) -> str:
    why = _RULE_TEXT.get(judgement.rule, "")
    why = f" — {why} ({judgement.rule})" if why else f" ({judgement.rule})"
    if judgement.outcome is Outcome.HIT:
        head = "💥 **Critical hit!**" if judgement.critical else "💥 **Hit**"
    elif judgement.outcome is Outcome.BIND:
        head = "🔗 **Bind**: the attack is stopped, the weapons are locked"
    elif judgement.fumble:
        head = f"🤦 **Miss — {attacker} fumbles** (dropped weapon or similar: the GM decides)"
    elif judgement.near_miss:
        head = "💨 **A very near miss**"
    elif judgement.declarable:
        head = "💨 **Miss**, a tie: a Bind if a side with dice left declares one"
    else:
        head = "💨 **Miss**"
    line = f"{head}{why}"
    if judgement.counterattack:
        line += f"\n↩️ {defender} may **counterattack** (R14)"
    return line


def damage_line(
    damage: DamageRoll, weapon: str, *, at_armor: bool = False, broken_armor: bool = False
) -> str:
    """Damage with its whole breakdown: weapon dice, Joker, crit dice, then DR (R16, R17, R26)."""
    parts = [f"{weapon} [{', '.join(map(str, damage.faces))}] {damage.weapon_damage}"]
    if damage.off_hand_weapon is not None:
        parts.append(
            f"or {damage.off_hand_weapon} [{', '.join(map(str, damage.off_hand_faces))}] "
            f"{damage.off_hand_damage} (the better counts, R26)"
        )
    if damage.joker_bonus:
        parts.append(f"+{damage.joker_bonus} Joker")
    if damage.doubled:
        parts.append(f"+{damage.doubled} lance charge (double, R25)")
    if damage.critical_faces:
        dynamic = " dynamic" if damage.dynamic else ""
        die = f"d{damage.critical_die}" if damage.critical_die else "crit"
        crit = ", ".join(map(str, damage.critical_faces))
        parts.append(f"+ {len(damage.critical_faces)}{die}{dynamic} crit [{crit}]")
    elif damage.critical_damage:
        parts.append(f"+{damage.critical_damage} critical (double)")
    text = f"🩸 Damage: {' '.join(parts)} = {damage.before_dr}"
    if damage.shield is not None:
        return f"{text} - Toughness {damage.dr} → **{damage.shield_damage}** to {damage.shield}'s HP (R17)"
    if at_armor:
        return f"{text} - Hardness {damage.dr} → **{damage.armor_damage}** to {damage.armor}'s HP (R17)"
    if damage.armor is not None and damage.bypassed:
        text += f"; {damage.armor} bypassed: no DR (R17)"
    elif damage.armor is not None and broken_armor:
        text += f" - DR 0 ({damage.armor}: broken, R17)"
    elif damage.armor is not None:
        ap = f", after {damage.armor_piercing} Armor Piercing" if damage.armor_piercing else ""
        text += f" - DR {damage.dr} ({damage.armor}{ap})"
    dealt = f"**{damage.lethal}**"
    if damage.nonlethal:
        dealt += f" + **{damage.nonlethal} nonlethal** (Bash critical, R16)"
    if damage.knockout_threat is not None:
        dealt += f"; Knock-Out threat: a Will save against **{damage.knockout_threat}** (R16)"
    return f"{text} → {dealt}"


def hp_line(defender: Combatant, hp_before: int, nonlethal_before: int) -> str:
    line = f"❤️ **{name(defender.name)}**: HP {hp_before} → **{defender.hp}**/{defender.max_hp}"
    if defender.nonlethal != nonlethal_before:
        line += f", nonlethal {defender.nonlethal}"
    if defender.out_of_the_fight:
        line += f" — **{defender.state_label}**"
    return line


def clip(text: str) -> str:
    """A message about an exchange within Discord's 2,000 characters: its longest lines (the situations
    and names in the headline) give way, never its outcome, damage or HP left (:func:`fitted`)."""
    return fitted(text.split("\n"), CONTENT_LIMIT)
