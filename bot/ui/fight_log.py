"""A fight's record: the GM's confirmation before it ends, the summary posted when it does, its log read
in a channel, and the whole log as a file, then and later.

Log lines are stored as plain text, the way the table saw them; everything a user typed in them is
escaped here, where they become Markdown. A roll made privately (``data["private"]``) is shown only
to the GM and to whoever rolled it, and is marked private wherever it is shown: a file for anyone
else has the line "a private roll by …" in its place, never its dice.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime

import discord
from discord.utils import escape_markdown

from ..encounter.lifecycle import EndAsked, EndedFight, FinalState
from ..fight_views import EndedLog, is_private
from ..rules.initiative import fight_duration
from ..store import ENDED_KEPT, EndedEncounter, HistoryStep, LogEntry
from .announcements import fitted
from .buttons import Button, button_view
from .tracker import DESCRIPTION_LIMIT, TRACKER_COLOUR, name

LOG_DEFAULT = 15
LOG_MAX = 50
"""The most log entries ``/encounter log`` shows; the whole log comes with the summary at the end."""
ENTRY_LIMIT = 3000
"""The most characters one entry takes in ``/encounter log``: removing a group of 60 NPCs logs every
name, and an entry longer than the embed on its own would leave the reader with nothing."""

END_BUTTON = re.compile(r"pommel:end:(?P<fight>[0-9a-f]+):(?P<version>\d+):(?P<action>end|keep)")
"""The confirmation's buttons (:class:`bot.button_kinds.EndButton`): the fight's tag and the version it
was drawn for, so a click ends that fight as the GM saw it, or nothing."""

LOG_KEPT = (
    "Its log is kept: `/encounter log` in this channel gives it to you again as a file, until a new "
    "fight starts here, and `/encounter history` afterwards."
)

HISTORY_BUTTON = re.compile(r"pommel:history:(?P<ended>\d+)")
"""A download button of ``/encounter history`` (:class:`bot.button_kinds.HistoryButton`): the ended fight's
id in the store."""


UNDO_BUTTON = re.compile(r"pommel:undo:(?P<fight>[0-9a-f]+):(?P<version>\d+):(?P<steps>\d+)")
"""The "Undo" button of ``/encounter undo`` (:class:`bot.button_kinds.UndoButton`): the fight's tag, the
version it was drawn for and how many steps, so a stale or repeated click undoes nothing."""
UNDO_MAX = 10
"""The most steps one ``/encounter undo`` takes back."""
REDO_BUTTON = re.compile(r"pommel:redo:(?P<fight>[0-9a-f]+):(?P<undo>\d+)")
"""The "Redo" button of ``/encounter redo`` and of an undo's note (:class:`bot.button_kinds.RedoButton`):
the fight's tag and the undo it takes back (the id of its log line), so a click after another change
redoes nothing."""


def undo_confirmation(steps: Sequence[HistoryStep], fight: str, version: int) -> tuple[str, discord.ui.View]:
    """What ``/encounter undo`` shows the GM, privately: the log lines of the changes it would take back
    (newest first), and the button that does it."""
    count = len(steps)
    lines = [f"**Undo {_changes(count)}?** The fight goes back to how it was before:"]
    lines += _undone_lines(steps)
    note = ["Their log lines stay in the log, marked undone."]
    view = button_view()
    view.add_item(
        Button(
            label=f"Undo {_changes(count)}",
            emoji="↩️",
            style=discord.ButtonStyle.danger,
            custom_id=f"pommel:undo:{fight}:{version}:{count}",
        )
    )
    return fitted([*lines, *note]), view


def redo_confirmation(steps: Sequence[HistoryStep], fight: str, undo: int) -> tuple[str, discord.ui.View]:
    """What ``/encounter redo`` shows, privately: the log lines of the changes the last undo took back,
    which would stand again, and the button that does it."""
    count = len(steps)
    back = "This change stands" if count == 1 else f"These {count} changes stand"
    lines = [f"**Redo the last undo?** {back} again:", *_redone_lines(steps)]
    return fitted([*lines, "Their log lines are no longer marked undone."]), redo_view(fight, undo)


def redo_view(fight: str, undo: int) -> discord.ui.View:
    """The "Redo" button: on ``/encounter redo``, and on the note of an undo just made."""
    view = button_view()
    view.add_item(
        Button(
            label="Redo",
            emoji="↪️",
            style=discord.ButtonStyle.secondary,
            custom_id=f"pommel:redo:{fight}:{undo}",
        )
    )
    return view


def redo_log_line(by: str, steps: Sequence[HistoryStep]) -> str:
    """The redo's own log line (plain text)."""
    return _put_back_line(by, "redid", steps)


def redone_reply(by: str, steps: Sequence[HistoryStep]) -> str:
    """What the channel is told once a redo is done: the changes that stand again."""
    return fitted([f"↪️ {_escaped(by)} redid {_changes(len(steps))}:", *_redone_lines(steps)])


def undo_log_line(by: str, steps: Sequence[HistoryStep]) -> str:
    """The undo's own log line (plain text)."""
    return _put_back_line(by, "undid", steps)


def _put_back_line(by: str, did: str, steps: Sequence[HistoryStep]) -> str:
    said = "; ".join(line for step in reversed(steps) for line in step.lines) or "changes without log lines"
    return f"{by} {did} {_changes(len(steps))}: {said}"


def undone_reply(by: str, steps: Sequence[HistoryStep]) -> str:
    """What the channel is told once an undo is done."""
    return fitted([f"↩️ {_escaped(by)} undid {_changes(len(steps))}:", *_undone_lines(steps)])


UNDONE_NOTE = (
    "Undone; the tracker is brought up to date. **Redo** puts it back, until the fight's next change."
)
REDONE_NOTE = "Redone; the tracker is brought up to date."
UNDO_OUT_OF_DATE = (
    "The fight changed since these changes were shown, so nothing was undone. "
    "Use `/encounter undo` again to see what the last changes are now."
)
REDO_OUT_OF_DATE = (
    "The fight changed since this was shown, so nothing was redone. "
    "Use `/encounter redo` to see what can still be redone."
)


def _changes(count: int) -> str:
    return "the last change" if count == 1 else f"the last {count} changes"


def _undone_lines(steps: Sequence[HistoryStep]) -> list[str]:
    return [f"- ~~{text}~~ (by <@{user}>)" for text, user in _step_lines(steps)]


def _redone_lines(steps: Sequence[HistoryStep]) -> list[str]:
    return [f"- {text} (by <@{user}>)" for text, user in _step_lines(steps)]


def _step_lines(steps: Sequence[HistoryStep]) -> list[tuple[str, int]]:
    return [
        (escaped_within(text, 300), step.user_id)
        for step in steps
        for text in step.lines or ("(a change without log lines)",)
    ]


def final_state(combatant: FinalState) -> str:
    parts = [f"{name(combatant.name)}: HP {combatant.hp}/{combatant.max_hp}"]
    if combatant.down:
        parts.append("**down**")
    if combatant.conditions:
        parts.append(", ".join(name(condition) for condition in combatant.conditions))
    return " · ".join(parts)


def fight_summary(ended: EndedFight) -> str:
    """What the channel reads when the fight ends (R5: rounds and game time), within an embed's limit."""
    lines = [f"**Fight over** after {fight_duration(ended.rounds)}.", f"GM: <@{ended.gm_id}>"]
    if ended.final_state:
        lines += ["", "**Final state**"]
        lines += [final_state(combatant) for combatant in ended.final_state]
    else:
        lines.append("Nobody fought.")
    return fitted(lines, DESCRIPTION_LIMIT)


# ----------------------------------------------------------------------------- ending


def _rounds(rounds: int) -> str:
    return f"{rounds} round{'' if rounds == 1 else 's'}"


def end_custom_id(asked: EndAsked, action: str) -> str:
    return f"pommel:end:{asked.fight}:{asked.version}:{action}"


def end_confirmation(asked: EndAsked) -> tuple[str, discord.ui.View]:
    """What ``/encounter end`` asks the GM, privately, before anything ends: what ending does, and the
    buttons that end the fight or keep it going."""
    people = f"{asked.combatants} combatant{'' if asked.combatants == 1 else 's'}"
    content = "\n".join(
        [
            f"**End this fight?** It has run {_rounds(asked.rounds)}, with {people} in it.",
            "Ending it posts the summary (everyone's HP) here with the log attached, private rolls "
            "without their dice (you get the whole log privately when it has any), and closes the "
            "tracker. "
            "`/encounter reopen` brings it back if you end it by mistake. " + LOG_KEPT,
        ]
    )
    view = button_view()
    for button in (
        Button(
            label="End the fight",
            emoji="🏁",
            style=discord.ButtonStyle.danger,
            custom_id=end_custom_id(asked, "end"),
        ),
        Button(
            label="Keep it going",
            style=discord.ButtonStyle.secondary,
            custom_id=end_custom_id(asked, "keep"),
        ),
    ):
        view.add_item(button)
    return content, view


FIGHT_GOES_ON = "The fight goes on; nothing was changed."
ALREADY_ENDED = "That fight is already over. `/encounter log` in this channel gives its log as a file."


def ended_note(ended: EndedFight) -> str:
    """The GM's confirmation once the click ended the fight (said before anything else is posted)."""
    return f"✅ **You ended the fight** after {_rounds(ended.rounds)}. {LOG_KEPT}"


def full_copy_note(private: int) -> str:
    return (
        f"📜 Your copy of the whole log, private rolls included ({private}). The file posted in the "
        "channel shows them without their dice."
    )


def end_not_shown(missing: Sequence[str], failure: str) -> str:
    """The GM is told, privately, what Discord did not take after the fight ended: it is ended, and
    its log is kept (never "nothing was changed")."""
    what = " and ".join(missing)
    return (
        f"⚠️ The fight **is ended**, but Discord did not take {what} ({failure}). Nothing is lost: the "
        "log is kept, and `/encounter log` in this channel gives it to you as a file, until a new fight "
        "starts here."
    )


def ended_log_reply(
    ended: EndedFight, ended_at: datetime, *, full: bool, hidden: int, last: bool = True
) -> str:
    """What comes with the log file of an ended fight: the channel's last (``last``), or one of
    ``/encounter history``."""
    when = f"<t:{int(ended_at.timestamp())}:R>"
    which = "the last fight in this channel" if last else "a fight in this channel"
    lines = [
        f"📜 The log of {which} (GM <@{ended.gm_id}>), which ended {when} after {_rounds(ended.rounds)}."
    ]
    if full:
        lines.append("It is the whole log, private rolls included.")
    elif hidden:
        lines.append(
            f"Other players' private rolls ({hidden}) are in it without their dice; the GM's copy has them."
        )
    return "\n".join(lines)


def history_reply(ended: Sequence[EndedEncounter]) -> tuple[str, discord.ui.View | None]:
    """``/encounter history``: the channel's ended fights, newest first, each with a button that gives
    its log as a file."""
    if not ended:
        return f"No fight has ended in this channel yet (it keeps its last {ENDED_KEPT}).", None
    lines = [f"📚 **Fights that ended in this channel**, newest first (the last {ENDED_KEPT} are kept):"]
    view = button_view()
    for number, fight in enumerate(ended, start=1):
        lines.append(
            f"**{number}.** Started <t:{int(fight.started_at.timestamp())}:f>, ended "
            f"<t:{int(fight.ended_at.timestamp())}:R> after {_rounds(fight.rounds)} · GM <@{fight.gm_id}>"
        )
        view.add_item(Button(label=f"Log {number}", emoji="📜", custom_id=f"pommel:history:{fight.id}"))
    lines.append("A button gives that fight's log as a file, privately.")
    return "\n".join(lines), view


# ----------------------------------------------------------------------------- the log in a channel


def log_line(entry: LogEntry) -> str:
    """One entry as a channel shows it: the date and time in each reader's own time zone (a
    play-by-post fight runs over days), then the line."""
    stamp = f"<t:{int(entry.at.timestamp())}:f>"
    private = " *(private)*" if is_private(entry) else ""
    return f"{stamp} {_struck(entry, escaped_within(entry.text, ENTRY_LIMIT))}{private}"


def _struck(entry: LogEntry, shown: str) -> str:
    """A line an undo took back, struck through and marked, so nobody fishes for a better roll unseen."""
    return f"~~{shown}~~ *(undone)*" if entry.undone_by is not None else shown


def _escaped(text: str) -> str:
    """A log line as the channel shows it: its Markdown escaped where Discord would read it as such
    (a line is plain text with numbers like -9, which stay as they are), and mention syntax always, so
    a name typed as ``<@4001>`` in it never shows as a member's mention."""
    return escape_markdown(text).replace("<", "\\<").replace("@", "\\@")


def escaped_within(text: str, limit: int) -> str:
    """``text`` escaped, and cut short ("…") if that comes to more than ``limit`` characters.

    The cut is made before escaping, so it never splits an escape from the character it escapes."""
    escaped = _escaped(text)
    if len(escaped) <= limit:
        return escaped
    fits, too_long = 0, len(text)
    while too_long - fits > 1:
        middle = (fits + too_long) // 2
        if len(_escaped(text[:middle])) < limit:
            fits = middle
        else:
            too_long = middle
    return _escaped(text[:fits]) + "…"


def log_lines(
    entries: Sequence[LogEntry],
    hidden: int = 0,
    limit: int = DESCRIPTION_LIMIT,
    *,
    line: Callable[[LogEntry], str] = log_line,
) -> str:
    """The latest entries that fit in ``limit`` characters, oldest first, saying what was left out;
    ``line`` shows one entry."""
    notes: list[str] = []
    if hidden:
        plural = "y" if hidden == 1 else "ies"
        notes.append(f"*{hidden} private roll entr{plural} of other players not shown.*")
    if not entries:
        return "\n".join([*notes, "Nothing logged yet."])
    kept: list[str] = []
    used = sum(len(note) + 1 for note in notes) + 60
    for entry in reversed(entries):
        shown = line(entry)
        if used + len(shown) + 1 > limit:
            break
        kept.append(shown)
        used += len(shown) + 1
    kept.reverse()
    dropped = len(entries) - len(kept)
    if dropped:
        notes.insert(0, f"*… {dropped} earlier entries did not fit.*")
    return "\n".join([*notes, *kept])


# ----------------------------------------------------------------------------- the log as a file


def _utc(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def log_filename(ended: EndedFight, *, full: bool = False) -> str:
    return f"fight-log-{ended.started_at.astimezone(UTC):%Y-%m-%d-%H%M}{'-full' if full else ''}.md"


def private_stand_in(entry: LogEntry) -> str:
    """What a file for someone else shows of a private roll: who rolled (when the entry says), no dice."""
    by = entry.data.get("by")
    return f"*(a private roll by {_escaped(by)})*" if isinstance(by, str) and by else "*(a private roll)*"


def shows_dice(entry: LogEntry, *, reader: int | None, full: bool) -> bool:
    """Whether a file for ``reader`` (None: everyone, as the channel's attachment) shows this entry as
    it is; ``full`` is the GM's copy."""
    return full or not is_private(entry) or (reader is not None and entry.user_id == reader)


def hidden_private(entries: Sequence[LogEntry], *, reader: int | None, full: bool) -> int:
    """How many private rolls a file for ``reader`` shows without their dice."""
    return sum(1 for entry in entries if not shows_dice(entry, reader=reader, full=full))


def log_markdown(
    ended: EndedFight,
    entries: Sequence[LogEntry],
    *,
    channel: str,
    ended_at: datetime,
    reader: int | None = None,
    full: bool = False,
) -> str:
    """The whole log of a fight as a Markdown document. The GM's copy (``full``) has every private roll,
    marked; any other (for ``reader``, or for everyone when None) has the reader's own, and a stand-in
    without the dice for each of the others'."""
    hidden = hidden_private(entries, reader=reader, full=full)
    private = sum(1 for entry in entries if is_private(entry))
    lines = [
        f"# Fight log: {channel}",
        "",
        f"- Started: {_utc(ended.started_at)}",
        f"- Ended: {_utc(ended_at)}",
        f"- Length: {fight_duration(ended.rounds)}",
        f"- GM: user {ended.gm_id}",
    ]
    if hidden:
        lines.append(f"- Private rolls: {hidden} shown without their dice; the GM's copy has them")
    elif private:
        lines.append(f"- Private rolls: {private}, marked *(private)*")
    lines += ["", "## Log", ""]
    if not entries:
        lines.append("Nothing was logged.")
    for entry in entries:
        stamp = entry.at.astimezone(UTC).strftime("%H:%M:%S")
        if not shows_dice(entry, reader=reader, full=full):
            lines.append(f"- `{stamp}` {private_stand_in(entry)}")
            continue
        mark = " *(private)*" if is_private(entry) else ""
        lines.append(f"- `{stamp}` {_struck(entry, _escaped(entry.text))}{mark}")
    lines += ["", "## Final state", ""]
    if not ended.final_state:
        lines.append("Nobody fought.")
    lines += [f"- {final_state(combatant)}" for combatant in ended.final_state]
    return "\n".join(lines) + "\n"


def log_file(log: EndedLog, *, channel: str, reader: int | None, full: bool) -> discord.File:
    """An ended fight's log as a Markdown file (see :func:`log_markdown`)."""
    document = log_markdown(
        log.ended, log.entries, channel=channel, ended_at=log.ended_at, reader=reader, full=full
    )
    return discord.File(io.BytesIO(document.encode()), filename=log_filename(log.ended, full=full))


def channel_label(channel: object, channel_id: int) -> str:
    """How a log file names the channel its fight was in."""
    return f"#{getattr(channel, 'name', None) or f'channel {channel_id}'}"


def fight_over_embed(summary: str) -> discord.Embed:
    return discord.Embed(title="⚔️ Fight over", description=summary, colour=TRACKER_COLOUR)


def log_embed(latest: Sequence[LogEntry], hidden: int) -> discord.Embed:
    """``/encounter log``'s private answer during a fight: its latest entries the reader may see."""
    return discord.Embed(
        title="📜 This fight's log", description=log_lines(latest, hidden), colour=TRACKER_COLOUR
    )


def failure_of(error: BaseException) -> str:
    """What Discord answered, in a few words for the GM."""
    if isinstance(error, discord.HTTPException):
        return f"it answered {error.status}: {error.text}" if error.text else f"it answered {error.status}"
    return "the connection to it failed"
