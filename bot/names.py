"""Names and other text users typed, as a refusal message quotes them back.

Refusals are written here in the core, which knows nothing of Discord, and shown as they are: so a
name in one has its Markdown escaped here, and text echoed back is clipped, or a long enough value
would push the message past Discord's 2000 characters and the user would get no answer at all.
"""

from __future__ import annotations

MARKDOWN = frozenset("\\*_~`|>#-[]")
"""The characters Discord's Markdown gives a meaning (discord.utils.escape_markdown escapes the same)."""
ECHO_LIMIT = 60
"""The most characters of an unrecognised value a refusal repeats."""


def shown(text: str) -> str:
    """``text`` with every Markdown character backslash-escaped, so it reads exactly as typed."""
    return "".join(f"\\{char}" if char in MARKDOWN else char for char in text)


def echoed(text: str, limit: int = ECHO_LIMIT) -> str:
    """Text a user typed, at most ``limit`` characters of it ("…" marks a cut), escaped like :func:`shown`."""
    clipped = text if len(text) <= limit else f"{text[: limit - 1]}…"
    return shown(clipped)
