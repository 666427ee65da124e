"""``/spirit attack`` as a use case, without Discord (R27).

The attack runs on an in-memory store through :meth:`~bot.store.Store.change`, as the cog runs it.
Ansel (player 11, WIS +0, CHA -1, proficiency 2), Brigit (player 12) and a Ghost (the GM's) are dealt
2♣, 3♣ and K♠: the Ghost acts first (R1). The dice are scripted: damage dice first when given, then the
spirit's d20, then the defender's (two at disadvantage, R10). A refusal must leave the document as it
was and write no log line.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from bot.catalog import load_catalog
from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.permissions import Actor, acting_combatant
from bot.encounter.results import MindHealed, SpiritAttack
from bot.encounter.spirits import drive_out, heal_mind, make_spiritual_attack
from bot.rules.dice import ScriptedDice
from bot.rules.engagement import Distance
from bot.rules.errors import RulesError
from bot.rules.spirits import SpiritTarget
from bot.store import LogEntry, Store, open_store
from bot.ui.spirit_views import driven_out_reply
from tests.rules.conftest import deck_dealing
from tests.sheets import character

CATALOG = load_catalog()
CHANNEL = 100
GM = Actor(user_id=1)
ANN = Actor(user_id=11)
BOB = Actor(user_id=12)


@pytest.fixture
async def store() -> AsyncIterator[Store]:
    opened = await open_store(":memory:")
    yield opened
    await opened.close()


async def haunted(store: Store, *cards: str, brigit_is_a_spirit: bool = False) -> Encounter:
    """The fight of round 1, the Ghost's K♠ first unless ``cards`` say otherwise, saved in ``store``."""
    encounter = Encounter(channel_id=CHANNEL, guild_id=10, gm_id=GM.user_id)
    for actor, name in ((ANN, "Ansel"), (BOB, "Brigit")):
        sheet = character(name)
        encounter.join(actor.user_id, sheet, CATALOG.armor(sheet.armor))
    ghost = CATALOG.monster("ghost")
    encounter.add_npcs(ghost, None, count=1)
    encounter.combatant("Brigit").spirit = brigit_is_a_spirit
    encounter.initiative.deck = deck_dealing(*(cards or ("2C", "3C", "KS")))
    encounter.deal(ScriptedDice([]))
    return await store.save_encounter(encounter)


def attack(actor: Actor, faces: list[int], **over: Any) -> Callable[[Encounter], Done[SpiritAttack]]:
    options: dict[str, Any] = {
        "who": None,
        "target": "Ansel",
        "ability": SpiritTarget.WIS,
        "modifier": 3,
        "defender_modifier": None,
        "defender_score": None,
        "protection": None,
        "confirmed": False,
        "proficiency": None,
        "communion": False,
        "damage": 4,
        "damage_dice": None,
    } | over
    return lambda encounter: make_spiritual_attack(encounter, actor, ScriptedDice(faces), **options)


async def log(store: Store) -> list[LogEntry]:
    return await store.read_log(channel_id=CHANNEL)


async def test_r27_a_won_attack_drains_the_rated_score_and_logs_it(store: Store) -> None:
    before = await haunted(store)
    saved, done = await store.change(CHANNEL, GM.user_id, attack(GM, [14, 15, 6]))
    assert (done.spirit, done.defender, done.condition_added) == ("Ghost", "Ansel", False)
    result = done.result
    assert (result.attacker_total, result.defender_total, result.attacker_wins) == (17, 6, True)
    assert (result.score_before, result.score_after, result.score_rated) == (7, 3, True)
    assert done.damage_roll is None
    # The fight keeps the drained score: the rated 7 less 4, and the Ghost's turn is used (R4); nothing
    # else moves.
    assert saved.combatant("Ansel").wis_score == 3
    assert saved.initiative.turn_used
    saved.combatant("Ansel").wis_score = None
    saved.initiative.turn_used = False
    assert saved.model_dump(exclude={"version"}) == before.model_dump(exclude={"version"})
    assert [(entry.kind, entry.text, entry.user_id) for entry in await log(store)] == [
        ("spirit", "Ghost made a spiritual attack on Ansel's WIS: 17 vs 6, won, WIS 7 → 3", GM.user_id)
    ]


async def test_r27_a_resisted_attack_keeps_the_score(store: Store) -> None:
    await haunted(store)
    over = {"ability": SpiritTarget.CHA, "defender_score": 12, "defender_modifier": 0}
    _, done = await store.change(CHANNEL, GM.user_id, attack(GM, [5, 12, 18], **over))
    assert not done.result.attacker_wins
    [entry] = await log(store)
    assert entry.text == "Ghost made a spiritual attack on Ansel's CHA: 8 vs 12, lost, CHA stays 12"


async def test_r27_a_score_drained_to_0_puts_the_effect_on_the_defender(store: Store) -> None:
    await haunted(store)
    over = {"ability": SpiritTarget.CHA, "damage": None, "damage_dice": "1d6", "defender_score": 4}
    saved, done = await store.change(CHANNEL, GM.user_id, attack(GM, [5, 14, 3, 2], **over))
    assert done.condition_added
    assert done.damage_roll is not None
    assert done.damage_roll.total == 5
    assert saved.combatant("Ansel").conditions == ["possessed by the spirit"]
    assert await store.load_encounter(CHANNEL) == saved
    [entry] = await log(store)
    assert entry.text.endswith("won, CHA 4 → 0; Ansel is possessed by the spirit")


async def test_r27_a_player_attacks_with_their_own_spirit_on_its_turn(store: Store) -> None:
    await haunted(store, "2C", "KS", "3C", brigit_is_a_spirit=True)
    _, done = await store.change(CHANNEL, BOB.user_id, attack(BOB, [18, 2, 5], modifier=1, damage=1))
    assert done.spirit == "Brigit"
    [entry] = await log(store)
    assert entry.user_id == BOB.user_id


@pytest.mark.parametrize(
    ("actor", "over", "says"),
    [
        (ANN, {"target": "Brigit"}, "Ansel is not a spirit; only spirits make spiritual attacks (R27)"),
        (GM, {"who": "Brigit"}, "Brigit is not a spirit"),
        (ANN, {"who": "Ghost"}, "Ghost is not yours"),
        (GM, {"target": "Ghost"}, "Ghost cannot attack itself"),
        (GM, {"damage": None}, "You gave neither of `damage:` and `damage_dice:`"),
        (GM, {"damage_dice": "1d6"}, "You gave both of `damage:` and `damage_dice:`"),
        (GM, {"target": "Nobody"}, "Nobody called 'Nobody' is in this fight"),
    ],
)
async def test_r27_a_refused_attack_changes_nothing_and_logs_nothing(
    store: Store, actor: Actor, over: dict[str, Any], says: str
) -> None:
    before = await haunted(store)
    with pytest.raises(RulesError, match=re.escape(says)):
        await store.change(CHANNEL, actor.user_id, attack(actor, [], **over))
    assert await store.load_encounter(CHANNEL) == before
    assert await log(store) == []


async def test_r1_a_spirit_attacks_only_on_its_own_turn(store: Store) -> None:
    before = await haunted(store, "2C", "KS", "3C")
    with pytest.raises(RulesError, match="Ghost can make a spiritual attack only on their own turn"):
        await store.change(CHANNEL, GM.user_id, attack(GM, [], who="Ghost"))
    assert await store.load_encounter(CHANNEL) == before
    assert await log(store) == []


async def test_r27_a_second_attack_drains_the_score_the_first_left(store: Store) -> None:
    await haunted(store)
    await store.change(CHANNEL, GM.user_id, attack(GM, [14, 15, 6], ability=SpiritTarget.INT, damage=3))
    _, done = await store.change(
        CHANNEL, GM.user_id, attack(GM, [14, 15, 6], ability=SpiritTarget.INT, damage=3)
    )
    # Rated 7 + INT 0 at the first drain, then kept: 7 → 4 → 1, and no longer "rated".
    assert (done.result.score_before, done.result.score_after, done.result.score_rated) == (4, 1, False)


async def test_r27_a_resisted_attack_on_an_unrated_score_keeps_nothing(store: Store) -> None:
    await haunted(store)
    saved, done = await store.change(CHANNEL, GM.user_id, attack(GM, [2, 15, 16]))
    assert not done.result.attacker_wins
    assert saved.combatant("Ansel").wis_score is None


async def test_r27_the_sheet_score_and_int_modifier_are_the_fights(store: Store) -> None:
    encounter = Encounter(channel_id=CHANNEL, guild_id=10, gm_id=GM.user_id)
    sheet = character("Ansel", intelligence=2, int_score=14)
    encounter.join(ANN.user_id, sheet, CATALOG.armor(sheet.armor))
    encounter.add_npcs(CATALOG.monster("ghost"), None, count=1)
    encounter.initiative.deck = deck_dealing("2C", "KS")
    encounter.deal(ScriptedDice([]))
    await store.save_encounter(encounter)
    # 14 + 3 = 17 against 2d20 at disadvantage 15, 6 → 6 + INT 2 = 8.
    saved, done = await store.change(CHANNEL, GM.user_id, attack(GM, [14, 15, 6], ability=SpiritTarget.INT))
    assert done.result.defender_total == 8
    assert (done.result.score_before, done.result.score_after) == (14, 10)
    assert saved.combatant("Ansel").int_score == 10


@pytest.mark.parametrize(
    ("ability", "effect"),
    [
        (SpiritTarget.INT, "feeble-minded"),
        (SpiritTarget.WIS, "stark-raving mad"),
        (SpiritTarget.CHA, "possessed by the spirit"),
    ],
)
async def test_r27_drained_to_0_the_mind_is_the_gms(store: Store, ability: SpiritTarget, effect: str) -> None:
    await haunted(store)
    saved, _ = await store.change(CHANNEL, GM.user_id, attack(GM, [14, 15, 6], ability=ability, damage=9))
    ansel = saved.combatant("Ansel")
    assert ansel.score(ability) == 0
    assert ansel.conditions == [effect]
    # Ansel's player no longer acts for Ansel; the GM does (R27).
    with pytest.raises(RulesError, match=re.escape(f"Ansel is {effect} (R27): the GM controls them")):
        acting_combatant(saved, ANN, None, "attack")
    assert acting_combatant(saved, GM, "Ansel", "attack").name == "Ansel"


async def possessed(store: Store) -> Encounter:
    """Ansel drained to CHA 0 by the Ghost: possessed."""
    await haunted(store)
    saved, _ = await store.change(
        CHANNEL, GM.user_id, attack(GM, [14, 15, 6], ability=SpiritTarget.CHA, damage=9)
    )
    return saved


def heal_cha(points: int) -> Callable[[Encounter], Done[MindHealed]]:
    return lambda encounter: heal_mind(encounter, GM, target="Ansel", ability=SpiritTarget.CHA, points=points)


async def test_r27_driven_out_the_person_returns_at_cha_1_frightened_until_healed_to_3(store: Store) -> None:
    await possessed(store)
    saved, done = await store.change(CHANNEL, GM.user_id, lambda e: drive_out(e, GM, target="Ansel"))
    ansel = saved.combatant("Ansel")
    assert (done.person, done.cha_before, done.cha_after) == ("Ansel", 0, 1)
    assert (ansel.conditions, ansel.cha_score, ansel.driven_out) == ([], 1, True)
    assert ansel.state_label == "frightened"
    assert acting_combatant(saved, ANN, None, "attack").name == "Ansel"  # the player's again
    saved, healed = await store.change(CHANNEL, GM.user_id, heal_cha(1))
    assert (healed.healing.before, healed.healing.after, healed.ended) == (1, 2, None)
    assert saved.combatant("Ansel").driven_out
    saved, healed = await store.change(CHANNEL, GM.user_id, heal_cha(1))
    assert (healed.healing.after, healed.healing.recovered, healed.ended) == (3, True, "frightened")
    assert not saved.combatant("Ansel").driven_out
    assert saved.combatant("Ansel").state_label is None
    texts = [entry.text for entry in await log(store)]
    assert texts[1:] == [
        "The spirit is driven out of Ansel: CHA 1 (was 0), Frightened until healed to CHA 3",
        "Ansel's CHA healed 1 → 2",
        "Ansel's CHA healed 2 → 3; no longer frightened",
    ]


async def test_r27_healing_cha_never_frees_the_possessed(store: Store) -> None:
    await possessed(store)
    saved, done = await store.change(
        CHANNEL, GM.user_id, lambda e: heal_mind(e, GM, target="Ansel", ability=SpiritTarget.CHA, points=5)
    )
    assert done.still_possessed
    assert done.ended is None
    assert saved.combatant("Ansel").conditions == ["possessed by the spirit"]


async def test_r27_healed_to_3_the_feeble_minded_is_the_players_again(store: Store) -> None:
    await haunted(store)
    await store.change(CHANNEL, GM.user_id, attack(GM, [14, 15, 6], ability=SpiritTarget.INT, damage=9))
    saved, done = await store.change(
        CHANNEL, GM.user_id, lambda e: heal_mind(e, GM, target="Ansel", ability=SpiritTarget.INT, points=3)
    )
    assert done.ended == "feeble-minded"
    assert saved.combatant("Ansel").conditions == []
    assert acting_combatant(saved, ANN, None, "attack").name == "Ansel"


@pytest.mark.parametrize(
    ("actor", "op", "says"),
    [
        (ANN, lambda e: drive_out(e, ANN, target="Ansel"), "Only the GM of this fight"),
        (GM, lambda e: drive_out(e, GM, target="Brigit"), "Brigit is not possessed"),
        (ANN, lambda e: heal_mind(e, ANN, target="Ansel", ability=SpiritTarget.WIS, points=1), "Only the GM"),
        (
            GM,
            lambda e: heal_mind(e, GM, target="Brigit", ability=SpiritTarget.WIS, points=1),
            "The fight keeps no WIS score for Brigit",
        ),
    ],
)
async def test_r27_refused_drive_out_and_healing_change_nothing(
    store: Store, actor: Actor, op: Callable[[Encounter], Any], says: str
) -> None:
    before = await possessed(store)
    with pytest.raises(RulesError, match=re.escape(says)):
        await store.change(CHANNEL, actor.user_id, op)
    assert await store.load_encounter(CHANNEL) == before


# ----------------------------------------------------------------------------- contact, driven out (R22)


async def test_r27_a_spiritual_attack_needs_contact(store: Store) -> None:
    """Lords of Hack: "Spiritual attacks are not ranged attacks, the spirit must move into contact with
    the target." A Ghost 25' to 50' away is refused, changing nothing; in contact (near) it attacks."""
    encounter = await haunted(store)
    ghost, ansel = encounter.combatant("Ghost"), encounter.combatant("Ansel")
    encounter.engagement(ghost, ansel).distance = Distance.MIDDLE
    before = await store.save_encounter(encounter)
    with pytest.raises(RulesError, match="not a ranged attack: Ghost must move into contact with Ansel"):
        await store.change(CHANNEL, GM.user_id, attack(GM, [14, 15, 6]))
    assert await store.load_encounter(CHANNEL) == before
    before.engagement(before.combatant("Ghost"), before.combatant("Ansel")).distance = Distance.NEAR
    await store.save_encounter(before)
    _, done = await store.change(CHANNEL, GM.user_id, attack(GM, [14, 15, 6]))
    assert done.result.attacker_wins


async def demon_possesses_ansel(store: Store, morale: int | None) -> Encounter:
    encounter = await haunted(store)
    encounter.add_npcs(CATALOG.monster("demon"), None, count=1, morale=morale)
    encounter.combatant("Ansel").add_condition("possessed by the spirit")
    encounter.combatant("Ansel").cha_score = 0
    return await store.save_encounter(encounter)


async def test_r22_a_spirit_driven_out_by_divine_means_is_proposed_a_morale_check(store: Store) -> None:
    """Lords of Hack, morale checks: "A demon, ghost or spirit that has been driven out of a person by
    divine means. (Does not apply to PCs)" — proposed like the other triggers, the GM confirming it."""
    await demon_possesses_ansel(store, morale=1)
    saved, done = await store.change(
        CHANNEL, GM.user_id, lambda e: drive_out(e, GM, target="Ansel", spirit="Demon")
    )
    assert done.proposal is not None
    assert (done.proposal.group, done.proposal.reason.value) == ("Demon", "spirit driven out")
    assert done.proposal.detail == "Demon was driven out of Ansel by divine means."
    assert saved.morale_proposals == [done.proposal]
    assert driven_out_reply(done).splitlines()[-1].startswith("😨 #1 **Demon** should check morale (R22)")
    texts = [entry.text for entry in await log(store)]
    assert texts[-1] == (
        "Demon is driven out of Ansel: CHA 1 (was 0), Frightened until healed to CHA 3; "
        "morale check #1 proposed for Demon"
    )


async def test_r22_a_spirit_without_a_morale_number_is_proposed_nothing_and_told_why(store: Store) -> None:
    await demon_possesses_ansel(store, morale=None)
    saved, done = await store.change(
        CHANNEL, GM.user_id, lambda e: drive_out(e, GM, target="Ansel", spirit="Demon")
    )
    assert done.proposal is None
    assert saved.morale_proposals == []
    assert driven_out_reply(done).splitlines()[-1] == (
        "🕊️ Demon checks no morale: it has no morale number, so it never checks (R21); "
        "`/npc add … morale:` gives a spirit one."
    )


async def test_r22_only_a_spirit_is_named_as_the_one_driven_out(store: Store) -> None:
    before = await demon_possesses_ansel(store, morale=1)
    with pytest.raises(RulesError, match="Brigit is not a spirit"):
        await store.change(CHANNEL, GM.user_id, lambda e: drive_out(e, GM, target="Ansel", spirit="Brigit"))
    assert await store.load_encounter(CHANNEL) == before
