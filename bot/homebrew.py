"""A server's own catalog entries (``/homebrew``): a file of them read and checked, what importing it adds
and shadows, an entry removed, a quick NPC made, and the entries written back out as a file.

Plain work on the entries, no Discord and no database: the cog reads the attachment, the store runs
:func:`plan_import`, :func:`remove_entry` or :func:`save_quick_npc` on what the server holds inside one
transaction. A file is checked whole, with the same validation as the shipped ``bot/data/`` tables
(:func:`bot.catalog.table_from`), and every problem is reported, each naming its entry and field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from .catalog import (
    ENTRY_MODELS,
    KINDS,
    TABLES,
    Catalog,
    CatalogError,
    CatalogLayer,
    EntryKind,
    gear_problems,
    parse_yaml,
)
from .catalog import table_from as _table_from
from .rules.equipment import Armor, MonsterTemplate, Shield, Source, Weapon
from .rules.errors import IllegalAction, echoed

MAX_FILE_BYTES = 256 * 1024
"""The largest file ``/homebrew import`` reads: 256 KiB (checked before it is downloaded, and again on
its bytes)."""

MAX_ENTRIES = 200
"""The most entries a server may hold, weapons, armor, shields and monsters together."""

MAX_NAME_LENGTH = 40
"""The longest name an entry may have (it is shown in menus and on the fight's tracker)."""

MAX_NOTES_LENGTH = 300
"""The longest ``notes`` an entry may have."""

MAX_KEY_LENGTH = 32
KEY = re.compile(r"[a-z0-9_]{1,32}")
"""An entry's key: lowercase letters, digits and underscores (no dashes: lookups read ``orc-axe`` as
``orc_axe``, so a server could otherwise hold two entries under one key)."""

MAX_FILE_VALUES = 20_000
"""The most values a file may hold once its aliases are expanded (an alias bomb is refused unbuilt)."""

SECTIONS: dict[str, EntryKind] = {
    "weapons": "weapon",
    "armor": "armor",
    "shields": "shield",
    "monsters": "monster",
}
"""A file's sections, named as the shipped tables' files are (``weapons.yaml`` → ``weapons:``)."""

_SECTION_OF = {kind: section for section, kind in SECTIONS.items()}
LIMITS_TEXT = (
    f"at most {MAX_FILE_BYTES // 1024} KiB, {MAX_ENTRIES} entries per server, keys of 1 to "
    f"{MAX_KEY_LENGTH} lowercase letters, digits or underscores, names of at most {MAX_NAME_LENGTH} "
    "characters"
)
"""The limits in a sentence, for the replies that refuse a file."""

Entry = Weapon | Armor | Shield | MonsterTemplate


class HomebrewRefused(IllegalAction):
    """A ``/homebrew`` change refused as a whole; the message says what would work."""


# ---------------------------------------------------------------------------- reading a file


def too_large(size: int) -> str | None:
    """Why a file of ``size`` bytes is refused before it is read, or None."""
    if size > MAX_FILE_BYTES:
        return (
            f"That file is {size // 1024} KiB; a homebrew file may be at most {MAX_FILE_BYTES // 1024} KiB. "
            "Split it into several files and import each."
        )
    return None


def read_file(data: bytes, filename: str) -> tuple[CatalogLayer, list[str]]:
    """The entries of a YAML or JSON file in the schema of ``bot/data/`` (one section per table), and
    every problem found in it; an entry with a problem is left out."""
    problems: list[str] = []
    refused = too_large(len(data))
    if refused is not None:
        return CatalogLayer(), [f"{filename}: {refused}"]
    if b"\0" in data:
        return CatalogLayer(), [f"{filename}: is not a text file; attach a YAML (.yaml) or JSON (.json) file"]
    if filename.lower().endswith(".json"):
        try:
            # As compact JSON, which YAML reads as it is, so both are checked by the same reader.
            data = json.dumps(json.loads(data)).encode()
        except (ValueError, RecursionError) as error:
            return CatalogLayer(), [f"{filename}: is not valid JSON: {error}"]
    parsed = parse_yaml(data, filename, problems, max_nodes=MAX_FILE_VALUES)
    if parsed is None:
        return CatalogLayer(), problems
    raw, document = parsed
    if not isinstance(raw, dict) or not isinstance(document, yaml.MappingNode):
        found = "nothing" if raw is None else f"a {type(raw).__name__}"
        sections = ", ".join(f"'{name}:'" for name in SECTIONS)
        return CatalogLayer(), [f"{filename}: should hold sections {sections} (each a list), found {found}"]
    layer = CatalogLayer()
    for key_node, value_node in document.value:
        section = key_node.value
        if section not in SECTIONS:
            problems.append(
                f"{filename}: unknown section '{echoed(str(section))}'; the sections are {sections_text()}"
            )
            continue
        kind = SECTIONS[section]
        nodes = list(value_node.value) if isinstance(value_node, yaml.SequenceNode) else []
        model: Any = ENTRY_MODELS[kind]  # one of the four: table_from keeps its entries' own type
        table: dict[str, Entry] = _table_from(raw[section], nodes, f"{filename}: {section}", model, problems)
        for key, entry in table.items():
            limits = _beyond_limits(entry)
            problems.extend(f"{filename}: {section}: entry '{key}': {problem}" for problem in limits)
            if not limits:
                layer.table(kind)[key] = entry
    if not problems and not len(layer):
        problems.append(f"{filename}: holds no entries")
    return layer, problems


def sections_text() -> str:
    return ", ".join(f"'{name}'" for name in SECTIONS)


def _beyond_limits(entry: Entry) -> list[str]:
    problems = []
    if not KEY.fullmatch(entry.key):
        problems.append(
            f"field 'key': '{entry.key}' should be 1 to {MAX_KEY_LENGTH} lowercase letters, digits "
            "or underscores"
        )
    if len(entry.name) > MAX_NAME_LENGTH:
        problems.append(f"field 'name': {len(entry.name)} characters; at most {MAX_NAME_LENGTH}")
    if len(entry.notes) > MAX_NOTES_LENGTH:
        problems.append(f"field 'notes': {len(entry.notes)} characters; at most {MAX_NOTES_LENGTH}")
    return problems


# ---------------------------------------------------------------------------- importing


@dataclass(frozen=True, slots=True)
class Imported:
    """What an import did: the entries it added (new keys), those shadowing a built-in entry for this
    server, and those replacing the server's own entry of the same key; ``total``: the server's entries
    after it."""

    added: list[Entry]
    shadowed: list[Entry]
    replaced: list[Entry]
    total: int


def plan_import(
    builtins: Catalog, server: CatalogLayer, file: CatalogLayer, problems: Iterable[str], filename: str
) -> tuple[CatalogLayer, Imported]:
    """The server's entries with the file's laid over them, and what that adds, shadows and replaces.

    Refused whole (:class:`CatalogError`, every problem) when the file had problems (``problems``, from
    :func:`read_file`), when a monster names gear that is neither built in, nor the server's, nor in
    the file, or when the server would hold more than :data:`MAX_ENTRIES`.
    """
    found = list(problems)
    after = _merged(server, file)
    found.extend(_monster_problems(builtins, after, file, filename))
    if len(after) > MAX_ENTRIES:
        found.append(
            f"{filename}: this server would hold {len(after)} entries ({len(server)} now, "
            f"{len(after) - len(server)} new); a server may hold at most {MAX_ENTRIES}. "
            "Remove some with /homebrew remove first."
        )
    if found:
        raise CatalogError(found)
    added, shadowed, replaced = [], [], []
    for kind, entry in file.entries():
        if entry.key in server.table(kind):
            replaced.append(entry)
        elif entry.key in getattr(builtins, TABLES[kind]):
            shadowed.append(entry)
        else:
            added.append(entry)
    return after, Imported(added, shadowed, replaced, len(after))


def _merged(under: CatalogLayer, over: CatalogLayer) -> CatalogLayer:
    return CatalogLayer(**{TABLES[kind]: {**under.table(kind), **over.table(kind)} for kind in KINDS})


def _monster_problems(
    builtins: Catalog, server: CatalogLayer, file: CatalogLayer, filename: str
) -> list[str]:
    """Every monster of the server as it would be, checked against the gear it could use then."""
    gear = builtins.layered(server)
    places: Mapping[EntryKind, str] = {
        kind: f"the {_SECTION_OF[kind]} built in, this server's or this file's" for kind in KINDS
    }
    problems: list[str] = []
    for key, monster in server.monsters.items():
        where = (
            f"{filename}: monsters: entry '{key}'"
            if key in file.monsters
            else f"this server's monster '{key}'"
        )
        problems.extend(
            f"{where}: {problem}"
            for problem in gear_problems(monster, gear.weapons, gear.armors, gear.shields, places)
        )
    return problems


# ---------------------------------------------------------------------------- removing


@dataclass(frozen=True, slots=True)
class Removed:
    """The entry removed, and the built-in entry the server now uses under its key again, if any."""

    kind: EntryKind
    entry: Entry
    builtin: Entry | None


def remove_entry(builtins: Catalog, server: CatalogLayer, key: str) -> tuple[CatalogLayer, Removed]:
    """The server's entries without the one under ``key`` (of whatever kind holds it).

    Refused when the server holds none, or when one of its monsters carries it and nothing built in
    would take its place."""
    kinds = [kind for kind in KINDS if key in server.table(kind)]
    if not kinds:
        raise HomebrewRefused(
            f"This server has no homebrew entry with the key '{echoed(key)}'. "
            "/homebrew list shows its entries and their keys."
        )
    kind = kinds[0]
    builtin = getattr(builtins, TABLES[kind]).get(key)
    after = CatalogLayer(**{TABLES[k]: dict(server.table(k)) for k in KINDS})
    entry = after.table(kind).pop(key)
    if builtin is None and kind != "monster":
        users = sorted(
            monster.key
            for monster in after.monsters.values()
            if key in (monster.weapon, monster.off_hand, monster.armor, monster.shield)
        )
        if users:
            named = ", ".join(f"'{user}'" for user in users)
            raise HomebrewRefused(
                f"This server's monsters {named} carry '{key}'; "
                "remove them first, or import them with other gear."
            )
    return after, Removed(kind, entry, builtin)


# ---------------------------------------------------------------------------- a quick NPC


def quick_key(name: str) -> str:
    """A key made of a name: 'Orc Chieftain' → ``orc_chieftain``."""
    words = re.findall(r"[a-z0-9]+", name.casefold())
    key = "_".join(words)[:MAX_KEY_LENGTH].strip("_")
    if not key:
        raise HomebrewRefused(
            f"'{echoed(name)}' has no letters or digits to make a key of; give the NPC a name with some."
        )
    return key


def save_quick_npc(
    builtins: Catalog, server: CatalogLayer, template: MonsterTemplate
) -> tuple[CatalogLayer, Imported]:
    """The server's entries with ``template`` saved (replacing one of its key), checked as an import is."""
    layer = CatalogLayer(monsters={template.key: template})
    try:
        return plan_import(builtins, server, layer, (), "the form")
    except CatalogError as error:
        raise HomebrewRefused(" ".join(error.problems)) from None


def quick_template(
    builtins: Catalog,
    *,
    name: str,
    prowess: int,
    dex_mod: int,
    hp: int,
    morale: int | None,
    weapon: str,
    armor: str,
) -> MonsterTemplate:
    """A monster template from the quick-NPC form: gear by key or name, as the catalog (the server's
    included) reads it."""
    name = name.strip()
    if not 1 <= len(name) <= MAX_NAME_LENGTH:
        raise HomebrewRefused(
            f"A name is 1 to {MAX_NAME_LENGTH} characters; '{echoed(name)}' is {len(name)}."
        )
    if not 0 <= prowess <= 20:
        raise HomebrewRefused(f"Prowess is 0 to 20, not {prowess}.")
    if hp < 1:
        raise HomebrewRefused(f"HP is at least 1, not {hp}.")
    chosen_weapon = builtins.weapon(weapon)
    chosen_armor = builtins.armor(armor)
    return MonsterTemplate(
        key=quick_key(name),
        name=name,
        source=Source.HOUSE,
        prowess=prowess,
        dex_mod=dex_mod,
        hp=hp,
        weapon=chosen_weapon.key,
        armor=chosen_armor.key,
        morale=morale,
        notes="Made with the quick NPC form.",
    )


# ---------------------------------------------------------------------------- exporting


def export_text(server: CatalogLayer) -> str:
    """The server's entries as a YAML file ``/homebrew import`` reads back to the same entries."""
    sections: dict[str, list[dict[str, Any]]] = {}
    for kind, entry in server.entries():
        sections.setdefault(_SECTION_OF[kind], []).append(_as_written(entry))
    header = "# This server's homebrew for Pommel: /homebrew import reads it back (docs/HOMEBREW.md).\n"
    return header + yaml.safe_dump(sections, sort_keys=False, allow_unicode=True, width=100)


def _as_written(entry: Entry) -> dict[str, Any]:
    """An entry as the shipped tables write it: damage as ``1d8+1``, types sorted, defaults left out."""
    written: dict[str, Any] = entry.model_dump(mode="json", exclude_defaults=True)
    written = {"key": entry.key, "name": entry.name, "source": entry.source.value, **written}
    if isinstance(entry, Weapon):
        written["damage"] = str(entry.damage)
        for field in ("types", "primary"):
            if field in written:
                written[field] = sorted(written[field])
    if "house_fields" in written:
        written["house_fields"] = list(written["house_fields"])
    return written


QUICK_NPC_FIELDS = ("name", "prowess_dex", "hp", "morale", "gear")
"""The quick-NPC form's five inputs (Discord's most in one modal)."""


def read_quick_npc(builtins: Catalog, values: Mapping[str, str]) -> MonsterTemplate:
    """The template the quick-NPC form describes: ``prowess_dex`` as ``3 / +1``, ``gear`` as
    ``messer / mail_shirt`` (armor may be left out: none), ``morale`` empty for one that never checks."""
    prowess_text, _, dex_text = values.get("prowess_dex", "").partition("/")
    weapon, _, armor = values.get("gear", "").partition("/")
    morale_text = values.get("morale", "").strip()
    return quick_template(
        builtins,
        name=values.get("name", ""),
        prowess=_number("Prowess", prowess_text),
        dex_mod=_number("DEX modifier", dex_text or "0"),
        hp=_number("HP", values.get("hp", "")),
        morale=_number("Morale", morale_text) if morale_text else None,
        weapon=weapon.strip(),
        armor=armor.strip() or "none",
    )


def _number(what: str, text: str) -> int:
    try:
        return int(text.strip().replace("+", "", 1))
    except ValueError:
        raise HomebrewRefused(
            f"{what} should be a whole number like 3 or -1, not '{echoed(text.strip())}'."
        ) from None
