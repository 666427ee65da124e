"""How the spirits' commands read (R27): a spiritual attack's rolls with their totals, who won, the
ability score drained and, at 0, what befalls the defender; a spirit driven out; a mind healed."""

from __future__ import annotations

from ..encounter.results import DrivenOut, MindHealed, SpiritAttack
from ..rules.dice import Advantage, Modifier, PoolRoll
from ..rules.errors import shown
from ..rules.spirits import RECOVERED_AT, SpiritEffect, SpiritProtection, SpiritualAttackResult
from .morale_views import proposal_line
from .rolls import pool_faces

PROTECTION_NAMES: dict[SpiritProtection, str] = {
    SpiritProtection.BAPTIZED: "baptized",
    SpiritProtection.CIRCUMCISED_JEW: "a circumcised Jew",
    SpiritProtection.SHAHADA: "spoke the Shahada aloud in Arabic, read from the Quran",
    SpiritProtection.PAGAN_FEAST: "took part in a pagan sacrificial feast and wears Thor's hammer",
}
"""R27: the protections the text lists, as the reply names them (any one is enough)."""


def protection_choice_name(protection: SpiritProtection) -> str:
    """How ``/spirit attack`` offers a protection: its name, capitalised."""
    name = PROTECTION_NAMES[protection]
    return name[0].upper() + name[1:]


def check_roll(roll: PoolRoll, modifiers: tuple[Modifier, ...], total: int) -> str:
    """``d20 (**14**) +3 spirit = `17``` or ``2d20 (~~15~~, **6**) +0 WIS = `6```."""
    dice = "d20" if len(roll.faces) == 1 else f"{len(roll.faces)}d20"
    added = " ".join(str(m) for m in modifiers)
    return f"{dice} ({pool_faces(roll)}) {added} = `{total}`"


def defender_situation(result: SpiritualAttackResult) -> str:
    """Why the defender rolled as it did: disadvantage unless protected, communion's advantage (R27)."""
    protected = ", ".join(PROTECTION_NAMES[p] for p in result.protections)
    reasons = [f"protected ({protected})" if protected else "no protection"]
    if result.communion:
        reasons.append("communion in the last week")
    situation = {
        Advantage.DISADVANTAGE: "at disadvantage",
        Advantage.ADVANTAGE: "with advantage",
        Advantage.NONE: "a plain roll",
    }[result.defender_advantage]
    return f"{situation}: {', '.join(reasons)}"


def spirit_reply(attack: SpiritAttack) -> str:
    """The table's message for ``/spirit attack``."""
    result = attack.result
    spirit, defender = shown(attack.spirit), shown(attack.defender)
    ability = result.ability.value
    lines = [
        f"👻 **{spirit}** makes a spiritual attack on **{defender}**'s {ability} (R27)",
        f"{spirit}: {check_roll(result.attacker_roll, result.attacker_modifiers, result.attacker_total)}",
        f"{defender}: {check_roll(result.defender_roll, result.defender_modifiers, result.defender_total)} "
        f"({defender_situation(result)})",
    ]
    if not result.attacker_wins:
        tie = " (a tie goes to the defender)" if result.attacker_total == result.defender_total else ""
        lines.append(f"**{defender} resists**{tie}: {ability} stays {result.score_before}.")
        return "\n".join(lines)
    rolled = f" (rolled {attack.damage_roll.breakdown})" if attack.damage_roll is not None else ""
    joker = " with the Joker's bonus" if any(m.label == "Joker" for m in result.attacker_modifiers) else ""
    rated = " (rated 7 + modifier)" if result.score_rated else ""
    lines.append(
        f"**{spirit} wins**: {result.damage} {ability} drained{joker}{rolled} — "
        f"{ability}{rated} {result.score_before} → **{result.score_after}**"
    )
    if result.effect is not None:
        marked = f" (now a condition on {defender})" if attack.condition_added else ""
        lines.append(f"{ability} 0: **{defender} is {result.effect.value}**{marked}.")
        lines.append(f"🎭 {EFFECT_MEANS[result.effect].format(defender=defender, spirit=spirit)}")
    return "\n".join(lines)


EFFECT_MEANS = {
    SpiritEffect.FEEBLE_MINDED: "{defender} is useless and under the GM's control until healed to INT 3 "
    "(`/spirit heal`).",
    SpiritEffect.STARK_RAVING_MAD: "{defender} is useless and under the GM's control until healed to WIS 3 "
    "(`/spirit heal`).",
    SpiritEffect.POSSESSED: "{spirit} now controls {defender}'s body: the GM plays {defender} until the "
    "spirit is driven out (`/spirit drive-out`).",
}
"""R27: what each effect at 0 means at the table."""


def driven_out_reply(out: DrivenOut) -> str:
    """``/spirit drive-out``: the person is free, at CHA 1 and Frightened; the spirit driven out by
    divine means checks morale, when the GM named it (R22)."""
    person = shown(out.person)
    spirit = f"**{shown(out.spirit)}** is" if out.spirit is not None else "The spirit is"
    text = (
        f"✝️ {spirit} driven out of **{person}** (R27): {person} is their own again, at "
        f"**CHA {out.cha_after}**, and **Frightened** (attacks at disadvantage) until healed to "
        f"CHA {RECOVERED_AT} (`/spirit heal`)."
    )
    if out.proposal is not None:
        text += f"\n{proposal_line(out.proposal)}"
    elif out.spirit is not None and out.no_check is not None:
        text += f"\n🕊️ {shown(out.spirit)} checks no morale: {out.no_check}."
    return text


def mind_healed_reply(healed: MindHealed) -> str:
    """``/spirit heal``: the score before and after, and the effect it ended at 3."""
    healing = healed.healing
    person, ability = shown(healed.person), healing.ability.value
    line = f"🕯️ **{person}**'s {ability} is healed: {healing.before} → **{healing.after}** (R27)."
    if healed.ended == "frightened":
        line += f" At {ability} {RECOVERED_AT} {person} is **no longer Frightened**."
    elif healed.ended is not None:
        ended = shown(healed.ended)
        line += f" At {ability} {RECOVERED_AT} {person} is **no longer {ended}**, and theirs again."
    elif healed.still_possessed:
        line += f" {person} is still possessed: only driving the spirit out frees them (`/spirit drive-out`)."
    return line
