"""The log's lines for ``/spirit`` (R26, R27): a spiritual attack, a spirit driven out, a mind
healed, and a spirit brought to 0 HP sent away rather than killed."""

from __future__ import annotations

from ..encounter.combatants import Combatant
from ..encounter.results import DrivenOut, MindHealed, SpiritAttack
from ..rules.spirits import banishment, banishment_days


def banishment_line(combatant: Combatant, hp_before: int) -> str | None:
    """R27: a spirit just brought to 0 HP is not killed: a demon is sent back to Hell, another spirit
    dissipated, for 100 ÷ its HD days, rounded up. None for anyone else, or a spirit already down."""
    if not (combatant.spirit and combatant.is_down) or hp_before <= 0:
        return None
    fate = banishment(combatant.demon).value
    if combatant.hit_dice is None:
        return (
            f"{combatant.name} is not killed but {fate} (R27), for 100 ÷ its Hit Dice days; the fight does "
            "not know its HD (the GM sets them with /combatant edit hit_dice:)"
        )
    days = banishment_days(combatant.hit_dice)
    return (
        f"{combatant.name} is not killed but {fate} for {days} days "
        f"(100 ÷ {combatant.hit_dice} HD, rounded up; R27)"
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


def driven_out_log_line(out: DrivenOut) -> str:
    before = f" (was {out.cha_before})" if out.cha_before is not None else ""
    spirit = out.spirit or "The spirit"
    line = (
        f"{spirit} is driven out of {out.person}: CHA {out.cha_after}{before}, Frightened until healed "
        "to CHA 3"
    )
    if out.proposal is not None:
        line += f"; morale check #{out.proposal.id} proposed for {out.proposal.group}"
    return line


def mind_healed_log_line(healed: MindHealed) -> str:
    healing = healed.healing
    ended = f"; no longer {healed.ended}" if healed.ended else ""
    return f"{healed.person}'s {healing.ability.value} healed {healing.before} → {healing.after}{ended}"
