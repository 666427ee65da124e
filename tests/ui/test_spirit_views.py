"""How the spirits' commands read (R27): both rolls with their totals, the score drained and what befalls
the defender at 0; the spirit driven out; the mind healed."""

from __future__ import annotations

from bot.catalog import load_catalog
from bot.encounter.document import Encounter
from bot.encounter.permissions import Actor
from bot.encounter.results import SpiritAttack
from bot.encounter.spirits import drive_out, heal_mind, make_spiritual_attack
from bot.rules.dice import ScriptedDice
from bot.rules.spirits import SpiritProtection, SpiritTarget
from bot.ui.spirit_views import driven_out_reply, mind_healed_reply, protection_choice_name, spirit_reply
from tests.rules.conftest import deck_dealing
from tests.sheets import character

CATALOG = load_catalog()
GM = Actor(user_id=1)


def haunted() -> Encounter:
    """Ansel (player 11, CHA -1) and a Ghost (the GM's), the Ghost's K♠ first."""
    encounter = Encounter(channel_id=100, guild_id=10, gm_id=GM.user_id)
    sheet = character("Ansel")
    encounter.join(11, sheet, CATALOG.armor(sheet.armor))
    encounter.add_npcs(CATALOG.monster("ghost"), None, count=1)
    encounter.initiative.deck = deck_dealing("2C", "KS")
    encounter.deal(ScriptedDice([]))
    return encounter


def drained(encounter: Encounter, damage: int) -> SpiritAttack:
    """The Ghost's 15 +3 against Ansel's CHA, rolled 4 and 9 at disadvantage."""
    return make_spiritual_attack(
        encounter,
        GM,
        ScriptedDice([15, 4, 9]),
        who=None,
        target="Ansel",
        ability=SpiritTarget.CHA,
        modifier=3,
        defender_modifier=None,
        defender_score=None,
        protection=None,
        confirmed=False,
        proficiency=None,
        communion=False,
        damage=damage,
        damage_dice=None,
    ).result


def test_r27_a_won_attack_shows_both_rolls_and_the_score_drained() -> None:
    lines = spirit_reply(drained(haunted(), 2)).splitlines()
    assert lines == [
        "👻 **Ghost** makes a spiritual attack on **Ansel**'s CHA (R27)",
        "Ghost: d20 (**15**) +3 spirit = `18`",
        "Ansel: 2d20 (**4**, ~~9~~) -1 CHA = `3` (at disadvantage: no protection)",
        "**Ghost wins**: 2 CHA drained — CHA (rated 7 + modifier) 6 → **4**",
    ]


def test_r27_cha_drained_to_0_possesses_the_defender_until_driven_out() -> None:
    lines = spirit_reply(drained(haunted(), 10)).splitlines()
    assert lines[-2:] == [
        "CHA 0: **Ansel is possessed by the spirit** (now a condition on Ansel).",
        "🎭 Ghost now controls Ansel's body: the GM plays Ansel until the spirit is driven out "
        "(`/spirit drive-out`).",
    ]


def test_r27_driven_out_then_healed_to_cha_3_no_longer_frightened() -> None:
    encounter = haunted()
    drained(encounter, 10)
    out = driven_out_reply(drive_out(encounter, GM, target="Ansel", spirit="Ghost").result)
    assert out.splitlines()[0] == (
        "✝️ **Ghost** is driven out of **Ansel** (R27): Ansel is their own again, at **CHA 1**, and "
        "**Frightened** (attacks at disadvantage) until healed to CHA 3 (`/spirit heal`)."
    )
    healed = heal_mind(encounter, GM, target="Ansel", ability=SpiritTarget.CHA, points=2).result
    assert mind_healed_reply(healed) == (
        "🕯️ **Ansel**'s CHA is healed: 1 → **3** (R27). At CHA 3 Ansel is **no longer Frightened**."
    )


def test_a_protection_is_offered_capitalised() -> None:
    assert protection_choice_name(SpiritProtection.BAPTIZED) == "Baptized"
