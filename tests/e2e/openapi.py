"""Request (and response) validation against Discord's published OpenAPI 3.1 document.

The fake Discord must not accept anything the real one would reject, otherwise the end-to-end tests
prove nothing about production.  Every request the bot makes is matched to an operation of
``discord_api/openapi.json`` (vendored next to this file) and its path parameters, query parameters and
body are checked against the schemas there.  The document is loaded once per process and validators are
built lazily per operation, because the benchmark pushes thousands of interactions through the same few
operations.
"""

from __future__ import annotations

import functools
import json
import os
import re
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # no stubs in the venv
from jsonschema.exceptions import ValidationError  # type: ignore[import-untyped]
from referencing import Registry
from referencing.jsonschema import DRAFT202012

__all__ = [
    "SPEC_PATH",
    "Operation",
    "Spec",
    "load_spec",
]

VENDORED_SPEC = Path(__file__).parent / "discord_api" / "openapi.json"
"""Discord's spec, vendored with the tests (see ``discord_api/README.md`` for its origin and hash)."""

SPEC_PATH = Path(os.environ.get("POMMEL_DISCORD_OPENAPI") or VENDORED_SPEC)
"""The spec the fake validates against: the vendored copy unless ``POMMEL_DISCORD_OPENAPI`` names one."""

_DOC_URI = "urn:discord:openapi"
_METHODS = ("get", "put", "post", "patch", "delete")
_BOOL_TEXT = {"true": True, "false": False, "1": True, "0": False, "True": True, "False": False}
_CACHE_SIZE = 4096
INTEGER_SNOWFLAKES = re.compile(
    r"\.(attachments\[\d+\]\.id"
    r"|allowed_mentions\.(users|roles)\[\d+\]"
    r"|message_reference\.(message_id|channel_id|guild_id)"
    r"|recipient_id)$"
)
"""Where discord.py 2.7.1 sends a snowflake as a JSON integer (Discord accepts it; the spec says string):
attachment ids (upload indexes), allowed_mentions, message references, a DM's recipient. Only these are
let through (and listed in ``FakeDiscord.leniencies``); an integer snowflake anywhere else is a violation."""


def _pointer(*parts: str) -> str:
    """A JSON pointer (RFC 6901) to ``parts`` inside the document."""
    return "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in parts)


@dataclass(frozen=True)
class Parameter:
    name: str
    location: str
    required: bool
    schema: Mapping[str, Any]


@dataclass
class Operation:
    """One (method, path template) of the spec, with validators built on first use."""

    spec: Spec
    method: str
    template: str
    operation_id: str
    path_params: dict[str, Parameter]
    query_params: dict[str, Parameter]
    body_required: bool
    body_media_types: frozenset[str]
    requires_auth: bool
    """False when the operation's ``security`` allows an empty requirement (webhook-token routes)."""
    _validators: dict[str, Draft202012Validator] = field(default_factory=dict, repr=False)
    _seen: OrderedDict[tuple[str, bytes], tuple[str, ...]] = field(default_factory=OrderedDict, repr=False)
    _lenient_seen: dict[tuple[str, bytes], tuple[str, ...]] = field(default_factory=dict, repr=False)
    _fast_checks: dict[str, Callable[[str], bool] | None] = field(default_factory=dict, repr=False)

    def _validator(self, key: str, pointer: str, *, lenient: bool = False) -> Draft202012Validator:
        key = f"{key}:lenient" if lenient else key
        validator = self._validators.get(key)
        if validator is None:
            registry = self.spec.lenient_registry if lenient else self.spec.registry
            validator = Draft202012Validator({"$ref": f"{_DOC_URI}#{pointer}"}, registry=registry)
            self._validators[key] = validator
        return validator

    def _base_pointer(self) -> str:
        return _pointer("paths", self.template, self.method.lower())

    def validate_body(self, media_type: str, body: Any, raw: bytes | None = None) -> list[str]:
        """Schema errors for a request body sent as ``media_type`` (multipart: the payload_json part)."""
        return self.check_body(media_type, body, raw)[0]

    def check_body(self, media_type: str, body: Any, raw: bytes | None = None) -> tuple[list[str], list[str]]:
        """``(errors, leniencies)`` for a request body.

        The spec types every snowflake as a decimal *string*, but Discord's API also accepts JSON
        integers there, and discord.py sends some (attachment ``id`` indexes, allowed_mentions
        ``users``/``roles``...).  A body that only fails on that counts as valid; the strict errors it
        would have had come back as leniencies, so the fake can report which fields relied on it.
        """
        errors = self._strict_body(media_type, body, raw)
        if not errors or media_type not in self.body_media_types:
            return errors, []
        key = ("lenient", raw) if raw is not None else None
        if key is not None and key in self._lenient_seen:
            lenient_errors = list(self._lenient_seen[key])
        else:
            pointer = self._base_pointer() + _pointer(
                "requestBody", "content", self._schema_media(), "schema"
            )
            validator = self._validator(f"request:{self._schema_media()}", pointer, lenient=True)
            lenient_errors = _describe(validator.iter_errors(body))
            if key is not None and len(self._lenient_seen) < _CACHE_SIZE:
                self._lenient_seen[key] = tuple(lenient_errors)
        if lenient_errors:
            return lenient_errors, []
        unexpected = sorted(
            path
            for path in self._strict_error_paths(_stringify_allowed(body))
            if not INTEGER_SNOWFLAKES.search(path)
        )
        if unexpected:
            return [
                f"at {path}: a snowflake sent as a JSON integer (the spec says string)" for path in unexpected
            ], []
        return [], errors

    def _strict_error_paths(self, body: Any) -> set[str]:
        """The JSON paths the strict schema rejects, at the most specific branch of each error."""
        schema_media = self._schema_media()
        pointer = self._base_pointer() + _pointer("requestBody", "content", schema_media, "schema")
        paths: set[str] = set()
        for error in self._validator(f"request:{schema_media}", pointer).iter_errors(body):
            leaves = list(_leaves(error))
            depth = max(len(leaf.absolute_path) for leaf in leaves)
            paths.update(leaf.json_path for leaf in leaves if len(leaf.absolute_path) == depth)
        return paths

    def _schema_media(self) -> str:
        # multipart bodies are checked as their JSON payload, like Discord's own form parser does
        return (
            "application/json"
            if "application/json" in self.body_media_types
            else next(iter(self.body_media_types))
        )

    def _strict_body(self, media_type: str, body: Any, raw: bytes | None) -> list[str]:
        if media_type not in self.body_media_types:
            if not self.body_media_types:
                return [f"the spec defines no request body for {self.method} {self.template}"]
            allowed = ", ".join(sorted(self.body_media_types))
            return [f"request body as {media_type!r}; the spec allows {allowed}"]
        schema_media = self._schema_media()
        key = (f"request:{schema_media}", raw) if raw is not None else None
        if key is not None and key in self._seen:
            self._seen.move_to_end(key)
            return list(self._seen[key])
        pointer = self._base_pointer() + _pointer("requestBody", "content", schema_media, "schema")
        errors = _describe(self._validator(f"request:{schema_media}", pointer).iter_errors(body))
        if key is not None:
            self._remember(key, errors)
        return errors

    def validate_response(self, status: int, body: Any, raw: bytes | None = None) -> list[str]:
        """Schema errors for a JSON response the fake itself produced (catches bugs in the fake)."""
        code = str(status)
        responses = self.spec.operation_doc(self)["responses"]
        if code not in responses:
            family = f"{code[0]}XX"
            if family not in responses:
                return [f"status {status} is not a documented response of {self.operation_id}"]
            code = family
        response = responses[code]
        if "$ref" in response:
            return []  # shared error responses: the fake's error bodies are checked by hand
        content = response.get("content", {})
        if body is None:
            return [] if not content else [f"status {status} of {self.operation_id} needs a body"]
        if "application/json" not in content:
            return [f"status {status} of {self.operation_id} has no JSON body in the spec"]
        key = (f"response:{code}", raw) if raw is not None else None
        if key is not None and key in self._seen:
            self._seen.move_to_end(key)
            return list(self._seen[key])
        pointer = self._base_pointer() + _pointer("responses", code, "content", "application/json", "schema")
        errors = _describe(self._validator(f"response:{code}", pointer).iter_errors(body))
        if key is not None:
            self._remember(key, errors)
        return errors

    def _remember(self, key: tuple[str, bytes], errors: list[str]) -> None:
        self._seen[key] = tuple(errors)
        if len(self._seen) > _CACHE_SIZE:
            self._seen.popitem(last=False)

    def validate_path(self, values: Mapping[str, str]) -> list[str]:
        errors = []
        for name, value in values.items():
            param = self.path_params.get(name)
            if param is not None:
                errors += [f"path parameter {name}: {e}" for e in self._check_param(param, value)]
        return errors

    def validate_query(self, query: Iterable[tuple[str, str]]) -> list[str]:
        """Unknown query parameters and values that cannot be read as their declared schema."""
        errors: list[str] = []
        for name, value in query:
            param = self.query_params.get(name)
            if param is None:
                errors.append(f"query parameter {name}={value!r} is not in the spec")
                continue
            errors += [f"query parameter {name}: {e}" for e in self._check_param(param, value)]
        return errors

    def _check_param(self, param: Parameter, text: str) -> list[str]:
        key = f"param:{param.location}:{param.name}"
        fast = self._fast_checks.get(key, _UNSET)
        if fast is _UNSET:
            fast = self._fast_checks[key] = _fast_string_check(self.spec.resolve(param.schema))
        if fast is not None and fast(text):
            return []  # the common case (a well-formed snowflake or token) without jsonschema
        schema = self.spec.resolve(param.schema)
        kinds = schema.get("type", "string")
        kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        value: Any = text
        if "boolean" in kinds and text in _BOOL_TEXT:
            # Discord reads booleans in query strings from true/false as well as 1/0 (discord.py sends 1/0)
            value = _BOOL_TEXT[text]
        elif ("integer" in kinds or "number" in kinds) and re.fullmatch(r"-?\d+", text):
            value = int(text)
        validator = self._validators.get(key)
        if validator is None:
            # parameter schemas only $ref into components: make those references absolute
            validator = Draft202012Validator(_absolutize(param.schema), registry=self.spec.registry)
            self._validators[key] = validator
        return _describe(validator.iter_errors(value))


_UNSET: Any = object()


def _fast_string_check(schema: Mapping[str, Any]) -> Callable[[str], bool] | None:
    """A plain-Python test for ``{"type": "string", "pattern"?, "maxLength"?}`` schemas (snowflakes,
    tokens); None for anything else.  Only a pass is trusted: a failure is re-checked by jsonschema
    so that the message is the usual one."""
    if schema.get("type") != "string" or set(schema) - {
        "type",
        "pattern",
        "maxLength",
        "minLength",
        "format",
    }:
        return None
    pattern = re.compile(schema["pattern"]) if "pattern" in schema else None
    low, high = schema.get("minLength", 0), schema.get("maxLength", float("inf"))

    def check(text: str) -> bool:
        return low <= len(text) <= high and (pattern is None or pattern.search(text) is not None)

    return check


def _absolutize(schema: Any) -> Any:
    """Rewrite ``#/...`` references so that a schema lifted out of the document still resolves."""
    if isinstance(schema, dict):
        return {
            k: (_DOC_URI + v if k == "$ref" and isinstance(v, str) and v.startswith("#") else _absolutize(v))
            for k, v in schema.items()
        }
    if isinstance(schema, list):
        return [_absolutize(v) for v in schema]
    return schema


def _leaves(error: ValidationError) -> Iterable[ValidationError]:
    if not error.context:
        yield error
        return
    for sub in error.context:
        yield from _leaves(sub)


def _stringify_allowed(value: Any, path: str = "$") -> Any:
    """``value`` with the integers at paths Discord accepts as integer snowflakes made strings, so that
    a strict check of the rest is not misled by them (a oneOf body would otherwise blame another
    branch's deepest error)."""
    if isinstance(value, dict):
        return {key: _stringify_allowed(item, f"{path}.{key}") for key, item in value.items()}
    if isinstance(value, list):
        return [_stringify_allowed(item, f"{path}[{index}]") for index, item in enumerate(value)]
    if isinstance(value, int) and not isinstance(value, bool) and INTEGER_SNOWFLAKES.search(path):
        return str(value)
    return value


def _describe(errors: Iterable[ValidationError], limit: int = 3) -> list[str]:
    """Readable messages: for anyOf/oneOf failures, the deepest (most specific) branch errors."""
    out: list[str] = []
    for error in errors:
        leaves = list(_leaves(error))
        depth = max(len(leaf.absolute_path) for leaf in leaves)
        deepest = [leaf for leaf in leaves if len(leaf.absolute_path) == depth]
        messages: list[str] = []
        for leaf in deepest:
            instance = json.dumps(leaf.instance, default=str)
            if len(instance) > 80:
                instance = instance[:77] + "..."
            text = f"at {leaf.json_path}: {leaf.message if len(leaf.message) < 200 else leaf.validator}"
            text = text.replace(repr(leaf.instance), instance) if len(repr(leaf.instance)) > 80 else text
            if leaf.validator in ("maxLength", "minLength", "maxItems", "minItems"):
                text = f"at {leaf.json_path}: {leaf.validator} {leaf.validator_value} violated by {instance}"
            if text not in messages:
                messages.append(text)
        out.append("; ".join(messages[:limit]) if error.context else messages[0])
        if len(out) >= limit:
            break
    return out


class _Node:
    __slots__ = ("literal", "operations", "param", "param_name")

    def __init__(self) -> None:
        self.literal: dict[str, _Node] = {}
        self.param: _Node | None = None
        self.param_name: str | None = None
        self.operations: dict[str, str] | None = None  # method -> template


class Spec:
    """The parsed OpenAPI document, its ``$ref`` registry and a segment trie of its path templates."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.registry: Registry[Any] = Registry().with_resource(
            _DOC_URI, DRAFT202012.create_resource(document)
        )
        schemas = document["components"]["schemas"]
        lenient_snowflake = {
            "anyOf": [schemas["SnowflakeType"], {"type": "integer", "minimum": 0, "maximum": 2**64 - 1}]
        }
        lenient = {**document, "components": {**document["components"], "schemas": {**schemas}}}
        lenient["components"]["schemas"]["SnowflakeType"] = lenient_snowflake
        self.lenient_registry: Registry[Any] = Registry().with_resource(
            _DOC_URI, DRAFT202012.create_resource(lenient)
        )
        """Same document, but snowflakes may also be JSON integers (as Discord accepts in requests)."""
        self._root = _Node()
        self._operations: dict[tuple[str, str], Operation] = {}
        for template, item in document["paths"].items():
            node = self._root
            for segment in template.strip("/").split("/"):
                if segment.startswith("{") and segment.endswith("}"):
                    if node.param is None:
                        node.param = _Node()
                        node.param_name = segment[1:-1]
                    elif node.param_name != segment[1:-1]:
                        raise ValueError(f"conflicting parameter names under {template}")
                    node = node.param
                else:
                    node = node.literal.setdefault(segment, _Node())
            node.operations = {m.upper(): template for m in item if m in _METHODS}

    def resolve(self, schema: Mapping[str, Any]) -> Mapping[str, Any]:
        """Follow a top-level ``$ref`` (for parameter schemas)."""
        while "$ref" in schema:
            ref = schema["$ref"]
            assert ref.startswith("#/"), ref
            target: Any = self.document
            for part in ref[2:].split("/"):
                target = target[part.replace("~1", "/").replace("~0", "~")]
            schema = target
        return schema

    def match(self, method: str, path: str) -> tuple[Operation | None, str | None, dict[str, str]]:
        """The operation for a concrete API path (without ``/api/v10``).

        Returns ``(operation, template, path values)``; the operation is None when the template exists
        but not for this method, and the template is None when no template matches at all.  Literal
        segments win over parameters (``/messages/pins`` over ``/messages/{message_id}``).
        """
        segments = path.strip("/").split("/")
        found = self._walk(self._root, segments, 0, {})
        if found is None:
            return None, None, {}
        node, values = found
        assert node.operations is not None
        template = node.operations.get(method)
        if template is None:
            return None, next(iter(node.operations.values()), None), values
        return self.operation(method, template), template, values

    def _walk(
        self, node: _Node, segments: list[str], index: int, values: dict[str, str]
    ) -> tuple[_Node, dict[str, str]] | None:
        if index == len(segments):
            return (node, values) if node.operations is not None else None
        segment = segments[index]
        child = node.literal.get(segment)
        if child is not None:
            found = self._walk(child, segments, index + 1, values)
            if found is not None:
                return found
        if node.param is not None and segment:
            assert node.param_name is not None
            return self._walk(node.param, segments, index + 1, {**values, node.param_name: segment})
        return None

    def operation_doc(self, operation: Operation) -> dict[str, Any]:
        doc: dict[str, Any] = self.document["paths"][operation.template][operation.method.lower()]
        return doc

    def operation(self, method: str, template: str) -> Operation:
        key = (method, template)
        op = self._operations.get(key)
        if op is not None:
            return op
        item = self.document["paths"][template]
        doc = item[method.lower()]
        params: dict[tuple[str, str], Parameter] = {}
        for raw in [*item.get("parameters", []), *doc.get("parameters", [])]:
            raw = dict(self.resolve(raw))
            params[(raw["in"], raw["name"])] = Parameter(
                name=raw["name"],
                location=raw["in"],
                required=bool(raw.get("required", False)),
                schema=raw.get("schema", {}),
            )
        body = doc.get("requestBody")
        if body is not None and "$ref" in body:
            body = self.resolve(body)
        security = doc.get("security", self.document.get("security", []))
        op = Operation(
            spec=self,
            method=method,
            template=template,
            operation_id=doc.get("operationId", f"{method} {template}"),
            path_params={p.name: p for (loc, _), p in params.items() if loc == "path"},
            query_params={p.name: p for (loc, _), p in params.items() if loc == "query"},
            body_required=bool(body and body.get("required", False)),
            body_media_types=frozenset(body["content"]) if body else frozenset(),
            requires_auth=bool(security) and {} not in security,
        )
        self._operations[key] = op
        return op


@functools.cache
def load_spec(path: Path = SPEC_PATH) -> Spec:
    """The spec, parsed once per process (it is 1.2 MB; every test and the benchmark share it)."""
    with path.open("rb") as handle:
        return Spec(json.load(handle))
