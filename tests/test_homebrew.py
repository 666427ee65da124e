"""A server's homebrew file read and checked (bot/homebrew.py): JSON as YAML, every limit, hostile YAML
refused unbuilt, the server's limit of entries, removals that would break a monster, and a quick NPC."""

from __future__ import annotations

import json

import pytest
import yaml

from bot.catalog import CatalogError, CatalogLayer, load_catalog
from bot.homebrew import (
    MAX_ENTRIES,
    HomebrewRefused,
    export_text,
    plan_import,
    quick_key,
    read_file,
    read_quick_npc,
    remove_entry,
)
from tests.store.test_homebrew import FILE

CATALOG = load_catalog()


def test_a_json_file_reads_as_its_yaml_twin() -> None:
    as_json = json.dumps(yaml.safe_load(FILE)).encode()
    assert read_file(as_json, "orcs.json") == read_file(FILE, "orcs.yaml")


def test_an_export_reads_back_to_the_same_entries() -> None:
    layer, _ = read_file(FILE, "orcs.yaml")
    assert read_file(export_text(layer).encode(), "back.yaml") == (layer, [])


def test_a_self_holding_alias_is_refused_without_looping() -> None:
    _, problems = read_file(b"weapons: &a [*a]\n", "loop.yaml")
    assert problems
    assert "aliases" in problems[0] or "YAML" in problems[0]


def test_unknown_sections_and_a_file_of_no_entries_are_named() -> None:
    assert read_file(b"swords: []\n", "s.yaml")[1] == [
        "s.yaml: unknown section 'swords'; the sections are 'weapons', 'armor', 'shields', 'monsters'"
    ]
    assert read_file(b"weapons: []\n", "e.yaml")[1] == ["e.yaml: holds no entries"]
    assert "should hold sections" in read_file(b"- key: a\n", "l.yaml")[1][0]


def test_a_key_with_a_dash_or_over_32_characters_is_refused() -> None:
    text = FILE.replace(b"key: orc_axe", b"key: orc-axe").replace(b"weapon: orc_axe", b"weapon: orc-axe")
    _, problems = read_file(text, "dash.yaml")
    assert problems == [
        "dash.yaml: weapons: entry 'orc-axe': field 'key': 'orc-axe' should be 1 to 32 lowercase letters, "
        "digits or underscores"
    ]


def test_a_server_holds_at_most_its_limit_of_entries() -> None:
    layer, _ = read_file(FILE, "orcs.yaml")
    full = CatalogLayer(
        shields={
            f"s{n}": CATALOG.shields["buckler"].model_copy(update={"key": f"s{n}"})
            for n in range(MAX_ENTRIES)
        }
    )
    with pytest.raises(CatalogError, match=f"would hold {MAX_ENTRIES + 3} entries"):
        plan_import(CATALOG, full, layer, (), "orcs.yaml")


def test_gear_a_server_s_monster_carries_is_not_removed_from_under_it() -> None:
    layer, _ = read_file(FILE, "orcs.yaml")
    with pytest.raises(HomebrewRefused, match="'orc_chieftain' carry 'orc_axe'"):
        remove_entry(CATALOG, layer, "orc_axe")
    after, removed = remove_entry(CATALOG, layer, "mail_shirt")  # the built-in takes its place
    assert removed.builtin is CATALOG.armors["mail_shirt"]
    assert "mail_shirt" not in after.armors
    with pytest.raises(HomebrewRefused, match="no homebrew entry with the key 'nope'"):
        remove_entry(CATALOG, layer, "nope")


def test_a_quick_npc_reads_its_five_inputs() -> None:
    template = read_quick_npc(
        CATALOG, {"name": "Orc Chieftain!", "prowess_dex": "3/-1", "hp": "30", "morale": "", "gear": "Messer"}
    )
    assert (template.key, template.prowess, template.dex_mod, template.morale) == (
        "orc_chieftain",
        3,
        -1,
        None,
    )
    assert (template.weapon, template.armor) == ("messer", "none")
    with pytest.raises(HomebrewRefused, match="no letters or digits"):
        quick_key("!!!")


def test_a_file_nested_too_deeply_is_refused_not_crashed_on() -> None:
    _, problems = read_file(b"weapons: " + b"[" * 5000 + b"]" * 5000, "deep.yaml")
    assert problems == ["deep.yaml: is nested too deeply to read; entries are lists of field: value pairs"]
    _, problems = read_file(b'{"weapons": ' + b"[" * 5000 + b"]" * 5000 + b"}", "deep.json")
    assert problems[0].startswith("deep.json: is not valid JSON")
