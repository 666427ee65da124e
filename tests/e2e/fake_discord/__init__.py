"""A fake Discord (gateway + REST v10) on 127.0.0.1 for end-to-end tests of the real bot.

discord.py talks to it exactly as it talks to Discord: the harness points ``discord.http.Route.BASE`` and
``DiscordWebSocket.DEFAULT_GATEWAY`` here.  The fake keeps an in-memory model of what users would see
(guilds, members, roles, channels, messages, interaction responses) so tests assert on outcomes rather
than on calls.  It is deliberately strict, because a lenient fake hides the bugs that production finds:

* every request is matched to an operation of Discord's OpenAPI document and validated against it
  (see ``openapi.py``); anything outside the spec or failing it is a *problem*;
* routes the fake does not implement answer a loud 404 and are a problem too;
* requests Discord would refuse (a second interaction callback, an empty message, editing another
  user's message, a callback after the 3 s deadline, missing permissions) answer like Discord and are
  recorded as problems.

The test fixture fails a test at teardown when problems were recorded, unless the test took them with
:meth:`FakeDiscord.take_problems` (for tests that provoke them on purpose).

Nothing here depends on the bot; the binding to a running bot lives in ``harness.py``.

Its parts: ``model`` (users, roles, members, channels, guilds), ``messages``, ``gateway``,
``interactions`` (callbacks, follow-ups, webhook edits, token lifetimes), ``rest`` (the other routes, a
module a resource), ``limits`` (Discord's limits the spec cannot say), ``rate_limits`` (Discord's
per-route buckets and global limit: every 429 sent is recorded and is a problem unless the test takes
it; ``latency`` adds a round trip to every answer), ``validation`` (the HTTP front
that checks every request against the spec), ``state`` (what they share) and ``server`` (``FakeDiscord``,
which ties them); ``world`` builds the cast most tests need.
"""

from .errors import CommandNotVisible, DiscordError, DispatchError
from .interactions import CallbackRecord, EditRecord, FakeInteraction
from .limits import EPHEMERAL
from .messages import FakeAttachment, FakeMessage
from .model import ADMINISTRATOR, ALL_PERMISSIONS, FakeChannel, FakeGuild, FakeMember, FakeRole, FakeUser
from .rate_limits import RateLimitHit, RateLimits, RouteLimit
from .records import Problem, RecordedRequest
from .server import FakeDiscord
from .world import World, build_world

__all__ = [
    "ADMINISTRATOR",
    "ALL_PERMISSIONS",
    "EPHEMERAL",
    "CallbackRecord",
    "CommandNotVisible",
    "DiscordError",
    "DispatchError",
    "EditRecord",
    "FakeAttachment",
    "FakeChannel",
    "FakeDiscord",
    "FakeGuild",
    "FakeInteraction",
    "FakeMember",
    "FakeMessage",
    "FakeRole",
    "FakeUser",
    "Problem",
    "RateLimitHit",
    "RateLimits",
    "RecordedRequest",
    "RouteLimit",
    "World",
    "build_world",
]
