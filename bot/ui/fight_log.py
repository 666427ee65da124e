"""A fight's record: the summary posted when it ends, its log read in a channel, and the whole log as a file.

Log lines are stored as plain text, the way the table saw them; everything a user typed in them is
escaped here, where they become Markdown. A roll made privately (``data["private"]``) is shown only
to the GM and to whoever rolled it, and is marked private wherever it is shown.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from discord.utils import escape_markdown

from ..encounter.document import Combatant, Encounter
from ..rules.initiative import fight_duration
from ..store import LogEntry
from .tracker import DESCRIPTION_LIMIT, clip, name

LOG_DEFAULT = 15
LOG_MAX = 50
"""The most log entries ``/encounter log`` shows; the whole log comes with the summary at the end."""
ENTRY_LIMIT = 3000
"""The most characters one entry takes in ``/encounter log``: removing a group of 60 NPCs logs every
name, and an entry longer than the embed on its own would leave the reader with nothing."""


def is_private(entry: LogEntry) -> bool:
    return entry.data.get("private") is True


def visible_to(entry: LogEntry, user_id: int, *, gm: bool) -> bool:
    """A private roll is seen by the GM and by the user who rolled it; everything else by everyone."""
    return not is_private(entry) or gm or entry.user_id == user_id


def final_state(combatant: Combatant) -> str:
    parts = [f"{name(combatant.name)}: HP {combatant.hp}/{combatant.max_hp}"]
    if combatant.is_down:
        parts.append("**down**")
    if combatant.conditions:
        parts.append(", ".join(name(condition) for condition in combatant.conditions))
    return " · ".join(parts)


def fight_summary(encounter: Encounter) -> str:
    """What the channel reads when the fight ends (R5: rounds and game time), within an embed's limit."""
    lines = [
        f"**Fight over** after {fight_duration(encounter.initiative.round)}.",
        f"GM: <@{encounter.gm_id}>",
    ]
    if encounter.combatants:
        lines += ["", "**Final state**"]
        lines += [final_state(combatant) for combatant in encounter.combatants]
    else:
        lines.append("Nobody fought.")
    return clip(lines, DESCRIPTION_LIMIT)


def log_line(entry: LogEntry) -> str:
    """One entry as a channel shows it: the time in each reader's own time zone, then the line."""
    stamp = f"<t:{int(entry.at.timestamp())}:T>"
    private = " *(private)*" if is_private(entry) else ""
    return f"{stamp} {_escaped_within(entry.text, ENTRY_LIMIT)}{private}"


def _escaped(text: str) -> str:
    """A log line as the channel shows it: its Markdown escaped where Discord would read it as such
    (a line is plain text with numbers like -9, which stay as they are), and mention syntax always, so
    a name typed as ``<@4001>`` in it never shows as a member's mention."""
    return escape_markdown(text).replace("<", "\\<").replace("@", "\\@")


def _escaped_within(text: str, limit: int) -> str:
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


def log_lines(entries: Sequence[LogEntry], hidden: int = 0, limit: int = DESCRIPTION_LIMIT) -> str:
    """The latest entries that fit in ``limit`` characters, oldest first, saying what was left out."""
    notes: list[str] = []
    if hidden:
        plural = "y" if hidden == 1 else "ies"
        notes.append(f"*{hidden} private roll entr{plural} of other players not shown.*")
    if not entries:
        return "\n".join([*notes, "Nothing logged yet."])
    kept: list[str] = []
    used = sum(len(note) + 1 for note in notes) + 60
    for entry in reversed(entries):
        line = log_line(entry)
        if used + len(line) + 1 > limit:
            break
        kept.append(line)
        used += len(line) + 1
    kept.reverse()
    dropped = len(entries) - len(kept)
    if dropped:
        notes.insert(0, f"*… {dropped} earlier entries did not fit.*")
    return "\n".join([*notes, *kept])


def _utc(at: datetime) -> str:
    return at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def log_filename(encounter: Encounter) -> str:
    return f"fight-log-{encounter.started_at.astimezone(UTC):%Y-%m-%d-%H%M}.md"


def log_markdown(
    encounter: Encounter, entries: Sequence[LogEntry], *, channel: str, ended_at: datetime
) -> str:
    """The whole log of a fight as a Markdown document, private rolls included and marked."""
    lines = [
        f"# Fight log: {channel}",
        "",
        f"- Started: {_utc(encounter.started_at)}",
        f"- Ended: {_utc(ended_at)}",
        f"- Length: {fight_duration(encounter.initiative.round)}",
        f"- GM: user {encounter.gm_id}",
        "",
        "## Log",
        "",
    ]
    if not entries:
        lines.append("Nothing was logged.")
    for entry in entries:
        private = " *(private)*" if is_private(entry) else ""
        stamp = entry.at.astimezone(UTC).strftime("%H:%M:%S")
        lines.append(f"- `{stamp}` {_escaped(entry.text)}{private}")
    lines += ["", "## Final state", ""]
    if not encounter.combatants:
        lines.append("Nobody fought.")
    lines += [f"- {final_state(combatant)}" for combatant in encounter.combatants]
    return "\n".join(lines) + "\n"
