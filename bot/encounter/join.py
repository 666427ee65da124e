"""``/join`` and ``/leave``: a player's saved characters come into the fight and go out of it (one
who left and comes back returns as it left).

Each operation checks, changes the document it is given and returns a
:class:`~bot.encounter.done.Done` whose result carries what the reply needs and whose log lines
(:mod:`bot.encounter.log_lines`) tell the fight's log; a refusal raises having saved nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import TABLES, Catalog, EntryKind
from ..characters import Character
from ..rules.equipment import Armor
from ..rules.errors import IllegalAction, RulesError, echoed, shown
from ..wording.roster import TURN_CUT_SHORT, joined_log_line, left_log_line
from .combatants import Combatant, Side
from .document import Encounter
from .done import Done
from .errors import NotAllowed
from .fighters import NO_ARMOR
from .permissions import Actor, is_gm


def pool_armor(catalog: Catalog, sheet: Character) -> Armor | None:
    """The armor a joining character's pool is sized for (R6); a catalog without a No Armor entry
    means no armor at all."""
    if sheet.armor == NO_ARMOR and NO_ARMOR not in catalog.armors:
        return None
    return catalog.armor(sheet.armor)


def require_sheet_gear(catalog: Catalog, sheet: Character) -> None:
    """The sheet's weapons and shield are in the catalog it joins from: a server's homebrew entry
    removed since the sheet was saved would leave the fight nothing to look its numbers up in."""
    carried: tuple[tuple[EntryKind, str | None], ...] = (
        ("weapon", sheet.weapon),
        ("weapon", sheet.off_hand),
        ("shield", sheet.shield),
    )
    for kind, key in carried:
        if key is not None and key not in getattr(catalog, TABLES[kind]):
            raise IllegalAction(
                f"{shown(sheet.name)}'s {kind} '{echoed(key)}' is no longer in this server's catalog; "
                "pick another with /character edit, then join."
            )


def joining_armor(catalog: Catalog, sheet: Character) -> Armor | None:
    """A joining sheet's gear checked (:func:`require_sheet_gear`), and its armor (:func:`pool_armor`)."""
    require_sheet_gear(catalog, sheet)
    return pool_armor(catalog, sheet)


def join(
    encounter: Encounter, user_id: int, player: str, sheet: Character, armor: Armor | None
) -> Done[Joined]:
    """A player's saved character joins the fight (:meth:`Encounter.join`); ``armor`` from
    :func:`pool_armor`."""
    returning = encounter.departed_as(user_id, sheet.key) is not None
    joined = encounter.join(user_id, sheet, armor)
    line = joined_log_line(player, joined, returning=returning)
    return Done(Joined(joined, returning), log=[line], data={"combatant": joined.id})


@dataclass(frozen=True, slots=True)
class Joined:
    combatant: Combatant
    returning: bool
    """It had left this fight and comes back as it left (HP, pool, conditions)."""


@dataclass(frozen=True, slots=True)
class Left:
    combatant: Combatant
    discarded: bool
    """Nobody is left on its player's card, which is discarded (R2)."""
    cut_short: bool
    """The turn in progress was theirs; it is over."""


def leaving(encounter: Encounter, actor: Actor, wanted: str | None) -> Combatant:
    """The player character leaving: the one named (by id or name), or the user's only one. A player
    takes out only their own; the GM may take out anyone's (a player who left the table, say)."""
    user_id = actor.user_id
    own = [c for c in encounter.combatants if c.side is Side.PLAYER and c.owner_id == user_id]
    if wanted is None:
        if not own:
            raise RulesError("You have no character in this fight.")
        if len(own) > 1:
            names = ", ".join(shown(c.name) for c in own)
            raise RulesError(f"You have several characters in this fight ({names}); name the one leaving.")
        return own[0]
    combatant = encounter.combatant(wanted)
    if combatant.side is not Side.PLAYER:
        raise RulesError(f"{shown(combatant.name)} is an NPC: the GM takes NPCs out with /npc remove.")
    if combatant.owner_id != user_id and not is_gm(encounter, actor):
        raise NotAllowed(
            f"{shown(combatant.name)} is not yours; only its player or the GM can take it out with /leave."
        )
    return combatant


def leave(encounter: Encounter, actor: Actor, player: str, wanted: str | None) -> Done[Left]:
    """A player takes a character out of the fight (see :func:`leaving` for which one)."""
    left = leaving(encounter, actor, wanted)
    emptied, cut_short = encounter.take_out([left])
    lines = [left_log_line(player, left)] + ([TURN_CUT_SHORT] if cut_short else [])
    return Done(Left(left, emptied is not None, cut_short), log=lines)
