"""What is wrong with a document that does not validate, in plain words for a player or a GM.

The store checks every document it writes by reading back the very JSON it is about to store
(:func:`checked`): the pydantic models are not ``validate_assignment``, so a value changed in place
(a prowess of 21, a timeout of -1) is caught only there. The same words explain why a stored document
that no longer reads was set aside.
"""

from __future__ import annotations

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from ..rules.errors import echoed, shown
from .errors import (
    InvalidDocument,
)

Model = TypeVar("Model", bound=BaseModel)

MAX_PROBLEMS = 3
"""The most faults one message names; the rest are counted."""


def checked(model: type[Model], what: str, document: str) -> Model:
    """``document`` read as ``model``; raises :class:`InvalidDocument` naming what is wrong, in words."""
    try:
        return model.model_validate_json(document)
    except ValidationError as error:
        raise InvalidDocument(what, problems(error, document, what)) from None


def problems(error: ValidationError, document: str, what: str) -> list[str]:
    """Each fault of ``document`` (the JSON that failed) as a phrase: "Bob's prowess is 21, but it must
    be at most 20". At most :data:`MAX_PROBLEMS`, then how many more."""
    try:
        data: Any = json.loads(document)
    except ValueError:
        data = None
    faults = error.errors(include_url=False)
    said = list(dict.fromkeys(_problem(fault, data, what) for fault in faults))
    if len(said) > MAX_PROBLEMS:
        more = len(said) - MAX_PROBLEMS
        said = [*said[:MAX_PROBLEMS], f"{more} more thing{'s' if more > 1 else ''} like these"]
    return said


def _problem(fault: Any, data: Any, what: str) -> str:
    kind: str = fault["type"]
    if kind == "json_invalid":
        return "the document is not valid JSON"
    if not fault["loc"]:
        return f"the document is not {what} at all"
    where = _where(fault["loc"], data)
    context = fault.get("ctx") or {}
    value = _value(fault.get("input"))
    if kind == "missing":
        return f"{where} is missing"
    if kind == "extra_forbidden":
        return f"{where} is not something it can have"
    bounds = {
        "greater_than_equal": ("at least", "ge"),
        "less_than_equal": ("at most", "le"),
        "greater_than": ("more than", "gt"),
        "less_than": ("less than", "lt"),
    }
    if kind in bounds and value is not None:
        words, key = bounds[kind]
        return f"{where} is {value}, but it must be {words} {context.get(key)}"
    if kind in ("string_too_long", "too_long"):
        unit = "characters" if kind == "string_too_long" else "entries"
        return f"{where} is too long: it may have at most {context.get('max_length')} {unit}"
    if kind in ("string_too_short", "too_short"):
        unit = "characters" if kind == "string_too_short" else "entries"
        return f"{where} is too short: it must have at least {context.get('min_length')} {unit}"
    # pydantic's own sentence, from its first words: "Input should be a valid integer, unable to parse..."
    message = re.sub(r", unable to .*$", "", str(fault["msg"]))
    if message.startswith("Input should"):
        message = "it should" + message.removeprefix("Input should")
    else:
        message = message[:1].lower() + message[1:]
    return f"{where} is {value}, but {message}" if value is not None else f"{where} is wrong: {message}"


def _where(loc: tuple[int | str, ...], data: Any) -> str:
    """The place a fault is at, as a person would name it: "Bob's prowess", "the table's claim pause"."""
    parts: list[str] = []
    named_first = False
    field: str | None = None
    node = data
    for step in loc:
        if isinstance(step, int) and isinstance(node, list) and 0 <= step < len(node):
            node = node[step]
            name = node.get("name") if isinstance(node, dict) else None
            if isinstance(name, str) and name:
                if not parts and field is not None:
                    named_first = True
                label = shown(echoed(name, 40))
            else:
                label = f"{field or 'item'} #{step + 1}"
            parts.append(label)
            field = None
            continue
        if field is not None:
            parts.append(field)
        if isinstance(step, str) and "[" in step:  # a pydantic tag (a union's branch), not a field
            field = None
            continue
        field = str(step).replace("_", " ")
        node = node.get(step) if isinstance(node, dict) else None
    if field is not None:
        parts.append(field)
    phrase = "'s ".join(parts) if parts else "the document"
    return phrase if named_first else f"the {phrase}"


def _value(value: Any) -> str | None:
    """A short, safe rendering of a wrong value; None for one too big to repeat (an object, a list)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return f'"{echoed(value, 40)}"'
    return None
