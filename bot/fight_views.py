"""The read side of a fight: its log, paged back from the store, the ended fights of a channel, the
changes an undo or a redo would take back, and what each reader may see of them.

Commands read through here and render what they get; nothing here changes a fight or talks to Discord.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from .encounter.document import Encounter
from .encounter.lifecycle import EndedFight
from .encounter.permissions import Actor, require_may_undo
from .store import MAX_LOG_PAGE, HistoryStep, LogEntry, NothingToRedo, NothingToUndo, Redoable, Store

CLOCK_SLACK = timedelta(minutes=1)
"""How much older than a fight's start an entry logged after it may be (two commands at the same moment
stamp their lines before they are written, in either order): reading a fight's log back stops there."""

UNDOING = "undo changes of the fight"
REDOING = "redo what was undone"


def is_private(entry: LogEntry) -> bool:
    return entry.data.get("private") is True


def visible_to(entry: LogEntry, user_id: int, *, gm: bool) -> bool:
    """A private roll is seen by the GM and by the user who rolled it; everything else by everyone."""
    return not is_private(entry) or gm or entry.user_id == user_id


def reads_whole_log(ended: EndedFight, actor: Actor) -> bool:
    """Whether ``actor`` gets an ended fight's whole log, private rolls with their dice: its GM, and
    whoever manages the server."""
    return actor.user_id == ended.gm_id or actor.manages_server


async def fight_log(
    store: Store, channel_id: int, started_at: datetime, *, through: int | None = None
) -> list[LogEntry]:
    """Every log entry of the fight that started in the channel at ``started_at``, oldest first, private
    rolls included: those since it started, up to the entry with id ``through`` (its last, once it ended)."""
    entries: list[LogEntry] = []
    before = through + 1 if through is not None else None
    while True:
        page = await store.read_log_backwards(channel_id=channel_id, before_id=before, limit=MAX_LOG_PAGE)
        for entry in page:
            if entry.at < started_at - CLOCK_SLACK:
                return entries[::-1]
            if entry.at >= started_at:
                entries.append(entry)
        if len(page) < MAX_LOG_PAGE:
            return entries[::-1]
        before = page[-1].id


async def latest_log(
    store: Store, encounter: Encounter, reader: int, *, gm: bool, count: int
) -> tuple[list[LogEntry], int]:
    """The running fight's latest ``count`` entries ``reader`` may see, oldest first, and how many private
    rolls of others among them (or after the first of them) were left out."""
    everything = await fight_log(store, encounter.channel_id, encounter.started_at)
    shown = [entry for entry in everything if visible_to(entry, reader, gm=gm)]
    latest = shown[-count:]
    since = (latest[0].id or 0) if len(shown) > count else 0
    hidden = sum(
        1 for entry in everything if (entry.id or 0) > since and not visible_to(entry, reader, gm=gm)
    )
    return latest, hidden


async def last_ended_fight(store: Store, channel_id: int) -> tuple[EndedFight, LogEntry] | None:
    """The channel's last ended fight and its last log entry (the one that ended it), or None."""
    before: int | None = None
    while True:
        page = await store.read_log_backwards(
            channel_id=channel_id, kinds=("encounter",), before_id=before, limit=MAX_LOG_PAGE
        )
        for entry in page:
            ended = EndedFight.recorded(entry.data)
            if ended is not None:
                return ended, entry
        if len(page) < MAX_LOG_PAGE:
            return None
        before = page[-1].id


@dataclass(frozen=True)
class EndedLog:
    """An ended fight with its whole log (private rolls included), as the store keeps it."""

    ended: EndedFight
    entries: list[LogEntry]
    ended_at: datetime


async def ended_log(
    store: Store, channel_id: int, ended: EndedFight, ended_at: datetime, through: int | None
) -> EndedLog:
    entries = await fight_log(store, channel_id, ended.started_at, through=through)
    return EndedLog(ended, entries, ended_at)


async def closing_log(store: Store, channel_id: int, ended: EndedFight) -> EndedLog:
    """The log of the fight that just ended, up to the entry that ended it (to now if that is not found)."""
    last = await last_ended_fight(store, channel_id)
    end_entry = last[1] if last is not None and last[0].fight == ended.fight else None
    if end_entry is None:
        return await ended_log(store, channel_id, ended, datetime.now(UTC), None)
    return await ended_log(store, channel_id, ended, end_entry.at, end_entry.id)


async def last_ended_log(store: Store, channel_id: int) -> EndedLog | None:
    """The log of the channel's last ended fight, or None when none ended there."""
    last = await last_ended_fight(store, channel_id)
    if last is None:
        return None
    ended, end_entry = last
    return await ended_log(store, channel_id, ended, end_entry.at, end_entry.id)


async def kept_ended_log(store: Store, channel_id: int, ended_id: int) -> EndedLog | None:
    """The log of one of the channel's kept ended fights (``/encounter history``), or None when it is no
    longer kept here."""
    kept = await store.ended_encounter(ended_id)
    if kept is None or kept.encounter is None or kept.channel_id != channel_id:
        return None
    return await ended_log(store, channel_id, EndedFight.of(kept.encounter), kept.ended_at, kept.last_log_id)


async def undoable(store: Store, encounter: Encounter, actor: Actor, steps: int) -> list[HistoryStep]:
    """The fight's last ``steps`` changes, newest first, once ``actor`` may undo them all."""
    kept = await store.history(encounter.channel_id, steps)
    require_may_undo(encounter, actor, [step.user_id for step in kept], UNDOING)
    if len(kept) < steps:
        raise NothingToUndo(len(kept))
    return kept


async def redoable(store: Store, encounter: Encounter, actor: Actor) -> Redoable:
    """The fight's last undo, once ``actor`` may take it back."""
    last = await store.redoable(encounter.channel_id)
    steps = [] if last is None else last.steps
    require_may_undo(encounter, actor, [step.user_id for step in steps], REDOING)
    if last is None:
        raise NothingToRedo()
    return last
