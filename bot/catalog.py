"""The equipment catalog: weapons, armor, shields and monster templates read from ``bot/data/*.yaml``.

The whole catalog is validated when it loads. A bad entry stops loading with a message naming the
file, the entry and the field, so a GM who edits the YAML sees exactly what to fix; a bot never
starts with half a catalog. The files are read strictly: UTF-8 only, no field written twice in one
entry (YAML would keep the last), and numbers and switches as written (``defense: yes`` is not 1,
``hp: "11"`` is text).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Literal, TypeVar, cast, overload

import yaml
from pydantic import BaseModel, Field, ValidationError
from pydantic_core import ErrorDetails

from bot.rules.equipment import Armor, MonsterTemplate, Shield, Weapon
from bot.rules.errors import IllegalAction, RulesError, echoed, shown
from bot.rules.hands import check_hands

DATA_DIRECTORY = Path(__file__).resolve().parent / "data"
"""The shipped tables: ``bot/data/``, package data installed with the ``bot`` package (a wheel carries
it, so an installed ``pommel`` reads the same tables from any working directory)."""

SEARCH_LIMIT = 25
"""Discord offers at most 25 autocomplete choices."""

EntryKind = Literal["weapon", "armor", "shield", "monster"]

_FILES: dict[EntryKind, str] = {
    "weapon": "weapons.yaml",
    "armor": "armor.yaml",
    "shield": "shields.yaml",
    "monster": "monsters.yaml",
}

_Entry = TypeVar("_Entry", Weapon, Armor, Shield, MonsterTemplate)

ENTRY_MODELS: dict[EntryKind, type[Weapon] | type[Armor] | type[Shield] | type[MonsterTemplate]] = {
    "weapon": Weapon,
    "armor": Armor,
    "shield": Shield,
    "monster": MonsterTemplate,
}
"""Each kind's entries."""


class _FieldTwice(yaml.YAMLError):
    """A mapping that gives one field twice; the marks are where each was written."""

    def __init__(self, key: object, first: yaml.Mark, second: yaml.Mark) -> None:
        super().__init__(f"field {key!r} is written twice")
        self.key = key
        self.first = first
        self.second = second


class _StrictLoader(yaml.SafeLoader):
    """PyYAML's safe loader, except that a field written twice in one mapping is an error."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[object, yaml.Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue  # `<<: *defaults` may be overridden: that is what merging is for
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.setdefault(key, key_node)
            except TypeError:
                continue  # an unhashable key: PyYAML's own error follows
            if first is not key_node:
                raise _FieldTwice(key, first.start_mark, key_node.start_mark)
        return super().construct_mapping(node, deep=deep)


class CatalogError(Exception):
    """The data files are broken. Each problem names the file, the entry and the field."""

    def __init__(self, problems: Iterable[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(self.problems))


class UnknownEntry(RulesError):
    """A lookup of a key the catalog does not hold; the message offers the closest keys."""

    def __init__(self, kind: EntryKind, wanted: str, suggestions: tuple[str, ...]) -> None:
        if suggestions:
            hint = f" Did you mean {_quoted_choices(shown(key) for key in suggestions)}?"
        else:
            hint = f" Pick a {kind} from the list offered as you type."
        super().__init__(f"There is no {kind} called '{echoed(wanted)}'.{hint}")
        self.kind = kind
        self.wanted = wanted
        self.suggestions = suggestions


class CatalogLayer(BaseModel):
    """Entries laid over the shipped tables: a server's own (``/homebrew``), or those a fight keeps of
    them (``Encounter.homebrew``). An entry whose key is a shipped one shadows it."""

    weapons: dict[str, Weapon] = Field(default_factory=dict)
    armors: dict[str, Armor] = Field(default_factory=dict)
    shields: dict[str, Shield] = Field(default_factory=dict)
    monsters: dict[str, MonsterTemplate] = Field(default_factory=dict)

    def table(self, kind: EntryKind) -> dict[str, Any]:
        return cast("dict[str, Any]", getattr(self, TABLES[kind]))

    def entries(self) -> list[tuple[EntryKind, Weapon | Armor | Shield | MonsterTemplate]]:
        """Every entry with its kind, kind by kind (weapons first), each kind by key."""
        return [(kind, self.table(kind)[key]) for kind in KINDS for key in sorted(self.table(kind))]

    def __len__(self) -> int:
        return sum(len(self.table(kind)) for kind in KINDS)


KINDS: tuple[EntryKind, ...] = ("weapon", "armor", "shield", "monster")

TABLES: dict[EntryKind, str] = {
    "weapon": "weapons",
    "armor": "armors",
    "shield": "shields",
    "monster": "monsters",
}
"""Each kind's table, as :class:`Catalog` and :class:`CatalogLayer` name it."""


@dataclass(frozen=True, slots=True)
class Catalog:
    """Every weapon, armor, shield and monster template, keyed by ``key``. Read-only.

    ``own``: the keys of each kind that a layer laid over the shipped tables (:meth:`layered`)."""

    weapons: Mapping[str, Weapon]
    armors: Mapping[str, Armor]
    shields: Mapping[str, Shield]
    monsters: Mapping[str, MonsterTemplate]
    own: Mapping[EntryKind, frozenset[str]] = field(default_factory=dict)
    _weapons_by_spelling: Mapping[str, Weapon] = field(init=False, repr=False, compare=False)
    _armors_by_spelling: Mapping[str, Armor] = field(init=False, repr=False, compare=False)
    _shields_by_spelling: Mapping[str, Shield] = field(init=False, repr=False, compare=False)
    _monsters_by_spelling: Mapping[str, MonsterTemplate] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("weapons", "armors", "shields", "monsters"):
            table = MappingProxyType(dict(getattr(self, name)))
            object.__setattr__(self, name, table)
            object.__setattr__(self, f"_{name}_by_spelling", _by_spelling(table))
        object.__setattr__(self, "own", MappingProxyType(dict(self.own)))

    def layered(self, layer: CatalogLayer) -> Catalog:
        """This catalog with ``layer``'s entries over it: a key it holds is shadowed, a new one added."""
        if not len(layer):
            return self
        tables = {TABLES[kind]: {**getattr(self, TABLES[kind]), **layer.table(kind)} for kind in KINDS}
        own = {kind: self.own.get(kind, frozenset()) | set(layer.table(kind)) for kind in KINDS}
        return Catalog(**tables, own=own)

    def is_own(self, kind: EntryKind, key: str) -> bool:
        """Whether the entry under ``key`` is a layer's (a server's own) rather than a shipped one."""
        return key in self.own.get(kind, frozenset())

    def weapon(self, key: str) -> Weapon:
        return _look_up("weapon", self.weapons, self._weapons_by_spelling, key)

    def armor(self, key: str) -> Armor:
        return _look_up("armor", self.armors, self._armors_by_spelling, key)

    def shield(self, key: str) -> Shield:
        return _look_up("shield", self.shields, self._shields_by_spelling, key)

    def monster(self, key: str) -> MonsterTemplate:
        return _look_up("monster", self.monsters, self._monsters_by_spelling, key)

    @overload
    def entries_matching(
        self, kind: Literal["weapon"], text: str, limit: int = SEARCH_LIMIT
    ) -> list[Weapon]: ...
    @overload
    def entries_matching(
        self, kind: Literal["armor"], text: str, limit: int = SEARCH_LIMIT
    ) -> list[Armor]: ...
    @overload
    def entries_matching(
        self, kind: Literal["shield"], text: str, limit: int = SEARCH_LIMIT
    ) -> list[Shield]: ...
    @overload
    def entries_matching(
        self, kind: Literal["monster"], text: str, limit: int = SEARCH_LIMIT
    ) -> list[MonsterTemplate]: ...
    def entries_matching(
        self, kind: EntryKind, text: str, limit: int = SEARCH_LIMIT
    ) -> list[Weapon] | list[Armor] | list[Shield] | list[MonsterTemplate]:
        """Entries whose key or name contains ``text`` (case-insensitive), for autocomplete.

        Entries that start with the text come first, then the rest, each group by name; at most
        ``limit`` of them. An empty text lists the first ``limit`` entries by name.
        """
        if kind == "weapon":
            return _matching(self.weapons, text, limit)
        if kind == "armor":
            return _matching(self.armors, text, limit)
        if kind == "shield":
            return _matching(self.shields, text, limit)
        return _matching(self.monsters, text, limit)


def load_catalog(directory: Path | None = None) -> Catalog:
    """Read and validate the four tables of ``directory`` (default: the shipped ``bot/data/``).

    Raises :class:`CatalogError` listing every problem found: malformed YAML, bad or missing
    fields, unknown fields, duplicate keys, and monster templates naming gear that does not exist.
    """
    folder = DATA_DIRECTORY if directory is None else directory
    problems: list[str] = []
    weapons = _load_table(folder, _FILES["weapon"], Weapon, problems)
    armors = _load_table(folder, _FILES["armor"], Armor, problems)
    shields = _load_table(folder, _FILES["shield"], Shield, problems)
    monsters = _load_table(folder, _FILES["monster"], MonsterTemplate, problems)
    if problems:
        raise CatalogError(problems)
    label = _label(folder, _FILES["monster"])
    for monster in monsters.values():
        problems.extend(
            f"{label}: entry '{monster.key}': {problem}"
            for problem in gear_problems(monster, weapons, armors, shields)
        )
    if problems:
        raise CatalogError(problems)
    return Catalog(weapons=weapons, armors=armors, shields=shields, monsters=monsters)


def _read(path: Path, label: str, problems: list[str]) -> tuple[Any, list[yaml.Node]] | None:
    """The file's data and, for a list, the node of each entry (where it is written); None if unreadable."""
    try:
        data = path.read_bytes()
    except OSError as error:
        problems.append(f"{label}: cannot be read: {error.strerror or error}")
        return None
    parsed = parse_yaml(data, label, problems)
    if parsed is None:
        return None
    raw, document = parsed
    return raw, list(document.value) if isinstance(document, yaml.SequenceNode) else []


MAX_NODES = 200_000
"""The most values a file may hold once its aliases are counted where they are used: an alias bomb (a
list of aliases of a list of aliases...) is refused before it is built."""


def parse_yaml(
    data: bytes, label: str, problems: list[str], *, max_nodes: int = MAX_NODES
) -> tuple[Any, yaml.Node | None] | None:
    """UTF-8 YAML (JSON is YAML too) read strictly, with its document's node (where each value is
    written); None, with the problem said, when it cannot be read."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        problems.append(
            f"{label}: is not UTF-8 text: byte 0x{data[error.start]:02x} at offset {error.start} "
            f"(line {line}) cannot be read; save the file as UTF-8"
        )
        return None
    loader = _StrictLoader(text)
    document: yaml.Node | None = None
    try:
        document = loader.get_single_node()
        if document is not None and _expanded_size(document, max_nodes) > max_nodes:
            problems.append(
                f"{label}: holds more than {max_nodes} values once its aliases (*name) are expanded; "
                "write the entries out without anchors and aliases"
            )
            return None
        raw = loader.construct_document(document) if document is not None else None
    except _FieldTwice as twice:
        index, key = _entry_at(_entry_nodes(document), twice.second)
        where = "" if index == 0 else f" entry '{key}':" if key else f" entry #{index}:"
        problems.append(
            f"{label}:{where} field '{twice.key}' is written twice "
            f"(lines {twice.first.line + 1} and {twice.second.line + 1}); keep one"
        )
        return None
    except yaml.constructor.ConstructorError as error:
        mark = error.problem_mark
        at = f" (line {mark.line + 1})" if mark is not None else ""
        problems.append(f"{label}: {error.problem}{at}: YAML tags are not read; write plain values")
        return None
    except yaml.YAMLError as error:
        problems.append(f"{label}: is not valid YAML: {error}")
        return None
    except RecursionError:
        problems.append(f"{label}: is nested too deeply to read; entries are lists of field: value pairs")
        return None
    finally:
        loader.dispose()
    return raw, document


def _expanded_size(root: yaml.Node, budget: int) -> int:
    """How many values ``root`` holds with every alias counted where it is used; counting stops past
    ``budget`` (a node that holds itself never ends)."""
    count = 0
    stack = [root]
    while stack and count <= budget:
        node = stack.pop()
        count += 1
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend((key, value))
    return count


def _entry_nodes(document: yaml.Node | None) -> list[yaml.Node]:
    """The entries' nodes: a list's items, or those of each list a mapping holds (a server's file)."""
    if isinstance(document, yaml.SequenceNode):
        return list(document.value)
    if isinstance(document, yaml.MappingNode):
        return [
            item
            for _, section in document.value
            if isinstance(section, yaml.SequenceNode)
            for item in section.value
        ]
    return []


def _entry_at(entries: list[yaml.Node], mark: yaml.Mark) -> tuple[int, str | None]:
    """The position (from 1) and written key of the entry holding ``mark``."""
    for index, entry in enumerate(entries, start=1):
        if entry.start_mark.index <= mark.index < entry.end_mark.index:
            return index, _scalar(entry, "key")
    return 0, None


def _line(node: yaml.Node) -> int:
    return int(node.start_mark.line) + 1


def _scalar(entry: yaml.Node, name: str) -> str | None:
    """The text written for field ``name`` in an entry's node, if it is a plain value."""
    if not isinstance(entry, yaml.MappingNode):
        return None
    for key_node, value_node in entry.value:
        if key_node.value == name and isinstance(value_node, yaml.ScalarNode):
            return str(value_node.value)
    return None


def _load_table(folder: Path, filename: str, model: type[_Entry], problems: list[str]) -> dict[str, _Entry]:
    label = _label(folder, filename)
    read = _read(folder / filename, label, problems)
    if read is None:
        return {}
    raw, nodes = read
    return table_from(raw, nodes, label, model, problems)


def table_from(
    raw: Any, nodes: list[yaml.Node], label: str, model: type[_Entry], problems: list[str]
) -> dict[str, _Entry]:
    """The entries of one table as read (``raw``, with the node each is written at), validated; each
    problem, naming ``label``, the entry and the field, is added to ``problems`` and its entry left out."""
    if not isinstance(raw, list):
        found = "nothing" if raw is None else f"a {type(raw).__name__}"
        problems.append(
            f"{label}: should hold a list of entries (each starting with '- key: ...'), found {found}"
        )
        return {}

    table: dict[str, _Entry] = {}
    first_use: dict[str, tuple[int, str]] = {}
    for index, (entry, node) in enumerate(zip(raw, nodes, strict=True), start=1):
        if not isinstance(entry, dict):
            problems.append(f"{label}: entry #{index}: should be a mapping of field: value pairs")
            continue
        key = entry.get("key")
        where = f"'{key}'" if isinstance(key, str) and key else f"#{index}"
        if isinstance(key, str):
            # Lookups ignore case, spaces and dashes, so keys must differ by more than that. The second
            # entry is the one at fault, named with its place since its key reads like the first's.
            if _fold(key) in first_use:
                first, first_key = first_use[_fold(key)]
                problems.append(
                    f"{label}: entry #{index} '{key}' (line {_line(node)}): field 'key': duplicate key; "
                    f"entry #{first} '{first_key}' (line {_line(nodes[first - 1])}) already uses it"
                )
                continue
            first_use[_fold(key)] = (index, key)
        as_written = _not_as_written(entry, node, model)
        problems.extend(f"{label}: entry {where}: field '{name}': {why}" for name, why in as_written.items())
        try:
            record = model.model_validate(entry)
        except ValidationError as error:
            problems.extend(
                f"{label}: entry {where}: {_describe(detail, model)}"
                for detail in error.errors()
                if not detail["loc"] or detail["loc"][0] not in as_written
            )
            continue
        if not as_written:
            table[record.key] = record
    return table


def _not_as_written(entry: dict[Any, Any], node: yaml.Node, model: type[_Entry]) -> dict[str, str]:
    """Numbers and switches pydantic would convert: ``defense: yes`` is not 1, ``hp: "11"`` is text.

    Pydantic takes true as 1 and "11" as 11 for a number, and 1 or "yes" as true for a switch; a GM
    who wrote them meant something else, so the catalog takes them only as written.
    """
    problems: dict[str, str] = {}
    for name, info in model.model_fields.items():
        if name not in entry:
            continue
        value = entry[name]
        if info.annotation in (int, int | None):
            if isinstance(value, int) and not isinstance(value, bool):
                continue
            if value is None and info.annotation is not int:
                continue
            problems[name] = f"Input should be a valid integer ({_found(value, _scalar(node, name))})"
        elif info.annotation is bool and not isinstance(value, bool):
            problems[name] = f"Input should be true or false ({_found(value, _scalar(node, name))})"
    return problems


def _found(value: object, written: str | None) -> str:
    """What was found, as written: YAML reads ``yes``, ``on`` and ``true`` alike."""
    if isinstance(value, bool):
        meaning = "true" if value else "false"
        return f"found {written or meaning}, which YAML reads as {meaning}"
    if isinstance(value, str):
        hint = ": write numbers without quotes" if _is_number(value) else ""
        return f"found the text {value!r}{hint}"
    return f"found {value!r}"


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def gear_problems(
    monster: MonsterTemplate,
    weapons: Mapping[str, Weapon],
    armors: Mapping[str, Armor],
    shields: Mapping[str, Shield],
    places: Mapping[EntryKind, str] = _FILES,
) -> list[str]:
    """Missing references, then gear that will not fit in two hands (Lords of Hack two weapons, R26);
    ``places`` says where each kind was looked for."""
    looked_up: tuple[tuple[str, str | None, Mapping[str, Any], EntryKind], ...] = (
        ("weapon", monster.weapon, weapons, "weapon"),
        ("off_hand", monster.off_hand, weapons, "weapon"),
        ("armor", monster.armor, armors, "armor"),
        ("shield", monster.shield, shields, "shield"),
    )
    problems = [
        f"field '{field}': no entry '{key}' in {places[kind]}{_did_you_mean(key, table)}"
        for field, key, table, kind in looked_up
        if key is not None and key not in table
    ]
    if problems:
        return problems

    off_hand = weapons[monster.off_hand] if monster.off_hand is not None else None
    shield = shields[monster.shield] if monster.shield is not None else None
    try:
        check_hands(weapons[monster.weapon], shield=shield, off_hand=off_hand)
    except IllegalAction as error:
        problems.append(f"field '{'off_hand' if off_hand is not None else 'shield'}': {error.message}")
    return problems


def _describe(detail: ErrorDetails, model: type[_Entry]) -> str:
    field = ".".join(str(part) for part in detail["loc"])
    if detail["type"] == "extra_forbidden":
        known = [name for name in model.model_fields if name != field]
        message = f"unknown field{_did_you_mean(field, known)}"
    elif detail["type"] == "missing":
        message = "required field is missing"
    else:
        message = detail["msg"].removeprefix("Value error, ")
        given = detail["input"]
        if isinstance(given, str | int | float | bool) and repr(given) not in message:
            message += f" (found {given!r})"
    return f"field '{field}': {message}" if field else message


def _by_spelling(table: Mapping[str, _Entry]) -> Mapping[str, _Entry]:
    """Every entry under its folded key and folded name; the first entry to claim a spelling keeps it."""
    index: dict[str, _Entry] = {}
    for key, entry in table.items():
        index.setdefault(_fold(key), entry)
        index.setdefault(_fold(entry.name), entry)
    return MappingProxyType(index)


def _look_up(
    kind: EntryKind, table: Mapping[str, _Entry], by_spelling: Mapping[str, _Entry], wanted: str
) -> _Entry:
    folded = _fold(wanted)
    entry = by_spelling.get(folded)
    if entry is None:
        raise UnknownEntry(kind, wanted, _suggestions(folded, by_spelling))
    return entry


def _suggestions(folded: str, entries: Mapping[str, _Entry]) -> tuple[str, ...]:
    """Up to three keys: the closest by spelling first, then those containing the text."""
    by_spelling = {spelling: entry.key for spelling, entry in entries.items()}
    close = difflib.get_close_matches(folded, list(by_spelling), n=6, cutoff=0.6)
    containing = sorted(key for spelling, key in by_spelling.items() if folded and folded in spelling)
    keys = dict.fromkeys([by_spelling[spelling] for spelling in close] + containing)
    return tuple(keys)[:3]


def _did_you_mean(wanted: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(wanted, list(known), n=3, cutoff=0.6)
    return f" (did you mean {_quoted_choices(close)}?)" if close else ""


def _matching(table: Mapping[str, _Entry], text: str, limit: int) -> list[_Entry]:
    needle = _fold(text)
    hits = [entry for entry in table.values() if needle in _fold(entry.key) or needle in _fold(entry.name)]
    hits.sort(
        key=lambda entry: (
            not (_fold(entry.key).startswith(needle) or _fold(entry.name).startswith(needle)),
            entry.name.casefold(),
        )
    )
    return hits[: max(limit, 0)]


def _fold(text: str) -> str:
    """Case, spaces and dashes do not matter: 'Light Lance', 'light-lance' and 'light_lance' agree."""
    return "_".join(text.replace("-", " ").replace("_", " ").casefold().split())


def _quoted_choices(choices: Iterable[str]) -> str:
    quoted = [f"'{choice}'" for choice in choices]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} or {quoted[-1]}"


def _label(folder: Path, filename: str) -> str:
    return f"{folder.name}/{filename}"
