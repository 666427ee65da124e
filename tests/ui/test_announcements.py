"""Announcements of the initiative: self-contained, within Discord's limits, pinging only who they name."""

from __future__ import annotations

from bot.catalog import load_catalog
from bot.encounter.document import MAX_COMBATANTS, Encounter
from bot.encounter.results import TurnAction, TurnMove
from bot.rules.dice import RandomDice
from bot.ui.announcements import CONTENT_LIMIT, cut, fitted, turn_announcement
from bot.wording.initiative import initiative_log_line
from bot.wording.phrases import listing

GM, ACTOR = 1, 2
CATALOG = load_catalog()


def fight_of_groups(count: int, name_length: int = 60) -> Encounter:
    encounter = Encounter(channel_id=10, guild_id=20, gm_id=GM)
    template = CATALOG.monster("bandit")
    for n in range(count):
        name = f"{n:02d} " + "@everyone *bold* " * 10
        encounter.add_npcs(template, None, count=1, name=name[:name_length].strip())
    return encounter


def deal(encounter: Encounter, actor_id: int, seed: int = 3) -> TurnMove:
    dealt, advance = encounter.deal(RandomDice.seeded(seed))
    return TurnMove(TurnAction.DEAL, advance, actor_id, dealt)


def next_turn(encounter: Encounter, actor_id: int) -> TurnMove:
    return TurnMove(TurnAction.NEXT, encounter.next_turn(), actor_id)


def test_a_deal_to_every_card_of_the_deck_stays_within_2000_characters() -> None:
    """R2: up to 54 cards in one deal; the announcement lists what fits and points at the tracker."""
    encounter = fight_of_groups(min(MAX_COMBATANTS, 54))
    move = deal(encounter, ACTOR)
    announcement = turn_announcement(encounter, move)
    assert move.dealt is not None
    assert len(move.dealt.dealt) == 54
    assert len(announcement.content) <= 2000
    assert "more (see the tracker)" in announcement.content
    assert "@everyone \\*bold\\*" in announcement.content  # typed names are escaped text
    assert announcement.ping == [GM]  # the NPCs' turn wakes the GM, nobody else


def test_the_user_who_pressed_is_never_pinged() -> None:
    encounter = fight_of_groups(2)
    assert turn_announcement(encounter, deal(encounter, GM)).ping == []
    nxt = turn_announcement(encounter, next_turn(encounter, GM))
    assert nxt.ping == []
    mentions = nxt.allowed_mentions.to_dict()
    assert mentions["parse"] == []
    assert mentions.get("users", []) == []


def test_listing_counts_what_did_not_fit() -> None:
    assert listing(["aa", "bb", "cc"], ", ", 6) == "aa, bb, … and 1 more (see the tracker)"
    assert listing(["aa", "bb"], ", ", 100) == "aa, bb"


def test_the_log_keeps_plain_text_without_markdown_or_mentions() -> None:
    """The fight's log is shown escaped: what it keeps must read right as plain text."""
    encounter = Encounter(channel_id=10, guild_id=20, gm_id=GM)
    encounter.add_npcs(CATALOG.monster("bandit"), None, count=1, name="Ansel_the *Bold*")
    move = deal(encounter, ACTOR)
    announcement = turn_announcement(encounter, move)
    assert "**Ansel\\_the \\*Bold\\***" in announcement.content
    line = initiative_log_line(encounter, move)
    assert "Ansel_the *Bold*'s turn" in line
    assert "**" not in line
    assert "<@" not in line
    assert "\n" not in line


def test_a_player_with_many_long_named_characters_stays_within_the_limits() -> None:
    """R2: a player's characters all act on one card, which is named after them all."""
    from bot.characters import Character

    encounter = Encounter(channel_id=10, guild_id=20, gm_id=GM)
    for n in range(30):
        sheet = Character(
            name=f"{n:02d}" + "_" * 62,
            prowess=1,
            dexterity=0,
            wisdom=0,
            charisma=0,
            proficiency=0,
            hp=5,
            weapon="arming_sword",
        )
        encounter.join(ACTOR, sheet, None)
    encounter.add_npcs(CATALOG.monster("bandit"), None, count=1)
    announcement = turn_announcement(encounter, deal(encounter, GM))
    assert len(announcement.content) <= 2000
    nxt = turn_announcement(encounter, next_turn(encounter, GM))
    assert len(nxt.content) <= 2000
    assert "…" in announcement.content


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
