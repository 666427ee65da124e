"""How a fight starts, ends and is reopened, and who runs it: the changes of ``/encounter start | end |
options | gm`` (and the reopening of an ended fight).

Each operation checks, changes the document it is given and returns a
:class:`~bot.encounter.done.Done` whose result carries what the reply needs and whose log lines
(:mod:`bot.encounter.log_lines`) tell the fight's log; a refusal raises having saved nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import AwareDatetime, BaseModel, ConfigDict, ValidationError

from ..guild_settings import GuildSettings
from ..rules.errors import RulesError
from ..rules.options import RuleOptions
from ..table_options import TableOptions
from ..wording.phrases import Change
from ..wording.roster import (
    ended_log_line,
    handed_over_log_line,
    options_log_line,
    reopened_log_line,
    started_log_line,
)
from .document import Encounter
from .done import Done
from .errors import NotAllowed, OtherFight, OutOfDate
from .permissions import Actor, may_run_fights, require_gm, require_may_run_fights


def start(settings: GuildSettings, actor: Actor, by: str, channel_id: int) -> Done[Encounter]:
    """A new fight in the channel, run by whoever starts it (if the server lets them), with the
    server's rulings and table habits. The store creates it (refused if the channel has one already)."""
    require_may_run_fights(settings, actor, "start a fight")
    encounter = Encounter(
        channel_id=channel_id,
        guild_id=settings.guild_id,
        gm_id=actor.user_id,
        options=settings.options,
        table=settings.table,
    )
    return Done(encounter, log=[started_log_line(by)])


class FinalState(BaseModel):
    """A combatant as the fight left it, for its summary and its log file."""

    model_config = ConfigDict(frozen=True)

    name: str
    hp: int
    max_hp: int
    down: bool = False
    conditions: tuple[str, ...] = ()


ENDED = "ended"
"""The key of a fight's last log entry's data that keeps its :class:`EndedFight`."""


class EndedFight(BaseModel):
    """What is kept of a fight once it ended, in the data of its last log entry (``data["ended"]``): its
    GM, when it started, how many rounds it ran and how everyone came out of it. The fight itself is
    deleted; with this and the channel's log, its summary and its log file can be made again."""

    model_config = ConfigDict(frozen=True)

    fight: str
    """The fight's :attr:`~bot.encounter.document.Encounter.tag`."""
    gm_id: int
    started_at: AwareDatetime
    rounds: int
    final_state: tuple[FinalState, ...] = ()

    @classmethod
    def of(cls, encounter: Encounter) -> EndedFight:
        return cls(
            fight=encounter.tag,
            gm_id=encounter.gm_id,
            started_at=encounter.started_at,
            rounds=encounter.initiative.round,
            final_state=tuple(
                FinalState(
                    name=combatant.name,
                    hp=combatant.hp,
                    max_hp=combatant.max_hp,
                    down=combatant.is_down,
                    conditions=tuple(combatant.conditions),
                )
                for combatant in encounter.combatants
            ),
        )

    @classmethod
    def recorded(cls, data: Mapping[str, object]) -> EndedFight | None:
        """The ended fight a log entry's data keeps, or None (another entry, or one that does not read)."""
        kept = data.get(ENDED)
        if not isinstance(kept, dict):
            return None
        try:
            return cls.model_validate(kept)
        except ValidationError:
            return None


@dataclass(frozen=True, slots=True)
class EndAsked:
    """What the GM is asked before the fight ends: how long it ran and who is in it; the confirmation's
    buttons carry its ``fight`` tag and ``version``, so they end this fight as it was shown, or nothing."""

    fight: str
    version: int
    rounds: int
    combatants: int


END_OUT_OF_DATE = (
    "The fight has changed since you asked to end it (someone acted in it, or it was handed on). "
    "Nothing was changed; `/encounter end` again asks about the fight as it is now."
)


def ask_to_end(encounter: Encounter, actor: Actor) -> EndAsked:
    """Only the GM may end the fight; what the confirmation shows them first."""
    require_gm(encounter, actor, "end the fight")
    return EndAsked(encounter.tag, encounter.version, encounter.initiative.round, len(encounter.combatants))


def end(
    encounter: Encounter, actor: Actor, by: str, *, fight: str | None = None, version: int | None = None
) -> Done[EndedFight]:
    """The GM ends the fight: it is deleted, and its last log line says after how many rounds and keeps
    the :class:`EndedFight` (the log stays, so the fight's log can be had again once it is gone).

    ``fight`` and ``version`` are the tag and version the GM's confirmation was drawn for: a click on one
    from an earlier fight, or from before this one changed, is refused and ends nothing."""
    if fight is not None and fight != encounter.tag:
        raise OtherFight()
    require_gm(encounter, actor, "end the fight")
    if version is not None and version != encounter.version:
        raise OutOfDate(END_OUT_OF_DATE)
    ended = EndedFight.of(encounter)
    line = ended_log_line(by, encounter.initiative.round)
    return Done(ended, log=[line], end=True, data={ENDED: ended.model_dump(mode="json")})


def keep_going(encounter: Encounter, actor: Actor, *, fight: str) -> Done[None]:
    """The GM's "Keep it going" under the confirmation: nothing changes but the fight's version, so
    that the same confirmation's "End the fight", clicked too, is refused instead of ending the fight
    the GM was just told goes on (it logs nothing: no step of the fight's history)."""
    if fight != encounter.tag:
        raise OtherFight()
    require_gm(encounter, actor, "keep the fight going")
    return Done(None)


def reopen(ended: Encounter, actor: Actor, by: str) -> Done[Encounter]:
    """The GM of an ended fight (or Manage Server) brings it back, exactly as it ended (the store saves it
    at the version after the one it ended at, so what was drawn before the end stays stale), with the
    line "X reopened the fight". Refused to anyone else; the store refuses it while a fight runs."""
    require_gm(ended, actor, "reopen it")
    return Done(ended, log=[reopened_log_line(by)])


def option_changes(old: BaseModel, new: BaseModel) -> list[Change]:
    """The fields whose values differ between two option sets of the same kind, in declaration order."""
    return [
        (field, getattr(old, field), getattr(new, field))
        for field in type(old).model_fields
        if getattr(old, field) != getattr(new, field)
    ]


def change_options(
    encounter: Encounter, actor: Actor, rules: Mapping[str, object], table: Mapping[str, object]
) -> Done[list[Change]]:
    """The GM sets some of the fight's rulings (:class:`RuleOptions`) and table habits
    (:class:`TableOptions`); the result lists those that changed (none: nothing is logged)."""
    require_gm(encounter, actor, "change the fight's options")
    options: RuleOptions = encounter.options.model_copy(update=dict(rules))
    table_options: TableOptions = encounter.table.model_copy(update=dict(table))
    changes = option_changes(encounter.options, options) + option_changes(encounter.table, table_options)
    encounter.options, encounter.table = options, table_options
    return Done(changes, log=[options_log_line(changes)] if changes else [])


@dataclass(frozen=True, slots=True)
class HandedOver:
    old_gm: int
    new_gm: int


def hand_over(
    encounter: Encounter, actor: Actor, by: str, settings: GuildSettings, member: Actor, whom: str
) -> Done[HandedOver]:
    """The GM hands the fight to ``member`` (named ``whom``), who must be allowed to run fights here."""
    require_gm(encounter, actor, "hand the fight to someone else")
    mention = f"<@{member.user_id}>"
    if encounter.gm_id == member.user_id:
        raise RulesError(f"{mention} already runs this fight.")
    if not may_run_fights(settings, member):
        raise NotAllowed(
            f"{mention} can't run fights here: on this server only members with the "
            f"<@&{settings.gm_role_id}> role (or Manage Server) can."
        )
    old, encounter.gm_id = encounter.gm_id, member.user_id
    return Done(HandedOver(old, member.user_id), log=[handed_over_log_line(by, whom)])
