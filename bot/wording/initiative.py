"""The words of ``/init``: what a Deal, Next, Hold or Act did, line by line (R1-R5, R15).

The same words serve the log (:data:`PLAIN`) and the table (:mod:`bot.ui.init_views` dresses them in
Markdown with mentions): a :class:`Voice` only dresses them."""

from __future__ import annotations

from typing import Protocol

from ..encounter.document import HOLDER_NAME_LIMIT, Encounter
from ..encounter.results import TurnMove
from ..rules.initiative import JOKER_BONUS_ROLLS, CardInPlay, DealResult, RollKind, TurnStarted
from ..rules.turns import Advance
from .phrases import listing, possessive


class Voice(Protocol):
    """How the initiative's wording is dressed: :data:`PLAIN` for the log, Markdown with mentions for
    the table (:mod:`bot.ui.init_views`). The words are the same; this only dresses them."""

    def holder(self, encounter: Encounter, holder: str) -> str:
        """A card's holder, named as :func:`holder_label` names it."""
        ...

    def strong(self, text: str) -> str:
        """Words that stand out: the round dealt, a button's name."""
        ...

    def name(self, text: str) -> str:
        """A name a user typed, shown as typed."""
        ...

    def mention(self, user_id: int) -> str:
        """`` <@user>``, leading space included, for the user to be told; or nothing."""
        ...


class _Plain:
    """The log's voice: names as typed, no Markdown, no mentions."""

    def holder(self, encounter: Encounter, holder: str) -> str:
        return holder_label(encounter, holder)

    def strong(self, text: str) -> str:
        return text

    def name(self, text: str) -> str:
        return text

    def mention(self, user_id: int) -> str:
        return ""


PLAIN: Voice = _Plain()


FACE_DOWN = "🂠"


JOKER_ROLLS = ", ".join(kind.value for kind in RollKind if kind in JOKER_BONUS_ROLLS)


ORDER_LIMIT = 1100


NAMES_LIMIT = 300
"""Budgets that keep an announcement within Discord's 2000 characters even with 54 long names."""


def holder_label(encounter: Encounter, holder: str) -> str:
    """A card's holder as the table reads it: the NPC group, or the player's characters (cut short)."""
    full = encounter.holder_name(holder)
    return full if len(full) <= HOLDER_NAME_LIMIT else full[: HOLDER_NAME_LIMIT - 1].rstrip() + "…"


def initiative_log_line(encounter: Encounter, move: TurnMove) -> str:
    """The log's line for a press on the initiative: what the table was told, on one line."""
    return " ".join(turn_move_lines(encounter, move, PLAIN))


def turn_move_lines(encounter: Encounter, move: TurnMove, voice: Voice) -> list[str]:
    """What a Deal, Next, Hold or Act did, line by line, read from the encounter after it."""
    lines = deal_lines(encounter, move.dealt, voice) if move.dealt is not None else []
    lines += [
        f"⌛ {voice.name(ran_out.combatant)} is no longer {voice.name(ran_out.condition)} (it ran out)."
        for ran_out in move.ran_out
    ]
    lines += [
        f"🐴 #{proposal.id} {voice.name(proposal.group)} should check morale: {voice.name(proposal.detail)} "
        "The GM rolls it from `/morale proposals`."
        for proposal in move.proposals
    ]
    return lines + advance_lines(encounter, move.advance, voice, held=move.held)


def deal_lines(encounter: Encounter, dealt: DealResult, voice: Voice) -> list[str]:
    """R2, R4, R5: the new round's cards, highest first, and what happened to the deck."""
    lines = [f"{voice.strong(f'Round {dealt.round}')} — the cards are dealt (R2)."]
    shown = _in_order(encounter, dealt.order, voice)
    if shown:
        lines.append(listing(shown, " · ", ORDER_LIMIT))
    if dealt.kept:
        kept = listing([voice.holder(encounter, holder) for holder in dealt.kept], ", ", NAMES_LIMIT)
        lines.append(f"Still held face down from an earlier round (R4): {kept}.")
    for reshuffle in dealt.reshuffles:
        before = f" before dealing to {voice.holder(encounter, reshuffle.before)}" if reshuffle.before else ""
        lines.append(
            f"🔀 Reshuffled {reshuffle.cards} discards into the deck{before}: {reshuffle.reason.value}."
        )
    for a, b in dealt.swapped:
        lines.append(
            f"🔁 {voice.holder(encounter, a)} and {voice.holder(encounter, b)} swapped initiative (R15)."
        )
    if encounter.combatants:
        short = [c for c in encounter.combatants if c.pool.remaining < c.pool.size]
        if not short:
            lines.append("Every Martial Pool is full again (R5, R8).")
        else:
            down = listing(
                [f"{voice.name(c.name)} {c.pool.remaining}/{c.pool.size}" for c in short], ", ", NAMES_LIMIT
            )
            lines.append(
                "Every Martial Pool is full again (R5, R8), but for a desperation defense's lost die "
                f"(R6, R15): {down}."
            )
    return lines


def _in_order(encounter: Encounter, ranked: list[CardInPlay], voice: Voice) -> list[str]:
    """The dealt cards, highest first (R1: ``DealResult.order``), NPC cards face down if hidden."""
    hidden = encounter.table.hide_npc_cards
    visible = [entry for entry in ranked if not (hidden and encounter.is_npc_holder(entry.holder))]
    shown = [f"{entry.card.label} {voice.holder(encounter, entry.holder)}" for entry in visible]
    concealed = [entry for entry in ranked if entry not in visible]
    if concealed:
        groups = listing([voice.holder(encounter, entry.holder) for entry in concealed], ", ", NAMES_LIMIT)
        shown.append(f"{FACE_DOWN} {groups} (NPC cards hidden until their turn)")
    return shown


def _player_of(encounter: Encounter, holder: str) -> int:
    """Who plays a card: its player, or the GM for an NPC group."""
    owner = encounter.holder_owner(holder)
    return owner if owner is not None else encounter.gm_id


def turn_started_lines(encounter: Encounter, started: TurnStarted, voice: Voice) -> list[str]:
    """R1, R3, R4: whose turn it is, on which card (shown now, even a hidden NPC card), with the
    Joker's bonus spelled out."""
    how = ""
    if started.claimed:
        how = " (claimed with a Joker)" if started.card.is_joker else " (claimed with a held card)"
    who = voice.holder(encounter, started.holder)
    mention = voice.mention(_player_of(encounter, started.holder))
    lines = [f"▶️ {possessive(who)} turn{how} — {started.card.label}{mention}"]
    if started.card.is_joker:
        lines.append(
            f"🃏 Joker: +{encounter.options.joker_bonus} to {JOKER_ROLLS} rolls made this turn (R3)."
        )
    return lines


def advance_lines(encounter: Encounter, advance: Advance, voice: Voice, *, held: bool = False) -> list[str]:
    """What Next, Hold or Act did to the turns: the turn over or held, a claim, the turn started, the
    turn offered between turns, the round over."""
    lines: list[str] = []
    if advance.ended is not None:
        ended = voice.holder(encounter, advance.ended.holder)
        if held or advance.ended.held:
            lines.append(f"{FACE_DOWN} {ended} holds: the card stays face down (R4).")
        else:
            lines.append(f"{possessive(ended)} turn is over.")
    if advance.queued is not None:
        current = encounter.initiative.turn_of
        after = f" when {possessive(voice.holder(encounter, current))} turn ends" if current else ""
        lines.append(
            f"{voice.holder(encounter, advance.queued)} claims the next turn: it starts{after} (R3, R4)."
        )
    if advance.started is not None:
        lines += turn_started_lines(encounter, advance.started, voice)
    act, next_ = voice.strong("Act"), voice.strong("Next")
    if advance.offered and not advance.round_over:
        offered = listing(
            [
                f"{voice.holder(encounter, holder)}{voice.mention(_player_of(encounter, holder))}"
                for holder in advance.offered
            ],
            ", ",
            NAMES_LIMIT,
        )
        following = encounter.initiative.order
        then = f" with {voice.holder(encounter, following[0].holder)}" if following else ""
        lines.append(
            f"⏸️ Between turns: {offered} may take the turn now with {act} (R3, R4); {next_} goes on{then}."
        )
    if advance.round_over:
        gm = voice.mention(encounter.gm_id)
        lines.append(f"⏹️ Round {encounter.initiative.round} is over. The GM{gm} deals the next round.")
        if advance.offered:
            waiting = listing(
                [voice.holder(encounter, holder) for holder in advance.offered], ", ", NAMES_LIMIT
            )
            lines.append(f"Held cards may still act first with {act}: {waiting}.")
    return lines
