"""The log's lines for ``/morale``: a check and its rolls, a rally, a standing ruled by the GM, a
proposal settled or dismissed (R21, R22)."""

from __future__ import annotations

from ..encounter.combatants import Combatant
from ..encounter.records import MoraleProposal
from ..encounter.results import MoraleCheckReport, RallyReport
from ..rules.morale import MoraleStanding
from .phrases import signed, situation_words


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
    what = "morale recheck" if report.recheck else "morale check"
    return f"{by}: {what} for {who}{situation}{escape}: {'; '.join(parts)}"


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


def standing_log_line(by: str, combatant: Combatant, previous: MoraleStanding) -> str:
    """``Gamemaster: Bandit 2 is now frightened (was routed)``: the GM's ruling (R21)."""
    return f"{by}: {combatant.name} is now {combatant.standing.value} (was {previous.value})"


def proposal_settled_log_line(by: str, proposal: MoraleProposal) -> str:
    """A confirmed proposal (R22) whose group has nobody left to check."""
    return f"{by}: morale proposal #{proposal.id} for {proposal.group} settled, nobody left to check"


def proposal_dismissed_log_line(by: str, proposal: MoraleProposal) -> str:
    """The GM declined a proposed check (R22): nothing was rolled."""
    return f"{by}: no morale check for {proposal.group} (proposal #{proposal.id}, {proposal.reason.value})"
