"""How the tracker reads: the round, the order, whose turn it is and everyone's state, with its buttons.

It is drawn from the saved :class:`~bot.encounter.document.Encounter` alone, so any process can
redraw it, and its buttons carry the fight's step (see :mod:`bot.rules.turns`) so they keep working
after a restart and a stale click never advances the fight twice. Posting and editing it is
:class:`bot.trackers.TrackerBoard`'s.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

import discord

from ..characters import name_key
from ..encounter.document import Combatant, Encounter
from ..encounter.log_lines import FACE_DOWN, duration_label, holder_label
from ..rules.cards import Card
from ..rules.engagement import Range
from ..rules.errors import shown
from .buttons import button_view, tracker_buttons
from .situation_views import position_labels
from .waiting import add_waiting

DESCRIPTION_LIMIT = 4000
"""Discord allows 4096 characters in an embed's description; a little is kept spare."""
TRACKER_COLOUR = discord.Colour.dark_red()
RANGES_SHOWN = 10
"""The tracker lists at most this many pairs at Melee or Grapple, then counts the rest."""
RANGES_BUDGET = 1200
"""The characters the tracker keeps for its ranges, whatever the length of the roster above them."""
RANGE_MARK = {Range.MELEE: "⚔️", Range.GRAPPLE: "🤼"}


def name(text: str) -> str:
    """A name a user typed, safe to show: Markdown and mention syntax are escaped
    (:func:`~bot.rules.errors.shown`; and nothing a user typed ever pings: see AllowedMentions)."""
    return shown(text)


def pool_pips(combatant: Combatant) -> str:
    """The Martial Pool as dots: ● a die left, ○ a die spent this round (R7)."""
    pool = combatant.pool
    return "●" * pool.remaining + "○" * max(0, pool.size - pool.remaining)


def holder_line(encounter: Encounter, holder: str) -> str:
    """A card's holder in bold: the NPC group, or the player's characters (cut short, escaped)."""
    return f"**{name(holder_label(encounter, holder))}**"


def _card_shown(encounter: Encounter, holder: str, card: Card, reveal: bool) -> str:
    if encounter.table.hide_npc_cards and encounter.is_npc_holder(holder) and not reveal:
        return FACE_DOWN
    return card.label


def combatant_line(combatant: Combatant, where: Sequence[str] = ()) -> str:
    """Name, pool, HP, state, conditions, and ``where`` it stands (R25: mounted, cover, shield wall...)."""
    hp = f"HP {combatant.hp}/{combatant.max_hp}"
    parts = [f"{name(combatant.name)}", pool_pips(combatant), hp]
    label = combatant.state_label  # down, unconscious, routed, frightened (R21, R25)
    if label:
        parts.append(f"**{label}**")
    if combatant.conditions:
        parts.append(conditions_label(combatant))
    if where:
        parts.append(f"*{', '.join(where)}*")
    if combatant.leader:
        parts[0] += " (leader)"
    return " · ".join(parts)


def conditions_label(combatant: Combatant) -> str:
    """Its conditions, each with how long it still lasts: "prone (2 rounds), stunned"."""
    labels = []
    for condition in combatant.conditions:
        lasting = combatant.lasting.get(condition.casefold())
        labels.append(name(condition) + (f" ({duration_label(lasting)})" if lasting is not None else ""))
    return ", ".join(labels)


class PairRange(NamedTuple):
    """Two combatants (in the order of their names) and the range between them (R12)."""

    first: Combatant
    second: Combatant
    range: Range


def _by_name(combatant: Combatant) -> tuple[str | int, ...]:
    """The order of names as a reader expects it: ignoring case, numbers by value (Rat 9, Rat 10)."""
    return tuple(
        int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name_key(combatant.name))
    )


def fight_ranges(encounter: Encounter) -> list[PairRange]:
    """R12: every pair of combatants still in the fight that is not at Onset, closest first (Grapple,
    then Melee), then by names. A pair that never fought is at Onset and has no engagement; Onset is
    the default, so it is not listed."""
    by_id = {combatant.id: combatant for combatant in encounter.combatants}
    pairs: list[PairRange] = []
    for key, engagement in encounter.engagements.items():
        ids = key.split("|")
        if engagement.range is Range.ONSET or len(ids) != 2 or not all(i in by_id for i in ids):
            continue
        first, second = sorted((by_id[i] for i in ids), key=_by_name)
        pairs.append(PairRange(first, second, engagement.range))
    return sorted(pairs, key=lambda p: (-p.range, _by_name(p.first), _by_name(p.second)))


def range_line(pair: PairRange) -> str:
    """``⚔️ Alice — Bandit 1: Melee``."""
    return f"{RANGE_MARK[pair.range]} {name(pair.first.name)} — {name(pair.second.name)}: {pair.range.label}"


def range_lines(
    encounter: Encounter, *, at_most: int | None = RANGES_SHOWN, budget: int = RANGES_BUDGET
) -> list[str]:
    """The section listing the pairs not at Onset (none when every pair is): at most ``at_most`` pairs
    (None: all) within ``budget`` characters, then how many more there are."""
    pairs = fight_ranges(encounter)
    if not pairs:
        return []
    lines = ["", "**Ranges** (every other pair is at Onset, R12)"]
    used = sum(len(line) + 1 for line in lines)
    listed = 0
    for pair in pairs[:at_most]:
        line = range_line(pair)
        if used + len(line) + 1 > budget - 60:  # room for the count of the rest
            break
        lines.append(line)
        used += len(line) + 1
        listed += 1
    if listed < len(pairs):
        lines.append(f"… and {len(pairs) - listed} more pairs at Melee or Grapple")
    return lines


def tracker_lines(encounter: Encounter, *, reveal: bool = False) -> list[str]:
    """The tracker's text, line by line. ``reveal`` shows hidden NPC cards (for the GM's eyes only)."""
    return _turn_lines(encounter, reveal=reveal) + range_lines(encounter)


def _turn_lines(encounter: Encounter, *, reveal: bool) -> list[str]:
    """The tracker's text above its ranges: the turn, the order, the combatants."""
    state = encounter.initiative
    lines: list[str] = []
    if state.round == 0:
        lines.append("No cards dealt yet. The GM deals round 1 with **Deal** or `/init deal`.")
    current = state.current
    if current is not None:
        joker = " — Joker: +2 this turn (R3)" if current.card.is_joker else ""
        lines.append(f"**Now:** {current.card.label} {holder_line(encounter, current.holder)}{joker}")
    elif encounter.flow.offered:
        offered = ", ".join(holder_line(encounter, holder) for holder in encounter.flow.offered)
        lines.append(f"**Between turns:** {offered} may take the turn now with **Act**; **Next** goes on.")
    elif state.round and state.is_round_over:
        lines.append(f"**Round {state.round} is over.** The GM deals the next round.")
    for queued in encounter.flow.queued:
        lines.append(f"**Claimed next:** {holder_line(encounter, queued)}")
    order = state.order
    if order:
        lines.append("")
        lines.append("**Still to act**")
        for entry in order:
            shown = _card_shown(encounter, entry.holder, entry.card, reveal)
            lines.append(f"{shown} {holder_line(encounter, entry.holder)}")
    if state.waiting:
        lines.append("")
        held = ", ".join(f"{FACE_DOWN} {holder_line(encounter, entry.holder)}" for entry in state.waiting)
        lines.append(f"**Held:** {held}")
    if state.acted:
        acted = ", ".join(name(encounter.holder_name(holder)) for holder in state.acted)
        lines.append(f"**Acted:** {acted}")
    if encounter.combatants:
        lines.append("")
        lines.append("**Combatants**")
        acting = state.turn_of
        lines.extend(
            ("▶️ " if combatant.holder == acting else "")
            + combatant_line(combatant, position_labels(encounter, combatant))
            for combatant in encounter.combatants
        )
    else:
        lines.append("")
        lines.append("Nobody has joined yet: players `/join`, the GM adds NPCs with `/npc add`.")
    return lines


def clip(lines: list[str], limit: int = DESCRIPTION_LIMIT) -> str:
    """Join lines, dropping the last ones (with a note) when they would not fit."""
    text = "\n".join(lines)
    if len(text) <= limit:
        return text
    kept: list[str] = []
    used = 0
    for line in lines:
        if used + len(line) + 1 > limit - 40:
            break
        kept.append(line)
        used += len(line) + 1
    kept.append(f"… and {len(lines) - len(kept)} more lines")
    return "\n".join(kept)


def clip_keeping(lines: list[str], kept: list[str], limit: int = DESCRIPTION_LIMIT) -> str:
    """Join ``lines`` then ``kept``: only ``lines`` are clipped, leaving room for ``kept`` (which must
    fit well within ``limit``), so a long roster never pushes the lines after it out."""
    if not kept:
        return clip(lines, limit)
    tail = "\n".join(kept)
    return f"{clip(lines, limit - len(tail) - 1)}\n{tail}"


def tracker_embed(encounter: Encounter, *, reveal: bool = False) -> discord.Embed:
    state = encounter.initiative
    title = f"⚔️ Round {state.round}" if state.round else "⚔️ Fight"
    embed = discord.Embed(
        title=title,
        description=clip_keeping(_turn_lines(encounter, reveal=reveal), range_lines(encounter)),
        colour=TRACKER_COLOUR,
    )
    embed.set_footer(text=f"GM: use /encounter · step {encounter.flow.step}")
    return add_waiting(embed, encounter)


def tracker_view(encounter: Encounter) -> discord.ui.View:
    """Next / Hold / Act (and Deal when a round is due), each carrying the fight's step."""
    view = button_view()
    for button in tracker_buttons(encounter):
        view.add_item(button)
    return view
