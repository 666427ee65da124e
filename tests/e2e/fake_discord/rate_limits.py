"""Discord's rate limits as the fake enforces them: per-route buckets and the global 50 requests a second.

Discord publishes the rules, not the numbers (https://discord.com/developers/docs/topics/rate-limits):

* a **bucket** per route (method + path template) and *major parameter* (``channel_id``, ``guild_id``,
  or ``webhook_id`` + ``webhook_token``), answering ``X-RateLimit-Limit``, ``-Remaining``, ``-Reset``
  (epoch seconds), ``-Reset-After`` (seconds) and ``-Bucket`` (an opaque hash) on every answer;
* a **global** limit of 50 requests a second for a bot, which the endpoints of interactions (the
  callback, and the follow-ups and edits made with an interaction's token) are not bound to;
* over either, **429** with a JSON body ``{"message", "retry_after", "global"}``, a ``Retry-After``
  header, ``X-RateLimit-Scope`` (``user`` or ``global``) and a ``Via`` header (discord.py takes a 429
  without ``Via`` for Cloudflare's ban and raises instead of waiting).

The numbers in :data:`ROUTE_LIMITS` are the ones bots observe (5 messages per 5 s in a channel, 5
deletions a second, a reaction per quarter second, a channel's name or topic twice in 10 minutes...);
a route not listed gets :data:`DEFAULT_ROUTE_LIMIT`, so that only the global limit binds it.

A bucket's window opens at its first request and closes ``per`` seconds later (Discord's buckets reset
so). The global limit is counted over a *sliding* second, the stricter reading: no second, wherever it
starts, holds more than 50 requests the fake let through. Requests answered 429 do not count.
"""

from __future__ import annotations

import hashlib
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Literal

GLOBAL_PER_SECOND = 50


@dataclass(frozen=True)
class RouteLimit:
    limit: int
    """Requests a window allows."""
    per: float
    """Seconds a window lasts from its first request."""


MESSAGES = "/channels/{channel_id}/messages"
MESSAGE = "/channels/{channel_id}/messages/{message_id}"
REACTION = "/channels/{channel_id}/messages/{message_id}/reactions/{emoji_name}/@me"
ROUTE_LIMITS: dict[tuple[str, str], RouteLimit] = {
    ("POST", MESSAGES): RouteLimit(5, 5.0),
    ("PATCH", MESSAGE): RouteLimit(5, 5.0),
    ("DELETE", MESSAGE): RouteLimit(5, 1.0),
    ("PUT", REACTION): RouteLimit(1, 0.25),
    ("DELETE", REACTION): RouteLimit(1, 0.25),
    ("PATCH", "/channels/{channel_id}"): RouteLimit(2, 600.0),
    ("PATCH", "/guilds/{guild_id}/members/{user_id}"): RouteLimit(10, 10.0),
    ("POST", "/interactions/{interaction_id}/{interaction_token}/callback"): RouteLimit(5, 5.0),
    ("POST", "/webhooks/{webhook_id}/{webhook_token}"): RouteLimit(5, 2.0),
    ("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/@original"): RouteLimit(5, 2.0),
    ("PATCH", "/webhooks/{webhook_id}/{webhook_token}/messages/{message_id}"): RouteLimit(5, 2.0),
}
DEFAULT_ROUTE_LIMIT = RouteLimit(GLOBAL_PER_SECOND, 1.0)

MAJOR_PARAMETERS = ("channel_id", "guild_id", "webhook_id", "webhook_token", "interaction_id")
"""The path parameters that make a bucket of their own (an interaction's callback counts as a webhook:
discord.py keys it by the interaction's id and token)."""


def exempt_from_global(template: str, params: dict[str, str], application_id: int) -> bool:
    """Interaction endpoints are not bound to the bot's global rate limit: the callback, and the
    follow-ups and edits made with an interaction's token (a webhook whose id is the application's)."""
    if template.startswith("/interactions/"):
        return True
    return template.startswith("/webhooks/{webhook_id}/{webhook_token}") and params.get("webhook_id") == str(
        application_id
    )


@dataclass
class RateLimitHit:
    """A 429 the fake sent."""

    method: str
    path: str
    template: str
    scope: Literal["user", "global"]
    retry_after: float
    at: float
    """``time.perf_counter()`` when it was sent (the clock of :class:`RecordedRequest`)."""

    def __str__(self) -> str:
        return f"429 ({self.scope}) to {self.method} {self.path}: retry after {self.retry_after:.3f} s"


@dataclass
class _Window:
    opened: float
    used: int = 0


@dataclass
class Verdict:
    """What the limits say of one request: the headers of its answer, and a 429 body if refused."""

    headers: dict[str, str]
    refused: dict[str, object] | None = None
    hit: RateLimitHit | None = None


@dataclass
class RateLimits:
    """The buckets and the global window of one fake Discord. ``enabled`` off: no limits, no headers."""

    enabled: bool = True
    per_route: bool = True
    """Off: every route gets :data:`DEFAULT_ROUTE_LIMIT` (the global limit still binds), for a test that
    plays in seconds what a table does over minutes or days."""
    global_per_second: int = GLOBAL_PER_SECOND
    routes: dict[tuple[str, str], RouteLimit] = field(default_factory=lambda: dict(ROUTE_LIMITS))
    default: RouteLimit = DEFAULT_ROUTE_LIMIT
    _windows: dict[tuple[str, str, tuple[str, ...]], _Window] = field(default_factory=dict)
    _global: deque[float] = field(default_factory=deque)

    def limit_of(self, method: str, template: str) -> RouteLimit:
        return self.routes.get((method, template), self.default) if self.per_route else self.default

    def check(
        self, method: str, path: str, template: str, params: dict[str, str], *, exempt: bool
    ) -> Verdict:
        """Count the request against its bucket and (unless ``exempt``) the global limit, at arrival."""
        if not self.enabled:
            return Verdict({})
        now = time.monotonic()
        route = self.limit_of(method, template)
        major = tuple(params[name] for name in MAJOR_PARAMETERS if name in params)
        key = (method, template, major)
        window = self._windows.get(key)
        if window is None or now >= window.opened + route.per:
            window = self._windows[key] = _Window(now)
        reset_after = window.opened + route.per - now
        bucket = hashlib.sha1(f"{method} {template}".encode()).hexdigest()[:16]

        def headers(remaining: int) -> dict[str, str]:
            return {
                "X-RateLimit-Limit": str(route.limit),
                "X-RateLimit-Remaining": str(remaining),
                "X-RateLimit-Reset": f"{time.time() + reset_after:.3f}",
                "X-RateLimit-Reset-After": f"{reset_after:.3f}",
                "X-RateLimit-Bucket": bucket,
            }

        if window.used >= route.limit:
            return self._refuse(method, path, template, "user", reset_after, headers(0))
        if not exempt:
            while self._global and self._global[0] <= now - 1.0:
                self._global.popleft()
            if len(self._global) >= self.global_per_second:
                retry = self._global[0] + 1.0 - now
                refused = {"X-RateLimit-Global": "true"}
                return self._refuse(method, path, template, "global", retry, refused)
            self._global.append(now)
        window.used += 1
        return Verdict(headers(route.limit - window.used))

    @staticmethod
    def _refuse(
        method: str,
        path: str,
        template: str,
        scope: Literal["user", "global"],
        retry_after: float,
        headers: dict[str, str],
    ) -> Verdict:
        retry_after = max(retry_after, 0.001)
        hit = RateLimitHit(method, path, template, scope, round(retry_after, 3), time.perf_counter())
        headers = {
            **headers,
            "Retry-After": str(max(1, int(retry_after + 0.999))),
            "X-RateLimit-Scope": scope,
            "Via": "1.1 google",
        }
        body: dict[str, object] = {
            "message": "You are being rate limited.",
            "retry_after": hit.retry_after,
            "global": scope == "global",
        }
        return Verdict(headers, body, hit)
