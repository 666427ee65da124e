"""The one error base of the rules core; its message is written for a player.

Refusals are written in the core, which knows nothing of Discord, and shown as they are: so a
name in one has its Markdown escaped here (:func:`shown`), and text echoed back is clipped
(:func:`echoed`), or a long enough value would push the message past Discord's 2000 characters and
the user would get no answer at all.
"""


class RulesError(Exception):
    """A request the rules refuse. ``str(error)`` says what was wrong and what would work."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotEnoughDice(RulesError):
    """R7: a spend larger than what is left in the Martial Pool."""

    def __init__(self, wanted: int, left: int, purpose: str) -> None:
        dice = "die" if left == 1 else "dice"
        super().__init__(
            f"You asked for {wanted} {'die' if wanted == 1 else 'dice'} for {purpose}, "
            f"but only {left} {dice} remain in your Martial Pool this round. Nothing was spent."
        )
        self.wanted = wanted
        self.left = left


class IllegalAction(RulesError):
    """An action the rules do not allow in the present state (wrong range, wrong turn, ...)."""


MARKDOWN = frozenset("\\*_~`|>#-[]<@")
"""The characters Discord's Markdown gives a meaning, and ``<`` and ``@``, which start a mention
(``<@4001>``, ``<@&5>``, ``<#6>``, ``@everyone``), a custom emoji or a timestamp: escaped, a name typed
as ``<@4001>`` reads as typed instead of showing as another member's mention."""
_ESCAPED = str.maketrans({char: f"\\{char}" for char in MARKDOWN})
"""Each of :data:`MARKDOWN` to itself behind a backslash: one pass in C (:meth:`str.translate`) where a
name is shown, which the tracker does for everyone at every drawing."""
ECHO_LIMIT = 60
"""The most characters of an unrecognised value a refusal repeats."""


def shown(text: str) -> str:
    """``text`` with every Markdown and mention character backslash-escaped, so it reads exactly as
    typed: the one way every name a user typed is shown, in replies, embeds, the tracker and the log."""
    return text.translate(_ESCAPED)


def echoed(text: str, limit: int = ECHO_LIMIT) -> str:
    """Text a user typed, at most ``limit`` characters of it ("…" marks a cut), escaped like :func:`shown`."""
    clipped = text if len(text) <= limit else f"{text[: limit - 1]}…"
    return shown(clipped)
