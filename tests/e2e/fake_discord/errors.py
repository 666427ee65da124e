"""How the fake refuses: as Discord answers a request, or as a test asks what no client would send."""

from __future__ import annotations


class DiscordError(Exception):
    """An error answer as Discord gives it: a status, a JSON error code and a message.

    ``kind`` sorts it for the teardown check: ``not_found`` (unknown resources) is tolerated because a
    bot may legitimately race a deletion; every other kind is a problem that fails the test.
    """

    def __init__(self, status: int, code: int, message: str, *, kind: str = "rejected") -> None:
        super().__init__(f"{status} {message} (code {code})")
        self.status = status
        self.code = code
        self.message = message
        self.kind = kind


class DispatchError(AssertionError):
    """A test asked the fake for something Discord's client would never send (unknown command...)."""


class CommandNotVisible(DispatchError):
    """The user may not use this command here: Discord's client would not even offer it."""
