"""What /init announces: self-contained, within Discord's limits, pinging only who it names."""

from __future__ import annotations

from bot.catalog import load_catalog
from bot.encounter.document import MAX_COMBATANTS, Encounter
from bot.encounter.results import TurnAction, TurnMove
from bot.rules.dice import RandomDice
from bot.ui.init_views import turn_announcement
from bot.wording.initiative import initiative_log_line

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
