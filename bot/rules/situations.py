"""The Lords of Hack advantage and disadvantage situations, and their net effect on a roll (R10, R25)."""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from .armor_class import Opening
from .dice import Advantage
from .engagement import Distance
from .equipment import Size
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
    if standing.fleeing and routed_too:  # R21: Demoralized is a Routed that no recheck brings back
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


class Steed(StrEnum):
    """Lords of Hack mounts: what a horse does in a fight (R25 mounted combat)."""

    HEAVY_WARHORSE = "heavy warhorse"
    """A lance charge from it does double damage; it tramples and strikes like a warhorse."""
    WARHORSE = "warhorse"
    """Tramples when its rider charges, strikes out with its hooves in a round it does not move."""
    RIDING = "riding horse"
    """A riding horse, mule, pony or draft horse: checks morale before closing and every round."""

    @property
    def warhorse(self) -> bool:
        return self is not Steed.RIDING


class Party(BaseModel):
    """One side of an attack as the situations of R25 see it (what the fight knows of it)."""

    model_config = ConfigDict(frozen=True)

    mounted: bool = False
    knightly: bool = False
    """Proficient in Knightly Combat."""
    moving: bool = False
    """Mounted, and the rider or the mount has moved this round."""
    steed: bool = False
    """It is a mount itself."""
    shield_wall: bool = False
    scaling: bool = False
    unseen: bool = False
    prone: bool = False
    helpless: bool = False
    """Unconscious or incapacitated."""
    cover: int = Field(default=0, ge=0, le=4)
    """Cover against missiles, in quarters (25% each)."""
    opening: Opening | None = None
    """In a roofed area behind a window, or behind an arrow slit."""
    long_spear_or_bill: bool = False
    """The weapon in hand is a long spear or a bill."""
    standing: MoraleStanding = MoraleStanding.STEADY
    size: Size = Size.MEDIUM
    constructed: bool = False
    """A construct (golem, animated statue): numbers never help against it."""
    beside_ally: bool = False
    """Side by side or back to back with an ally (not alone)."""

    @property
    def footman(self) -> bool:
        """A man on foot: not mounted, not a mount, not bigger than a man."""
        return not self.mounted and not self.steed and self.size in (Size.TINY, Size.SMALL, Size.MEDIUM)

    @property
    def in_cover(self) -> bool:
        return self.cover > 0 or self.opening is not None


class Numbers(BaseModel):
    """Who has attacked the target this round, this attack included (R25 numbers)."""

    model_config = ConfigDict(frozen=True)

    attackers: int = 1
    """Different attackers of the target."""
    human_sized: int = 1
    """Of them, men or smaller (not mounts, not monsters bigger than a man)."""
    riders_or_spears: int = 0
    """Of them, riders, or footmen with a long spear or a bill."""
    on_the_pair: int = 1
    """Different attackers of the target and of the ally beside it."""


class AttackFacts(BaseModel):
    """Everything R25 needs to know of one attack: both sides, the weapon, the distance, this round's
    attacks and what the GM declared. :func:`situations_of` reads it; so /attack and /odds agree."""

    model_config = ConfigDict(frozen=True)

    attacker: Party = Field(default_factory=Party)
    target: Party = Field(default_factory=Party)
    missile: bool = False
    thrown: bool = False
    distance: Distance = Distance.NEAR
    numbers: Numbers = Field(default_factory=Numbers)
    ally_in_melee: bool = False
    """A missile at a target in melee with one of the attacker's allies."""
    struck_my_horse: bool = False
    """The target's last attack was on the attacker's mount."""
    unseen_declared: bool = False
    """The GM declares the target cannot see the attacker (a named choice of the command)."""
    routed_too: bool = True
    """``RuleOptions.routed_attack_disadvantage``."""


def numbers_target(target: Party) -> NumbersTarget | None:
    """R25: what kind of target a band of attackers gangs up on (None: numbers never help)."""
    if target.constructed or target.size is Size.VERY_LARGE:
        return NumbersTarget.CONSTRUCT if target.constructed else NumbersTarget.HUGE_MONSTER
    if target.size is Size.LARGE and not target.mounted:
        return NumbersTarget.LARGE_MONSTER
    if target.mounted:
        return None if target.beside_ally else NumbersTarget.LONE_HORSEMAN
    if target.footman:
        return NumbersTarget.TWO_FOOTMEN if target.beside_ally else NumbersTarget.LONE_FOOTMAN
    return None


def _numbers(facts: AttackFacts) -> Situation | None:
    target = numbers_target(facts.target)
    if target is None:
        return None
    counted = {
        NumbersTarget.LONE_FOOTMAN: facts.numbers.attackers,
        NumbersTarget.TWO_FOOTMEN: facts.numbers.on_the_pair,
        NumbersTarget.LARGE_MONSTER: facts.numbers.human_sized,
        NumbersTarget.LONE_HORSEMAN: facts.numbers.riders_or_spears,
    }.get(target, 0)
    return numbers_situation(counted, target)


def situations_of(facts: AttackFacts) -> list[Situation]:
    """R25: every situation of the text that applies to this attack, in the order of the text.

    Mounted combat, prone, numbers, shield wall, scaling, unseen, distance, cover, shooting into a
    melee, and the attacker's morale (R21). The Long Spear and Bill exceptions: a footman holding one
    is not at disadvantage against a rider, a Knightly rider has no advantage against him, and he
    counts toward the numbers against a lone horseman. Huge monsters and constructs give no numbers.
    """
    attacker, target, missile = facts.attacker, facts.target, facts.missile
    found: list[Situation] = []
    if attacker.mounted and not missile and not attacker.knightly:
        found.append(Situation.UNTRAINED_MOUNTED_MELEE)
    if attacker.mounted and missile and attacker.moving:
        found.append(Situation.RANGED_FROM_MOVING_HORSE)
    if attacker.footman and target.mounted and not missile and not attacker.long_spear_or_bill:
        found.append(Situation.FOOTMAN_AGAINST_RIDER)
    knight = attacker.mounted and attacker.knightly and not missile
    if knight and target.footman and not target.shield_wall and not target.long_spear_or_bill:
        found.append(Situation.KNIGHT_AGAINST_FOOTMAN)
    if knight and target.footman and facts.struck_my_horse:
        found.append(Situation.KNIGHT_AGAINST_HORSE_ATTACKER)
    if target.prone:
        found.append(Situation.PRONE_TARGET_RANGED if missile else Situation.PRONE_TARGET_MELEE)
    numbers = _numbers(facts)
    if numbers is not None:
        found.append(numbers)
    if target.shield_wall:
        found.append(Situation.SHIELD_WALL)
    if attacker.scaling:
        found.append(Situation.ATTACKER_SCALING)
    if target.scaling:
        found.append(Situation.TARGET_SCALING)
    if attacker.unseen or facts.unseen_declared:
        found.append(Situation.UNSEEN_ATTACKER)
    if missile and facts.thrown and facts.distance is Distance.MIDDLE:
        found.append(Situation.THROWN_LONG_RANGE)
    if missile and not facts.thrown and facts.distance is Distance.VERY_FAR:
        found.append(Situation.RANGED_LONG_RANGE)
    if missile and target.in_cover:
        found.append(Situation.COVER)
    if missile and facts.ally_in_melee:
        found.append(Situation.SHOOTING_INTO_MELEE)
    morale = morale_situation(attacker.standing, routed_too=facts.routed_too)
    if morale is not None:
        found.append(morale)
    return found


def out_of_reach(facts: AttackFacts) -> bool:
    """R25: a thrown weapon reaches at most 50'."""
    return facts.missile and facts.thrown and facts.distance in (Distance.FAR, Distance.VERY_FAR)


def automatic_hit(facts: AttackFacts) -> bool:
    """R25: :func:`hits_automatically` for these facts."""
    return hits_automatically(facts.target.helpless, facts.missile)


def lance_charge_doubles(*, knightly: bool, lance: bool, steed: Steed | None, charging: bool) -> bool:
    """R25 mounted: a rider proficient in Knightly Combat scores double damage when charging with a
    lance from a heavy warhorse."""
    return charging and knightly and lance and steed is Steed.HEAVY_WARHORSE
