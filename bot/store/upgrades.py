"""Every stored document carries its schema version, and one written by an older Pommel is upgraded when it
is read, one version at a time, before it is validated: the models can change without setting a single
fight, character or server's settings aside.

A document is the model's JSON with one more key first, ``"schema"`` (:data:`SCHEMA_KEY`); the models
never see it. A document without it is version 0: whatever Pommel wrote before documents were versioned.
Writing always writes the current version (:func:`stamped`); reading (:func:`current_json`) runs the
upgrades the document lacks and refuses one written by a newer Pommel (:class:`TooNew`), which is never
rewritten here.

To change a model in a way a stored document would no longer validate (a field renamed, removed or
narrowed), append an upgrade to its kind's list: a small pure function on the plain ``dict`` of the
previous version, returning the ``dict`` of the next. Then add a golden document of the new version under
``tests/store/golden/`` (see ``docs/LAYOUT.md``). A field added with a default needs no upgrade.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..encounter.document import fight_tag

SCHEMA_KEY = "schema"
NEWER = "it was saved by a newer version of Pommel"
"""How the reason a document is not read starts when a newer Pommel wrote it (:class:`TooNew`)."""

Document = dict[str, Any]
Upgrade = Callable[[Document], Document]


@dataclass(frozen=True)
class Kind:
    """A kind of stored document: its name in words ("a fight"), and ``upgrades[n]`` takes a document of
    version ``n`` to version ``n + 1``; the current version is how many there are."""

    what: str
    upgrades: Sequence[Upgrade]

    @property
    def current(self) -> int:
        return len(self.upgrades)

    @property
    def prefix(self) -> str:
        """How a document of the current version starts."""
        return f'{{"{SCHEMA_KEY}":{self.current},'


class TooNew(Exception):
    """A document written by a newer Pommel than this one: it is not read, and never rewritten."""

    def __init__(self, kind: Kind, version: int) -> None:
        super().__init__(
            f"{NEWER}: {kind.what} of version {version}, where this one reads up to version {kind.current}"
        )
        self.version = version


class UnknownVersion(Exception):
    """A document whose ``"schema"`` is not a version at all (hand-edited)."""

    def __init__(self, value: Any) -> None:
        super().__init__(f"its schema version is {json.dumps(value)[:20]}, which is no version")


# ---------------------------------------------------------------------------------------- fights


def _fight_0_to_1(fight: Document) -> Document:
    """What Pommel's fights lost or gained before they were versioned:

    - ``groups``, the NPC groups' names kept beside the roster (bdc1f88), are derived from the combatants;
    - an exchange's ``fight``, the fight's tag its buttons carry, became required (7c6b784).
    """
    fight.pop("groups", None)
    exchanges = fight.get("exchanges")
    started_at = fight.get("started_at")
    if isinstance(exchanges, list) and isinstance(started_at, str):
        try:
            tag = fight_tag(datetime.fromisoformat(started_at))
        except ValueError:
            return fight  # the fight does not read anyway; validation will say why
        for exchange in exchanges:
            if isinstance(exchange, dict):
                exchange.setdefault("fight", tag)
    return fight


def _unchanged(document: Document) -> Document:
    """Nothing changed: the version only starts being written."""
    return document


FIGHT = Kind("a fight", (_fight_0_to_1,))
"""A fight: running, ended, or kept in its history for an undo or a redo."""
CHARACTER = Kind("a character", (_unchanged,))
SETTINGS = Kind("guild settings", (_unchanged,))


# ---------------------------------------------------------------------------------------- reading and writing


def stamped(kind: Kind, document: str) -> str:
    """A model's JSON (an object with at least one field) as stored: its current version first."""
    if not document.startswith("{") or document == "{}":
        raise ValueError(f"not a document to store: {document[:40]!r}")
    return kind.prefix + document[1:]


def current_json(kind: Kind, document: str) -> str:
    """A stored document as JSON of the current version, for the model to validate: upgraded one
    version at a time when it is older. :class:`TooNew` when a newer Pommel wrote it,
    :class:`UnknownVersion` when its version is no number. JSON that is no object is returned as it is
    (the model's validation says what is wrong with it)."""
    if document.startswith(kind.prefix):  # the usual case, without parsing twice
        return "{" + document[len(kind.prefix) :]
    try:
        data = json.loads(document)
    except ValueError:
        return document
    if not isinstance(data, dict):
        return document
    return json.dumps(upgraded(kind, data))


def upgraded(kind: Kind, data: Document) -> Document:
    """A stored document's data brought to the current version, without its ``"schema"`` key."""
    version = data.pop(SCHEMA_KEY, 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise UnknownVersion(version)
    if version > kind.current:
        raise TooNew(kind, version)
    for upgrade in kind.upgrades[version:]:
        data = upgrade(data)
    return data
