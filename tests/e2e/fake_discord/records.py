"""What the fake records of the requests it answers, and what it is told to answer badly."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from aiohttp import web

if TYPE_CHECKING:
    from .messages import FakeAttachment


@dataclass
class Fault:
    """A request the fake answers badly, for the tests of what the bot says when Discord fails it:
    ``disconnect`` drops the connection before answering (aiohttp's ServerDisconnectedError), ``status``
    answers ``status`` with ``body`` and no ``Via`` header (a 429 so is Cloudflare's, not a rate limit),
    ``delay`` answers after ``delay`` seconds. It applies to the next ``times`` requests whose method and
    spec template match (``/interactions/{interaction_id}/{interaction_token}/callback``)."""

    method: str
    template: str
    kind: Literal["disconnect", "status", "delay"]
    status: int = 500
    body: dict[str, Any] = field(default_factory=lambda: {"message": "500: Internal Server Error", "code": 0})
    delay: float = 0.0
    times: int = 1


@dataclass
class Problem:
    """Something that fails the test at teardown (unless taken): kind + a readable explanation."""

    kind: str
    """spec | unhandled | rejected | forbidden | auth | gateway | internal | response | ratelimit"""
    detail: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.detail}"


@dataclass
class RecordedRequest:
    method: str
    path: str
    query: dict[str, str]
    template: str | None
    body: Any
    files: list[FakeAttachment]
    at: float
    status: int = 0
    response: Any = None
    answered_at: float = 0.0
    """When the fake sent its answer (``at``: when it came, after a ``delay`` fault's wait)."""


@dataclass
class Call:
    request: web.Request
    method: str
    path: str
    template: str
    params: dict[str, str]
    query: Mapping[str, str]
    body: Any
    files: list[FakeAttachment]
    record: RecordedRequest

    def int_param(self, name: str) -> int:
        return int(self.params[name])

    def flag(self, name: str, default: bool = False) -> bool:
        value = self.query.get(name)
        return default if value is None else value in ("1", "true", "True")


@dataclass
class Reply:
    status: int = 200
    body: Any = None


Handler = Callable[[Call], Awaitable[Reply]]
