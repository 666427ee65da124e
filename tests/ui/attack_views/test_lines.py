"""The lines messages about an attack are made of: every die shown (R9), the whole within Discord's
2,000 characters, its outcome never cut."""

from __future__ import annotations

from bot.rules.dice import Modifier, PoolRoll
from bot.ui.announcements import CONTENT_LIMIT
from bot.ui.attack_views.lines import breakdown, clip, notes_lines, stray_line


def test_r9_a_breakdown_shows_every_die_and_strikes_those_that_do_not_count() -> None:
    roll = PoolRoll(faces=(7, 14), committed=2, counting=1)
    bonus = [
        Modifier(label="Prowess", value=2),
        Modifier(label="Reach", value=3),
        Modifier(label="Joker", value=0),
    ]
    assert breakdown(roll, bonus) == "~~7~~, **14** +2 Prowess +3 Reach = **19**"


def test_a_breakdown_without_a_roll_keeps_every_modifier() -> None:
    assert (
        breakdown(None, [Modifier(label="Base", value=8), Modifier(label="Dex", value=0)])
        == "+8 Base +0 Dex = **8**"
    )


def test_a_long_message_gives_way_in_its_longest_line_and_keeps_the_outcome() -> None:
    crowd = ", ".join(f"Sworn Blade {n}" for n in range(300))
    text = clip(f"⚔️ **Alice** attacks **Bob** ({crowd})\n💥 **Hit**\n❤️ **Bob**: HP 4")
    assert len(text) <= CONTENT_LIMIT
    assert text.splitlines()[1:] == ["💥 **Hit**", "❤️ **Bob**: HP 4"]


def test_r25_a_fumble_into_the_melee_names_the_ally_it_hits_or_lets_the_gm_pick() -> None:
    assert stray_line(["*Ann*"], "Bob").startswith(
        "🎯 Shooting into the melee, the fumble hits **\\*Ann\\*** instead"
    )
    assert "the GM picks which" in stray_line(["Ann", "Cy"], "Bob")
    assert notes_lines(["uphill", "in cover"]) == ["📌 uphill", "📌 in cover"]
