"""A fight keeps the server's homebrew entries its combatants use (``Encounter.homebrew``), as they were
when they came into the fight: a later edit or removal of the server's entry changes no running fight.

A fight reads its gear from :func:`fight_catalog` (the shipped tables and what it kept). A change that
brings gear in (``/npc add``, ``/join``, ``/combatant edit``) chooses from :func:`choosing_catalog` (the
server's catalog, with what the fight already uses over it, so one key never means two things in one
fight), and :func:`with_server_entries` keeps what it chose.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from ..catalog import TABLES, Catalog, CatalogLayer, EntryKind
from .document import Encounter

T = TypeVar("T")


def fight_catalog(builtins: Catalog, encounter: Encounter | None) -> Catalog:
    """The catalog a fight reads its combatants' gear from: the shipped tables and what it kept."""
    return builtins if encounter is None else builtins.layered(encounter.homebrew)


def _in_use(encounter: Encounter) -> list[tuple[EntryKind, str]]:
    """The gear keys the fight's combatants carry (those who left included: they may come back)."""
    used: list[tuple[EntryKind, str]] = []
    for combatant in [*encounter.combatants, *encounter.departed]:
        used.append(("weapon", combatant.weapon))
        if combatant.off_hand:
            used.append(("weapon", combatant.off_hand))
        if combatant.armor:
            used.append(("armor", combatant.armor))
        if combatant.shield:
            used.append(("shield", combatant.shield))
    return used


def choosing_catalog(server: Catalog, builtins: Catalog, encounter: Encounter | None) -> Catalog:
    """The server's catalog, except for the keys the fight already uses: those keep the fight's values
    (a shipped entry the server shadowed since the fight began stays the shipped one here)."""
    if encounter is None or not (server.own or len(encounter.homebrew)):
        return server
    fight = fight_catalog(builtins, encounter)
    layer = CatalogLayer(**{name: dict(getattr(encounter.homebrew, name)) for name in TABLES.values()})
    for kind, key in _in_use(encounter):
        entry = getattr(fight, TABLES[kind]).get(key)
        if entry is not None and server.is_own(kind, key):
            layer.table(kind).setdefault(key, entry)
    return server.layered(layer)


def keep_entries(encounter: Encounter, catalog: Catalog) -> None:
    """Keep in the fight every entry of ``catalog`` that is not a shipped one and that a combatant now
    carries, as it is now."""
    for kind, key in _in_use(encounter):
        kept = encounter.homebrew.table(kind)
        if key in kept or not catalog.is_own(kind, key):
            continue
        entry = getattr(catalog, TABLES[kind]).get(key)
        if entry is not None:
            kept[key] = entry


def with_server_entries(
    encounter: Encounter, server: Catalog, builtins: Catalog, change: Callable[[Catalog], T]
) -> T:
    """Run ``change`` (which may add or re-equip combatants) on the catalog it may choose from, then
    keep in the fight the server's entries it brought in. A refusal keeps nothing."""
    catalog = choosing_catalog(server, builtins, encounter)
    done = change(catalog)
    keep_entries(encounter, catalog)
    return done
