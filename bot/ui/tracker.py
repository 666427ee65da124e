"""How the tracker reads: the round, the order, whose turn it is and everyone's state, with its buttons.

It is drawn from the saved :class:`~bot.encounter.document.Encounter` alone, so any process can
redraw it, and its buttons carry the fight's step (see :mod:`bot.rules.turns`) so they keep working
after a restart and a stale click never advances the fight twice. Posting and editing it is
:class:`bot.trackers.TrackerBoard`'s.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import NamedTuple, overload

import discord

from ..characters import name_key
from ..encounter.combatants import Combatant
from ..encounter.document import Encounter
from ..rules.cards import Card
from ..rules.engagement import Range
from ..rules.errors import shown
from ..wording.initiative import FACE_DOWN, holder_label
from ..wording.roster import duration_label
from .buttons import button_view, tracker_buttons
from .situation_views import position_labels
from .waiting import add_waiting

DESCRIPTION_LIMIT = 4000
"""Discord allows 4096 characters in an embed's description; a little is kept spare."""
MESSAGE_TEXT_LIMIT = 5800
"""Discord allows 6,000 characters in all the embeds of one message together (titles, descriptions,
footers); the tracker's descriptions keep to this, leaving room for its title and footer."""
SHORT_NAME = 32
"""How much of a name a compact line of the tracker keeps (a big fight's, so that everyone fits)."""
SHORTEST_NAME = 20
"""How much of a name the shortest lines keep."""
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


def short(text: str, length: int) -> str:
    """A name a user typed, shown safely in at most ``length`` characters, escapes included: cut in the
    middle so that its end stays (the number that tells "Bandit 11" from "Bandit 12"), and cut before
    escaping, so that no escape is cut in two."""
    shown_whole = name(text)
    if len(shown_whole) <= length:
        return shown_whole
    for keep in range(min(len(text), length) - 1, 1, -1):
        tail = keep // 3
        cut = name(text[: keep - tail].rstrip() + "…" + text[len(text) - tail :].lstrip())
        if len(cut) <= length:
            return cut
    return name(text[0]) + "…"


def combatant_line(combatant: Combatant, where: Sequence[str] = (), *, compact: int = 0) -> str:
    """Name, pool, HP, state, conditions, and ``where`` it stands (R25: mounted, cover, shield wall...).

    A big fight's tracker shortens it so that everyone fits in one message: ``compact`` 1 cuts the name
    short and leaves out how long the conditions last; 2 keeps the name's start, the pool, HP and state,
    and counts the conditions and the situations."""
    hp = f"HP {combatant.hp}/{combatant.max_hp}"
    who = (
        name(combatant.name)
        if not compact
        else short(combatant.name, (SHORT_NAME, SHORTEST_NAME)[compact - 1])
    )
    parts = [who, pool_pips(combatant), hp]
    label = combatant.state_label  # down, unconscious, routed, frightened (R21, R25)
    if label:
        parts.append(f"**{label}**")
    if combatant.conditions and compact < 2:
        parts.append(conditions_label(combatant, lasting=not compact))
    elif combatant.conditions:
        many = len(combatant.conditions)
        parts.append(f"{many} condition{'' if many == 1 else 's'}")
    if where and compact < 2:
        parts.append(f"*{', '.join(where)}*")
    elif where:
        parts.append(f"*{len(where)} situation{'' if len(where) == 1 else 's'}*")
    if combatant.leader:
        parts[0] += " (leader)"
    return " · ".join(parts)


def conditions_label(combatant: Combatant, *, lasting: bool = True) -> str:
    """Its conditions, each with how long it still lasts: "prone (2 rounds), stunned"."""
    labels = []
    for condition in combatant.conditions:
        left = combatant.lasting.get(condition.casefold()) if lasting else None
        labels.append(name(condition) + (f" ({duration_label(left)})" if left is not None else ""))
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


class Section(NamedTuple):
    """A part of the tracker, with its lines at each length it can take, the fullest first. When the
    whole tracker would not fit in one message, the sections shrink from the last one up (the ranges,
    then the combatants, then the order), a step at a time; the turn (who acts now, who next) never
    does. A section after the first starts with an empty line."""

    levels: Sequence[list[str]]


class Levels(Sequence[list[str]]):
    """A section's levels, each drawn when first asked for (then kept): nearly every tracker fits at its
    fullest, so its shorter levels are seldom needed, and a drawing need not write everyone's line
    three times."""

    def __init__(self, *drawings: Callable[[], list[str]]) -> None:
        self._drawings = drawings
        self._drawn: dict[int, list[str]] = {}

    def __len__(self) -> int:
        return len(self._drawings)

    @overload
    def __getitem__(self, index: int) -> list[str]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[list[str]]: ...

    def __getitem__(self, index: int | slice) -> list[str] | Sequence[list[str]]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        index = range(len(self))[index]  # an IndexError out of range, as a list's
        drawn = self._drawn.get(index)
        if drawn is None:
            drawn = self._drawn[index] = self._drawings[index]()
        return drawn


def tracker_sections(encounter: Encounter, *, reveal: bool = False) -> list[Section]:
    """The tracker's parts, in the order shown: the turn, the order of the cards, the combatants, the
    ranges. A new part goes where it reads best; its shorter levels say how it gives way (each drawn
    only if the fuller ones do not fit: :class:`Levels`)."""
    return [
        Section([_now_lines(encounter)]),
        Section(
            Levels(
                *(
                    partial(_order_lines, encounter, reveal=reveal, compact=c)
                    for c in (0, SHORT_NAME, SHORTEST_NAME)
                )
            )
        ),
        Section(Levels(*(partial(_roster_lines, encounter, compact=c) for c in (0, 1, 2)))),
        Section(
            Levels(
                partial(range_lines, encounter),
                partial(range_lines, encounter, at_most=3, budget=500),
                partial(_ranges_counted, encounter),
            )
        ),
    ]


def tracker_lines(encounter: Encounter, *, reveal: bool = False) -> list[str]:
    """The tracker's text at its fullest, line by line. ``reveal`` shows hidden NPC cards (for the GM's
    eyes only)."""
    return [line for section in tracker_sections(encounter, reveal=reveal) for line in section.levels[0]]


def _now_lines(encounter: Encounter) -> list[str]:
    """Whose turn it is, or what the fight waits for between turns and rounds; the claims made."""
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
    return lines


def _holder(encounter: Encounter, holder: str, *, compact: int) -> str:
    if not compact:
        return holder_line(encounter, holder)
    return f"**{short(encounter.holder_name(holder), compact)}**"


def _order_lines(encounter: Encounter, *, reveal: bool, compact: int) -> list[str]:
    """The cards still to act, in order (one a line; ``compact``: on one line, names cut to that many
    characters), the held cards and who acted."""
    state = encounter.initiative
    lines: list[str] = []
    order = state.order
    if order:
        shown = [
            f"{_card_shown(encounter, entry.holder, entry.card, reveal)} "
            f"{_holder(encounter, entry.holder, compact=compact)}"
            for entry in order
        ]
        lines += ["", "**Still to act**"]
        lines += [" · ".join(shown)] if compact else shown
    if state.waiting:
        lines.append("")
        held = ", ".join(
            f"{FACE_DOWN} {_holder(encounter, entry.holder, compact=compact)}" for entry in state.waiting
        )
        lines.append(f"**Held:** {held}")
    if state.acted:
        acted = ", ".join(
            short(encounter.holder_name(holder), compact) if compact else name(encounter.holder_name(holder))
            for holder in state.acted
        )
        lines.append(f"**Acted:** {acted}")
    return lines


def _roster_lines(encounter: Encounter, *, compact: int) -> list[str]:
    """Everyone in the fight, one line each (▶️ marks those whose turn it is), at a length of
    :func:`combatant_line`."""
    if not encounter.combatants:
        return ["", "Nobody has joined yet: players `/join`, the GM adds NPCs with `/npc add`."]
    acting = encounter.initiative.turn_of
    return [
        "",
        "**Combatants**",
        *(
            ("▶️ " if combatant.holder == acting else "")
            + combatant_line(combatant, position_labels(encounter, combatant), compact=compact)
            for combatant in encounter.combatants
        ),
    ]


def _ranges_counted(encounter: Encounter) -> list[str]:
    """The ranges at their shortest: how many pairs are not at Onset (``/encounter show`` lists them)."""
    pairs = len(fight_ranges(encounter))
    if not pairs:
        return []
    return [
        "",
        f"**Ranges**: {pairs} pair{'' if pairs == 1 else 's'} at Melee or Grapple (`/encounter show`)",
    ]


def _text_length(lines: Sequence[str]) -> int:
    return len("\n".join(lines))


def shrunk(sections: Sequence[Section], limit: int = MESSAGE_TEXT_LIMIT) -> list[list[str]]:
    """Each section's lines at the longest level with which the whole fits in ``limit`` characters,
    shrinking the last sections first. Should even the shortest not fit (it does for every fight a
    document allows, but whatever a section may hold later), the last sections lose their last lines,
    counted; the first (whose turn it is) never does."""
    levels = [0] * len(sections)

    def chosen() -> list[list[str]]:
        return [section.levels[level] for section, level in zip(sections, levels, strict=True)]

    while _text_length([line for lines in chosen() for line in lines]) > limit:
        shrinking = next(
            (i for i in reversed(range(len(sections))) if levels[i] < len(sections[i].levels) - 1), None
        )
        if shrinking is None:
            break
        levels[shrinking] += 1
    parts = chosen()
    for index in reversed(range(1, len(parts))):
        others = _text_length([line for i, lines in enumerate(parts) if i != index for line in lines])
        if others + _text_length(parts[index]) + 1 <= limit:
            break
        room = max(0, limit - others - 1)
        parts[index] = clip(parts[index], room).split("\n") if room > 60 else []
    return parts


def packed(parts: Sequence[Sequence[str]], limit: int = DESCRIPTION_LIMIT) -> list[str]:
    """The sections' lines as descriptions of at most ``limit`` characters each: a section goes whole
    into the description it starts in when it fits there, else begins the next one; a section longer
    than a description is split between lines (and a line longer than a description, cut)."""
    every = [line for part in parts for line in part]
    if _text_length(every) <= limit:  # nearly every tracker: one description, without leading empty lines
        first = next((i for i, line in enumerate(every) if line), len(every))
        return ["\n".join(every[first:])] if first < len(every) else []
    pages: list[list[str]] = [[]]
    used = 0  # the length of the last page's text so far: each line is measured once
    for lines in parts:
        if not lines:
            continue
        if pages[-1] and used + 1 + _text_length(lines) > limit:
            pages.append([])
        for whole in lines:
            line = whole if len(whole) <= limit else whole[: limit - 1] + "…"
            if pages[-1] and used + 1 + len(line) > limit:
                pages.append([])
            if pages[-1]:
                used += 1 + len(line)
                pages[-1].append(line)
            elif line:  # a description does not start with an empty line
                used = len(line)
                pages[-1].append(line)
    return ["\n".join(page) for page in pages if page]


def tracker_embeds(encounter: Encounter, *, reveal: bool = False) -> list[discord.Embed]:
    """The tracker as one message: everyone in it, each section as long as fits, over as many embeds as
    Discord's 4,096 characters a description need, within its 6,000 a message (the title on the first,
    the step in the footer of the last)."""
    state = encounter.initiative
    title = f"⚔️ Round {state.round}" if state.round else "⚔️ Fight"
    waiting = add_waiting(discord.Embed(), encounter)  # what the fight waits for, under the turn
    room = sum(len(field.name or "") + len(field.value or "") for field in waiting.fields)
    descriptions = packed(shrunk(tracker_sections(encounter, reveal=reveal), MESSAGE_TEXT_LIMIT - room))
    embeds = [discord.Embed(description=text, colour=TRACKER_COLOUR) for text in descriptions or [""]]
    embeds[0].title = title
    for field in waiting.fields:  # drawn once: the same field the room was kept for
        embeds[0].add_field(name=field.name, value=field.value, inline=bool(field.inline))
    embeds[-1].set_footer(text=f"GM: use /encounter · step {encounter.flow.step}")
    return embeds


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


def tracker_view(encounter: Encounter) -> discord.ui.View:
    """Next / Hold / Act (and Deal when a round is due), each carrying the fight's step."""
    view = button_view()
    for button in tracker_buttons(encounter):
        view.add_item(button)
    return view
