"""Who may do what in a fight: the GM runs it, each player acts only for their own combatants.

The fight's GM is whoever started it or was handed it. Members with Manage Server may step in as GM
of any fight in their server (to rescue a fight whose GM is away). When a server sets a GM role, only
members with that role (or Manage Server) may start fights or be handed one. Every refusal is a
:class:`NotAllowed`, a :class:`RulesError` whose message says who may do it instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from .encounter import Combatant, Encounter
from .guild_settings import GuildSettings
from .names import echoed, shown
from .rules.errors import RulesError

HOLDER_NAME_LIMIT = 300
"""A player's card is named after all their characters in the fight; a refusal names a few of them."""


class NotAllowed(RulesError):
    """The user may not do that in this fight; the message says who may."""


class NoFight(RulesError):
    """The channel has no fight running."""

    def __init__(self) -> None:
        super().__init__("There is no fight in this channel. The GM starts one with /encounter start.")


@dataclass(frozen=True, slots=True)
class Actor:
    """The user behind a command, as far as permissions go."""

    user_id: int
    manages_server: bool = False
    role_ids: frozenset[int] = frozenset()


def require_fight(encounter: Encounter | None) -> Encounter:
    if encounter is None:
        raise NoFight()
    return encounter


def is_gm(encounter: Encounter, actor: Actor) -> bool:
    return actor.user_id == encounter.gm_id or actor.manages_server


def require_gm(encounter: Encounter, actor: Actor, doing: str) -> None:
    """Refuse ``doing`` ("deal the cards") to anyone but the fight's GM."""
    if not is_gm(encounter, actor):
        raise NotAllowed(f"Only the GM of this fight (<@{encounter.gm_id}>) can {doing}.")


def may_run_fights(settings: GuildSettings, actor: Actor) -> bool:
    """Whether the server lets this member start a fight or be handed one."""
    if settings.gm_role_id is None or actor.manages_server:
        return True
    return settings.gm_role_id in actor.role_ids


def require_may_run_fights(settings: GuildSettings, actor: Actor, doing: str) -> None:
    if not may_run_fights(settings, actor):
        raise NotAllowed(f"On this server only members with the <@&{settings.gm_role_id}> role can {doing}.")


def controls(encounter: Encounter, actor: Actor, combatant: Combatant) -> bool:
    """A player controls their own characters; the GM controls everyone."""
    return is_gm(encounter, actor) or combatant.owner_id == actor.user_id


def require_control(encounter: Encounter, actor: Actor, combatant: Combatant, doing: str) -> None:
    if not controls(encounter, actor, combatant):
        who = f"<@{combatant.owner_id}> or the GM" if combatant.owner_id is not None else "the GM"
        raise NotAllowed(f"{shown(combatant.name)} is not yours: only {who} can {doing} for them.")


def plays_holder(encounter: Encounter, actor: Actor, holder: str) -> bool:
    """Whether the user may act on ``holder``'s card: its player, or the GM for any card."""
    return is_gm(encounter, actor) or encounter.holder_owner(holder) == actor.user_id


def require_plays_holder(encounter: Encounter, actor: Actor, holder: str, doing: str) -> None:
    if plays_holder(encounter, actor, holder):
        return
    owner = encounter.holder_owner(holder)
    who = f"<@{owner}> or the GM" if owner is not None else "the GM"
    holder_name = echoed(encounter.holder_name(holder), HOLDER_NAME_LIMIT)
    raise NotAllowed(f"That card belongs to {holder_name}: only {who} can {doing} it.")
