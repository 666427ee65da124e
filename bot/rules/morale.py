"""Lords of Hack morale: the check, what proposes one, and the rally (R21, R22, R23).

A morale check is a plain d20 (2d20 keep-high or keep-low under advantage or disadvantage, R10)
that spends no Martial Pool dice. Choices where the rulings leave room are recorded on the
function that makes them.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, model_validator

from .dice import Advantage, DiceSource, Modifier, PoolRoll, roll_check, sum_of, with_joker
from .errors import IllegalAction

MORALE_TARGET = 11
"""R21, R23: a morale check or a rally's CHA check passes on a total of 11 or more."""


class MoraleStanding(StrEnum):
    """R21: where a combatant stands after its morale checks."""

    STEADY = "steady"
    ROUTED = "routed"
    FRIGHTENED = "frightened"
    DEMORALIZED = "demoralized"
    """R21: "the GM may rule them to be Demoralized if the defeat was especially severe": routed, and no
    recheck or rally brings it back; only the GM's ruling does."""

    @property
    def failed(self) -> bool:
        """Routed, Frightened and Demoralized combatants have failed morale and cannot rally others (R23)."""
        return self is not MoraleStanding.STEADY

    @property
    def rallied(self) -> bool:
        """R23: a rally "may attempt to return Routed or Frightened allies to normal" (not Demoralized)."""
        return self in (MoraleStanding.ROUTED, MoraleStanding.FRIGHTENED)

    @property
    def fleeing(self) -> bool:
        """R21: Routed or Demoralized: it must find the nearest, safest way to flee."""
        return self in (MoraleStanding.ROUTED, MoraleStanding.DEMORALIZED)


ROUNDS_PER_EXPLORATION_TURN = 100
"""R5: a round is 6 seconds, an exploration turn 10 minutes (a whole fight counts as one)."""


def recheck_refusal(standing: MoraleStanding, rechecked_round: int | None, round_now: int) -> str | None:
    """R21: why a combatant may not recheck its morale now (None when it may). "Routed characters/
    monsters may recheck morale every exploration turn once they have escaped the vicinity of their
    defeat to attempt to return to normal, but the GM may rule them to be Demoralized": only the
    Routed recheck, at most once an exploration turn (:data:`ROUNDS_PER_EXPLORATION_TURN` rounds);
    that it escaped the vicinity is the GM's, who calls the recheck."""
    if standing is MoraleStanding.DEMORALIZED:
        return "demoralized: no recheck brings it back (R21)"
    if standing is not MoraleStanding.ROUTED:
        return f"{standing.value}, not routed"
    if rechecked_round is not None and round_now - rechecked_round < ROUNDS_PER_EXPLORATION_TURN:
        return f"already rechecked this exploration turn (round {rechecked_round})"
    return None


class MoraleSubject(BaseModel):
    """One combatant as morale sees it.

    A player character checks with ``wis_mod`` and ``proficiency``; anyone else with its
    ``morale`` number, and an NPC or monster whose ``morale`` is None never checks (R21).
    ``cha_mod`` is for rallying others (R23).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    player_character: bool = False
    wis_mod: int = 0
    proficiency: int = Field(default=0, ge=0)
    morale: int | None = None
    cha_mod: int = 0
    standing: MoraleStanding = MoraleStanding.STEADY

    @model_validator(mode="after")
    def _pc_has_no_morale_number(self) -> MoraleSubject:
        if self.player_character and self.morale is not None:
            raise ValueError("a player character checks morale with WIS and proficiency, not a morale number")
        return self

    @property
    def immune(self) -> bool:
        """R21: NPCs and monsters without a morale number (most undead, constructs) never check."""
        return not self.player_character and self.morale is None

    @property
    def morale_modifiers(self) -> tuple[Modifier, ...]:
        if self.player_character:
            return (
                Modifier(label="WIS", value=self.wis_mod),
                Modifier(label="proficiency", value=self.proficiency),
            )
        return (Modifier(label="morale", value=self.morale or 0),)


class MoraleResult(BaseModel):
    """One morale check: every die, every modifier, the total against 11 and the new standing.

    ``immune`` results roll nothing: ``roll`` and ``total`` are None and the standing is unchanged.
    """

    model_config = ConfigDict(frozen=True)

    subject: str
    immune: bool = False
    roll: PoolRoll | None = None
    modifiers: tuple[Modifier, ...] = ()
    total: int | None = None
    target: int = MORALE_TARGET
    passed: bool
    previous: MoraleStanding = MoraleStanding.STEADY
    standing: MoraleStanding

    @property
    def modifier_total(self) -> int:
        return sum_of(self.modifiers)


def morale_check(
    dice: DiceSource,
    subject: MoraleSubject,
    joker_bonus: int = 0,
    advantage: Advantage = Advantage.NONE,
    can_escape: bool = True,
) -> MoraleResult:
    """R21: d20 + WIS + proficiency (PCs) or d20 + morale (others), + the Joker bonus; 11+ passes.

    A pass leaves the subject Steady. A fail Routs it, or Frightens it when ``can_escape`` is
    False. A subject without a morale number rolls nothing and keeps its standing.
    """
    if subject.immune:
        return MoraleResult(
            subject=subject.name,
            immune=True,
            passed=True,
            previous=subject.standing,
            standing=subject.standing,
        )
    check = roll_check(dice, with_joker(subject.morale_modifiers, joker_bonus), advantage)
    passed = check.total >= MORALE_TARGET
    if passed:
        standing = MoraleStanding.STEADY
    else:
        standing = MoraleStanding.ROUTED if can_escape else MoraleStanding.FRIGHTENED
    return MoraleResult(
        subject=subject.name,
        roll=check.roll,
        modifiers=check.modifiers,
        total=check.total,
        passed=passed,
        previous=subject.standing,
        standing=standing,
    )


class RallyResult(BaseModel):
    """R23: the rallier's CHA check and, when it succeeds, each ally's morale re-roll."""

    model_config = ConfigDict(frozen=True)

    rallier: str
    is_leader: bool
    roll: PoolRoll
    modifiers: tuple[Modifier, ...]
    total: int
    target: int = MORALE_TARGET
    success: bool
    rerolls: tuple[MoraleResult, ...] = ()

    @property
    def advantage(self) -> Advantage:
        return self.roll.advantage

    @property
    def returned(self) -> tuple[str, ...]:
        """The allies a passing re-roll returned to Steady."""
        return tuple(r.subject for r in self.rerolls if r.passed)


def rally(
    dice: DiceSource,
    rallier: MoraleSubject,
    is_leader: bool,
    allies: Iterable[MoraleSubject],
    joker_bonus: int = 0,
    advantage: Advantage = Advantage.NONE,
    allies_on_card: bool = True,
) -> RallyResult:
    """R23: a rallier that has not failed morale spends its action on a CHA check, 11+ succeeds.

    The check is at disadvantage unless the rallier is the group's leader (``advantage`` is any
    other situation, combined with it). On a success each Routed ally re-rolls morale normally and
    each Frightened ally at disadvantage; a pass returns it to Steady, a fail keeps its standing.
    Steady allies are skipped.

    Choices: "has not failed morale" is read from the rallier's present standing (one that a
    rally already returned to Steady may rally others). The Joker bonus (R3) adds to the CHA check
    and, while ``allies_on_card`` (the rallier's group shares one card, R2), to the re-rolls.
    Spending the action is the caller's business. A refused rally rolls no dice.
    """
    if rallier.standing.failed:
        raise IllegalAction(
            f"{rallier.name} is {rallier.standing.value} and cannot rally others; only someone who "
            "has not failed morale can."
        )
    shaken = [ally for ally in allies if ally.standing.rallied]
    if not shaken:
        raise IllegalAction("There is nobody routed or frightened to rally.")
    own = Advantage.NONE if is_leader else Advantage.DISADVANTAGE
    cha = (Modifier(label="CHA", value=rallier.cha_mod),)
    check = roll_check(dice, with_joker(cha, joker_bonus), own.combine(advantage))
    success = check.total >= MORALE_TARGET
    rerolls: tuple[MoraleResult, ...] = ()
    if success:
        ally_bonus = joker_bonus if allies_on_card else 0
        rerolls = tuple(
            morale_check(
                dice,
                ally,
                joker_bonus=ally_bonus,
                advantage=(
                    Advantage.DISADVANTAGE if ally.standing is MoraleStanding.FRIGHTENED else Advantage.NONE
                ),
                can_escape=ally.standing is MoraleStanding.ROUTED,
            )
            for ally in shaken
        )
    return RallyResult(
        rallier=rallier.name,
        is_leader=is_leader,
        roll=check.roll,
        modifiers=check.modifiers,
        total=check.total,
        success=success,
        rerolls=rerolls,
    )


class MemberStatus(StrEnum):
    """R22: whether a group member is still in the fight."""

    ACTIVE = "active"
    DOWN = "down"
    DEAD = "dead"
    CAPTURED = "captured"
    DISABLED = "disabled"
    FLED = "fled"

    @property
    def out(self) -> bool:
        return self is not MemberStatus.ACTIVE


class GroupMember(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1)
    name: str = Field(min_length=1)
    is_leader: bool = False
    status: MemberStatus = MemberStatus.ACTIVE


class CombatGroup(BaseModel):
    """A group that shares an initiative card (R2); ``player_characters`` groups never trigger (R22)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1)
    player_characters: bool = False
    members: tuple[GroupMember, ...]

    @property
    def out_count(self) -> int:
        return sum(1 for m in self.members if m.status.out)

    @property
    def half_down(self) -> bool:
        """At least half the members are out (3 of 6, 2 of 3, 1 of 1)."""
        return bool(self.members) and 2 * self.out_count >= len(self.members)


class MoraleTriggerReason(StrEnum):
    LEADER_LOST = "leader lost"
    HALF_DOWN = "half the group down"
    RIDING_HORSE = "riding horse in combat"
    """R25 mounted: a riding horse, mule, pony or draft horse checks before closing and every round."""
    DRIVEN_OUT = "spirit driven out"
    """R22: a demon, ghost or spirit driven out of a person by divine means (never a PC)."""


class MoraleTrigger(BaseModel):
    """R22: a proposed morale check for the GM to confirm; ``checkers`` are the members still active."""

    model_config = ConfigDict(frozen=True)

    group: str
    reason: MoraleTriggerReason
    detail: str
    checkers: tuple[str, ...]


def morale_triggers(before: CombatGroup, after: CombatGroup) -> list[MoraleTrigger]:
    """R22: the morale checks a change to an NPC group proposes (the GM confirms them).

    - A leader that was active before and is down, dead, captured, disabled or fled after.
      "Down" counts as disabled, so a leader knocked out proposes a check.
    - The group crossing to at least half its members out (any status but active). Only the
      crossing proposes: later losses while the group stays at or above half do not.

    Player-character groups and groups with nobody left active propose nothing. Several reasons
    in one change give several triggers; the group still makes one check. Surprise, spells and
    items are the GM's call (R22) and never come from here.
    """
    if after.player_characters or before.player_characters:
        return []
    checkers = tuple(m.id for m in after.members if not m.status.out)
    if not checkers:
        return []
    triggers: list[MoraleTrigger] = []
    was = {m.id: m.status for m in before.members}
    for member in after.members:
        if member.is_leader and member.status.out and was.get(member.id) is MemberStatus.ACTIVE:
            triggers.append(
                MoraleTrigger(
                    group=after.name,
                    reason=MoraleTriggerReason.LEADER_LOST,
                    detail=f"{member.name}, the leader, is {member.status.value}.",
                    checkers=checkers,
                )
            )
    if after.half_down and not before.half_down:
        triggers.append(
            MoraleTrigger(
                group=after.name,
                reason=MoraleTriggerReason.HALF_DOWN,
                detail=f"{after.out_count} of {len(after.members)} are out of the fight.",
                checkers=checkers,
            )
        )
    return triggers
