"""How the exact odds of an attack read (``/odds``): the inputs used, then one line of percentages per
defense — hit (of which critical), bind, miss (of which fumble, and near miss for missiles) and, against
an active defense, the chance of a counterattack (R9-R16, R18)."""

from __future__ import annotations

from collections.abc import Sequence

from ..encounter.odds import DefenseOdds, EncounterOdds, NumbersOdds
from ..rules.dice import Advantage, Modifier, sum_of
from ..rules.errors import shown
from ..rules.odds import AttackOdds
from ..wording.phrases import dice_count, signed
from .charts import Chart, PlannedDefense, odds_chart

SITUATION_WORDS = {
    Advantage.ADVANTAGE: "with advantage (one extra die, R10)",
    Advantage.DISADVANTAGE: "with disadvantage (one extra die, the highest removed, R10)",
}


def percent(value: float) -> str:
    """A probability as a percentage to one decimal: ``0.05`` -> ``5.0%``."""
    return f"{value * 100:.1f}%"


def breakdown(modifiers: Sequence[Modifier]) -> str:
    """``+5 (Prowess +2, Reach +3)``: the total and what makes it."""
    parts = ", ".join(f"{m.label} {signed(m.value)}" for m in modifiers)
    return f"{signed(sum_of(modifiers))} ({parts})" if parts else signed(sum_of(modifiers))


def odds_line(odds: AttackOdds, *, active: bool, missile: bool) -> str:
    """``Hit **45.0%** (5.0% critical) · Bind 5.0% · Miss 50.0% (5.0% fumble)``; against an active
    defense also the counterattack chance (R14 steps 4-5), for a missile the near misses (R14.6)."""
    miss_parts = [f"{percent(float(odds.fumble))} fumble"]
    if missile:
        miss_parts.append(f"{percent(float(odds.near_miss))} near miss")
    if odds.declarable:
        miss_parts.append(f"{percent(float(odds.declarable))} a tie either side may declare a Bind, R13")
    parts = [
        f"Hit **{percent(float(odds.hit))}** ({percent(float(odds.critical))} critical)",
        f"Bind {percent(float(odds.bind))}",
        f"Miss {percent(float(odds.miss))} ({', '.join(miss_parts)})",
    ]
    if active:
        parts.append(f"Counterattack {percent(float(odds.counterattack))}")
    return " · ".join(parts)


def numbers_reply(asked: NumbersOdds) -> str:
    """The answer to ``/odds`` with numbers: the inputs as one sentence, then the odds."""
    attack = f"{dice_count(asked.dice)} {signed(asked.bonus)}"
    situation = SITUATION_WORDS.get(asked.advantage)
    if situation:
        attack += f" {situation}"
    attack = f"{'Missile attack' if asked.missile else 'Attack'}: {attack}"
    if asked.passive_defense is not None:
        defense = f"passive defense {asked.passive_defense} (R13)"
    else:
        void = ", void: no weapon or shield DB and no Bind" if asked.void else ""
        defense = (
            f"an active defense of {dice_count(asked.defense_dice)} {signed(asked.defense_bonus)}{void} (R14)"
        )
    return "\n".join(
        [
            "🎯 **Odds of an attack** (exact, R9-R16)",
            f"{attack} against {defense}",
            odds_line(asked.odds, active=asked.passive_defense is None, missile=asked.missile),
        ]
    )


def defense_heading(target: str, defense: DefenseOdds) -> str:
    """``**If Bandit defends passively**: 11 (Base +8, Prowess +1, Dex +1) (R13)`` and the like; a target
    that cannot defend (down, unconscious, helpless...) says so: ``**Bandit is down and cannot
    defend**: undefended, 2 (R13)``."""
    total = sum_of(defense.bonus)
    if defense.undefended is not None:
        return f"**{target} is {defense.undefended} and cannot defend**: undefended, {total} (R13)"
    if not defense.active:
        parts = ", ".join(f"{m.label} {signed(m.value)}" for m in defense.bonus)
        return f"**If {target} defends passively**: {total} ({parts}) (R13)"
    shield = " + 1 free shield die" if defense.shield else ""
    if defense.cover:
        shield += f" + {defense.cover} free cover {'die' if defense.cover == 1 else 'dice'} (R14)"
    void = ", void: no DB and no Bind" if defense.void else ""
    return (
        f"**If {target} defends actively with all {dice_count(defense.dice)} left{shield}**{void}: "
        f"{breakdown(defense.bonus)} (R14)"
    )


def encounter_reply(fight: EncounterOdds) -> str:
    """The answer to ``/odds target:``: who attacks whom with what, then one block per defense."""
    attacker, target = shown(fight.attacker), shown(fight.target)
    left = f", {fight.dice_left} left this round" if fight.dice_left != fight.dice else ""
    kind = "missile attack" if fight.missile else f"{fight.attack_type} at {fight.range_label} range"
    if fight.kind != "attack":
        kind = f"{fight.kind}, {kind}"
    lines = [
        f"🎯 **{attacker} → {target}**: the odds of an attack now (exact, R9-R16)",
        f"**{attacker}**: {dice_count(fight.dice)}{left}, {shown(fight.weapon)}, {kind}: "
        f"{breakdown(fight.bonus)} (R11)",
    ]
    situation = SITUATION_WORDS.get(fight.advantage)
    if situation:
        why = f": {'; '.join(fight.situations)} (R25)" if fight.situations else ""
        lines.append(f"Attacking {situation}{why}")
    elif fight.situations:
        lines.append(f"No net advantage: {'; '.join(fight.situations)} cancel out (R10, R25)")
    for defense in fight.defenses:
        lines.append(defense_heading(target, defense))
        lines.append(odds_line(defense.odds, active=defense.active, missile=fight.missile))
    lines.extend(f"-# {note}" for note in fight.notes)
    return "\n".join(lines)


# ----------------------------------------------------------------------------- the plan, as a chart

SITUATION_SHORT = {Advantage.ADVANTAGE: " with advantage", Advantage.DISADVANTAGE: " with disadvantage"}


def numbers_defense_label(asked: NumbersOdds) -> str:
    """``against passive defense 14 (R13)``, ``against an active defense of 2 dice +3 (R14)``."""
    if asked.passive_defense is not None:
        return f"against passive defense {asked.passive_defense} (R13)"
    void = ", void: no Bind" if asked.void else ""
    active = f"{dice_count(asked.defense_dice)} {signed(asked.defense_bonus)}"
    return f"against an active defense of {active}{void} (R14)"


def numbers_chart(asked: NumbersOdds, plan: Sequence[tuple[int, NumbersOdds]]) -> Chart:
    """``/odds`` with numbers: the same attack with 1 to 4 dice against the defense given."""
    attack = "a missile attack" if asked.missile else "an attack"
    title = f"Odds of {attack} {signed(asked.bonus)}{SITUATION_SHORT.get(asked.advantage, '')}"
    defense = PlannedDefense(
        numbers_defense_label(asked),
        active=asked.passive_defense is None,
        odds=tuple((dice, odds.odds) for dice, odds in plan),
    )
    return odds_chart(title, [defense], asked=asked.dice)


def encounter_chart(asked: EncounterOdds, plan: Sequence[tuple[int, EncounterOdds]]) -> Chart:
    """``/odds target:``: the same attack with 1 to 4 dice against each way the target may defend (its
    passive defense, and its active one with all its dice left, when it may)."""
    kind = "missile attack" if asked.missile else f"{asked.attack_type} at {asked.range_label} range"
    situation = SITUATION_SHORT.get(asked.advantage, "")
    title = (
        f"{asked.attacker} → {asked.target}: {asked.weapon}, {kind}, {signed(sum_of(asked.bonus))}{situation}"
    )
    defenses = [
        PlannedDefense(
            defense_heading(asked.target, defense).replace("**", ""),
            active=defense.active,
            odds=tuple(
                (dice, fight.defenses[index].odds) for dice, fight in plan if len(fight.defenses) > index
            ),
        )
        for index, defense in enumerate(asked.defenses)
    ]
    return odds_chart(title, defenses, asked=asked.dice)
