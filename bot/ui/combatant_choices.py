"""Autocomplete over the channel's fight: its combatants, its NPCs and NPC groups, and conditions.

Each function takes the fight as loaded (None when the channel has none) and what the user typed so
far, and returns at most 25 choices. A combatant's value is its id ("c3"), a group's is its card
holder ("g:bandits"), so two combatants with similar names are never confused; a value typed by
hand instead of picked is looked up by name.
"""

from __future__ import annotations

from discord import app_commands

from ..encounter.combatants import Combatant, Side
from ..encounter.document import Encounter, group_holder
from ..encounter.morale import open_proposals

CHOICE_LIMIT = 25
"""Discord offers at most 25 autocomplete choices."""
CHOICE_NAME_LIMIT = 100

CONDITIONS = (
    "prone",
    "stunned",
    "grappled",
    "routed",
    "frightened",
    "unconscious",
    "helpless",
    "unaware",
    "blinded",
)
"""Conditions the rules name (R13 unaware and helpless, R21 routed and frightened, R25 prone...);
any other short text is allowed too."""


def _shorten(text: str) -> str:
    return text if len(text) <= CHOICE_NAME_LIMIT else f"{text[: CHOICE_NAME_LIMIT - 1]}…"


def _matches(current: str, *texts: str) -> bool:
    folded = current.strip().casefold()
    return not folded or any(folded in text.casefold() for text in texts)


def _combatant_label(combatant: Combatant) -> str:
    down = ", down" if combatant.is_down else ""
    side = f" — {combatant.group}" if combatant.group and combatant.group != combatant.name else ""
    return _shorten(f"{combatant.name}{side} (HP {combatant.hp}/{combatant.max_hp}{down})")


def combatant_choices(
    encounter: Encounter | None, current: str, *, npcs_only: bool = False
) -> list[app_commands.Choice[str]]:
    """The fight's combatants whose name (or group) contains what was typed, in roster order."""
    if encounter is None:
        return []
    choices = [
        app_commands.Choice(name=_combatant_label(combatant), value=combatant.id)
        for combatant in encounter.combatants
        if (not npcs_only or combatant.side is Side.NPC)
        and _matches(current, combatant.name, combatant.group or "")
    ]
    return choices[:CHOICE_LIMIT]


def npc_choices(encounter: Encounter | None, current: str) -> list[app_commands.Choice[str]]:
    """NPC groups of two or more (removing the whole group), then every NPC on its own."""
    if encounter is None:
        return []
    groups: list[app_commands.Choice[str]] = []
    for group in encounter.groups:
        members = encounter.members(group_holder(group))
        if len(members) > 1 and _matches(current, group):
            label = _shorten(f"{group} (the whole group of {len(members)})")
            groups.append(app_commands.Choice(name=label, value=group_holder(group)))
    return [*groups, *combatant_choices(encounter, current, npcs_only=True)][:CHOICE_LIMIT]


def claimant_choices(encounter: Encounter | None, current: str) -> list[app_commands.Choice[str]]:
    """The cards that may claim the next turn now (held cards and Jokers, R3, R4), highest first."""
    if encounter is None:
        return []
    return [
        app_commands.Choice(name=_shorten(encounter.holder_name(holder)), value=holder)
        for holder in encounter.initiative.may_claim
        if _matches(current, encounter.holder_name(holder))
    ][:CHOICE_LIMIT]


def condition_choices(
    combatant: Combatant | None, current: str, *, removing: bool
) -> list[app_commands.Choice[str]]:
    """To remove: the combatant's conditions. To add: the usual conditions it does not have yet."""
    if removing:
        offered = list(combatant.conditions) if combatant is not None else []
    else:
        has = {condition.casefold() for condition in combatant.conditions} if combatant else set()
        offered = [condition for condition in CONDITIONS if condition not in has]
    return [
        app_commands.Choice(name=_shorten(condition), value=condition)
        for condition in offered
        if _matches(current, condition)
    ][:CHOICE_LIMIT]


def morale_subject_choices(encounter: Encounter | None, current: str) -> list[app_commands.Choice[str]]:
    """NPC groups first (those with a proposed check marked), then every combatant."""
    if encounter is None:
        return []
    folded = current.strip().casefold()
    groups: list[app_commands.Choice[str]] = []
    for group in encounter.groups:
        if folded and folded not in group.casefold():
            continue
        members = encounter.members(group_holder(group))
        proposed = open_proposals(encounter, group)
        mark = f" — proposed: {proposed[0].reason.value}" if proposed else ""
        label = f"{group} (the whole group of {len(members)}){mark}"
        label = label if len(label) <= 100 else f"{label[:99]}…"
        groups.append(app_commands.Choice(name=label, value=group_holder(group)))
    groups.sort(key=lambda choice: "proposed" not in choice.name)
    return [*groups, *combatant_choices(encounter, current)][:CHOICE_LIMIT]
