"""A fight keeps the server's entries its combatants carry, as they were when they came in: the
server's later edits change no running fight, and one key never means two things in one fight."""

from __future__ import annotations

import pytest

from bot.catalog import CatalogLayer
from bot.encounter import npc
from bot.encounter.combatant import CombatantEdit, edit_combatant
from bot.encounter.document import Encounter
from bot.encounter.kept_entries import choosing_catalog, fight_catalog, with_server_entries
from bot.rules.equipment import Weapon
from bot.rules.errors import RulesError
from bot.store import Store
from tests.encounter.conftest import ANN_ACTS, CATALOG, CHANNEL, GM, THE_GM, saved

AXE = Weapon.model_validate(
    {
        "key": "orc_axe",
        "name": "Orc Axe",
        "source": "house value",
        "size": "M",
        "reach": 1,
        "speed": 0,
        "defense": 1,
        "damage": "1d10",
        "types": ["chop"],
    }
)
ORC = CATALOG.monster("bandit").model_copy(update={"key": "orc", "name": "Orc", "weapon": "orc_axe"})
LONG_MESSER = CATALOG.weapons["messer"].model_copy(update={"reach": 3})
"""A server's own messer, shadowing the shipped one."""


def server(**tables: dict[str, object]) -> CatalogLayer:
    return CatalogLayer.model_validate(tables)


async def test_an_npc_of_the_server_s_brings_its_gear_into_the_fight(store: Store) -> None:
    layer = server(weapons={"orc_axe": AXE}, monsters={"orc": ORC})
    catalog = CATALOG.layered(layer)

    def add(encounter: Encounter) -> object:
        return with_server_entries(
            encounter, catalog, CATALOG, lambda chosen: npc.add_npcs(encounter, THE_GM, "GM", chosen, "orc")
        )

    await store.change(CHANNEL, GM, add)  # type: ignore[arg-type]
    fight = await saved(store)
    assert fight.homebrew.weapons == {"orc_axe": AXE}
    assert fight.homebrew.monsters == {}  # a template is read once, when the NPC is made
    # The server's axe changes: the fight's does not.
    sharper = catalog.layered(server(weapons={"orc_axe": AXE.model_copy(update={"reach": 5})}))
    assert fight_catalog(CATALOG, fight).weapon("orc_axe").reach == 1
    assert choosing_catalog(sharper, CATALOG, fight).weapon("orc_axe").reach == 1


async def test_a_built_in_in_use_stays_built_in_after_the_server_shadows_it(store: Store) -> None:
    fight = await saved(store)
    assert any(c.weapon == "messer" for c in fight.combatants)  # the Bandits' messers, shipped
    shadowing = CATALOG.layered(server(weapons={"messer": LONG_MESSER}))
    chosen = choosing_catalog(shadowing, CATALOG, fight)
    assert chosen.weapon("messer").reach == CATALOG.weapons["messer"].reach
    assert fight_catalog(CATALOG, fight).weapon("messer") == CATALOG.weapons["messer"]


async def test_a_refused_edit_keeps_nothing(store: Store) -> None:
    catalog = CATALOG.layered(server(weapons={"orc_axe": AXE}))
    fight = await saved(store)
    edit = CombatantEdit(weapon="orc_axe")
    with pytest.raises(RulesError, match="Only the GM"):
        with_server_entries(
            fight,
            catalog,
            CATALOG,
            lambda chosen: edit_combatant(fight, ANN_ACTS, "Ann", chosen, "Ansel", edit),
        )
    assert fight.homebrew == CatalogLayer()
    with_server_entries(
        fight, catalog, CATALOG, lambda chosen: edit_combatant(fight, THE_GM, "GM", chosen, "Ansel", edit)
    )
    assert fight.homebrew.weapons == {"orc_axe": AXE}


async def test_no_homebrew_leaves_the_shipped_catalog_as_it_is(store: Store) -> None:
    fight = await saved(store)
    assert fight_catalog(CATALOG, fight) is CATALOG
    assert choosing_catalog(CATALOG, CATALOG, fight) is CATALOG
