"""Morale at the table: the fight's combatants and groups as the morale rules see them (R21-R23).

The rules core (:mod:`bot.rules.morale`) knows subjects, groups and triggers; this module reads them
off the :class:`~bot.encounter.document.Encounter` and writes the outcome back: each combatant's standing and
the fight's open :class:`~bot.encounter.records.MoraleProposal` records. Everything here is plain work on
the fight document, run inside one :meth:`~bot.store.Store.change` transaction; nothing knows Discord.
The operations of ``/morale`` and its proposal buttons (:func:`check`, :func:`rally`,
:func:`rule_standing`, :func:`confirm`, :func:`dismiss`) return a :class:`~bot.encounter.done.Done`
with their log lines.

Choices where the rulings are silent, recorded once here and on the functions that make them:

- Who checks when a group checks: its members still in the fight (not down, not unconscious) that
  have not already failed. A Routed or Frightened member has failed morale; only a rally (R23) brings
  it back, so a new check passes it over instead of giving it a free second chance.
- A check or a rally proposes no follow-up check, even when it routs the group's leader or half the
  group: the group has just rolled for the very moment the trigger would describe (R22 asks the GM
  about changes the fight brings, and the GM may always ask for another check).
- A player character's allies, for a rally, are every other player character in the fight: the
  party fights as one side even though each player holds a card. An NPC's allies are its group.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from ..rules.dice import Advantage, D20Witness, DiceSource
from ..rules.errors import IllegalAction, RulesError, shown
from ..rules.initiative import RollKind
from ..rules.morale import (
    CombatGroup,
    GroupMember,
    MemberStatus,
    MoraleStanding,
    MoraleSubject,
    MoraleTriggerReason,
    morale_check,
    morale_triggers,
    recheck_refusal,
)
from ..rules.morale import rally as roll_rally
from ..rules.situations import Steed
from ..wording.morale import (
    check_log_line,
    proposal_dismissed_log_line,
    proposal_settled_log_line,
    rally_log_line,
    standing_log_line,
)
from .combatants import Combatant, Side
from .document import Encounter, group_holder
from .done import Done
from .errors import OtherFight, ProposalResolved
from .fighters import joker_bonus
from .permissions import Actor, acting_combatant, require_gm, require_turn
from .records import MoraleProposal
from .results import MoraleCheckReport, Passed, RallyReport

# ----------------------------------------------------------------------------- what morale sees


def member_status(combatant: Combatant) -> MemberStatus:
    """R22: whether a member still counts for its group: down or unconscious members are DOWN, Routed
    ones have FLED, Frightened ones are DISABLED (they fight on, badly, or surrender), the rest ACTIVE."""
    if combatant.out_of_the_fight:
        return MemberStatus.DOWN
    if combatant.standing.fleeing:
        return MemberStatus.FLED
    if combatant.standing is MoraleStanding.FRIGHTENED:
        return MemberStatus.DISABLED
    return MemberStatus.ACTIVE


def morale_subject(combatant: Combatant) -> MoraleSubject:
    """R21: a player character checks with WIS + proficiency; an NPC with its morale number, and one
    without a number (most undead, constructs) never checks."""
    player = combatant.side is Side.PLAYER
    return MoraleSubject(
        name=combatant.name,
        player_character=player,
        wis_mod=combatant.wis_mod,
        proficiency=max(0, combatant.proficiency),
        morale=None if player else combatant.morale,
        cha_mod=combatant.cha_mod,
        standing=combatant.standing,
    )


def group_members(encounter: Encounter, group_name: str) -> list[Combatant]:
    """The NPCs of the group called ``group_name`` (ignoring case), in roster order."""
    holder = group_holder(group_name)
    return [c for c in encounter.combatants if c.side is Side.NPC and c.holder == holder]


def group_snapshot(encounter: Encounter, group_name: str) -> CombatGroup:
    """R22: the NPC group as the morale triggers compare it, before and after a change.

    Take one before a change that may hurt the group (damage, a rout) and hand it to
    :func:`propose_checks` afterwards. A group nobody is left in has no members (and proposes nothing).
    """
    members = group_members(encounter, group_name)
    name = members[0].group if members and members[0].group else group_name
    return CombatGroup(
        name=name,
        player_characters=False,
        members=tuple(
            GroupMember(id=c.id, name=c.name, is_leader=c.leader, status=member_status(c)) for c in members
        ),
    )


# ----------------------------------------------------------------------------- proposals (R22)


def open_proposals(encounter: Encounter, group_name: str | None = None) -> list[MoraleProposal]:
    """The proposals the GM has not rolled or dismissed yet, oldest first (of one group, if named)."""
    if group_name is None:
        return list(encounter.morale_proposals)
    holder = group_holder(group_name)
    return [p for p in encounter.morale_proposals if group_holder(p.group) == holder]


def propose_checks(encounter: Encounter, before: CombatGroup) -> list[MoraleProposal]:
    """R22: the checks a change to one NPC group proposes, added to the fight's open proposals.

    ``before`` is :func:`group_snapshot` taken before the change; the group as it is now is compared
    with it by :func:`~bot.rules.morale.morale_triggers`. The group makes one check whatever set it
    off, so several triggers at once make one proposal (numbered from ``encounter.next_proposal``)
    naming them all; a group that already has an open proposal, or whose members still standing never
    check (R21), is proposed nothing more. Returns the proposals added (the GM is asked about those).
    """
    after = group_snapshot(encounter, before.name)
    checkers = [c for c in group_members(encounter, before.name) if member_status(c) is MemberStatus.ACTIVE]
    if all(morale_subject(c).immune for c in checkers):
        return []  # R21: nobody left in the group would roll (undead, constructs): nothing to propose
    triggers = morale_triggers(before, after)
    if not triggers or open_proposals(encounter, before.name):
        return []  # one check settles all an open proposal of the group is about
    proposal = MoraleProposal(
        id=encounter.next_proposal,
        group=triggers[0].group,
        reason=triggers[0].reason,
        detail=" ".join(trigger.detail for trigger in triggers),
        round=encounter.initiative.round,
    )
    encounter.next_proposal += 1
    encounter.morale_proposals.append(proposal)
    return [proposal]


def propose_mount_checks(encounter: Encounter) -> list[MoraleProposal]:
    """R25 mounted: at every deal, each NPC group with a riding horse (mule, pony, draft horse) still
    in the fight is proposed a morale check, or the horse bolts from the fight; one proposal per
    group, none while one is open. (Before closing with an enemy: :func:`propose_closing_check`.)"""
    added: list[MoraleProposal] = []
    for group in encounter.groups:
        horses = [
            c
            for c in group_members(encounter, group)
            if c.steed is Steed.RIDING and member_status(c) is MemberStatus.ACTIVE
        ]
        if not horses or all(morale_subject(c).immune for c in horses) or open_proposals(encounter, group):
            continue
        names = ", ".join(c.name for c in horses)
        proposal = MoraleProposal(
            id=encounter.next_proposal,
            group=group,
            reason=MoraleTriggerReason.RIDING_HORSE,
            detail=f"{names}: a riding horse checks morale every round of combat, or bolts (R25).",
            round=encounter.initiative.round,
        )
        encounter.next_proposal += 1
        encounter.morale_proposals.append(proposal)
        added.append(proposal)
    return added


def propose_driven_out_check(
    encounter: Encounter, spirit: Combatant, person: Combatant
) -> MoraleProposal | None:
    """R22: a demon, ghost or spirit driven out of a person by divine means checks morale, proposed like
    the other triggers (the GM confirms it). Not for a player character's spirit ("Does not apply to
    PCs"), one that never checks (R21), or a group that already has a check open."""
    if driven_out_check_refused(encounter, spirit) is not None or spirit.group is None:
        return None
    proposal = MoraleProposal(
        id=encounter.next_proposal,
        group=spirit.group,
        reason=MoraleTriggerReason.DRIVEN_OUT,
        detail=f"{spirit.name} was driven out of {person.name} by divine means.",
        round=encounter.initiative.round,
    )
    encounter.next_proposal += 1
    encounter.morale_proposals.append(proposal)
    return proposal


def driven_out_check_refused(encounter: Encounter, spirit: Combatant) -> str | None:
    """Why a spirit driven out proposes no morale check (R21, R22), if it proposes none."""
    if spirit.side is Side.PLAYER or spirit.group is None:
        return "a player character's spirit is not checked (R22)"
    if morale_subject(spirit).immune:
        return "it has no morale number, so it never checks (R21); `/npc add … morale:` gives a spirit one"
    if open_proposals(encounter, spirit.group):
        return f"{spirit.group} already has a morale check open (R22): that one check settles it"
    return None


def propose_closing_check(encounter: Encounter, horse: Combatant, enemy: Combatant) -> list[MoraleProposal]:
    """R25 mounted: "A riding horse, mule, pony or draft horse must make a morale check before closing
    with an enemy": when one (or its rider) closes to Melee with ``enemy``, its NPC group is proposed a
    check, as at every deal (one proposal per group, none while one is open, none for a group that
    never checks)."""
    group = horse.group
    if horse.steed is not Steed.RIDING or group is None or member_status(horse) is not MemberStatus.ACTIVE:
        return []
    if morale_subject(horse).immune or open_proposals(encounter, group):
        return []
    proposal = MoraleProposal(
        id=encounter.next_proposal,
        group=group,
        reason=MoraleTriggerReason.RIDING_HORSE,
        detail=(
            f"{horse.name} closes with {enemy.name}: a riding horse checks morale before closing with an "
            "enemy, or bolts (R25)."
        ),
        round=encounter.initiative.round,
    )
    encounter.next_proposal += 1
    encounter.morale_proposals.append(proposal)
    return [proposal]


def proposal(encounter: Encounter, proposal_id: int) -> MoraleProposal:
    """An open proposal by its number; a settled one is refused with :class:`ProposalResolved`."""
    for open_one in encounter.morale_proposals:
        if open_one.id == proposal_id:
            return open_one
    if 0 < proposal_id < encounter.next_proposal:
        raise ProposalResolved(proposal_id)
    raise RulesError(f"There is no morale proposal #{proposal_id} in this fight.")


def dismiss_proposal(encounter: Encounter, proposal_id: int) -> MoraleProposal:
    """R22: the GM declines a proposed check; it is closed without a roll."""
    dismissed = proposal(encounter, proposal_id)
    encounter.morale_proposals.remove(dismissed)
    return dismissed


# ----------------------------------------------------------------------------- the check (R21)


def why_not_checking(combatant: Combatant) -> str | None:
    """Why a combatant makes no morale check now (None when it does): down, out cold, or already failed."""
    if combatant.is_down:
        return "down"
    if combatant.unconscious:
        return "unconscious"
    if combatant.standing.failed:
        return f"already {combatant.standing.value}"
    return None


def check_morale(
    encounter: Encounter,
    targets: Sequence[Combatant],
    dice: DiceSource,
    *,
    advantage: Advantage = Advantage.NONE,
    can_escape: bool = True,
) -> MoraleCheckReport:
    """R21: a morale check for each of ``targets`` that can make one, written to their standings.

    Each rolls d20 + WIS + proficiency (player characters) or d20 + morale number (NPCs), + the Joker
    bonus on its own Joker turn (R3); 11+ passes. A fail Routs, or Frightens when ``can_escape`` is
    False. NPCs without a morale number are listed as immune and roll nothing. Targets down,
    unconscious or already Routed or Frightened are passed over (only a rally, R23, undoes a failed
    check); if that leaves nobody, the check is refused and nothing changes.

    A group whose every member able to check was among the targets has checked: its open proposals
    (R22) are settled.
    """
    report = MoraleCheckReport(advantage=advantage, can_escape=can_escape)
    checking: list[Combatant] = []
    for target in targets:
        why = why_not_checking(target)
        if why is None:
            checking.append(target)
        else:
            report.passed_over.append(Passed(target, why))
    if not checking:
        names = ", ".join(f"{shown(p.combatant.name)} is {p.why}" for p in report.passed_over)
        raise IllegalAction(
            f"Nobody there can make a morale check: {names}. A routed or frightened combatant comes "
            "back only through a rally (/morale rally, R23)."
        )
    rolled = {c.id for c in checking}
    groups = {c.group for c in checking if c.side is Side.NPC and c.group is not None}
    complete = [
        group
        for group in groups
        if all(m.id in rolled for m in group_members(encounter, group) if why_not_checking(m) is None)
    ]
    for combatant in checking:
        result = morale_check(
            dice,
            morale_subject(combatant),
            joker_bonus=joker_bonus(encounter, combatant, RollKind.MORALE),
            advantage=advantage,
            can_escape=can_escape,
        )
        combatant.standing = result.standing
        report.results.append((combatant, result))
    for group in complete:
        for settled in open_proposals(encounter, group):
            encounter.morale_proposals.remove(settled)
            report.settled.append(settled)
    return report


def check_group(
    encounter: Encounter,
    group_name: str,
    dice: DiceSource,
    *,
    advantage: Advantage = Advantage.NONE,
    can_escape: bool = True,
) -> MoraleCheckReport:
    """R21, R22: the whole NPC group checks (every member able to)."""
    members = group_members(encounter, group_name)
    if not members:
        raise RulesError(f"No NPC group called '{shown(group_name)}' is in this fight.")
    return check_morale(encounter, members, dice, advantage=advantage, can_escape=can_escape)


@dataclass(slots=True)
class ProposalCheck:
    """A proposal the GM confirmed, and the group's check it rolled (None: the group is gone)."""

    proposal: MoraleProposal
    report: MoraleCheckReport | None


def roll_proposal(encounter: Encounter, proposal_id: int, dice: DiceSource) -> ProposalCheck:
    """R22: the GM confirms a proposed check: the group rolls once (R21), settling all its proposals.

    A group with nobody left who can check (all down or already fled) settles the proposal without a
    roll; so does a group no longer in the fight.
    """
    confirmed = proposal(encounter, proposal_id)
    members = group_members(encounter, confirmed.group)
    if not any(why_not_checking(m) is None for m in members):
        for settled in open_proposals(encounter, confirmed.group):
            encounter.morale_proposals.remove(settled)
        return ProposalCheck(confirmed, None)
    return ProposalCheck(confirmed, check_morale(encounter, members, dice))


# ----------------------------------------------------------------------------- the rally (R23)


def rally_allies_of(encounter: Encounter, rallier: Combatant) -> list[Combatant]:
    """R23: whom a rally can bring back: an NPC's own group; for a player character, every other
    player character (the party), as a GM would expect of "allies". The fallen are not rallied."""
    if rallier.side is Side.NPC:
        kin: Iterable[Combatant] = (c for c in encounter.combatants if c.holder == rallier.holder)
    else:
        kin = (c for c in encounter.combatants if c.side is Side.PLAYER)
    return [c for c in kin if c.id != rallier.id and not c.out_of_the_fight]


def rally_allies(
    encounter: Encounter, rallier: Combatant, dice: DiceSource, *, advantage: Advantage = Advantage.NONE
) -> RallyReport:
    """R23: the rallier spends its action, on its own turn, on a CHA check; 11+ succeeds, at
    disadvantage unless it is its group's leader (:attr:`Combatant.leader`). On a success each
    Routed ally re-rolls morale and each Frightened one re-rolls at disadvantage (R21); a pass
    brings it back to Steady.

    Refused, rolling nothing, when it is not the rallier's turn (R1), when the rallier is down or has
    itself failed morale, or when no ally is Routed or Frightened. The Joker bonus (R3) adds to the
    CHA check on the rallier's Joker turn, and to the re-rolls of allies acting on the same card.
    """
    if rallier.out_of_the_fight:
        raise IllegalAction(f"{shown(rallier.name)} is {rallier.state_label} and cannot rally anyone.")
    require_turn(encounter, rallier, "rally their allies")
    allies = rally_allies_of(encounter, rallier)
    shaken = [ally for ally in allies if ally.standing.rallied]
    result = roll_rally(
        dice,
        morale_subject(rallier),
        is_leader=rallier.leader,
        allies=[morale_subject(ally) for ally in allies],
        joker_bonus=joker_bonus(encounter, rallier, RollKind.ABILITY_CHECK),
        advantage=advantage,
        allies_on_card=all(ally.holder == rallier.holder for ally in shaken),
    )
    encounter.initiative.use_turn(rallier.holder)
    by_name = {ally.name: ally for ally in shaken}
    changed: list[Combatant] = []
    for reroll in result.rerolls:
        ally = by_name[reroll.subject]
        ally.standing = reroll.standing
        changed.append(ally)
    return RallyReport(rallier=rallier, result=result, allies=changed)


def set_standing(combatant: Combatant, standing: MoraleStanding) -> MoraleStanding:
    """The GM's ruling on a standing the bot cannot know (a routed foe cornered is Frightened, R21; a
    surrender; a spell). Returns the standing it had."""
    previous = combatant.standing
    if previous is standing:
        raise IllegalAction(f"{shown(combatant.name)} is already {standing.value}.")
    combatant.standing = standing
    return previous


# ----------------------------------------------------------------------------- the operations


def _targets(encounter: Encounter, who: str) -> tuple[str, list[Combatant] | None]:
    """What ``who`` names: an NPC group (the name, None: the whole group) or one combatant."""
    group = encounter.group_named(who)
    if group is not None:
        return group, None
    combatant = encounter.combatant(who)
    return combatant.name, [combatant]


def recheck(
    encounter: Encounter,
    actor: Actor,
    *,
    who: str,
    by: str,
    dice: DiceSource,
    advantage: Advantage = Advantage.NONE,
) -> Done[CheckCalled]:
    """``/morale recheck``: the GM rules that the Routed named (an NPC group's, or one combatant) have
    escaped the vicinity of their defeat, and each rechecks its morale (R21): a pass returns it to
    Steady, a fail leaves it Routed. Only the Routed recheck, once an exploration turn
    (:func:`~bot.rules.morale.recheck_refusal`); the Demoralized never do. If nobody named may, the
    recheck is refused and nothing changes."""
    require_gm(encounter, actor, "call for a morale recheck")
    name, targets = _targets(encounter, who)
    members = group_members(encounter, name) if targets is None else targets
    round_now = encounter.initiative.round
    report = MoraleCheckReport(advantage=advantage, recheck=True)
    checking: list[Combatant] = []
    for member in members:
        why = "down" if member.is_down else "unconscious" if member.unconscious else None
        why = why or recheck_refusal(member.standing, member.morale_rechecked_round, round_now)
        if why is None:
            checking.append(member)
        else:
            report.passed_over.append(Passed(member, why))
    if not checking:
        names = ", ".join(f"{shown(p.combatant.name)} is {p.why}" for p in report.passed_over)
        raise IllegalAction(
            f"Nobody there may recheck morale: {names or 'nobody is in it'}. Only the Routed recheck, once "
            "an exploration turn after escaping (R21); the GM rules any other standing with /morale set."
        )
    for combatant in checking:
        result = morale_check(
            dice,
            morale_subject(combatant),
            joker_bonus=joker_bonus(encounter, combatant, RollKind.MORALE),
            advantage=advantage,
        )
        combatant.standing = result.standing
        combatant.morale_rechecked_round = round_now
        report.results.append((combatant, result))
    return Done(CheckCalled(name, report), log=[check_log_line(by, name, report)], kind="morale")


@dataclass(slots=True)
class CheckCalled:
    """``/morale check``: whom the GM named (a group's name or a combatant's) and what the check did."""

    who: str
    report: MoraleCheckReport


def check(
    encounter: Encounter,
    actor: Actor,
    *,
    who: str,
    by: str,
    dice: DiceSource,
    advantage: Advantage = Advantage.NONE,
    can_escape: bool = True,
) -> Done[CheckCalled]:
    """``/morale check``: the GM calls a check (R21) for an NPC group (every member able to) or one
    combatant (a player character only this way, R22)."""
    require_gm(encounter, actor, "call for a morale check")
    name, targets = _targets(encounter, who)
    witness = D20Witness(dice)
    if targets is None:
        report = check_group(encounter, name, witness, advantage=advantage, can_escape=can_escape)
    else:
        report = check_morale(encounter, targets, witness, advantage=advantage, can_escape=can_escape)
    line = check_log_line(by, name, report)
    return Done(CheckCalled(name, report), log=[line], kind="morale").rolled(witness)


def rally(
    encounter: Encounter,
    actor: Actor,
    *,
    who: str | None,
    by: str,
    dice: DiceSource,
    advantage: Advantage = Advantage.NONE,
) -> Done[RallyReport]:
    """``/morale rally``: the combatant named (yours), else yours, rallies its allies (R23,
    :func:`rally_allies`)."""
    rallier = acting_combatant(encounter, actor, who, "rally")
    witness = D20Witness(dice)
    report = rally_allies(encounter, rallier, witness, advantage=advantage)
    return Done(report, log=[rally_log_line(by, report)], kind="morale").rolled(witness)


@dataclass(slots=True)
class StandingRuled:
    """``/morale set``: the combatant the GM ruled on (with its new standing) and the standing it had."""

    combatant: Combatant
    previous: MoraleStanding


def rule_standing(
    encounter: Encounter, actor: Actor, *, who: str, standing: MoraleStanding, by: str
) -> Done[StandingRuled]:
    """``/morale set``: the GM rules a combatant Steady, Routed or Frightened (R21, :func:`set_standing`)."""
    require_gm(encounter, actor, "rule on morale")
    combatant = encounter.combatant(who)
    previous = set_standing(combatant, standing)
    line = standing_log_line(by, combatant, previous)
    return Done(StandingRuled(combatant, previous), log=[line], kind="morale")


def confirm(
    encounter: Encounter,
    actor: Actor,
    *,
    proposal_id: int,
    by: str,
    dice: DiceSource,
    fight: str | None = None,
) -> Done[ProposalCheck]:
    """The GM's button under a proposal: the group's check is rolled once (R22, :func:`roll_proposal`).
    ``fight``: the tag the button carried (a button of an earlier fight in the channel does nothing)."""
    require_this_fight(encounter, fight)
    require_gm(encounter, actor, "roll a proposed morale check")
    witness = D20Witness(dice)
    rolled = roll_proposal(encounter, proposal_id, witness)
    if rolled.report is None:
        line = proposal_settled_log_line(by, rolled.proposal)
    else:
        line = check_log_line(by, rolled.proposal.group, rolled.report)
    return Done(rolled, log=[line], kind="morale").rolled(witness)


def require_this_fight(encounter: Encounter, fight: str | None) -> None:
    """Refuse a button drawn for another fight in the channel (None: a button older than the tag)."""
    if fight is not None and fight != encounter.tag:
        raise OtherFight()


def dismiss(
    encounter: Encounter, actor: Actor, *, proposal_id: int, by: str, fight: str | None = None
) -> Done[MoraleProposal]:
    """The GM's other button: no check for this proposal; nothing is rolled (R22)."""
    require_this_fight(encounter, fight)
    require_gm(encounter, actor, "dismiss a proposed morale check")
    dismissed = dismiss_proposal(encounter, proposal_id)
    return Done(dismissed, log=[proposal_dismissed_log_line(by, dismissed)], kind="morale")
