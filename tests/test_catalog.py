"""The shipped equipment tables load, match the published numbers, and bad files fail clearly."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.catalog import DATA_DIRECTORY, Catalog, CatalogError, UnknownEntry, load_catalog
from bot.rules.armor_class import AC_CAP, armor_class_of, defender_armor_class
from bot.rules.equipment import (
    Armor,
    ArmorWeight,
    AttackType,
    MonsterTemplate,
    Shield,
    Size,
    Source,
    Weapon,
)
from bot.rules.errors import RulesError

# docs/RULES.md "Equipment numbers", copied row by row:
# name: (size, reach, speed, defense, damage, types, primary, armor piercing)
PUBLISHED_WEAPONS: dict[str, tuple[str, int, int, int, str, str, str, int]] = {
    "Knife, Small": ("T", 0, 6, 0, "1d2", "S P", "", 0),
    "Dagger, Small": ("T", 0, 6, 0, "1d6", "S P", "P", 2),
    "Dagger, Rondel": ("S", 1, 5, 1, "1d6", "P", "P", 4),
    "Stiletto": ("S", 1, 5, 1, "1d4", "P", "P", 4),
    "Axe, Hand": ("S", 1, 4, 1, "1d6", "C", "C", 0),
    "Mace, Light": ("S", 2, 3, 2, "1d6", "B", "B", 0),
    "Hammer, War": ("S", 2, 3, 2, "1d8", "B P", "P", 4),
    "Sword, Short": ("M", 2, 5, 2, "1d6", "S C P", "P", 0),
    "Sword, Arming": ("M", 3, 3, 3, "1d8", "S C P", "C P", 0),
    "Sword, Messer": ("M", 3, 4, 3, "1d6", "S C P", "C", 0),
    "Sword, Sabre": ("M", 3, 5, 3, "1d6", "S C P", "S", 0),
    "Axe, Battle": ("M", 3, 1, 2, "1d12", "C", "C", 0),
    "Club, War": ("M", 3, 3, 2, "1d10", "B", "B", 0),
    "Longsword": ("L", 5, 3, 4, "1d10", "S C P", "C P", 0),
    "Greatsword": ("L", 5, 2, 4, "2d6", "S C P", "C P", 0),
    "Quarterstaff": ("VL", 7, 2, 5, "1d6", "B", "B", 0),
    "Spear, Hewing": ("VL", 7, 1, 5, "1d10", "C P", "C P", 2),
    "Halberd": ("VL", 7, 0, 3, "2d6", "C P", "C P", 3),
    "Light Lance": ("VL", 8, -1, 1, "1d6", "P", "P", 2),
}
PUBLISHED_WEAPON_FIELDS = (
    "size",
    "reach",
    "speed",
    "defense",
    "damage",
    "types",
    "primary",
    "armor_piercing",
)

# name: (DR pierce, DR chop, DR slash, bypass, armor check); the table's dash for no check is 0.
PUBLISHED_ARMOR: dict[str, tuple[int, int, int, int, int]] = {
    "Gambeson, Light": (3, 6, 3, -6, -2),
    "Doublet, Arming": (3, 6, 3, -3, -1),
    "Mail shirt (byrnie)": (8, 16, 24, -3, 0),
    "Haubergeon, Mail": (8, 16, 24, -5, -2),
    "Half Armor": (10, 20, 30, -6, -2),
    "Harness, Three Quarters": (10, 20, 30, -7, -3),
}
PUBLISHED_ARMOR_FIELDS = ("dr_pierce", "dr_chop", "dr_slash", "bypass", "armor_check")

BOOKKEEPING_FIELDS = {"key", "name", "source", "house_fields", "notes"}

Entry = Weapon | Armor | Shield | MonsterTemplate


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def _letters(text: str) -> frozenset[AttackType]:
    return frozenset(AttackType.from_letter(letter) for letter in text.split())


def _by_name(entries: dict[str, Any] | Any, name: str) -> Any:
    found = [entry for entry in entries.values() if entry.name == name]
    assert len(found) == 1, f"expected exactly one entry named {name!r}, found {len(found)}"
    return found[0]


def _all_entries(catalog: Catalog) -> list[Entry]:
    return [
        *catalog.weapons.values(),
        *catalog.armors.values(),
        *catalog.shields.values(),
        *catalog.monsters.values(),
    ]


# ---- the shipped data ------------------------------------------------------------------------------


def test_shipped_data_loads_from_the_default_folder() -> None:
    assert DATA_DIRECTORY.name == "data"
    assert DATA_DIRECTORY.parent == Path(__file__).resolve().parent.parent / "bot"
    catalog = load_catalog()
    assert all((catalog.weapons, catalog.armors, catalog.shields, catalog.monsters))
    assert load_catalog(DATA_DIRECTORY) == catalog


def test_counts(catalog: Catalog) -> None:
    assert len(catalog.weapons) >= 25
    assert len(catalog.armors) >= 8
    assert len(catalog.shields) >= 4
    assert len(catalog.monsters) >= 8
    kinds = [weapon.kind for weapon in catalog.weapons.values()]
    assert kinds.count("missile") >= 4
    assert kinds.count("thrown") >= 2
    for key in ("short_bow", "long_bow", "light_crossbow", "sling"):
        assert catalog.weapon(key).kind == "missile"
    for key in ("javelin", "throwing_axe", "throwing_knife"):
        assert catalog.weapon(key).kind == "thrown"


def test_unarmed_takes_reach_and_speed_from_the_text(catalog: Catalog) -> None:
    unarmed = catalog.weapon("unarmed")
    assert (unarmed.reach, unarmed.speed) == (0, 6)
    assert unarmed.kind == "unarmed"
    assert unarmed.size.fits_grapple
    assert "reach" not in unarmed.house_fields
    assert "speed" not in unarmed.house_fields


@pytest.mark.parametrize("name", PUBLISHED_WEAPONS)
def test_published_weapon_numbers_match(catalog: Catalog, name: str) -> None:
    size, reach, speed, defense, damage, types, primary, armor_piercing = PUBLISHED_WEAPONS[name]
    weapon: Weapon = _by_name(catalog.weapons, name)
    assert weapon.size is Size(size)
    assert weapon.reach == reach
    assert weapon.speed == speed
    assert weapon.defense == defense
    assert str(weapon.damage) == damage
    assert weapon.types == _letters(types)
    assert weapon.primary == _letters(primary)
    assert weapon.armor_piercing == armor_piercing
    assert weapon.source in (Source.PUBLISHED, Source.MIXED)
    assert not set(weapon.house_fields) & set(PUBLISHED_WEAPON_FIELDS)


@pytest.mark.parametrize("name", PUBLISHED_ARMOR)
def test_published_armor_numbers_match(catalog: Catalog, name: str) -> None:
    armor: Armor = _by_name(catalog.armors, name)
    assert (armor.dr_pierce, armor.dr_chop, armor.dr_slash, armor.bypass, armor.armor_check) == (
        PUBLISHED_ARMOR[name]
    )
    assert armor.source in (Source.PUBLISHED, Source.MIXED)
    assert not set(armor.house_fields) & set(PUBLISHED_ARMOR_FIELDS)
    # Max Dex, hardness, HP, weight and AC base were not published.
    assert {"max_dex", "hardness", "hp", "weight", "ac_base"} <= set(armor.house_fields)


def test_only_published_rows_claim_the_published_table(catalog: Catalog) -> None:
    published_names = set(PUBLISHED_WEAPONS) | set(PUBLISHED_ARMOR) | {"Unarmed"}
    for entry in _all_entries(catalog):
        if entry.source is not Source.HOUSE:
            assert entry.name in published_names, entry.key


def test_every_entry_declares_its_source(catalog: Catalog) -> None:
    for entry in _all_entries(catalog):
        assert isinstance(entry.source, Source)
        data_fields = set(type(entry).model_fields) - BOOKKEEPING_FIELDS
        assert set(entry.house_fields) <= data_fields, entry.key
        assert len(set(entry.house_fields)) == len(entry.house_fields), entry.key
        if entry.source is Source.PUBLISHED:
            assert not entry.house_fields, entry.key
        if entry.source is Source.MIXED:
            assert entry.house_fields, entry.key


def test_shields_and_monsters_are_all_house_values(catalog: Catalog) -> None:
    for entry in [*catalog.shields.values(), *catalog.monsters.values()]:
        assert entry.source is Source.HOUSE, entry.key


def test_keys_are_lowercase(catalog: Catalog) -> None:
    for entry in _all_entries(catalog):
        assert entry.key == entry.key.lower()


def test_armor_max_dex_follows_weight(catalog: Catalog) -> None:
    """R6 and R24: heavy armor costs a pool die and has a 14-17 base; light armor does neither."""
    for armor in catalog.armors.values():
        if armor.weight is ArmorWeight.HEAVY:
            assert armor.costs_a_pool_die, armor.key
            assert 14 <= armor.ac_base <= 17, armor.key
        elif armor.weight is ArmorWeight.LIGHT:
            assert armor.max_dex is not None, armor.key
            assert armor.max_dex >= 3, armor.key
            assert armor.ac_base == 12, armor.key
        else:
            assert not armor.costs_a_pool_die, armor.key
            assert armor.ac_base == 10, armor.key


def test_no_armor_and_natural_hide(catalog: Catalog) -> None:
    none = catalog.armor("none")
    assert (none.dr_pierce, none.dr_chop, none.dr_slash, none.bypass) == (0, 0, 0, 0)
    assert none.max_dex is None
    assert none.ac_base == 10
    hide = catalog.armor("natural_hide")
    assert hide.natural
    assert hide.bypass == -10  # R17: natural armor is always -10 to bypass


def test_house_weapons_follow_the_published_scale(catalog: Catalog) -> None:
    """Reach grows with size: no house weapon outreaches a published weapon of a larger size."""
    order = list(Size)
    published = [_by_name(catalog.weapons, name) for name in PUBLISHED_WEAPONS]
    for weapon in catalog.weapons.values():
        if weapon.kind != "melee" or weapon.source is not Source.HOUSE:
            continue
        larger = [w.reach for w in published if order.index(w.size) > order.index(weapon.size)]
        smaller = [w.reach for w in published if order.index(w.size) < order.index(weapon.size)]
        assert not larger or weapon.reach <= min(larger), weapon.key
        assert not smaller or weapon.reach >= max(smaller), weapon.key


def test_monster_templates(catalog: Catalog) -> None:
    for key in ("skeleton", "zombie", "ghost"):
        assert catalog.monster(key).morale is None, key  # R21: undead never check morale
    assert catalog.monster("ghost").spirit
    assert catalog.monster("ogre").size is Size.LARGE
    wolf = catalog.monster("wolf")
    assert catalog.weapon(wolf.weapon).key == "bite"
    assert wolf.armor is not None
    assert catalog.armor(wolf.armor).natural
    for monster in catalog.monsters.values():
        catalog.weapon(monster.weapon)
        if monster.armor is not None:
            catalog.armor(monster.armor)
        if monster.shield is not None:
            catalog.shield(monster.shield)


def test_catalog_is_read_only(catalog: Catalog) -> None:
    with pytest.raises(TypeError):
        catalog.weapons["stick"] = catalog.weapon("quarterstaff")  # type: ignore[index]
    with pytest.raises(AttributeError):
        catalog.weapons = {}  # type: ignore[misc]
    with pytest.raises(ValueError, match="frozen"):
        catalog.weapon("longsword").reach = 9  # type: ignore[misc]


# ---- lookups and search ---------------------------------------------------------------------------


def test_lookup_by_key_or_name_ignores_case_and_spacing(catalog: Catalog) -> None:
    assert catalog.weapon("longsword").name == "Longsword"
    assert catalog.weapon("Light Lance").key == "light_lance"
    assert catalog.weapon("LIGHT-LANCE").key == "light_lance"
    assert catalog.armor("Haubergeon, Mail").key == "mail_haubergeon"
    assert catalog.shield(" Buckler ").key == "buckler"
    assert catalog.monster("Town Guard").key == "town_guard"


def test_unknown_key_suggests_a_close_match(catalog: Catalog) -> None:
    with pytest.raises(RulesError) as caught:
        catalog.weapon("longswrod")
    assert isinstance(caught.value, UnknownEntry)
    assert "longswrod" in caught.value.message
    assert "'longsword'" in caught.value.message
    assert caught.value.suggestions[0] == "longsword"


def test_unknown_key_suggests_keys_containing_the_text(catalog: Catalog) -> None:
    with pytest.raises(UnknownEntry) as caught:
        catalog.armor("haubergeon")
    assert caught.value.suggestions == ("mail_haubergeon",)


def test_unknown_key_without_a_close_match_still_names_it(catalog: Catalog) -> None:
    with pytest.raises(UnknownEntry, match="'zzqx'") as caught:
        catalog.monster("zzqx")
    assert caught.value.suggestions == ()
    assert "monster" in caught.value.message


def test_unknown_key_is_quoted_clipped_and_escaped(catalog: Catalog) -> None:
    """The refusal is shown as written: a long value would take it past Discord's 2000 characters."""
    with pytest.raises(UnknownEntry) as caught:
        catalog.weapon("*bold*" + "_" * 2100)
    escaped = "\\*bold\\*" + "\\_" * 53 + "…"
    assert caught.value.message.startswith(f"There is no weapon called '{escaped}'.")
    assert len(caught.value.message) < 250
    with pytest.raises(UnknownEntry) as caught:
        catalog.monster("orc_brte")
    assert "Did you mean 'orc\\_brute'" in caught.value.message


def test_entries_matching(catalog: Catalog) -> None:
    swords = catalog.entries_matching("weapon", "SWORD")
    keys = [weapon.key for weapon in swords]
    assert {"short_sword", "arming_sword", "longsword", "greatsword"} <= set(keys)
    assert all("sword" in w.key or "sword" in w.name.lower() for w in swords)
    assert catalog.entries_matching("weapon", "lance")[0].key in ("lance", "light_lance")
    assert [a.key for a in catalog.entries_matching("armor", "hide")] == ["natural_hide"]
    assert [s.key for s in catalog.entries_matching("shield", "kite")] == ["kite"]
    assert [m.key for m in catalog.entries_matching("monster", "bandit")] == ["bandit", "bandit_captain"]
    assert len(catalog.entries_matching("weapon", "")) == 25
    assert len(catalog.entries_matching("weapon", "", limit=3)) == 3
    assert catalog.entries_matching("monster", "no such thing") == []


# ---- broken files ----------------------------------------------------------------------------------


@pytest.fixture
def data_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    shutil.copytree(DATA_DIRECTORY, folder)
    return folder


def _edit(folder: Path, filename: str, change: Any) -> None:
    path = folder / filename
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(entries)
    path.write_text(yaml.safe_dump(entries, sort_keys=False), encoding="utf-8")


def _entry(entries: list[dict[str, Any]], key: str) -> dict[str, Any]:
    return next(entry for entry in entries if entry["key"] == key)


def _load_failure(folder: Path) -> str:
    with pytest.raises(CatalogError) as caught:
        load_catalog(folder)
    return str(caught.value)


def test_a_copy_of_the_shipped_data_loads(data_copy: Path) -> None:
    assert load_catalog(data_copy) == load_catalog()


def test_wrong_type(data_copy: Path) -> None:
    _edit(data_copy, "weapons.yaml", lambda e: _entry(e, "longsword").update(reach="long"))
    message = _load_failure(data_copy)
    assert message.startswith(
        "data/weapons.yaml: entry 'longsword': field 'reach': Input should be a valid integer"
    )
    assert "'long'" in message


def test_missing_field(data_copy: Path) -> None:
    _edit(data_copy, "armor.yaml", lambda e: _entry(e, "half_armor").pop("dr_chop"))
    message = _load_failure(data_copy)
    assert message == "data/armor.yaml: entry 'half_armor': field 'dr_chop': required field is missing"


def test_unknown_field(data_copy: Path) -> None:
    _edit(data_copy, "shields.yaml", lambda e: _entry(e, "buckler").update(defence=2))
    message = _load_failure(data_copy)
    assert message.startswith("data/shields.yaml: entry 'buckler': field 'defence': unknown field")
    assert "did you mean 'defense'" in message


def test_duplicate_key(data_copy: Path) -> None:
    def duplicate(entries: list[dict[str, Any]]) -> None:
        entries.append({**_entry(entries, "longsword"), "name": "Another Longsword"})

    _edit(data_copy, "weapons.yaml", duplicate)
    message = _load_failure(data_copy)
    last = len(yaml.safe_load((data_copy / "weapons.yaml").read_text(encoding="utf-8")))
    assert f"data/weapons.yaml: entry #{last} 'longsword' (line " in message
    assert "field 'key': duplicate key; entry #14 'longsword' (line " in message
    assert message.endswith(") already uses it")


def test_duplicate_key_differing_only_by_dash(data_copy: Path) -> None:
    def duplicate(entries: list[dict[str, Any]]) -> None:
        entries.append({**_entry(entries, "long_spear"), "key": "long-spear"})

    _edit(data_copy, "weapons.yaml", duplicate)
    message = _load_failure(data_copy)
    assert "'long-spear' (line " in message
    assert "field 'key': duplicate key; entry #" in message
    assert "'long_spear' (line " in message


def test_monster_naming_a_missing_weapon(data_copy: Path) -> None:
    _edit(data_copy, "monsters.yaml", lambda e: _entry(e, "wolf").update(weapon="bitte"))
    message = _load_failure(data_copy)
    assert message == (
        "data/monsters.yaml: entry 'wolf': field 'weapon': no entry 'bitte' in weapons.yaml "
        "(did you mean 'bite'?)"
    )


@pytest.mark.parametrize(
    ("field", "changes"),
    [
        ("armor", {"armor": "plate_mail"}),
        ("off_hand", {"off_hand": "dagger"}),
        ("shield", {"off_hand": None, "shield": "tower"}),
    ],
)
def test_monster_naming_other_missing_gear(data_copy: Path, field: str, changes: dict[str, Any]) -> None:
    _edit(data_copy, "monsters.yaml", lambda e: _entry(e, "bandit").update(changes))
    message = _load_failure(data_copy)
    assert message.startswith(
        f"data/monsters.yaml: entry 'bandit': field '{field}': no entry '{changes[field]}'"
    )


def test_monster_with_a_two_handed_weapon_and_a_shield(data_copy: Path) -> None:
    _edit(data_copy, "monsters.yaml", lambda e: _entry(e, "town_guard").update(weapon="halberd"))
    message = _load_failure(data_copy)
    assert (
        "data/monsters.yaml: entry 'town_guard': field 'shield': "
        "Halberd needs both hands, so it cannot be used with a shield." in message
    )


def test_monster_with_two_martial_weapons(data_copy: Path) -> None:
    """R26 (Lords of Hack two weapons): only one of the pair may be a martial weapon."""
    _edit(data_copy, "monsters.yaml", lambda e: _entry(e, "bandit").update(off_hand="sabre"))
    message = _load_failure(data_copy)
    assert "entry 'bandit': field 'off_hand': Only one of the two weapons may be a martial weapon" in message


def test_monster_with_a_missile_weapon_in_the_off_hand(data_copy: Path) -> None:
    """R26: the catalog checks a template's hands with the same rule as a sheet: no missile pair."""
    _edit(data_copy, "monsters.yaml", lambda e: _entry(e, "bandit").update(off_hand="sling"))
    message = _load_failure(data_copy)
    assert "entry 'bandit': field 'off_hand':" in message


@pytest.mark.parametrize(
    ("filename", "key", "field", "value", "expected"),
    [
        ("weapons.yaml", "pike", "size", "XL", "Input should be 'T', 'S', 'M', 'L' or 'VL'"),
        ("weapons.yaml", "flail", "damage", "d10", "is not a damage roll"),
        ("weapons.yaml", "mace", "kind", "ranged", "Input should be 'melee'"),
        ("weapons.yaml", "stiletto", "primary", ["chop"], "primary attack types must be among"),
        ("armor.yaml", "full_plate", "bypass", 8, "less than or equal to 0"),
        ("armor.yaml", "leather", "house_fields", ["reach"], "house_fields names unknown fields: reach"),
        ("shields.yaml", "kite", "source", "my guess", "Input should be 'published table'"),
        ("monsters.yaml", "ogre", "size", "Huge", "Input should be 'T'"),
        ("monsters.yaml", "ghost", "hp", 0, "greater than or equal to 1"),
    ],
)
def test_bad_values_name_file_entry_and_field(
    data_copy: Path, filename: str, key: str, field: str, value: object, expected: str
) -> None:
    _edit(data_copy, filename, lambda e: _entry(e, key).update({field: value}))
    message = _load_failure(data_copy)
    assert message.startswith(f"data/{filename}: entry '{key}': field '{field}': ")
    assert expected in message


def test_mixed_source_must_list_house_fields(data_copy: Path) -> None:
    _edit(data_copy, "weapons.yaml", lambda e: _entry(e, "halberd").pop("house_fields"))
    message = _load_failure(data_copy)
    assert message == (
        "data/weapons.yaml: entry 'halberd': field 'house_fields': a mixed source must list its house_fields"
    )


def test_entry_without_a_key_is_named_by_position(data_copy: Path) -> None:
    _edit(data_copy, "shields.yaml", lambda e: e[1].pop("key"))
    assert _load_failure(data_copy) == "data/shields.yaml: entry #2: field 'key': required field is missing"


def test_every_problem_is_reported_at_once(data_copy: Path) -> None:
    _edit(data_copy, "weapons.yaml", lambda e: _entry(e, "sling").update(reach="far", speed="slow"))
    _edit(data_copy, "shields.yaml", lambda e: _entry(e, "heater").update(hp=0))
    with pytest.raises(CatalogError) as caught:
        load_catalog(data_copy)
    problems = caught.value.problems
    assert len(problems) == 3
    assert [p.split(": field ")[0] for p in problems] == [
        "data/weapons.yaml: entry 'sling'",
        "data/weapons.yaml: entry 'sling'",
        "data/shields.yaml: entry 'heater'",
    ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", "data/armor.yaml: should hold a list of entries"),
        ("key: none\n", "data/armor.yaml: should hold a list of entries"),
        ("- [unclosed\n", "data/armor.yaml: is not valid YAML"),
        ("- just a string\n", "data/armor.yaml: entry #1: should be a mapping"),
    ],
)
def test_malformed_file(data_copy: Path, text: str, expected: str) -> None:
    (data_copy / "armor.yaml").write_text(text, encoding="utf-8")
    assert _load_failure(data_copy).startswith(expected)


def test_missing_file(data_copy: Path) -> None:
    (data_copy / "shields.yaml").unlink()
    assert _load_failure(data_copy).startswith("data/shields.yaml: cannot be read")


# ---- small files: encoding, fields written twice, strict numbers, duplicated keys -------------------

SMALL_WEAPONS = """\
- key: club
  name: Club
  source: house value
  size: M
  reach: 2
  speed: 3
  defense: 1
  damage: 1d6
  types: [bash]
- key: spear
  name: Spear
  source: house value
  size: L
  reach: 5
  speed: 2
  defense: 2
  damage: 1d8
  types: [pierce]
"""
SMALL_ARMOR = """\
- key: none
  name: No Armor
  source: house value
  dr_pierce: 0
  dr_chop: 0
  dr_slash: 0
  bypass: 0
  weight: none
  ac_base: 10
"""
SMALL_SHIELDS = """\
- key: buckler
  name: Buckler
  source: house value
  defense: 1
  toughness: 2
  hp: 10
"""
SMALL_MONSTERS = """\
- key: brute
  name: Brute
  source: house value
  prowess: 3
  hp: 12
  weapon: club
"""


@pytest.fixture
def small_data(tmp_path: Path) -> Path:
    """A catalog of one or two entries a table, written as text (so line numbers are known)."""
    folder = tmp_path / "data"
    folder.mkdir()
    for filename, text in (
        ("weapons.yaml", SMALL_WEAPONS),
        ("armor.yaml", SMALL_ARMOR),
        ("shields.yaml", SMALL_SHIELDS),
        ("monsters.yaml", SMALL_MONSTERS),
    ):
        (folder / filename).write_text(text, encoding="utf-8")
    return folder


def _replace(folder: Path, filename: str, old: str, new: str) -> None:
    path = folder / filename
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_the_small_data_loads(small_data: Path) -> None:
    catalog = load_catalog(small_data)
    assert list(catalog.weapons) == ["club", "spear"]
    assert catalog.monster("brute").weapon == "club"


def test_a_byte_that_is_not_utf8_names_the_file_offset_and_line(small_data: Path) -> None:
    path = small_data / "weapons.yaml"
    data = path.read_bytes().replace(b"name: Spear", b"name: Sp\xe9ar")
    path.write_bytes(data)
    offset = data.index(b"\xe9")
    assert _load_failure(small_data) == (
        f"data/weapons.yaml: is not UTF-8 text: byte 0xe9 at offset {offset} (line 11) cannot be read; "
        "save the file as UTF-8"
    )


def test_a_field_written_twice_in_one_entry_is_refused(small_data: Path) -> None:
    _replace(small_data, "weapons.yaml", "  reach: 5\n", "  reach: 5\n  speed: 9\n")
    assert _load_failure(small_data) == (
        "data/weapons.yaml: entry 'spear': field 'speed' is written twice (lines 15 and 16); keep one"
    )


def test_a_field_written_twice_in_an_entry_without_a_key_names_it_by_position(small_data: Path) -> None:
    _replace(small_data, "shields.yaml", "- key: buckler\n", "- toughness: 5\n")
    assert _load_failure(small_data) == (
        "data/shields.yaml: entry #1: field 'toughness' is written twice (lines 1 and 5); keep one"
    )


@pytest.mark.parametrize(
    ("filename", "old", "new", "expected"),
    [
        (
            "weapons.yaml",
            "  defense: 2\n",
            "  defense: yes\n",
            "data/weapons.yaml: entry 'spear': field 'defense': Input should be a valid integer "
            "(found yes, which YAML reads as true)",
        ),
        (
            "shields.yaml",
            "  hp: 10\n",
            '  hp: "11"\n',
            "data/shields.yaml: entry 'buckler': field 'hp': Input should be a valid integer "
            "(found the text '11': write numbers without quotes)",
        ),
        (
            "armor.yaml",
            "  ac_base: 10\n",
            "  ac_base: 10.0\n",
            "data/armor.yaml: entry 'none': field 'ac_base': Input should be a valid integer (found 10.0)",
        ),
        (
            "monsters.yaml",
            "  prowess: 3\n",
            "  prowess: off\n",
            "data/monsters.yaml: entry 'brute': field 'prowess': Input should be a valid integer "
            "(found off, which YAML reads as false)",
        ),
        (
            "weapons.yaml",
            "  types: [pierce]\n",
            "  types: [pierce]\n  two_handed: 1\n",
            "data/weapons.yaml: entry 'spear': field 'two_handed': Input should be true or false (found 1)",
        ),
    ],
)
def test_numbers_and_switches_are_taken_only_as_written(
    small_data: Path, filename: str, old: str, new: str, expected: str
) -> None:
    _replace(small_data, filename, old, new)
    assert _load_failure(small_data) == expected


def test_a_duplicated_key_is_blamed_on_the_second_entry_naming_both(small_data: Path) -> None:
    _replace(small_data, "weapons.yaml", "- key: spear\n", "- key: Club\n")
    assert _load_failure(small_data) == (
        "data/weapons.yaml: entry #2 'Club' (line 10): field 'key': duplicate key; "
        "entry #1 'club' (line 1) already uses it"
    )


@pytest.mark.parametrize(
    ("old", "new", "says"),
    [
        (b"name: Spear", b"name: Sp\xe9ar", "data/weapons.yaml: is not UTF-8 text: byte 0xe9"),
        (b"  reach: 5\n", b"  reach: 5\n  reach: 6\n", "data/weapons.yaml: entry 'spear': field 'reach'"),
        (b"  defense: 2\n", b"  defense: yes\n", "data/weapons.yaml: entry 'spear': field 'defense'"),
    ],
)
def test_python_m_bot_with_bad_data_exits_2_with_one_line(
    small_data: Path, tmp_path: Path, old: bytes, new: bytes, says: str
) -> None:
    """The catalog loads at start-up, before the store opens and before Discord is contacted."""
    app = tmp_path / "app"
    root = Path(__file__).resolve().parents[1]
    for package in ("bot", "cogs"):
        shutil.copytree(root / package, app / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.rmtree(app / "bot" / "data")
    shutil.copytree(small_data, app / "bot" / "data")
    path = app / "bot" / "data" / "weapons.yaml"
    path.write_bytes(path.read_bytes().replace(old, new))
    environment = {k: v for k, v in os.environ.items() if k not in ("DEV_GUILD_ID", "LOG_LEVEL")}
    done = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=app,
        env={
            **environment,
            "DISCORD_TOKEN": "x",
            # Were the data accepted, the store would refuse to open: still no network.
            "DATABASE_PATH": str(tmp_path / "no such folder" / "pommel.sqlite3"),
        },
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"The equipment data is invalid: {says}")


def test_r24_every_monster_template_meets_an_attack_with_10_plus_its_modifier(catalog: Catalog) -> None:
    """R24, Lords of Hack: "Monster Armor Class is determined by adding one of the 3 modifiers to 10".
    Every template, as an attack against AC meets it, has 10 + its AC modifier: natural hide is no worn
    armor (the wolf is 13, not 10 + DEX 12; the ogre 11, not 9), and the armored humanoids' modifiers
    are worked out from their armor so both readings agree."""
    for monster in catalog.monsters.values():
        armor = catalog.armor(monster.armor) if monster.armor and monster.armor != "none" else None
        ac = defender_armor_class(
            armor, monster.dex_mod, shield=monster.shield is not None, monster_modifier=monster.ac_modifier
        )
        assert ac == min(AC_CAP, 10 + monster.ac_modifier), monster.key
        if armor is not None and not armor.natural:
            assert armor_class_of(armor, monster.dex_mod, monster.shield is not None) == ac, monster.key


def test_the_example_file_of_docs_homebrew_reads_without_a_problem() -> None:
    import re

    from bot.homebrew import read_file

    text = (Path(__file__).resolve().parents[1] / "docs" / "HOMEBREW.md").read_text(encoding="utf-8")
    example = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert example is not None
    layer, problems = read_file(example.group(1).encode(), "example.yaml")
    assert problems == []
    assert len(layer) == 3
