"""What ``/server`` changes in a server's :class:`~bot.guild_settings.GuildSettings` (who may run fights,
the defaults of new fights), and whom those settings let forget the server or read its rolls.

Like a fight's operations, each checks and returns a :class:`~bot.encounter.done.Done`: its result is the
settings to save, its log lines are of kind "settings"; a refusal raises having saved nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .encounter.done import Done
from .encounter.errors import NotAllowed
from .encounter.lifecycle import option_changes
from .encounter.permissions import Actor
from .guild_settings import GuildSettings
from .rules.errors import RulesError
from .rules.options import RuleOptions
from .table_options import TableOptions
from .wording.phrases import Change
from .wording.roster import defaults_log_line, gm_role_log_line


@dataclass(frozen=True, slots=True)
class Role:
    """A server role as the settings need it: its id, and its name for the log."""

    id: int
    name: str


def set_gm_role(settings: GuildSettings, actor: Actor, by: str, role: Role | None) -> Done[GuildSettings]:
    """Manage Server: only members with ``role`` (or Manage Server) may start fights or be handed one;
    None lets anyone again. The result is the settings to save; its log lines are of kind "settings"."""
    if not actor.manages_server:
        raise NotAllowed("Only members with the Manage Server permission can set who may run fights here.")
    if role is not None and role.id == settings.guild_id:  # @everyone's id is the server's
        raise RulesError("Everyone has @everyone; to let anyone run fights, clear the GM role instead.")
    chosen = settings.model_copy(update={"gm_role_id": role.id if role is not None else None})
    return Done(chosen, log=[gm_role_log_line(by, role.name if role is not None else None)], kind="settings")


@dataclass(frozen=True, slots=True)
class DefaultsChanged:
    """The server's settings to save, and which of the defaults of new fights changed (none: nothing to
    save or log)."""

    settings: GuildSettings
    changes: list[Change]


def set_defaults(
    settings: GuildSettings, actor: Actor, by: str, rules: Mapping[str, object], table: Mapping[str, object]
) -> Done[DefaultsChanged]:
    """Manage Server: the rulings (:class:`RuleOptions`) and table habits (:class:`TableOptions`) the
    fights started after begin with; a running fight keeps its own. Its log lines are of kind "settings"."""
    if not actor.manages_server:
        raise NotAllowed("Only members with the Manage Server permission can set the defaults of new fights.")
    options: RuleOptions = settings.options.model_copy(update=dict(rules))
    table_options: TableOptions = settings.table.model_copy(update=dict(table))
    changes = option_changes(settings.options, options) + option_changes(settings.table, table_options)
    chosen = settings.model_copy(update={"options": options, "table": table_options})
    log = [defaults_log_line(by, changes)] if changes else []
    return Done(DefaultsChanged(chosen, changes), log=log, kind="settings")


def require_may_forget(actor: Actor) -> None:
    """Manage Server: only its members may delete what Pommel keeps about the server."""
    if not actor.manages_server:
        raise NotAllowed("Only members with the Manage Server permission can delete this server's data.")


def require_may_brew(settings: GuildSettings, actor: Actor) -> None:
    """Manage Server, or the server's GM role when it has one: who may change the server's homebrew."""
    if may_check_rolls(settings, actor):
        return
    role = f"the <@&{settings.gm_role_id}> role or " if settings.gm_role_id is not None else ""
    raise NotAllowed(
        f"Only members with {role}Manage Server can change this server's homebrew; "
        "`/homebrew list` and `/homebrew export` show it to anyone."
    )


def may_check_rolls(settings: GuildSettings, actor: Actor) -> bool:
    """Who may read the server's rolls, private ones included: members with Manage Server, and those
    with the server's GM role when it has one (not everyone, though anyone may run fights without)."""
    return actor.manages_server or (settings.gm_role_id is not None and settings.gm_role_id in actor.role_ids)


def require_may_check_rolls(settings: GuildSettings, actor: Actor) -> None:
    if may_check_rolls(settings, actor):
        return
    if settings.gm_role_id is None:
        raise NotAllowed(
            "Only members with Manage Server can read the server's rolls, private ones included "
            "(a server admin can name the server's GM role with `/server gm_role`; its members may too)."
        )
    raise NotAllowed(
        f"Only members with the <@&{settings.gm_role_id}> role or Manage Server can read the server's "
        "rolls, private ones included."
    )
