"""An announcement within Discord's limits: its longest lines give way, never inside a mention or a link;
and the listing of names within a budget that the announcements share."""

from __future__ import annotations

from bot.ui.announcements import CONTENT_LIMIT, cut, fitted
from bot.wording.phrases import listing


def test_listing_counts_what_did_not_fit() -> None:
    assert listing(["aa", "bb", "cc"], ", ", 6) == "aa, bb, … and 1 more (see the tracker)"
    assert listing(["aa", "bb"], ", ", 100) == "aa, bb"


def test_listing_with_a_first_item_too_long_starts_with_the_count() -> None:
    assert listing(["x" * 50], " · ", 10) == "… and 1 more (see the tracker)"


def test_a_long_message_gives_way_in_its_longest_line_and_keeps_the_short_ones_whole() -> None:
    crowd = ", ".join(f"Sworn Blade {n}" for n in range(200))
    lines = [
        f"⚔️ **Alice** attacks **Bob** (2+ attackers: {crowd})",
        "💥 **Critical hit!**",
        "❤️ **Bob**: HP 4",
    ]
    text = fitted(lines)
    assert len(text) == CONTENT_LIMIT
    first, *rest = text.splitlines()
    assert first.startswith("⚔️ **Alice** attacks **Bob** (2+ attackers: Sworn Blade 0, ")
    assert first.endswith("…")
    assert rest == lines[1:]


def test_a_line_is_never_cut_inside_a_mention_a_timestamp_a_link_an_escape_or_an_open_bold() -> None:
    assert cut("ping <@123456789012345678> now", 14) == "ping…"
    assert cut("by <t:1700000000:t> then", 12) == "by…"
    assert cut("in [this message](https://discord.com/channels/1/2/3) above", 30) == "in…"
    assert cut("**Bandit 1** and **Bandit 2** flee", 24) == "**Bandit 1** and…"
    assert cut("rolled ~~18~~ and ~~7~~ then", 21) == "rolled ~~18~~ and…"
    assert cut("Zed\\*\\*\\* went", 5) == "Zed…"
    assert cut("Zed\\*\\*\\* went", 6) == "Zed\\*…"
    assert cut("short", 10) == "short"
