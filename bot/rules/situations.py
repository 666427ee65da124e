"""The Lords of Hack advantage and disadvantage situations, and their net effect on a roll (R10, R25)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from pydantic import BaseModel, ConfigDict

from .dice import Advantage
from .morale import MoraleStanding


class Situation(StrEnum):
    """R25: every situation of the text that gives an attack advantage or disadvantage."""

    UNTRAINED_MOUNTED_MELEE = "untrained mounted melee"
    RANGED_FROM_MOVING_HORSE = "ranged from moving horse"
    FOOTMAN_AGAINST_RIDER = "footman against rider"
    KNIGHT_AGAINST_FOOTMAN = "knight against footman"
    KNIGHT_AGAINST_HORSE_ATTACKER = "knight against horse attacker"
    PRONE_TARGET_MELEE = "prone target melee"
    PRONE_TARGET_RANGED = "prone target ranged"
    NUMBERS_AGAINST_LONE_FOOTMAN = "numbers against lone footman"
    NUMBERS_AGAINST_LARGE_MONSTER = "numbers against large monster"
    NUMBERS_AGAINST_TWO_FOOTMEN = "numbers against two footmen"
    SPEARS_AGAINST_LONE_HORSEMAN = "spears against lone horseman"
    SHIELD_WALL = "shield wall"
    ATTACKER_SCALING = "attacker scaling"
    TARGET_SCALING = "target scaling"
    UNSEEN_ATTACKER = "unseen attacker"
    RANGED_LONG_RANGE = "ranged long range"
    THROWN_LONG_RANGE = "thrown long range"
    COVER = "cover"
    SHOOTING_INTO_MELEE = "shooting into melee"
    ATTACKER_FRIGHTENED = "attacker frightened"
    ATTACKER_ROUTED = "attacker routed"

    @property
    def effect(self) -> Advantage:
        return _EFFECTS[self][0]

    @property
    def label(self) -> str:
        """A short phrase for the roll's message."""
        return _EFFECTS[self][1]


_ADV = Advantage.ADVANTAGE
_DIS = Advantage.DISADVANTAGE
_EFFECTS: dict[Situation, tuple[Advantage, str]] = {
    Situation.UNTRAINED_MOUNTED_MELEE: (_DIS, "melee from horseback without Knightly Combat"),
    Situation.RANGED_FROM_MOVING_HORSE: (_DIS, "shooting from a moving horse"),
    Situation.FOOTMAN_AGAINST_RIDER: (_DIS, "on foot against a rider (no long spear or bill)"),
    Situation.KNIGHT_AGAINST_FOOTMAN: (_ADV, "Knightly rider against a footman"),
    Situation.KNIGHT_AGAINST_HORSE_ATTACKER: (_ADV, "Knightly rider against the man who struck his horse"),
    Situation.PRONE_TARGET_MELEE: (_ADV, "prone target, in melee"),
    Situation.PRONE_TARGET_RANGED: (_DIS, "prone target, at range"),
    Situation.NUMBERS_AGAINST_LONE_FOOTMAN: (_ADV, "2+ attackers against a lone footman"),
    Situation.NUMBERS_AGAINST_LARGE_MONSTER: (_ADV, "4+ men against a large monster"),
    Situation.NUMBERS_AGAINST_TWO_FOOTMEN: (_ADV, "5+ attackers against two footmen"),
    Situation.SPEARS_AGAINST_LONE_HORSEMAN: (_ADV, "2+ riders or long spears against a lone horseman"),
    Situation.SHIELD_WALL: (_DIS, "target in a shield wall"),
    Situation.ATTACKER_SCALING: (_DIS, "attacker is scaling"),
    Situation.TARGET_SCALING: (_ADV, "target is scaling"),
    Situation.UNSEEN_ATTACKER: (_ADV, "attacker unseen"),
    Situation.RANGED_LONG_RANGE: (_DIS, "ranged attack at 150' or more"),
    Situation.THROWN_LONG_RANGE: (_DIS, "thrown attack at 25' or more"),
    Situation.COVER: (_DIS, "target has cover"),
    Situation.SHOOTING_INTO_MELEE: (_DIS, "shooting into a melee with an ally"),
    Situation.ATTACKER_FRIGHTENED: (_DIS, "attacker is frightened"),
    Situation.ATTACKER_ROUTED: (_DIS, "attacker is routed"),
}


class SituationResult(BaseModel):
    """The net advantage on a roll and what made it: the situations, in order, and their labels.

    ``extra`` is any advantage given outside the list (a GM's call, a spell); it takes part in the
    netting like one more situation.
    """

    model_config = ConfigDict(frozen=True)

    advantage: Advantage
    situations: tuple[Situation, ...]
    extra: Advantage = Advantage.NONE

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(s.label for s in self.situations)

    @property
    def cancelled(self) -> bool:
        """Both kinds were present and cancelled out (R10)."""
        effects = {s.effect for s in self.situations} | {self.extra}
        return {Advantage.ADVANTAGE, Advantage.DISADVANTAGE} <= effects


def situational_advantage(
    situations: Iterable[Situation], extra: Advantage = Advantage.NONE
) -> SituationResult:
    """R25, R10: the net advantage of the situations that apply to one attack roll.

    Any advantage and any disadvantage cancel; several of one kind count once. A situation named
    twice is listed once.
    """
    applied = tuple(dict.fromkeys(situations))
    effects = [s.effect for s in applied] + [extra]
    advantage = Advantage.net(effects.count(Advantage.ADVANTAGE), effects.count(Advantage.DISADVANTAGE))
    return SituationResult(advantage=advantage, situations=applied, extra=extra)


def morale_situation(standing: MoraleStanding, *, routed_too: bool = True) -> Situation | None:
    """R21, R25: the situation an attacker's morale puts on its attacks, if any.

    The text has Frightened combatants fight at disadvantage; R25 lists routed ones as well, which
    ``routed_too`` (``RuleOptions.routed_attack_disadvantage``) follows by default.
    """
    if standing is MoraleStanding.FRIGHTENED:
        return Situation.ATTACKER_FRIGHTENED
    if standing is MoraleStanding.ROUTED and routed_too:
        return Situation.ATTACKER_ROUTED
    return None


class NumbersTarget(StrEnum):
    """What a band of attackers is ganging up on, for the numbers advantage (R25)."""

    LONE_FOOTMAN = "lone footman"
    TWO_FOOTMEN = "two footmen side by side or back to back"
    LARGE_MONSTER = "large monster"
    HUGE_MONSTER = "huge monster"
    CONSTRUCT = "construct"
    LONE_HORSEMAN = "lone horseman"


_NUMBERS: dict[NumbersTarget, tuple[int, Situation]] = {
    NumbersTarget.LONE_FOOTMAN: (2, Situation.NUMBERS_AGAINST_LONE_FOOTMAN),
    NumbersTarget.TWO_FOOTMEN: (5, Situation.NUMBERS_AGAINST_TWO_FOOTMEN),
    NumbersTarget.LARGE_MONSTER: (4, Situation.NUMBERS_AGAINST_LARGE_MONSTER),
    NumbersTarget.LONE_HORSEMAN: (2, Situation.SPEARS_AGAINST_LONE_HORSEMAN),
}


def numbers_situation(attackers: int, target: NumbersTarget) -> Situation | None:
    """R25: the numbers advantage, if the band is big enough (2, 5, 4 or 2 by target).

    ``attackers`` counts only those who qualify: human-sized men against a large monster, and
    horsemen or footmen with long spears or bills against a lone horseman. Numbers never help
    against a huge monster or a construct.
    """
    rule = _NUMBERS.get(target)
    if rule is None or attackers < rule[0]:
        return None
    return rule[1]


def hits_automatically(target_helpless: bool, ranged: bool) -> bool:
    """R25: an unconscious or incapacitated target is hit automatically in melee, never at range.

    A ranged attack on such a target rolls as usual (the Martial Pool's undefended passive
    defense of 8 against missiles, R13, or its AC).
    """
    return target_helpless and not ranged
