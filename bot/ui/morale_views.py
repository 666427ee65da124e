"""How morale reads in a channel: a check (R21), a rally (R23), the proposals the bot makes (R22), and
the buttons that confirm or dismiss them.

Every message stands on its own for play-by-post: who rolled, every die (the dropped ones struck
through), every modifier, the total against 11, and what the result means at the table. Players whose
characters are checked or rallied are pinged, unless they caused the message themselves.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import discord

from ..encounter.combatants import Combatant, Side
from ..encounter.document import Encounter
from ..encounter.records import MoraleProposal
from ..encounter.results import MoraleCheckReport, RallyReport
from ..rules.dice import Modifier
from ..rules.errors import shown
from ..rules.morale import MORALE_TARGET, MoraleResult, MoraleStanding
from ..wording.phrases import listing, signed, situation_words
from .announcements import CONTENT_LIMIT, Announcement
from .buttons import Button, button_view
from .rolls import pool_faces
from .tracker import SHORTEST_NAME, short

MORALE_PROPOSAL_BUTTON = re.compile(
    r"pommel:morale:(?P<proposal>\d+)(?::(?P<action>dismiss))?(?::(?P<fight>[0-9a-f]+))?"
)
"""What :class:`cogs.morale.MoraleProposalButton` listens for: roll (no action) or dismiss, and the
fight's tag (none on a button drawn before buttons named their fight)."""
BUTTON_LABEL_LIMIT = 80
PROPOSAL_BUTTON_LIMIT = 12
"""Proposals shown with buttons in one message (two buttons each; Discord allows 25 per message)."""
NAMES_LIMIT = 300

STANDING_SHOWN = {
    MoraleStanding.STEADY: "✅ holds",
    MoraleStanding.ROUTED: "🏃 **Routed**",
    MoraleStanding.FRIGHTENED: "😱 **Frightened**",
    MoraleStanding.DEMORALIZED: "🏳️ **Demoralized**",
}
MEANING = {
    MoraleStanding.ROUTED: "Routed: flees by the nearest safe way",
    MoraleStanding.FRIGHTENED: "Frightened: cannot get away, may surrender to a merciful enemy",
    MoraleStanding.DEMORALIZED: (
        "Demoralized: flees like the Routed, and neither a morale recheck nor a rally brings it back; "
        "only the GM's ruling (`/morale set`)"
    ),
}


def morale_proposal_custom_id(proposal_id: int, fight: str) -> str:
    """The custom id of the button that rolls proposal ``proposal_id`` of the fight tagged ``fight``
    (``pommel:morale:3:5f3a9c1e``)."""
    return f"pommel:morale:{proposal_id}:{fight}"


def dismiss_custom_id(proposal_id: int, fight: str) -> str:
    return f"pommel:morale:{proposal_id}:dismiss:{fight}"


def _label(text: str) -> str:
    return text if len(text) <= BUTTON_LABEL_LIMIT else f"{text[: BUTTON_LABEL_LIMIT - 1]}…"


def proposal_button(proposal: MoraleProposal, fight: str) -> Button:
    """R22: the GM's button that rolls the proposed check for the whole group (works after a restart)."""
    return Button(
        label=_label(f"Roll morale: {proposal.group}"),
        emoji="🎲",
        style=discord.ButtonStyle.primary,
        custom_id=morale_proposal_custom_id(proposal.id, fight),
    )


def dismiss_button(proposal: MoraleProposal, fight: str) -> Button:
    """R22: the GM's button that declines the proposed check (no roll)."""
    return Button(
        label=_label(f"No check for {proposal.group}"),
        style=discord.ButtonStyle.secondary,
        custom_id=dismiss_custom_id(proposal.id, fight),
    )


def proposal_view(proposals: Sequence[MoraleProposal], fight: str) -> discord.ui.View:
    """A roll and a dismiss button for each proposal (the first :data:`PROPOSAL_BUTTON_LIMIT`)."""
    view = button_view()
    for proposal in proposals[:PROPOSAL_BUTTON_LIMIT]:
        view.add_item(proposal_button(proposal, fight))
        view.add_item(dismiss_button(proposal, fight))
    return view


def proposal_line(proposal: MoraleProposal) -> str:
    """``😨 #3 **Bandits** should check morale (R22): Bandit 1, the leader, is down.``"""
    when = f" (round {proposal.round})" if proposal.round else ""
    group = f"**{shown(proposal.group)}**"
    return f"😨 #{proposal.id} {group} should check morale (R22){when}: {shown(proposal.detail)}"


def proposals_reply(encounter: Encounter) -> str:
    """``/morale proposals``: the open proposals, oldest first, or a note that there are none."""
    proposals = encounter.morale_proposals
    if not proposals:
        return (
            "No morale check is waiting (R22). The bot proposes one when an NPC group's leader falls or "
            "half the group is down; the GM can always call one with `/morale check`."
        )
    lines = [f"**Morale checks waiting for the GM** ({len(proposals)}):"]
    lines += [proposal_line(p) for p in proposals]
    if len(proposals) > PROPOSAL_BUTTON_LIMIT:
        lines.append(f"Buttons for the first {PROPOSAL_BUTTON_LIMIT}; settle those to see the rest.")
    return Announcement(lines).content


def proposal_dismissed_reply(proposal: MoraleProposal, by: str) -> str:
    return (
        f"🚫 {by} decided **{shown(proposal.group)}** makes no morale check for proposal #{proposal.id} "
        f"({proposal.reason.value}). Nothing was rolled."
    )


def proposal_empty_reply(proposal: MoraleProposal) -> str:
    return (
        f"😶 Morale proposal #{proposal.id} for **{shown(proposal.group)}** is settled without a roll: "
        "nobody is left in the group who could check (all down or already fled)."
    )


# ----------------------------------------------------------------------------- the check


def _modifiers(modifiers: Sequence[Modifier]) -> str:
    return " ".join(f"{signed(m.value)} {m.label}" for m in modifiers)


def _roll_text(result: MoraleResult) -> str:
    """``~~18~~, **5** +1 morale = `6` vs 11``"""
    assert result.roll is not None
    assert result.total is not None
    mods = _modifiers(result.modifiers)
    return f"{pool_faces(result.roll)} {mods} = `{result.total}` vs {result.target}".replace("  ", " ")


def result_line(combatant: Combatant, result: MoraleResult, mention: str = "") -> str:
    """One member's check: ``• **Bandit 1**: **9** +1 morale = `10` vs 11 → 🏃 **Routed**``; a player
    character's line names its player (``mention``)."""
    name = f"**{shown(combatant.name)}**" + (f" ({mention})" if mention else "")
    if result.immune:
        return f"• {name}: no morale number — never checks (R21)"
    back = result.previous.failed and result.standing is MoraleStanding.STEADY
    shown_standing = "✅ back to normal" if back else STANDING_SHOWN[result.standing]
    return f"• {name}: {_roll_text(result)} → {shown_standing}"


def short_result_line(combatant: Combatant, result: MoraleResult, mention: str = "") -> str:
    """A member's check in a big group's message: ``• **Bandit 1**: `10` → 🏃 **Routed**`` (the dice
    are in the log)."""
    name = f"**{short(combatant.name, SHORTEST_NAME)}**" + (f" ({mention})" if mention else "")
    if result.immune:
        return f"• {name}: never checks (R21)"
    return f"• {name}: `{result.total}` → {STANDING_SHOWN[result.standing]}"


def standings_lines(members: Sequence[tuple[str, MoraleStanding | None]], budget: int) -> list[str]:
    """A crowd's results at their shortest, a line per outcome: ``🏃 **Routed** (12): Bandit 1, …``, each
    list of names within its share of ``budget`` characters and the rest counted (``None``: never
    checks)."""
    kinds = [MoraleStanding.ROUTED, MoraleStanding.FRIGHTENED, MoraleStanding.STEADY, None]
    groups = [(kind, [who for who, standing in members if standing is kind]) for kind in kinds]
    groups = [(kind, names) for kind, names in groups if names]
    share = max(60, budget // max(1, len(groups)) - 30)
    return [
        f"{'never check (R21)' if kind is None else STANDING_SHOWN[kind]} ({len(names)}): "
        f"{listing(names, ', ', share)}"
        for kind, names in groups
    ]


def _members_fitting(before: list[str], members: Sequence[list[str]], after: list[str]) -> list[str]:
    """``before``, the members' lines, ``after``: the members' lines at the longest of their forms
    (``members``, fullest first) with which the whole fits in one message."""
    for form in members:
        lines = [*before, *form, *after]
        if len("\n".join(lines)) <= CONTENT_LIMIT:
            return lines
    return [*before, *members[-1], *after]


def _meanings(standings: Sequence[MoraleStanding], encounter: Encounter) -> str | None:
    shown_ones = [MEANING[s] for s in (MoraleStanding.ROUTED, MoraleStanding.FRIGHTENED) if s in standings]
    if not shown_ones:
        return None
    fights_worse = (
        "both attack at disadvantage"
        if encounter.options.routed_attack_disadvantage
        else "a frightened one attacks at disadvantage"
    )
    return (
        f"{'. '.join(shown_ones)}; {fights_worse} (R21, R25). A rally (`/morale rally`, R23) can bring "
        "them back."
    )


def _player(announcement: Announcement, combatant: Combatant, actor_id: int) -> str:
    """The mention of a player character's player (pinged unless they caused the message), else ""."""
    if combatant.side is not Side.PLAYER or combatant.owner_id is None:
        return ""
    return announcement.notify(combatant.owner_id, actor_id)


def check_announcement(
    encounter: Encounter,
    report: MoraleCheckReport,
    *,
    who: str,
    actor_id: int,
    proposal: MoraleProposal | None = None,
) -> Announcement:
    """The public reply to a morale check: the reason (a proposal), each member's roll, who was passed
    over, and what Routed and Frightened mean."""
    escape = "" if report.can_escape else " — they cannot escape: a fail Frightens"
    situation = situation_words(report.advantage)
    header = f"😨 **Morale check** for **{shown(who)}**{situation} (R21: 11+ holds){escape}"
    if report.recheck:
        header = (
            f"😨 **Morale recheck** for **{shown(who)}**{situation} (R21: the Routed, having escaped, "
            "recheck each exploration turn; 11+ returns to normal)"
        )
    lines = [header]
    if proposal is not None:
        lines.append(f"Proposed (R22, #{proposal.id}): {shown(proposal.detail)}")
    announcement = Announcement()
    mentions = [_player(announcement, c, actor_id) for c, _ in report.results]
    after: list[str] = []
    if report.passed_over:
        skipped = [f"**{shown(p.combatant.name)}** ({p.why})" for p in report.passed_over]
        after.append(f"Not checking: {listing(skipped, ', ', NAMES_LIMIT)}")
    rolled = [r for _, r in report.results if not r.immune]
    if rolled:
        held = sum(1 for r in rolled if r.passed)
        after.append(f"**{held} of {len(rolled)} hold.**")
    meaning = _meanings([r.standing for _, r in report.results], encounter)
    if meaning:
        after.append(meaning)
    settled = [p for p in report.settled if proposal is None or p.id != proposal.id]
    if settled:
        numbers = ", ".join(f"#{p.id}" for p in settled)
        after.append(
            f"This check also settles the proposed check{'s' if len(settled) > 1 else ''} {numbers}."
        )
    pairs = list(zip(report.results, mentions, strict=True))
    crowd = [
        (f"**{short(c.name, SHORTEST_NAME)}**" + (f" ({m})" if m else ""), None if r.immune else r.standing)
        for (c, r), m in pairs
    ]
    used = len("\n".join([*lines, *after]))
    announcement.lines = _members_fitting(
        lines,
        [
            [result_line(c, r, m) for (c, r), m in pairs],
            [short_result_line(c, r, m) for (c, r), m in pairs],
            standings_lines(crowd, CONTENT_LIMIT - used),
        ],
        after,
    )
    return announcement


# ----------------------------------------------------------------------------- the rally


def rally_announcement(encounter: Encounter, report: RallyReport, *, actor_id: int) -> Announcement:
    """The public reply to a rally: the CHA check, then each shaken ally's re-roll (on a success)."""
    result = report.result
    name = f"**{shown(report.rallier.name)}**"
    why = "as the group's leader" if result.is_leader else "at disadvantage: not the group's leader"
    lines = [
        f"📯 {name} spends their action to rally their allies (R23: CHA check, 11+; {why})",
        f"CHA check{situation_words(result.advantage)}: {pool_faces(result.roll)} "
        f"{_modifiers(result.modifiers)} "
        f"= `{result.total}` vs {MORALE_TARGET} → "
        + (
            "**success**: the shaken allies re-roll morale" if result.success else "**fails**: nobody rallies"
        ),
    ]
    announcement = Announcement()
    by_name = {ally.name: ally for ally in report.allies}
    full: list[str] = []
    compact: list[str] = []
    crowd: list[tuple[str, MoraleStanding | None]] = []
    for reroll in result.rerolls:
        ally = by_name[reroll.subject]
        was = reroll.previous.value
        extra = ", at disadvantage" if reroll.previous is MoraleStanding.FRIGHTENED else ""
        mention = _player(announcement, ally, actor_id)
        player = f" {mention}" if mention else ""
        outcome = "✅ back in the fight" if reroll.passed else f"still {was}"
        full.append(f"• **{shown(ally.name)}**{player} ({was}{extra}): {_roll_text(reroll)} → {outcome}")
        who = f"**{short(ally.name, SHORTEST_NAME)}**{player}"
        compact.append(f"• {who}: `{reroll.total}` → {outcome}")
        crowd.append((who, reroll.standing))
    after = [f"**{len(result.returned)} of {len(result.rerolls)} rally.**"] if result.rerolls else []
    used = len("\n".join([*lines, *after]))
    announcement.lines = _members_fitting(
        lines, [full, compact, standings_lines(crowd, CONTENT_LIMIT - used)], after
    )
    return announcement


# ----------------------------------------------------------------------------- the GM's ruling


def standing_reply(combatant: Combatant, previous: MoraleStanding, by: str) -> str:
    now = combatant.standing
    line = f"🎭 {by} rules that **{shown(combatant.name)}** is now **{now.value}** (was {previous.value})."
    meaning = MEANING.get(now)
    if now is MoraleStanding.ROUTED:
        meaning = (
            f"{meaning}; once it has escaped, it may recheck morale every exploration turn "
            "(`/morale recheck`, R21)"
        )
    return f"{line} {meaning}." if meaning else line
