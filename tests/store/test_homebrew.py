"""A server's homebrew entries in both stores: read, changed whole or not at all, kept apart from another
server's, and deleted when the server is forgotten."""

from __future__ import annotations

import pytest

from bot.catalog import CatalogLayer, load_catalog
from bot.homebrew import HomebrewRefused, plan_import, read_file, remove_entry
from bot.store import ForgottenGuild, Store

from .conftest import Database

FILE = b"""
weapons:
  - key: orc_axe
    name: Orc Axe
    source: house value
    size: M
    reach: 1
    speed: 0
    defense: 1
    damage: 1d10+1
    types: [chop, bash]
    primary: [chop]
armor:
  - key: mail_shirt
    name: Orcish Mail
    source: house value
    dr_pierce: 4
    dr_chop: 8
    dr_slash: 8
    bypass: -4
    weight: heavy
    ac_base: 15
monsters:
  - key: orc_chieftain
    name: Orc Chieftain
    source: house value
    prowess: 3
    hp: 30
    weapon: orc_axe
    armor: mail_shirt
    morale: 2
"""

CATALOG = load_catalog()


def imported(data: bytes = FILE) -> CatalogLayer:
    layer, problems = read_file(data, "orcs.yaml")
    assert problems == []
    return layer


async def test_a_server_has_no_homebrew_until_it_imports_some(store: Store) -> None:
    assert await store.homebrew(10) == CatalogLayer()


async def test_imported_entries_read_back_equal_and_only_in_their_server(store: Store) -> None:
    file = imported()
    done = await store.change_homebrew(10, lambda server: plan_import(CATALOG, server, file, (), "orcs.yaml"))
    assert [entry.key for entry in done.added] == ["orc_axe", "orc_chieftain"]
    assert [entry.key for entry in done.shadowed] == ["mail_shirt"]
    assert await store.homebrew(10) == file
    assert await store.homebrew(11) == CatalogLayer()


async def test_importing_again_replaces_the_entries_of_the_same_key_and_keeps_the_others(
    store: Store,
) -> None:
    await store.change_homebrew(10, lambda server: plan_import(CATALOG, server, imported(), (), "a"))
    again = imported(FILE.replace(b"hp: 30", b"hp: 35").split(b"armor:")[0])
    done = await store.change_homebrew(10, lambda server: plan_import(CATALOG, server, again, (), "b"))
    assert [entry.key for entry in done.replaced] == ["orc_axe"]
    held = await store.homebrew(10)
    assert set(held.weapons) == {"orc_axe"}
    assert set(held.armors) == {"mail_shirt"}
    assert held.monsters["orc_chieftain"].hp == 30


async def test_a_refused_change_writes_nothing(store: Store) -> None:
    await store.change_homebrew(10, lambda server: plan_import(CATALOG, server, imported(), (), "a"))
    with pytest.raises(HomebrewRefused, match="'orc_chieftain' carry 'orc_axe'"):
        await store.change_homebrew(10, lambda server: remove_entry(CATALOG, server, "orc_axe"))
    assert await store.homebrew(10) == imported()


async def test_removing_an_entry_deletes_its_row(store: Store) -> None:
    await store.change_homebrew(10, lambda server: plan_import(CATALOG, server, imported(), (), "a"))
    removed = await store.change_homebrew(10, lambda server: remove_entry(CATALOG, server, "mail_shirt"))
    assert removed.builtin == CATALOG.armors["mail_shirt"]
    assert set((await store.homebrew(10)).armors) == set()


async def test_an_entry_that_no_longer_reads_is_left_out_and_the_rest_kept(database: Database) -> None:
    store = await database.open()
    try:
        await store.change_homebrew(10, lambda server: plan_import(CATALOG, server, imported(), (), "a"))
        await database.fetch("UPDATE homebrew SET document = '{\"key\": 3}' WHERE key = 'orc_axe'")
        held = await store.homebrew(10)
        assert set(held.weapons) == set()
        assert set(held.monsters) == {"orc_chieftain"}
    finally:
        await store.close()


async def test_forgetting_a_server_deletes_its_homebrew_and_not_another_s(store: Store) -> None:
    for guild in (10, 11):
        await store.change_homebrew(guild, lambda server: plan_import(CATALOG, server, imported(), (), "a"))
    assert await store.forget_guild(10) == ForgottenGuild(0, 0, 0, 0, settings=False, homebrew=3)
    assert await store.homebrew(10) == CatalogLayer()
    assert await store.homebrew(11) == imported()
