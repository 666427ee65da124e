"""The fight's record: the summary at its end (R5), log lines and privacy, the Markdown log file."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from pydantic import JsonValue

from bot.catalog import load_catalog
from bot.characters import Character
from bot.encounter.document import Encounter
from bot.encounter.lifecycle import EndedFight
from bot.fight_views import is_private, visible_to
from bot.store import LogEntry
from bot.ui.fight_log import (
    ENTRY_LIMIT,
    fight_summary,
    hidden_private,
    log_filename,
    log_line,
    log_lines,
    log_markdown,
)
from bot.ui.tracker import DESCRIPTION_LIMIT

CATALOG = load_catalog()
STARTED = datetime(2026, 3, 14, 18, 30, tzinfo=UTC)


def fight() -> Encounter:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9, started_at=STARTED)
    alice = Character(
        name="Alice *the* Bold",
        prowess=2,
        dexterity=1,
        wisdom=0,
        charisma=0,
        proficiency=2,
        hp=14,
        weapon="arming_sword",
    )
    encounter.join(7, alice, CATALOG.armor(alice.armor))
    bandit = CATALOG.monster("bandit")
    encounter.add_npcs(bandit, CATALOG.armor("light_gambeson"), count=2)
    encounter.combatant("Bandit 1").hp = -3
    encounter.combatant("Bandit 2").conditions.append("prone")
    encounter.initiative.round = 4
    return encounter


def ended() -> EndedFight:
    return EndedFight.of(fight())


def entry(
    text: str, *, user: int = 7, private: bool | None = None, minutes: int = 1, id: int = 1, by: str = ""
) -> LogEntry:
    data: dict[str, JsonValue] = {} if private is None else {"private": private}
    if by:
        data["by"] = by
    return LogEntry(
        id=id,
        at=STARTED + timedelta(minutes=minutes),
        guild_id=1,
        channel_id=5,
        user_id=user,
        kind="roll" if private is not None else "encounter",
        text=text,
        data=data,
    )


def test_r5_the_summary_gives_rounds_game_time_and_everyones_end() -> None:
    summary = fight_summary(ended())
    assert summary.startswith("**Fight over** after 4 rounds (24 s); the fight counts as one 10-minute turn.")
    assert "GM: <@9>" in summary
    assert "Alice \\*the\\* Bold: HP 14/14" in summary
    assert "Bandit 1: HP -3/11 · **down**" in summary
    assert "Bandit 2: HP 11/11 · prone" in summary


def test_the_summary_of_a_huge_fight_fits_an_embed() -> None:
    encounter = fight()
    for combatant in encounter.combatants:
        combatant.conditions = [f"{'x' * 30}{n}" for n in range(8)]
    encounter.combatants = encounter.combatants * 20
    summary = fight_summary(EndedFight.of(encounter))
    assert len(summary) <= DESCRIPTION_LIMIT
    # Everyone's end is told (conditions give way first), none is left out.
    assert summary.count("Bandit 1: HP -3/11 · **down**") == 20
    assert summary.count("Alice \\*the\\* Bold: HP 14/14") == 20
    assert "more lines" not in summary


def test_only_the_gm_and_the_roller_see_a_private_roll() -> None:
    secret = entry("Bob rolled 1d20 = 4", user=8, private=True)
    assert is_private(secret)
    assert visible_to(secret, 8, gm=False)
    assert visible_to(secret, 9, gm=True)
    assert not visible_to(secret, 7, gm=False)
    public = entry("Alice rolled 1d20 = 12", private=False)
    assert not is_private(public)
    assert visible_to(public, 8, gm=False)


def test_a_log_line_shows_the_time_in_each_readers_zone_and_escapes_the_text() -> None:
    line = log_line(entry("Bob rolled `1d20` **loud**", private=True))
    stamp = int((STARTED + timedelta(minutes=1)).timestamp())
    assert line == f"<t:{stamp}:f> Bob rolled \\`1d20\\` \\*\\*loud\\*\\* *(private)*"


def test_log_lines_keep_the_latest_that_fit_and_say_what_is_missing() -> None:
    entries = [entry(f"line {n} " + "x" * 200, id=n) for n in range(40)]
    text = log_lines(entries, hidden=2, limit=1000)
    assert len(text) <= 1000
    assert "line 39" in text
    assert "line 0 " not in text
    assert "earlier entries did not fit" in text
    assert "2 private roll entries of other players not shown" in text
    assert log_lines([], hidden=0) == "Nothing logged yet."


def test_the_latest_entry_shows_even_when_it_is_longer_than_the_embed() -> None:
    """Removing a group of 60 NPCs with long names logs them all: the entry is cut, not left out."""
    names = ", ".join(f"{'_' * 61} {n}" for n in range(1, 61))
    entries = [entry("GM dealt", id=1), entry(f"GM removed {names} from the fight", id=2)]
    text = log_lines(entries)
    assert len(text) <= DESCRIPTION_LIMIT
    assert "GM removed \\_\\_" in text
    assert text.endswith("…")
    assert len(log_line(entries[1])) <= ENTRY_LIMIT + 20


def test_the_gms_log_file_holds_every_entry_private_ones_marked() -> None:
    entries = [
        entry("Gamemaster started a fight", minutes=0),
        entry("Bob rolled 1d20 = 4", user=8, private=True, minutes=2),
        entry("Alice rolled 1d20 = 17", private=False, minutes=3),
    ]
    end = STARTED + timedelta(minutes=30)
    document = log_markdown(ended(), entries, channel="#table", ended_at=end, full=True)
    assert document.startswith("# Fight log: #table\n")
    assert "- Started: 2026-03-14 18:30:00 UTC" in document
    assert "- Ended: 2026-03-14 19:00:00 UTC" in document
    assert "- Length: 4 rounds (24 s)" in document
    assert "- `18:30:00` Gamemaster started a fight\n" in document
    assert "- `18:32:00` Bob rolled 1d20 = 4 *(private)*\n" in document
    assert "- `18:33:00` Alice rolled 1d20 = 17\n" in document
    assert "## Final state" in document
    assert "- Bandit 1: HP -3/11 · **down**" in document
    assert "- Private rolls: 1, marked *(private)*" in document
    assert log_filename(ended()) == "fight-log-2026-03-14-1830.md"
    assert log_filename(ended(), full=True) == "fight-log-2026-03-14-1830-full.md"


def test_a_log_file_for_anyone_else_never_shows_a_private_rolls_dice() -> None:
    """The channel's attachment shows who rolled privately, not what; a player's own copy has their own."""
    entries = [
        entry("Bob rolled 1d20 = 4", user=8, private=True, minutes=2, by="Bob"),
        entry("Alice rolled 1d6 = 3", user=7, private=True, minutes=3, by="Alice"),
        entry("Gamemaster rolled 2d6 = 9", user=9, private=True, minutes=4),
        entry("Alice rolled 1d20 = 17", private=False, minutes=5),
    ]
    end = STARTED + timedelta(minutes=30)
    public = log_markdown(ended(), entries, channel="#table", ended_at=end)
    assert "1d20 = 4" not in public
    assert "1d6 = 3" not in public
    assert "2d6 = 9" not in public
    assert "- `18:32:00` *(a private roll by Bob)*\n" in public
    assert "- `18:34:00` *(a private roll)*\n" in public  # an entry that does not say who rolled
    assert "- `18:35:00` Alice rolled 1d20 = 17\n" in public
    assert "- Private rolls: 3 shown without their dice; the GM's copy has them" in public
    assert hidden_private(entries, reader=None, full=False) == 3

    alices = log_markdown(ended(), entries, channel="#table", ended_at=end, reader=7)
    assert "- `18:33:00` Alice rolled 1d6 = 3 *(private)*\n" in alices
    assert "1d20 = 4" not in alices
    assert "- Private rolls: 2 shown without their dice" in alices
    assert hidden_private(entries, reader=7, full=False) == 2
    assert hidden_private(entries, reader=7, full=True) == 0
