"""Lords of Hack spirits: what harms them, the spiritual attack on INT, WIS or CHA and what follows it,
and what becomes of a spirit brought to 0 HP (R27)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from .dice import Advantage, DiceSource, Modifier, PoolRoll, roll_check, with_joker
from .errors import IllegalAction, RulesError


class SpiritTarget(StrEnum):
    """R27: the ability score a spiritual attack drains."""

    INT = "INT"
    WIS = "WIS"
    CHA = "CHA"

    @property
    def effect_at_zero(self) -> SpiritEffect:
        return _EFFECTS[self]


class SpiritEffect(StrEnum):
    """R27: what befalls a creature whose drained score reaches 0."""

    FEEBLE_MINDED = "feeble-minded"
    STARK_RAVING_MAD = "stark-raving mad"
    POSSESSED = "possessed by the spirit"

    @property
    def lasts(self) -> str:
        """R27: how long the GM controls the body: until the mind is healed to 3, or the spirit driven out."""
        if self is SpiritEffect.POSSESSED:
            return "until the spirit is driven out"
        drained = next(target for target, effect in _EFFECTS.items() if effect is self)
        return f"until healed to {drained.value} {RECOVERED_AT}"


_EFFECTS = {
    SpiritTarget.INT: SpiritEffect.FEEBLE_MINDED,
    SpiritTarget.WIS: SpiritEffect.STARK_RAVING_MAD,
    SpiritTarget.CHA: SpiritEffect.POSSESSED,
}


class SpiritProtection(StrEnum):
    """R27: any one of these negates the defender's disadvantage."""

    BAPTIZED = "baptized"
    CIRCUMCISED_JEW = "circumcised Jew"
    SHAHADA = "spoke the Shahada"
    PAGAN_FEAST = "pagan sacrificial feast, wearing Thor's hammer"


MAX_SCORE = 30
"""The highest ability score a healing can bring a drained one to."""
RECOVERED_AT = 3
"""R27: a mind drained to 0 is its own again once healed to 3 or more (INT, WIS), and a person a spirit
was driven out of is Frightened until its CHA is healed to 3."""
CHA_AFTER_POSSESSION = 1
"""R27: a person a possessing spirit is driven out of returns at CHA 1."""


def weapon_harms_spirit(holy_blessed: bool) -> bool:
    """R27: no physical weapon, magical or not, harms a spirit, except a Holy Blessed one."""
    return holy_blessed


def check_physical_attack(
    attacker: str, defender: str, *, attacker_spirit: bool, defender_spirit: bool, holy_blessed: bool
) -> None:
    """R27: spirits neither attack nor are attacked by physical means. A spirit's standard attack serves
    only against other spirits (the living it attacks spiritually), and a living fighter harms a spirit
    only with a Holy Blessed weapon (:func:`weapon_harms_spirit`)."""
    if attacker_spirit and not defender_spirit:
        raise IllegalAction(
            f"{attacker} is a spirit: its standard attack is only for other spirits, and it attacks the "
            f"living {defender} with a spiritual attack (`/spirit attack`, R27)."
        )
    if defender_spirit and not attacker_spirit and not weapon_harms_spirit(holy_blessed):
        raise IllegalAction(
            f"{defender} is a spirit: physical weapons, even magical ones, do nothing to it unless Holy "
            "Blessed (R27). If the weapon is, say `holy_blessed: True`."
        )


def ability_score_for(modifier: int) -> int:
    """R27: a creature without the ability score rated has 7 + its modifier (for damage only)."""
    return 7 + modifier


class SpiritualAttackResult(BaseModel):
    """R27: both rolls, both totals, who won, and what the drain did to the defender's score.

    ``score_rated`` is True when the score was rated as 7 + modifier because none was given.
    ``effect`` is set when the score reached 0.
    """

    model_config = ConfigDict(frozen=True)

    ability: SpiritTarget
    attacker_roll: PoolRoll
    attacker_modifiers: tuple[Modifier, ...]
    attacker_total: int
    defender_roll: PoolRoll
    defender_modifiers: tuple[Modifier, ...]
    defender_total: int
    protections: tuple[SpiritProtection, ...]
    communion: bool
    attacker_wins: bool
    damage: int
    score_before: int
    score_after: int
    score_rated: bool
    effect: SpiritEffect | None

    @property
    def defender_advantage(self) -> Advantage:
        return self.defender_roll.advantage


def spiritual_attack(
    dice: DiceSource,
    attacker_modifier: int,
    defender_modifier: int,
    ability: SpiritTarget,
    protections: Iterable[SpiritProtection] = (),
    confirmed: bool = False,
    proficiency: int = 0,
    communion_last_week: bool = False,
    damage: int = 0,
    defender_score: int | None = None,
    joker_bonus: int = 0,
) -> SpiritualAttackResult:
    """R27: the spirit's d20 + modifier against the defender's ability check; higher total wins.

    The defender rolls d20 + the ability's modifier at disadvantage, negated by any protection;
    communion in the last week gives advantage (so with no protection the two cancel); a
    confirmed defender (or one who has had a Bar Mitzvah) adds ``proficiency``.

    Choices: the attacker must beat the defender's total; a tie goes to the defender, as a
    defence does. Natural 20s and 1s mean nothing special here. The Joker bonus (R3) of the
    spirit's turn adds to its attack and its damage. On a win the damage (never below 0) lowers
    ``defender_score``, or 7 + ``defender_modifier`` when the defender has no score rated,
    down to 0, where the ability's effect applies. The rolled damage is passed in.
    """
    if damage < 0:
        raise RulesError("Spiritual damage is a number of ability points, zero or more.")
    attack = roll_check(dice, with_joker([Modifier(label="spirit", value=attacker_modifier)], joker_bonus))

    held = tuple(dict.fromkeys(protections))
    defence = Advantage.NONE if held else Advantage.DISADVANTAGE
    if communion_last_week:
        defence = defence.combine(Advantage.ADVANTAGE)
    defender_modifiers = [Modifier(label=ability.value, value=defender_modifier)]
    if confirmed:
        defender_modifiers.append(Modifier(label="proficiency", value=proficiency))
    defense = roll_check(dice, defender_modifiers, defence)

    attacker_wins = attack.total > defense.total
    score_rated = defender_score is None
    before = ability_score_for(defender_modifier) if defender_score is None else defender_score
    dealt = damage + joker_bonus if attacker_wins else 0
    after = max(0, before - dealt)
    return SpiritualAttackResult(
        ability=ability,
        attacker_roll=attack.roll,
        attacker_modifiers=attack.modifiers,
        attacker_total=attack.total,
        defender_roll=defense.roll,
        defender_modifiers=defense.modifiers,
        defender_total=defense.total,
        protections=held,
        communion=communion_last_week,
        attacker_wins=attacker_wins,
        damage=dealt,
        score_before=before,
        score_after=after,
        score_rated=score_rated,
        effect=ability.effect_at_zero if after == 0 else None,
    )


class Banishment(StrEnum):
    """R27: what becomes of a disembodied spirit brought to 0 HP; it is not killed."""

    SENT_BACK = "sent back to Hell"
    DISSIPATED = "dissipated"


def banishment(demon: bool) -> Banishment:
    """R27: a demon at 0 HP is sent back to Hell, any other spirit dissipated."""
    return Banishment.SENT_BACK if demon else Banishment.DISSIPATED


def banishment_days(hit_dice: int) -> int:
    """R27: a spirit at 0 HP is gone for 100 divided by its Hit Dice days, rounded up."""
    if hit_dice < 1:
        raise RulesError("A spirit has at least 1 Hit Die.")
    return math.ceil(100 / hit_dice)


class ScoreHealing(BaseModel):
    """R27: a drained score healed: before, after, and whether it reached the 3 that ends the effect."""

    model_config = ConfigDict(frozen=True)

    ability: SpiritTarget
    before: int
    after: int
    recovered: bool
    """It was below 3 and is now 3 or more (R27: the mind is its own again, the fright is over)."""


def heal_score(ability: SpiritTarget, score: int, points: int) -> ScoreHealing:
    """R27: healing raises a drained score (at most to 30); at 3 or more the effect of the drain ends:
    the feeble-minded or mad are no longer under the GM's control, the once-possessed no longer
    Frightened."""
    if points < 1:
        raise RulesError("Heal at least 1 point.")
    after = min(MAX_SCORE, score + points)
    return ScoreHealing(ability=ability, before=score, after=after, recovered=score < RECOVERED_AT <= after)
