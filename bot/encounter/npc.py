"""``/npc add | remove``: the GM's NPCs, built from the catalog's monsters, in groups that act on one
card (R2).

Each operation checks, changes the document it is given and returns a
:class:`~bot.encounter.done.Done` whose result carries what the reply needs and whose log lines
(:mod:`bot.encounter.log_lines`) tell the fight's log; a refusal raises having saved nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..catalog import Catalog
from ..rules.cards import Card
from ..rules.errors import IllegalAction, shown
from ..wording.roster import (
    TURN_CUT_SHORT,
    card_discarded_log_line,
    npcs_added_log_line,
    npcs_removed_log_line,
)
from .combatants import Combatant, Side
from .document import Encounter, group_holder
from .done import Done
from .permissions import Actor, require_gm


def add_npcs(
    encounter: Encounter,
    actor: Actor,
    by: str,
    catalog: Catalog,
    template: str,
    *,
    count: int = 1,
    name: str | None = None,
    group: str | None = None,
    leader: bool = False,
    prowess: int | None = None,
    dex: int | None = None,
    hp: int | None = None,
    morale: int | None = None,
) -> Done[list[Combatant]]:
    """The GM adds NPCs built from the catalog's monster ``template`` (:meth:`Encounter.add_npcs`)."""
    require_gm(encounter, actor, "add NPCs")
    monster = catalog.monster(template)
    armor = catalog.armor(monster.armor) if monster.armor else None
    added = encounter.add_npcs(
        monster,
        armor,
        count=count,
        name=name,
        group=group,
        leader=leader,
        prowess=prowess,
        dex_mod=dex,
        hp=hp,
        morale=morale,
    )
    return Done(added, log=[npcs_added_log_line(by, added, monster.name)])


def npcs(encounter: Encounter, wanted: str) -> list[Combatant]:
    """Whom ``/npc remove`` means: a combatant id picked from the list, a group, or an NPC by name."""
    for combatant in encounter.combatants:
        if combatant.id == wanted:
            targets = [combatant]
            break
    else:
        group = encounter.group_named(wanted)
        targets = encounter.members(group_holder(group)) if group else [encounter.combatant(wanted)]
    for target in targets:
        if target.side is not Side.NPC:
            raise IllegalAction(
                f"{shown(target.name)} is a player's character, not an NPC; "
                "take it out of the fight with /leave."
            )
    return targets


@dataclass(frozen=True, slots=True)
class Removal:
    removed: list[Combatant]
    emptied: str | None
    """The group left empty, if any."""
    discarded: Card | None
    """The card that group discarded, if it held one (R2)."""
    cut_short: bool
    """The turn in progress was theirs; it is over."""


def remove_npcs(encounter: Encounter, actor: Actor, by: str, wanted: str) -> Done[Removal]:
    """The GM takes an NPC, or a whole group (see :func:`npcs`), out of the fight."""
    require_gm(encounter, actor, "remove NPCs")
    targets = npcs(encounter, wanted)
    card = encounter.initiative.cards.get(targets[0].holder)
    emptied, cut_short = encounter.take_out(targets)
    group = emptied.group if emptied is not None else None
    discarded = card if emptied is not None else None
    lines = [npcs_removed_log_line(by, targets)]
    if discarded is not None:
        lines.append(card_discarded_log_line(group, discarded))
    if cut_short:
        lines.append(TURN_CUT_SHORT)
    return Done(Removal(targets, group, discarded, cut_short), log=lines)
