"""What /morale shows: a check's rolls and what its standings mean, the proposals waiting for the GM and
their buttons, a standing ruled (R21, R22)."""

from __future__ import annotations

from bot.catalog import load_catalog
from bot.encounter.document import Encounter
from bot.encounter.morale import check_group
from bot.encounter.records import MoraleProposal
from bot.rules.dice import ScriptedDice
from bot.rules.morale import MoraleStanding, MoraleTriggerReason
from bot.ui.morale_views import (
    MORALE_PROPOSAL_BUTTON,
    check_announcement,
    proposal_button,
    proposal_dismissed_reply,
    proposal_empty_reply,
    proposals_reply,
    standing_reply,
)

CATALOG = load_catalog()
GM = 9


def bandits() -> Encounter:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=GM)
    encounter.add_npcs(CATALOG.monster("bandit"), None, count=2, group="Bandits")
    return encounter


def proposal() -> MoraleProposal:
    return MoraleProposal(
        id=3,
        group="Bandits",
        reason=MoraleTriggerReason.LEADER_LOST,
        detail="Bandit 1, the leader, is down.",
        round=2,
    )


def test_r21_a_check_shows_each_roll_the_verdict_and_what_routed_means() -> None:
    encounter = bandits()
    report = check_group(encounter, "Bandits", ScriptedDice([15, 3]))
    announcement = check_announcement(encounter, report, who="Bandits", actor_id=GM)
    lines = announcement.content.splitlines()
    assert lines[:4] == [
        "😨 **Morale check** for **Bandits** (R21: 11+ holds)",
        "• **Bandit 1**: **15** +0 morale = `15` vs 11 → ✅ holds",
        "• **Bandit 2**: **3** +0 morale = `3` vs 11 → 🏃 **Routed**",
        "**1 of 2 hold.**",
    ]
    assert lines[4].startswith("Routed: flees by the nearest safe way")
    assert announcement.ping == []  # the GM rolled it: nobody else to tell


def test_r22_no_proposal_says_how_one_comes_and_a_waiting_one_is_listed() -> None:
    encounter = bandits()
    assert proposals_reply(encounter).startswith("No morale check is waiting (R22).")
    encounter.morale_proposals.append(proposal())
    assert proposals_reply(encounter).splitlines() == [
        "**Morale checks waiting for the GM** (1):",
        "😨 #3 **Bandits** should check morale (R22) (round 2): Bandit 1, the leader, is down.",
    ]


def test_r22_a_proposals_button_carries_its_id_and_the_fight() -> None:
    encounter = bandits()
    button = proposal_button(proposal(), encounter.tag)
    assert button.label == "Roll morale: Bandits"
    pressed = MORALE_PROPOSAL_BUTTON.fullmatch(button.custom_id or "")
    assert pressed is not None
    assert (pressed["proposal"], pressed["fight"], pressed["action"]) == ("3", encounter.tag, None)


def test_r22_a_proposal_dismissed_or_settled_says_nothing_was_rolled() -> None:
    assert proposal_dismissed_reply(proposal(), "Gamemaster") == (
        "🚫 Gamemaster decided **Bandits** makes no morale check for proposal #3 (leader lost). "
        "Nothing was rolled."
    )
    assert "settled without a roll" in proposal_empty_reply(proposal())


def test_r21_a_standing_ruled_by_the_gm_says_what_it_means() -> None:
    encounter = bandits()
    bandit = encounter.combatant("Bandit 2")
    bandit.standing = MoraleStanding.ROUTED
    reply = standing_reply(bandit, MoraleStanding.STEADY, "Gamemaster")
    assert reply.startswith("🎭 Gamemaster rules that **Bandit 2** is now **routed** (was steady). Routed: ")
    assert reply.endswith("(`/morale recheck`, R21).")
