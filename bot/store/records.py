"""The plain records the store takes and hands back: a change to write, log entries, ended fights, steps
of a fight's history, fights set aside, what forgetting a server deleted, and the d20 faces counted."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import AfterValidator, AwareDatetime, BaseModel, ConfigDict, Field, JsonValue

from ..encounter.document import Encounter
from ..encounter.done import D20_KEY, Done


@dataclass(frozen=True, slots=True)
class EncounterChange:
    """What a change given to :meth:`~bot.store.base.Store.update_encounter` wants written.

    ``encounter`` is the fight to save, or None to end (delete) the fight that was loaded; ``events``
    are logged in the same transaction. None when no fight was loaded writes only the events.
    """

    encounter: Encounter | None
    events: tuple[LogEntry, ...] = ()
    user_id: int | None = None
    """Who made the change, for the fight's history (:meth:`~bot.store.base.Store.history`); the events'
    user when None."""


@dataclass(frozen=True, slots=True)
class SetAsideFight:
    """A channel's fight whose stored document could not be read (hand-edited, damaged, or written by an
    older Pommel): it was moved out of the way, whole, so the channel can start a new fight.

    ``gm_id`` is the GM as far as the document still tells (None when it does not); ``reason`` says in
    plain words why it could not be read; ``acknowledged`` is whether the channel was told (see
    :meth:`Store.acknowledge_set_aside`).
    """

    id: int
    channel_id: int
    guild_id: int | None
    gm_id: int | None
    version: int
    reason: str
    set_aside_at: datetime
    acknowledged: bool


@dataclass(frozen=True, slots=True)
class DueFight:
    """A running fight with something due (:meth:`Store.due_fights`): its channel, its guild (to tell
    whose shard it is before reading it) and the moment, from the index of due times."""

    channel_id: int
    guild_id: int | None
    version: int
    due_at: datetime


ENDED_KEPT = 20
"""How many ended fights a channel keeps (:meth:`Store.ended_encounters`); an end beyond it forgets the
oldest. Their log lines stay in the log whatever happens."""


@dataclass(frozen=True, slots=True)
class EndedEncounter:
    """A fight that ended in a channel, as kept by the end (see :meth:`Store.ended_encounters`).

    ``version`` is the version it ended at; ``last_log_id`` the channel's last log id at its end (its log
    is the channel's entries from ``started_at`` up to it). ``encounter`` is the fight as it ended, with
    ``version`` set: only :meth:`Store.ended_encounter` reads it (None in a list).
    """

    id: int
    channel_id: int
    guild_id: int | None
    gm_id: int
    started_at: datetime
    ended_at: datetime
    rounds: int
    version: int
    last_log_id: int
    encounter: Encounter | None = None


HISTORY_KEPT = 50
"""How many steps of the running fight's history a channel keeps (:meth:`Store.history`); a change beyond
it forgets the oldest. The history goes when the fight ends or a new one starts."""


@dataclass(frozen=True, slots=True)
class HistoryStep:
    """One committed change of the running fight, as :meth:`Store.history` gives it back.

    ``version`` is the version the fight had before the change (the change made ``version + 1``);
    ``user_id`` who made it, ``at`` when; ``lines`` the texts of the log lines it wrote, in order.
    """

    version: int
    user_id: int
    at: datetime
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Redoable:
    """The channel's last undo, which :meth:`Store.redo` can take back: the id of its log line, and the
    steps it took back, newest first."""

    undo_id: int
    steps: list[HistoryStep]


def _in_utc(at: datetime) -> datetime:
    return at.astimezone(UTC)


class LogEntry(BaseModel):
    """One line of the append-only log of rolls and game events, as players saw it.

    ``text`` is the line as shown; ``data`` keeps the details (dice, totals, who) as JSON so a later
    tool can recount a fight without parsing text.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: int | None = None
    """Set by the store; ids only grow, so ``after_id`` pages through the log in order."""
    at: Annotated[AwareDatetime, AfterValidator(_in_utc)] = Field(default_factory=lambda: datetime.now(UTC))
    guild_id: int | None
    """None for a direct message."""
    channel_id: int
    user_id: int
    """Who acted: the roller, or the GM for an event of the fight."""
    kind: str = Field(min_length=1, max_length=32)
    """What sort of line: "roll", "encounter", ..."""
    text: str
    data: dict[str, JsonValue] = Field(default_factory=dict)
    undone_by: int | None = None
    """Set by the store when an undo took the change that wrote this line back: the id of the undo's own
    line. The line stays in the log (dice rolled in an undone step stay visible), marked undone."""


def log_entries(
    done: Done[Any], guild_id: int | None, channel_id: int, user_id: int, *, at: datetime | None = None
) -> list[LogEntry]:
    """An operation's log lines as the store's entries (:meth:`~bot.store.base.Store.change` writes them
    with its change; a command that saves otherwise hands them to the save)."""
    return [
        LogEntry(
            at=at if at is not None else datetime.now(UTC),
            guild_id=guild_id,
            channel_id=channel_id,
            user_id=user_id,
            kind=done.kind,
            text=line,
            data=dict(done.data) if index == 0 else {k: v for k, v in done.data.items() if k != D20_KEY},
        )
        for index, line in enumerate(done.log)  # the dice rolled are counted once, on the first line
    ]


@dataclass(frozen=True, slots=True)
class ForgottenGuild:
    """What :meth:`Store.forget_guild` deleted: fights running (or set aside), ended fights, log lines,
    characters, whether the server had settings, and its homebrew entries."""

    fights: int
    ended: int
    log_lines: int
    characters: int
    settings: bool
    homebrew: int = 0


@dataclass(frozen=True, slots=True)
class DiceTally:
    """What :meth:`Store.tally_d20` counted: ``faces[f - 1]`` is how often face f came up, ``rolls`` in how
    many rolls (log lines), and ``hidden`` how many rolls were left out as private ones the reader may
    not see."""

    faces: tuple[int, ...]
    rolls: int
    hidden: int

    def __add__(self, other: DiceTally) -> DiceTally:
        faces = tuple(a + b for a, b in zip(self.faces, other.faces, strict=True))
        return DiceTally(faces, self.rolls + other.rolls, self.hidden + other.hidden)
