"""Who may do what in a fight: the GM runs it, each player acts only for their own combatants.

The fight's GM is whoever started it or was handed it. Members with Manage Server may step in as GM
of any fight in their server (to rescue a fight whose GM is away). When a server sets a GM role, only
members with that role (or Manage Server) may start fights or be handed one. Every refusal is a
:class:`NotAllowed`, a :class:`RulesError` whose message says who may do it instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..guild_settings import GuildSettings
from ..rules.errors import IllegalAction, RulesError, echoed, shown
from ..wording.phrases import possessive
from .combatants import Combatant
from .document import HOLDER_NAME_LIMIT, Encounter
from .errors import NoFight, NotAllowed


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


def require_may_undo(encounter: Encounter, actor: Actor, made_by: Sequence[int], doing: str) -> None:
    """The GM may undo or redo any change of the fight; a player only the changes they made all of
    (``made_by``: who made each), and only when the fight lets players undo
    (:attr:`TableOptions.players_undo`)."""
    if is_gm(encounter, actor):
        return
    if not encounter.table.players_undo:
        raise NotAllowed(
            f"Only the GM of this fight (<@{encounter.gm_id}>) can {doing}; the GM can let players "
            "undo their own changes with `/encounter options players_undo:True`."
        )
    others = [user for user in made_by if user != actor.user_id]
    if others:
        raise NotAllowed(
            f"You can {doing} only when you made every one of those changes, and <@{others[0]}> made "
            f"one of them; ask the GM (<@{encounter.gm_id}>), or take back fewer."
        )


def require_may_recover(gm_id: int | None, actor: Actor, doing: str) -> None:
    """A fight set aside is its GM's (as far as its document still tells) and Manage Server's to recover."""
    if actor.manages_server or (gm_id is not None and actor.user_id == gm_id):
        return
    gm = f"its GM (<@{gm_id}>)" if gm_id is not None else "its GM"
    raise NotAllowed(f"Only {gm} or someone with Manage Server can {doing}.")


def may_run_fights(settings: GuildSettings, actor: Actor) -> bool:
    """Whether the server lets this member start a fight or be handed one."""
    if settings.gm_role_id is None or actor.manages_server:
        return True
    return settings.gm_role_id in actor.role_ids


def require_may_run_fights(settings: GuildSettings, actor: Actor, doing: str) -> None:
    if not may_run_fights(settings, actor):
        raise NotAllowed(f"On this server only members with the <@&{settings.gm_role_id}> role can {doing}.")


def controls(encounter: Encounter, actor: Actor, combatant: Combatant) -> bool:
    """A player controls their own characters, unless a spirit took the mind (R27: the feeble-minded, the
    stark-raving mad and the possessed are the GM's); the GM controls everyone."""
    if is_gm(encounter, actor):
        return True
    return combatant.owner_id == actor.user_id and combatant.mind_lost is None


def player_of(encounter: Encounter, combatant: Combatant) -> int:
    """Whom to ask when ``combatant`` must act: its player, or the GM for an NPC or one a spirit has
    taken (R27)."""
    if combatant.owner_id is None or combatant.mind_lost is not None:
        return encounter.gm_id
    return combatant.owner_id


def require_control(encounter: Encounter, actor: Actor, combatant: Combatant, doing: str) -> None:
    lost = combatant.mind_lost
    if lost is not None and combatant.owner_id == actor.user_id and not is_gm(encounter, actor):
        raise NotAllowed(
            f"{shown(combatant.name)} is {lost.value} (R27): the GM controls them {lost.lasts}, so only "
            f"<@{encounter.gm_id}> can {doing} for them."
        )
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


def acting_combatant(encounter: Encounter, actor: Actor, who: str | None, doing: str) -> Combatant:
    """The combatant a command acts for: the one named (which the user must control), else the user's
    only combatant, else (for the GM) the only member of the card whose turn it is."""
    if who:
        combatant = encounter.combatant(who)
        require_control(encounter, actor, combatant, doing)
        return combatant
    own = [c for c in encounter.combatants if c.owner_id == actor.user_id]
    if len(own) == 1:
        require_control(encounter, actor, own[0], doing)
        return own[0]
    turn_of = encounter.initiative.turn_of
    if not own and is_gm(encounter, actor) and turn_of is not None:
        members = encounter.members(turn_of)
        if len(members) == 1:
            return members[0]
    if own:
        names = ", ".join(shown(c.name) for c in own)
        raise RulesError(f"You have several combatants here ({names}); say which with `who:`.")
    if is_gm(encounter, actor):
        raise RulesError(f"Say which combatant should {doing} with `who:`.")
    raise NotAllowed(
        "You have no combatant in this fight. Bring your character in with /join, or ask the GM."
    )


def require_turn(encounter: Encounter, combatant: Combatant, doing: str) -> None:
    """Refuse ``doing`` to a combatant whose card is not the one acting now (R1)."""
    turn_of = encounter.initiative.turn_of
    if turn_of == combatant.holder:
        return
    if encounter.initiative.round == 0:
        raise RulesError(
            "The fight has not started: the GM deals the cards first (/init deal), then "
            f"{shown(combatant.name)} can {doing} on their turn."
        )
    now = (
        f"it is {possessive(echoed(encounter.holder_name(turn_of), HOLDER_NAME_LIMIT))} turn"
        if turn_of
        else "no turn is in progress"
    )
    raise IllegalAction(f"{shown(combatant.name)} can {doing} only on their own turn, and {now}.")
