"""What the table reads when the initiative moves: a deal, a turn starting, a hold, a claim, an offer.

Each announcement stands on its own (play-by-post readers arrive hours later), and names who is
pinged: the owner of the card whose turn starts, the players offered a turn, the GM when a round
is over or an NPC group is up. The user who caused the announcement is never pinged by it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import discord

from ..encounter.document import Encounter
from ..rules.cards import Card
from ..rules.initiative import JOKER_BONUS_ROLLS, CardInPlay, DealResult, RollKind, TurnStarted
from ..rules.turns import Advance
from .tracker import FACE_DOWN, holder_line

JOKER_ROLLS = ", ".join(kind.value for kind in RollKind if kind in JOKER_BONUS_ROLLS)


TURN_CUT_SHORT = "Their turn was in progress and is over; the GM starts the next one with Next."
"""Said when the combatants whose turn it was leave the fight (R2: their card is discarded)."""
CONTENT_LIMIT = 2000
ORDER_LIMIT = 1100
NAMES_LIMIT = 300
"""Budgets that keep an announcement within Discord's 2000 characters even with 54 long names."""


def listing(items: list[str], separator: str, limit: int) -> str:
    """Items joined until ``limit`` characters; the rest are counted ("… and 12 more, on the tracker")."""
    text = ""
    for index, item in enumerate(items):
        candidate = item if not text else text + separator + item
        if len(candidate) > limit:
            rest = f"… and {len(items) - index} more (see the tracker)"
            return f"{text}{separator}{rest}" if text else rest
        text = candidate
    return text


@dataclass(slots=True)
class Announcement:
    """The text of a public message and the users it may ping."""

    lines: list[str] = field(default_factory=list)
    ping: list[int] = field(default_factory=list)

    @property
    def content(self) -> str:
        """The lines, within Discord's 2000 characters: the longest line gives way if need be."""
        lines = list(self.lines)
        while len("\n".join(lines)) > CONTENT_LIMIT:
            longest = max(range(len(lines)), key=lambda index: len(lines[index]))
            excess = len("\n".join(lines)) - CONTENT_LIMIT
            lines[longest] = lines[longest][: max(0, len(lines[longest]) - excess - 1)] + "…"
        return "\n".join(lines)

    @property
    def allowed_mentions(self) -> discord.AllowedMentions:
        """Only the users named for a ping; never @everyone, roles or names users typed."""
        return discord.AllowedMentions(
            everyone=False,
            roles=False,
            users=[discord.Object(id=user) for user in self.ping],
            replied_user=False,
        )

    def notify(self, user_id: int | None, actor_id: int) -> str:
        """A mention of ``user_id`` for the text; pinged unless they caused the announcement."""
        if user_id is None:
            return ""
        if user_id != actor_id and user_id not in self.ping:
            self.ping.append(user_id)
        return f"<@{user_id}>"


def _who(encounter: Encounter, holder: str) -> str:
    return holder_line(encounter, holder)


def _player_of(encounter: Encounter, holder: str) -> int:
    """Who plays a card: its player, or the GM for an NPC group."""
    owner = encounter.holder_owner(holder)
    return owner if owner is not None else encounter.gm_id


def _card(encounter: Encounter, holder: str, card: Card, *, revealed: bool = False) -> str:
    if encounter.table.hide_npc_cards and encounter.is_npc_holder(holder) and not revealed:
        return FACE_DOWN
    return card.label


def deal_lines(encounter: Encounter, dealt: DealResult) -> list[str]:
    """R2, R4, R5: the new round's cards, highest first, and what happened to the deck."""
    lines = [f"**Round {dealt.round}** — the cards are dealt (R2)."]
    shown = _in_order(encounter, dealt.order)
    if shown:
        lines.append(listing(shown, " · ", ORDER_LIMIT))
    if dealt.kept:
        kept = listing([_who(encounter, holder) for holder in dealt.kept], ", ", NAMES_LIMIT)
        lines.append(f"Still held face down from an earlier round (R4): {kept}.")
    for reshuffle in dealt.reshuffles:
        before = f" before dealing to {_who(encounter, reshuffle.before)}" if reshuffle.before else ""
        lines.append(
            f"🔀 Reshuffled {reshuffle.cards} discards into the deck{before}: {reshuffle.reason.value}."
        )
    if dealt.swapped:
        for a, b in dealt.swapped:
            lines.append(f"🔁 {_who(encounter, a)} and {_who(encounter, b)} swapped initiative (R15).")
    if encounter.combatants:
        lines.append("Every Martial Pool is full again (R5, R8).")
    return lines


def _in_order(encounter: Encounter, ranked: list[CardInPlay]) -> list[str]:
    """The dealt cards, highest first (R1: ``DealResult.order``), NPC cards face down if hidden."""
    hidden = encounter.table.hide_npc_cards
    visible = [entry for entry in ranked if not (hidden and encounter.is_npc_holder(entry.holder))]
    shown = [f"{entry.card.label} {_who(encounter, entry.holder)}" for entry in visible]
    concealed = [entry for entry in ranked if entry not in visible]
    if concealed:
        groups = listing([_who(encounter, entry.holder) for entry in concealed], ", ", NAMES_LIMIT)
        shown.append(f"{FACE_DOWN} {groups} (NPC cards hidden until their turn)")
    return shown


def turn_started_line(
    encounter: Encounter, started: TurnStarted, announcement: Announcement, actor_id: int
) -> str:
    """R1, R3, R4: whose turn it is, on which card, with the Joker's bonus spelled out."""
    mention = announcement.notify(_player_of(encounter, started.holder), actor_id)
    how = ""
    if started.claimed:
        how = " (claimed with a Joker)" if started.card.is_joker else " (claimed with a held card)"
    card = _card(encounter, started.holder, started.card, revealed=True)
    line = f"▶️ {_who(encounter, started.holder)}'s turn{how} — {card} {mention}".rstrip()
    if started.card.is_joker:
        line += f"\n🃏 Joker: +{encounter.options.joker_bonus} to {JOKER_ROLLS} rolls made this turn (R3)."
    return line


def advance_announcement(
    encounter: Encounter, advance: Advance, actor_id: int, *, held: bool = False
) -> Announcement:
    """What Next, Hold or Act did, as the table reads it."""
    announcement = Announcement()
    lines = announcement.lines
    if advance.ended is not None:
        if held or advance.ended.held:
            lines.append(f"🂠 {_who(encounter, advance.ended.holder)} holds: the card stays face down (R4).")
        else:
            lines.append(f"{_who(encounter, advance.ended.holder)}'s turn is over.")
    if advance.queued is not None:
        current = encounter.initiative.turn_of
        after = f" when {_who(encounter, current)}'s turn ends" if current else ""
        lines.append(f"{_who(encounter, advance.queued)} claims the next turn: it starts{after} (R3, R4).")
    if advance.started is not None:
        lines.append(turn_started_line(encounter, advance.started, announcement, actor_id))
    if advance.offered and not advance.round_over:
        offered = listing(
            [
                f"{_who(encounter, holder)} {announcement.notify(_player_of(encounter, holder), actor_id)}"
                for holder in advance.offered
            ],
            ", ",
            NAMES_LIMIT,
        )
        following = encounter.initiative.order
        then = f" with {_who(encounter, following[0].holder)}" if following else ""
        lines.append(
            f"⏸️ Between turns: {offered} may take the turn now with **Act** (R3, R4); **Next** goes on{then}."
        )
    if advance.round_over:
        gm = announcement.notify(encounter.gm_id, actor_id)
        lines.append(f"⏹️ Round {encounter.initiative.round} is over. The GM {gm} deals the next round.")
        if advance.offered:
            waiting = listing([_who(encounter, holder) for holder in advance.offered], ", ", NAMES_LIMIT)
            lines.append(f"Held cards may still act first with **Act**: {waiting}.")
    return announcement


def deal_announcement(
    encounter: Encounter, dealt: DealResult, advance: Advance, actor_id: int
) -> Announcement:
    announcement = advance_announcement(encounter, advance, actor_id)
    announcement.lines[:0] = deal_lines(encounter, dealt)
    return announcement


_BOLD = re.compile(r"(?<!\\)\*\*")
_ESCAPED = re.compile(r"\\(.)")
_MENTION = re.compile(r"\s*<@!?\d+>")


def log_line(announcement: Announcement) -> str:
    """The announcement as the fight's log keeps it: plain text on one line (the log is shown escaped,
    so the Markdown and the mentions of the message would show as clutter)."""
    lines = [_MENTION.sub("", line) for line in announcement.lines]
    text = " ".join(line.strip() for line in lines if line.strip())
    return _ESCAPED.sub(r"\1", _BOLD.sub("", text))
