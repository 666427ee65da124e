"""The situations of the Lords of Hack text applied from the fight's state (R25), on the document.

The heart of it is one property: over random fight states (mounts, shield walls, cover, scaling,
unseen, prone, helpless targets, who attacked whom this round, distances, allies in the melee),
``/odds`` and ``/attack`` (Martial Pool and against AC) name the same situations with the same
sources, reach the same net advantage and the same automatic hit, or refuse with the same words.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.catalog import load_catalog
from bot.encounter import maneuvers, positions
from bot.encounter.attacks import Declaration, attack_armor_class, declare_attack
from bot.encounter.document import Encounter
from bot.encounter.odds import encounter_odds
from bot.encounter.permissions import Actor
from bot.encounter.positions import OpeningChoice, PositionChange, QuickCheck
from bot.encounter.records import Blow, Exchange
from bot.encounter.results import ExchangeReport
from bot.rules.armor_class import Opening
from bot.rules.dice import Advantage, RandomDice, ScriptedDice
from bot.rules.engagement import Distance, Range
from bot.rules.equipment import Size
from bot.rules.errors import RulesError
from bot.rules.morale import MoraleStanding
from bot.table_options import DefensePolicy, TableOptions
from tests.rules.conftest import deck_dealing
from tests.sheets import character

CATALOG = load_catalog()
GM = Actor(user_id=1)
ALICE = Actor(user_id=11)
NOW = datetime(2026, 12, 1, tzinfo=UTC)
WEAPONS = ["arming_sword", "long_bow", "javelin", "long_spear", "bill", "lance", "longsword"]


def skirmish() -> Encounter:
    """Alice and Bob (players 11 and 12) against three Bandits, with a heavy warhorse and a riding horse
    in the fight; Alice's turn (K♠ first). NPCs defend passively, so an attack resolves at once."""
    encounter = Encounter(
        channel_id=5, guild_id=6, gm_id=GM.user_id, table=TableOptions(defense_policy=DefensePolicy.PASSIVE)
    )
    for user, name in ((11, "Alice"), (12, "Bob")):
        sheet = character(name)
        encounter.join(user, sheet, CATALOG.armor(sheet.armor))
    bandit = CATALOG.monster("bandit")
    encounter.add_npcs(bandit, CATALOG.armor("light_gambeson"), count=3, group="Bandits")
    for key, name in (("heavy_warhorse", "Destrier"), ("riding_horse", "Nag")):
        encounter.add_npcs(CATALOG.monster(key), None, count=1, name=name, group="Horses")
    encounter.initiative.deck = deck_dealing("KS", "QS", "2C", "3C")
    encounter.deal(ScriptedDice([]))
    return encounter


@st.composite
def fight_states(draw: st.DrawFn) -> tuple[Encounter, str, bool]:
    """A random fight state, the target of Alice's attack, and whether the GM declares her unseen."""
    encounter = skirmish()
    alice, bob = encounter.combatant("Alice"), encounter.combatant("Bob")
    bandits = [encounter.combatant(f"Bandit {n}") for n in (1, 2, 3)]
    destrier, nag = encounter.combatant("Destrier"), encounter.combatant("Nag")
    alice.weapon = draw(st.sampled_from(WEAPONS))
    alice.knightly_combat = draw(st.booleans())
    alice.moves = draw(st.integers(0, 2))
    lost = draw(st.sampled_from([None, "forfeit_round", "attack_forfeit_round"]))
    if lost is not None:  # R25: mounting or getting up took this round's actions, or its attack
        setattr(alice, lost, encounter.initiative.round)
    if draw(st.booleans()):
        alice.position.mount = destrier.id
        destrier.moves = draw(st.integers(0, 2))
    target = draw(st.sampled_from([*bandits, bob, nag]))
    for who in (alice, target):
        position = who.position
        position.scaling = draw(st.booleans()) and who.steed is None
        position.unseen = draw(st.booleans())
        position.cover = draw(st.integers(0, 4))
        position.opening = draw(st.sampled_from([None, Opening.WINDOW, Opening.ARROW_SLIT]))
        position.shield_wall = draw(st.booleans())
        if draw(st.booleans()):
            who.add_condition(draw(st.sampled_from(["prone", "incapacitated", "unconscious", "stunned"])))
    if alice.position.scaling:
        alice.shield = None
    target.weapon = draw(st.sampled_from(WEAPONS))
    target.size = draw(st.sampled_from(list(Size)))
    target.constructed = draw(st.booleans())
    target.hp = draw(st.sampled_from([target.hp, 0]))
    if target is not nag and draw(st.booleans()):
        target.position.mount = nag.id
    alice.standing = draw(st.sampled_from(list(MoraleStanding)))
    allies = [c for c in encounter.combatants if c.side is target.side and c.id != target.id]
    side_by_side = draw(st.booleans())
    if allies and side_by_side:
        target.position.beside = draw(st.sampled_from(allies)).id
    others = [c for c in encounter.combatants if c.id != alice.id]
    for _ in range(draw(st.integers(0, 6))):
        by = draw(st.sampled_from(others))
        against = draw(st.sampled_from([target.id, target.position.beside or target.id, destrier.id]))
        encounter.blows.append(
            Blow(
                by=by.id, against=against, mounted=draw(st.booleans()), long_spear_or_bill=draw(st.booleans())
            )
        )
    target.last_target = draw(st.sampled_from([None, destrier.id, alice.id]))
    encounter.engagement(alice, target).distance = draw(st.sampled_from(list(Distance)))
    encounter.engagement(bob, target).range = draw(st.sampled_from([Range.ONSET, Range.MELEE]))
    return encounter, target.name, draw(st.booleans())


def _odds(encounter: Encounter, target: str, unseen: bool) -> tuple[list[str], Advantage, list[str]] | str:
    try:
        odds = encounter_odds(
            encounter,
            CATALOG,
            encounter.combatant("Alice"),
            encounter.combatant(target),
            dice=1,
            attack_type=None,
            extra=Advantage.NONE,
            void=False,
            unseen=unseen,
        )
    except RulesError as refused:
        return str(refused)
    return list(odds.situations), odds.advantage, list(odds.notes)


def _attack(encounter: Encounter, target: str, unseen: bool) -> tuple[list[str], Advantage, list[str]] | str:
    copy = encounter.model_copy(deep=True)
    declared = Declaration(dice=1, unseen=unseen, holy_blessed=True)
    try:
        report = declare_attack(
            copy,
            CATALOG,
            GM,
            copy.combatant("Alice"),
            copy.combatant(target),
            declared,
            RandomDice.seeded(7),
            NOW,
        )
    except RulesError as refused:
        return str(refused)
    exchange = report.exchange
    return exchange.situations, exchange.attack.roll.advantage, exchange.notes


def _first_defense(encounter: Encounter, target: str, unseen: bool) -> tuple[int, str | None]:
    """The first defense /odds quotes (passive, or undefended): its total, and why undefended if so."""
    odds = encounter_odds(
        encounter,
        CATALOG,
        encounter.combatant("Alice"),
        encounter.combatant(target),
        dice=1,
        attack_type=None,
        extra=Advantage.NONE,
        void=False,
        unseen=unseen,
    )
    first = odds.defenses[0]
    return sum(m.value for m in first.bonus), first.undefended


def _exchange(encounter: Encounter, target: str, unseen: bool) -> Exchange:
    copy = encounter.model_copy(deep=True)
    report = declare_attack(
        copy,
        CATALOG,
        GM,
        copy.combatant("Alice"),
        copy.combatant(target),
        Declaration(dice=1, unseen=unseen, holy_blessed=True),
        RandomDice.seeded(7),
        NOW,
    )
    return report.exchange


def _against_ac(encounter: Encounter, target: str, unseen: bool) -> tuple[list[str], Advantage] | str:
    copy = encounter.model_copy(deep=True)
    declared = Declaration(dice=1, unseen=unseen, holy_blessed=True)
    try:
        result = attack_armor_class(
            copy, CATALOG, GM, copy.combatant("Alice"), copy.combatant(target), declared, RandomDice.seeded(7)
        )
    except RulesError as refused:
        return str(refused)
    return result.situations, result.roll.advantage


@settings(max_examples=150, deadline=None)
@given(fight_states())
def test_r25_odds_and_attack_name_the_same_situations_in_every_fight_state(
    state: tuple[Encounter, str, bool],
) -> None:
    encounter, target, unseen = state
    asked = _odds(encounter, target, unseen)
    made = _attack(encounter, target, unseen)
    alice, round_now = encounter.combatant("Alice"), encounter.initiative.round
    if round_now in (alice.forfeit_round, alice.attack_forfeit_round):
        # R25: /attack refuses an attacker whose round (or attack) is spent, before anything else; /odds
        # answers what it can, saying so
        assert isinstance(made, str), made
        if not isinstance(asked, str):
            assert any("Alice cannot attack this round" in note for note in asked[2])
        return
    if isinstance(asked, str) or isinstance(made, str):
        assert asked == made  # refused alike, with the same words
        return
    situations, advantage, notes = asked
    assert made[0] == situations
    assert made[1] is advantage
    assert notes[: len(made[2])] == made[2]  # the situations' notes come first in /odds
    against_ac = _against_ac(encounter, target, unseen)
    assert not isinstance(against_ac, str), against_ac
    assert against_ac == (situations, advantage)
    # R13: the same defense. An undefended target (helpless, down, out cold, incapacitated, unaware) is
    # named alike and meets the same 2 or 8; whatever the attack resolved against at once (a passive
    # NPC, a target without dice) is the total /odds quotes first.
    quoted, undefended = _first_defense(encounter, target, unseen)
    exchange = _exchange(encounter, target, unseen)
    assert exchange.undefended is (undefended is not None)
    if exchange.defense is not None and exchange.defense.mode != "active":
        assert exchange.defense.total == quoted


# ----------------------------------------------------------------------------- single situations


def situations(encounter: Encounter, target: str, **declared: bool) -> list[str]:
    asked = _odds(encounter, target, declared.get("unseen", False))
    assert not isinstance(asked, str), asked
    return asked[0]


def alice_attacks(
    encounter: Encounter, declared: Declaration, dice: ScriptedDice | RandomDice
) -> ExchangeReport:
    """Alice's /attack on Bandit 1, on the document."""
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit 1")
    return declare_attack(encounter, CATALOG, ALICE, alice, bandit, declared, dice, NOW)


def refusal(encounter: Encounter, target: str) -> str:
    """Why /odds (and so /attack) refuses Alice's attack on ``target``."""
    asked = _odds(encounter, target, False)
    assert isinstance(asked, str), asked
    return asked


def test_r25_numbers_count_who_attacked_the_target_this_round() -> None:
    """Two or more attackers on a lone footman: Bob attacked Bandit 1 this round, so Alice has advantage;
    the deal forgets it."""
    encounter = skirmish()
    bob, bandit = encounter.combatant("Bob"), encounter.combatant("Bandit 1")
    assert situations(encounter, "Bandit 1") == []
    encounter.blows.append(Blow(by=bob.id, against=bandit.id))
    assert situations(encounter, "Bandit 1") == [
        "2+ attackers against a lone footman: Bob, Alice on Bandit 1 this round"
    ]
    while encounter.initiative.turn_of is not None:
        encounter.next_turn()
    encounter.deal(ScriptedDice([]))
    assert encounter.blows == []
    assert situations(encounter, "Bandit 1") == []


def test_r25_an_attack_is_remembered_for_the_numbers_and_as_the_last_target() -> None:
    encounter = skirmish()
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit 1")
    alice_attacks(encounter, Declaration(dice=1), RandomDice.seeded(3))
    assert [(b.by, b.against) for b in encounter.blows] == [(alice.id, bandit.id)]
    assert alice.last_target == bandit.id


def test_r25_numbers_never_help_against_a_construct_or_a_huge_monster() -> None:
    encounter = skirmish()
    bob, bandit = encounter.combatant("Bob"), encounter.combatant("Bandit 1")
    encounter.blows.append(Blow(by=bob.id, against=bandit.id))
    bandit.constructed = True
    assert situations(encounter, "Bandit 1") == []
    bandit.constructed, bandit.size = False, Size.VERY_LARGE
    assert situations(encounter, "Bandit 1") == []


def test_r25_four_human_sized_attackers_on_a_large_monster() -> None:
    encounter = skirmish()
    ogre = encounter.combatant("Bandit 1")
    ogre.size = Size.LARGE
    for name in ("Bob", "Destrier"):
        encounter.blows.append(Blow(by=encounter.combatant(name).id, against=ogre.id))
    assert situations(encounter, "Bandit 1") == []  # the warhorse is no man: two men only
    encounter.blows.append(Blow(by=encounter.combatant("Bandit 2").id, against=ogre.id))
    encounter.blows.append(Blow(by=encounter.combatant("Bandit 3").id, against=ogre.id))
    assert situations(encounter, "Bandit 1") == [
        "4+ men against a large monster: Bob, Destrier, Bandit 2, Bandit 3, Alice on Bandit 1 this round"
    ]


def test_r25_the_long_spear_answers_the_rider_and_the_knight() -> None:
    """A footman with a long spear is not at disadvantage against a rider; a Knightly rider has no
    advantage against him."""
    encounter = skirmish()
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit 1")
    bandit.position.mount = encounter.combatant("Nag").id
    assert situations(encounter, "Bandit 1") == [
        "on foot against a rider (no long spear or bill): Bandit 1 is mounted, Alice on foot"
    ]
    alice.weapon = "long_spear"
    assert situations(encounter, "Bandit 1") == []
    bandit.position.mount = None
    alice.weapon, alice.knightly_combat = "arming_sword", True
    alice.position.mount = encounter.combatant("Destrier").id
    assert situations(encounter, "Bandit 1") == [
        "Knightly rider against a footman: Alice rides Destrier with Knightly Combat, Bandit 1 is on foot"
    ]
    bandit.weapon = "bill"
    assert situations(encounter, "Bandit 1") == []
    bandit.last_target = encounter.combatant("Destrier").id
    assert situations(encounter, "Bandit 1") == [
        "Knightly rider against the man who struck his horse: Bandit 1's last attack was on Destrier"
    ]


def test_r25_a_lance_charge_from_a_heavy_warhorse_doubles_the_damage() -> None:
    encounter = skirmish()
    alice = encounter.combatant("Alice")
    alice.weapon, alice.knightly_combat = "lance", True
    alice.position.mount = encounter.combatant("Destrier").id
    # 15 + 2 Prowess + 8 Reach, Knightly against a footman (advantage: one more die, the 3 drops); lance
    # 1d10 shows 6, doubled to 12; the gambeson's 3 DR is all taken by the lance's Armor Piercing 3.
    report = alice_attacks(encounter, Declaration(dice=1, charge=True), ScriptedDice([15, 3, 6]))
    result = report.exchange.result
    assert result is not None
    assert result.damage is not None
    assert (result.damage.weapon_damage, result.damage.doubled, result.damage.lethal) == (6, 6, 12)
    assert report.exchange.notes == [
        "Lance charge from Destrier, a heavy warhorse, with Knightly Combat: double damage (R25)",
        "Destrier tramples on the charge: it may attack Bandit 1 with its hooves (R25)",
    ]


def test_r25_a_charge_needs_a_horse_and_two_weapons_are_not_for_horseback() -> None:
    encounter = skirmish()
    alice = encounter.combatant("Alice")
    with pytest.raises(RulesError, match="mounted charge"):
        alice_attacks(encounter, Declaration(dice=1, charge=True), RandomDice.seeded(1))
    alice.position.mount = encounter.combatant("Destrier").id
    with pytest.raises(RulesError, match="horseback"):
        alice_attacks(encounter, Declaration(dice=1, two_weapons=True), RandomDice.seeded(1))


def test_r25_scaling_forbids_two_handed_weapons_and_a_shield() -> None:
    encounter = skirmish()
    alice = encounter.combatant("Alice")
    alice.position.scaling = True
    alice.weapon = "longsword"
    assert "no two-handed weapons while scaling" in refusal(encounter, "Bandit 1")
    alice.weapon, alice.shield = "arming_sword", "buckler"
    assert "attack or use a shield, not both" in refusal(encounter, "Bandit 1")


def test_r25_a_thrown_weapon_reaches_fifty_feet() -> None:
    encounter = skirmish()
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit 1")
    alice.weapon = "javelin"
    encounter.engagement(alice, bandit).distance = Distance.MIDDLE
    assert situations(encounter, "Bandit 1") == [
        "thrown attack at 25' or more: Alice and Bandit 1 are 25' to 50' apart"
    ]
    encounter.engagement(alice, bandit).distance = Distance.FAR
    assert "reach 50' at most" in refusal(encounter, "Bandit 1")


def test_r14_cover_gives_free_dice_to_an_active_defense_against_missiles() -> None:
    """R14: one free die per 25% cover against missiles, in /odds and in the roll."""
    encounter = skirmish()
    alice, bob = encounter.combatant("Alice"), encounter.combatant("Bob")
    alice.weapon = "long_bow"
    bob.position.cover = 2
    odds = encounter_odds(
        encounter,
        CATALOG,
        encounter.combatant("Bandit 1"),
        bob,
        dice=1,
        attack_type=None,
        extra=Advantage.NONE,
        void=False,
    )
    active = odds.defenses[1]
    assert (active.dice, active.cover) == (3, 0)  # the bandit's messer is no missile: cover does not count
    bandit = encounter.combatant("Bandit 1")
    bandit.weapon = "long_bow"
    odds = encounter_odds(
        encounter, CATALOG, bandit, bob, dice=1, attack_type=None, extra=Advantage.NONE, void=False
    )
    assert (odds.defenses[1].dice, odds.defenses[1].cover) == (3, 2)
    assert "target has cover: Bob has 50% cover" in odds.situations


def test_r25_a_window_raises_the_armor_class_against_missiles() -> None:
    encounter = skirmish()
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit 1")
    alice.weapon = "long_bow"
    bandit.position.opening = Opening.ARROW_SLIT
    result = attack_armor_class(
        encounter, CATALOG, ALICE, alice, bandit, Declaration(dice=1), ScriptedDice([10, 12])
    )
    assert result.roll.armor_class == 21
    assert result.situations == ["target has cover: Bandit 1 is behind an arrow slit"]


# ----------------------------------------------------------------------------- /situation


def test_situation_set_changes_and_logs_and_refuses_a_shield_wall_without_a_shield() -> None:
    encounter = skirmish()
    done = positions.set_position(
        encounter, CATALOG, ALICE, "alice", "Alice", PositionChange(cover=50, prone=True)
    )
    assert done.result.changes == [("cover", "0%", "50%"), ("prone", "no", "yes")]
    assert done.log == ["alice: Alice's situation: cover 0% → 50%; prone no → yes"]
    assert encounter.combatant("Alice").position.cover == 2
    with pytest.raises(RulesError, match="no shield"):
        positions.set_position(encounter, CATALOG, ALICE, "alice", "Alice", PositionChange(shield_wall=True))
    with pytest.raises(RulesError, match="not yours"):
        positions.set_position(encounter, CATALOG, ALICE, "alice", "Bob", PositionChange(unseen=True))
    done = positions.set_position(
        encounter,
        CATALOG,
        GM,
        "gm",
        "Bandit 1",
        PositionChange(beside="Bandit 2", opening=OpeningChoice.WINDOW),
    )
    assert encounter.combatant("Bandit 2").position.beside == encounter.combatant("Bandit 1").id
    done = positions.set_position(encounter, CATALOG, GM, "gm", "Bandit 1", PositionChange(beside="none"))
    assert done.result.changes == [
        ("beside", "Bandit 2", "nobody"),
        ("Bandit 2 beside", "Bandit 1", "nobody"),
    ]
    assert encounter.combatant("Bandit 2").position.beside is None


def test_situation_mount_costs_the_round_and_a_failed_quick_mount_leaves_the_rider_prone() -> None:
    encounter = skirmish()
    done = positions.mount(encounter, ALICE, "alice", "Alice", "Destrier", None)
    alice = encounter.combatant("Alice")
    assert alice.position.mount == encounter.combatant("Destrier").id
    assert alice.forfeit_round == 1
    assert "whole round" in done.result.notes[0]
    with pytest.raises(RulesError, match="forfeited"):
        alice_attacks(encounter, Declaration(dice=1), RandomDice.seeded(1))
    encounter.next_turn()  # Bob's turn
    bob = encounter.combatant("Bob")
    done = positions.mount(encounter, Actor(user_id=12), "bob", "Bob", "Nag", QuickCheck.FAILED)
    assert bob.position.mount is None
    assert bob.condition_named("prone") == "prone"
    with pytest.raises(RulesError, match="already rides"):
        positions.mount(encounter, Actor(user_id=12), "bob", "Bob", "Destrier", None)


def test_r25_mounting_before_the_first_deal_costs_nothing_and_says_so() -> None:
    """The GM sets the field up before round 1: the note read "no quick, move or active action left
    this round" when no round had begun, and round 1 was the rider's whole."""
    encounter = skirmish()
    encounter.initiative.round = 0
    done = positions.mount(encounter, GM, "gm", "Alice", "Destrier", None)
    alice = encounter.combatant("Alice")
    assert alice.position.mount == encounter.combatant("Destrier").id
    assert alice.moves == 0
    assert done.result.notes == [
        "Mounting takes a whole round (R25); before the first deal it costs Alice nothing."
    ]


def test_situation_dismount_takes_a_move() -> None:
    encounter = skirmish()
    alice = encounter.combatant("Alice")
    alice.position.mount = encounter.combatant("Destrier").id
    done = positions.dismount(encounter, ALICE, "alice", "Alice", None)
    after = encounter.combatant("Alice")
    assert (after.position.mount, after.moves) == (None, 1)
    assert after.pool.remaining == after.pool.size  # the first move of the round is free (R19)
    assert done.result.changes == [("mounted", "Destrier", "no")]
    assert done.result.notes == [
        "Dismounting takes Alice's move action (R25): move 1 of the round, free (R19)."
    ]


def test_r25_r19_dismounting_takes_a_move_action_so_after_the_free_move_it_costs_a_die() -> None:
    """Lords of Hack: "Dismounting from a horse takes a Move Action"; R19: moves after the first cost a
    die. Alice rode her free move, so dismounting is her second move: 1 die (it cost nothing)."""
    encounter = skirmish()
    alice = encounter.combatant("Alice")
    alice.position.mount = encounter.combatant("Destrier").id
    maneuvers.move(encounter, ALICE, who="Alice", combat_range=False, by="alice")
    size = alice.pool.size
    done = positions.dismount(encounter, ALICE, "alice", "Alice", None)
    after = encounter.combatant("Alice")
    assert (after.position.mount, after.moves, after.pool.remaining) == (None, 2, size - 1)
    assert done.result.notes == [
        f"Dismounting takes Alice's move action (R25): move 2 of the round, 1 die, {size - 1} left (R19)."
    ]
    alice.position.mount = encounter.combatant("Destrier").id
    alice.moves = 3
    before = encounter.model_dump()
    with pytest.raises(RulesError, match="no move left to dismount"):
        positions.dismount(encounter, ALICE, "alice", "Alice", None)
    assert encounter.model_dump() == before


def test_r25_mounting_takes_a_full_round_so_a_rider_who_acted_cannot_mount_for_free() -> None:
    """Lords of Hack: "Mounting a horse takes a full round, forfeiting your Quick, Move, and Active
    Actions". Alice, having taken her turn, mounted during Bob's for free: only the spent round was
    forfeit and her next round's attack was allowed. Now she mounts on her turn, with a whole round
    left; so does Bob, who has moved on his."""
    encounter = skirmish()
    encounter.next_turn()  # Alice's turn ends, Bob's begins
    before = encounter.model_dump()
    with pytest.raises(RulesError, match="Alice has already acted this round: it can mount on its turn next"):
        positions.mount(encounter, ALICE, "alice", "Alice", "Destrier", None)
    with pytest.raises(RulesError, match="already acted this round"):
        positions.mount(encounter, ALICE, "alice", "Alice", "Destrier", QuickCheck.PASSED)
    bob = Actor(user_id=12)
    maneuvers.move(encounter, bob, who="Bob", combat_range=False, by="bob")
    moved = encounter.model_dump()
    with pytest.raises(RulesError, match=r"Mounting takes a whole round \(R25\), and Bob has already moved"):
        positions.mount(encounter, bob, "bob", "Bob", "Destrier", None)
    assert encounter.model_dump() == moved
    positions.mount(encounter, bob, "bob", "Bob", "Destrier", QuickCheck.PASSED)  # a quick action still may
    assert encounter.combatant("Bob").position.mount == encounter.combatant("Destrier").id
    assert before != moved


def test_r25_dismounting_out_of_turn_is_refused() -> None:
    encounter = skirmish()
    bob = encounter.combatant("Bob")
    bob.position.mount = encounter.combatant("Nag").id
    before = encounter.model_dump()
    with pytest.raises(RulesError, match="Bob can dismount only on their own turn, and it is Alice's turn"):
        positions.dismount(encounter, Actor(user_id=12), "bob", "Bob", None)
    assert encounter.model_dump() == before


def test_situation_distance_is_near_at_melee() -> None:
    encounter = skirmish()
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit 1")
    positions.set_distance(encounter, ALICE, "alice", "Alice", "Bandit 1", Distance.FAR)
    assert encounter.engagement_now(alice, bandit).distance is Distance.FAR
    encounter.engagement(alice, bandit).range = Range.MELEE
    with pytest.raises(RulesError, match="near each other"):
        positions.set_distance(encounter, ALICE, "alice", "Alice", "Bandit 1", Distance.FAR)


def test_r25_a_ridden_riding_horse_does_not_attack_but_a_riderless_one_may() -> None:
    encounter = skirmish()
    nag = encounter.combatant("Nag")
    encounter.combatant("Bob").position.mount = nag.id
    encounter.initiative.turn_of = nag.holder
    bandit = encounter.combatant("Bandit 1")
    with pytest.raises(RulesError, match="riding horse with a rider"):
        declare_attack(encounter, CATALOG, GM, nag, bandit, Declaration(dice=1), RandomDice.seeded(1), NOW)
    encounter.combatant("Bob").position.mount = None
    bandit.last_target = nag.id  # R25: it attacks only when attacked
    declare_attack(encounter, CATALOG, GM, nag, bandit, Declaration(dice=1), RandomDice.seeded(1), NOW)


def test_r25_a_riding_horse_only_attacks_if_it_is_attacked() -> None:
    """Lords of Hack: "These mounts will only attack if they are attacked, cannot flee, and have no
    rider." A riderless Nag attacked Bandit 1 unprovoked; now only a foe that attacked it (this round,
    or as its last attack), in /odds as in /attack."""
    encounter = skirmish()
    nag, bandit = encounter.combatant("Nag"), encounter.combatant("Bandit 1")
    encounter.initiative.turn_of = nag.holder
    refused = "Nag is a riding horse: it attacks only someone who attacked it"
    with pytest.raises(RulesError, match=refused):
        declare_attack(encounter, CATALOG, GM, nag, bandit, Declaration(dice=1), RandomDice.seeded(1), NOW)
    with pytest.raises(RulesError, match=refused):
        encounter_odds(
            encounter, CATALOG, nag, bandit, dice=1, attack_type=None, extra=Advantage.NONE, void=False
        )
    encounter.blows.append(Blow(by=bandit.id, against=nag.id))
    declare_attack(encounter, CATALOG, GM, nag, bandit, Declaration(dice=1), RandomDice.seeded(1), NOW)


def test_r25_a_warhorse_strikes_only_in_a_round_it_does_not_move_and_carrying_its_rider_is_moving() -> None:
    """Lords of Hack: a warhorse "will strike out with its hooves any combat round when it does not
    move". The Destrier struck after moving, or after carrying Alice on her move; now it may not, in
    /odds as in /attack, and it strikes in a round it stood."""
    encounter = skirmish()
    destrier, alice = encounter.combatant("Destrier"), encounter.combatant("Alice")
    bandit = encounter.combatant("Bandit 1")
    encounter.initiative.turn_of = destrier.holder
    alice.position.mount = destrier.id
    alice.moves = 1
    with pytest.raises(RulesError, match="Destrier carried Alice, who moved this round: a warhorse strikes"):
        encounter_odds(
            encounter, CATALOG, destrier, bandit, dice=1, attack_type=None, extra=Advantage.NONE, void=False
        )
    alice.moves, destrier.moves = 0, 1
    with pytest.raises(RulesError, match="Destrier moved this round: a warhorse strikes"):
        declare_attack(
            encounter, CATALOG, GM, destrier, bandit, Declaration(dice=1), RandomDice.seeded(1), NOW
        )
    destrier.moves = 0
    declare_attack(encounter, CATALOG, GM, destrier, bandit, Declaration(dice=1), RandomDice.seeded(1), NOW)


def test_r25_a_warhorse_whose_rider_charged_on_it_does_not_strike_with_its_hooves_too() -> None:
    """Lords of Hack: a warhorse "will strike out with its hooves any combat round when it does not
    move", and a charge carries the rider: the Destrier tramples on Alice's charge (an attack owed), but
    struck with its hooves on its own card as well. Now that is refused, in /odds as in /attack."""
    encounter = skirmish()
    destrier, alice = encounter.combatant("Destrier"), encounter.combatant("Alice")
    bandit = encounter.combatant("Bandit 1")
    alice.position.mount = destrier.id
    encounter.blows.append(Blow(by=alice.id, against=bandit.id, mounted=True, charge=True))
    encounter.initiative.turn_of = destrier.holder
    with pytest.raises(
        RulesError, match="Destrier carried Alice, who charged this round: a warhorse strikes"
    ):
        encounter_odds(
            encounter, CATALOG, destrier, bandit, dice=1, attack_type=None, extra=Advantage.NONE, void=False
        )
    with pytest.raises(RulesError, match="Destrier carried Alice, who charged this round"):
        declare_attack(
            encounter, CATALOG, GM, destrier, bandit, Declaration(dice=1), RandomDice.seeded(1), NOW
        )
    encounter.blows = [Blow(by=alice.id, against=bandit.id, mounted=True)]  # a blow without a charge
    declare_attack(encounter, CATALOG, GM, destrier, bandit, Declaration(dice=1), RandomDice.seeded(1), NOW)


NEW_COMBATANT_FIELDS = ("knightly_combat", "steed", "constructed", "position", "forfeit_round", "last_target")


def test_a_fight_saved_before_situations_existed_still_loads_with_everyone_on_foot_in_the_open() -> None:
    """The document gained fields with defaults (R25): one saved without them reads as before."""
    encounter = skirmish()
    encounter.engagement(encounter.combatant("Alice"), encounter.combatant("Bandit 1"))
    old = encounter.model_dump(mode="json")
    del old["blows"]
    for combatant in old["combatants"]:
        for field in NEW_COMBATANT_FIELDS:
            del combatant[field]
    for engagement in old["engagements"].values():
        del engagement["distance"]
    loaded = Encounter.model_validate(old)
    alice = loaded.combatant("Alice")
    assert (alice.position.mount, alice.position.cover, alice.knightly_combat, alice.steed) == (
        None,
        0,
        False,
        None,
    )
    assert loaded.blows == []
    assert situations(loaded, "Bandit 1") == []


# ----------------------------------------------------------------------------- getting up (R25)


def _stand(encounter: Encounter, who: str, check: QuickCheck | None = None) -> list[str]:
    actor = ALICE if who == "Alice" else GM
    done = positions.set_position(
        encounter, CATALOG, actor, "x", who, PositionChange(prone=False, get_up_check=check)
    )
    return done.result.notes


def test_r25_getting_up_while_carrying_combat_arms_takes_an_entire_round() -> None:
    """Lords of Hack: "Getting up from a prone position, while carrying combat arms, takes an entire
    round's actions." It was only noted: Alice, up with her sword, could still attack and move."""
    encounter = skirmish()
    alice = encounter.combatant("Alice")
    alice.add_condition("prone")
    assert _stand(encounter, "Alice") == [
        "Getting up while carrying combat arms takes Alice's whole round (R25): no move and no attack left "
        "this round."
    ]
    assert alice.condition_named("prone") is None
    with pytest.raises(RulesError, match="forfeited this round's actions"):
        alice_attacks(encounter, Declaration(dice=1), RandomDice.seeded(1))
    with pytest.raises(RulesError, match="forfeited this round's actions"):
        maneuvers.move(encounter, ALICE, who="Alice", combat_range=False, by="alice")


def test_r25_getting_up_armed_after_moving_is_refused_and_changes_nothing() -> None:
    encounter = skirmish()
    alice = encounter.combatant("Alice")
    alice.add_condition("prone")
    maneuvers.move(encounter, ALICE, who="Alice", combat_range=False, by="alice")
    before = encounter.model_dump()
    with pytest.raises(RulesError, match=r"takes a whole round \(R25\), and Alice has already moved"):
        _stand(encounter, "Alice")
    assert encounter.model_dump() == before


def test_r25_getting_up_with_empty_hands_only_takes_an_active_action() -> None:
    """Lords of Hack: "If one leaves one's weapons/shield on the ground, or was not holding anything in
    their hands to begin with, it only takes an Active action": no attack this round, a move still."""
    encounter = skirmish()
    alice = encounter.combatant("Alice")
    alice.weapon, alice.shield, alice.off_hand = "unarmed", None, None
    alice.add_condition("prone")
    assert _stand(encounter, "Alice") == [
        "Getting up with empty hands takes Alice's active action (R25): no attack this round; it may still "
        "move."
    ]
    with pytest.raises(RulesError, match="spent this round's active action getting up"):
        alice_attacks(encounter, Declaration(dice=1), RandomDice.seeded(1))
    maneuvers.move(encounter, ALICE, who="Alice", combat_range=False, by="alice")
    assert alice.moves == 1


def test_r25_leaping_up_as_a_quick_action_takes_the_check_and_a_failure_stays_prone() -> None:
    """Lords of Hack: "One can attempt to leap to one's feet fully armed as a quick action, but must make
    an Acrobatics or Athletics check. On a failure, the attempt fails and one remains prone."""
    encounter = skirmish()
    alice = encounter.combatant("Alice")
    alice.add_condition("prone")
    assert _stand(encounter, "Alice", QuickCheck.FAILED) == [
        "The Acrobatics or Athletics check failed: Alice stays prone (R25)."
    ]
    assert alice.condition_named("prone") == "prone"
    assert _stand(encounter, "Alice", QuickCheck.PASSED) == [
        "Alice leaps up as a quick action: the Acrobatics or Athletics check passed (R25)."
    ]
    assert alice.condition_named("prone") is None
    assert alice.forfeit_round == 0
    alice_attacks(encounter, Declaration(dice=1), RandomDice.seeded(1))


def test_r25_getting_up_is_ones_own_action_and_before_the_deal_it_is_free() -> None:
    encounter = skirmish()
    bandit = encounter.combatant("Bandit 1")
    bandit.add_condition("prone")
    with pytest.raises(RulesError, match="Getting up is Bandit 1's own action, on its turn"):
        _stand(encounter, "Bandit 1")
    with pytest.raises(RulesError, match="`get_up_check:` is the Acrobatics or Athletics check"):
        positions.set_position(
            encounter, CATALOG, GM, "gm", "Bandit 1", PositionChange(cover=25, get_up_check=QuickCheck.PASSED)
        )
    encounter.initiative.round = 0
    assert _stand(encounter, "Bandit 1") == []
    assert bandit.condition_named("prone") is None


# ----------------------------------------------------------------------------- shield wall (R25)


def test_r25_it_takes_half_of_ones_move_allowance_to_form_or_maintain_a_shield_wall() -> None:
    """Lords of Hack: "It takes half of one's move allowance to form or maintain a shield wall." Forming
    it on one's turn takes a move (free as the round's first, R19); at every deal a man in the wall has
    that move taken, so his next move costs a die. It cost nothing."""
    encounter = skirmish()
    alice = encounter.combatant("Alice")
    alice.shield = "round_shield"
    done = positions.set_position(
        encounter, CATALOG, ALICE, "alice", "Alice", PositionChange(shield_wall=True)
    )
    assert done.result.notes == [
        "Forming a shield wall takes half of Alice's move (R25): move 1 of the round, free (R19); keeping "
        "it takes one move of every round."
    ]
    assert (alice.moves, alice.pool.remaining) == (1, alice.pool.size)
    moved = maneuvers.move(encounter, ALICE, who="Alice", combat_range=False, by="alice")
    assert moved.result.result.cost == 1
    while encounter.initiative.turn_of is not None:
        encounter.next_turn()
    encounter.deal(ScriptedDice([]))
    assert encounter.combatant("Alice").moves == 1  # keeping the wall
    assert encounter.combatant("Bob").moves == 0


def test_r25_forming_a_shield_wall_after_moving_costs_a_die_and_out_of_turn_is_refused() -> None:
    encounter = skirmish()
    alice = encounter.combatant("Alice")
    alice.shield = "round_shield"
    maneuvers.move(encounter, ALICE, who="Alice", combat_range=False, by="alice")
    positions.set_position(encounter, CATALOG, ALICE, "alice", "Alice", PositionChange(shield_wall=True))
    assert (alice.moves, alice.pool.remaining) == (2, alice.pool.size - 1)
    bob = encounter.combatant("Bob")
    bob.shield = "round_shield"
    before = encounter.model_dump()
    with pytest.raises(RulesError, match="Bob can form a shield wall only on their own turn"):
        positions.set_position(encounter, CATALOG, GM, "gm", "Bob", PositionChange(shield_wall=True))
    assert encounter.model_dump() == before
    encounter.initiative.round = 0  # before the first deal, the GM sets the field up for free
    positions.set_position(encounter, CATALOG, GM, "gm", "Bob", PositionChange(shield_wall=True))
    assert (bob.position.shield_wall, bob.moves) == (True, 0)


def test_r25_a_riding_horse_closing_with_an_enemy_is_proposed_a_morale_check() -> None:
    """Lords of Hack: "A riding horse, mule, pony or draft horse must make a morale check before closing
    with an enemy". Bob closes to Melee with Bandit 1 on the Nag: its group is proposed the check (it
    was the GM's to remember); on the Destrier, a warhorse, nothing is proposed."""
    encounter = skirmish()
    encounter.next_turn()  # Bob's turn
    bob = Actor(user_id=12)
    encounter.combatant("Bob").position.mount = encounter.combatant("Destrier").id
    done = maneuvers.change_range(encounter, bob, target="Bandit 2", to=Range.MELEE, who="Bob", by="bob")
    assert done.result.proposals == ()
    encounter.combatant("Bob").position.mount = encounter.combatant("Nag").id
    done = maneuvers.change_range(encounter, bob, target="Bandit 1", to=Range.MELEE, who="Bob", by="bob")
    [proposal] = done.result.proposals
    assert (proposal.group, proposal.detail) == (
        "Horses",
        "Nag closes with Bandit 1: a riding horse checks morale before closing with an enemy, or bolts "
        "(R25).",
    )
    assert encounter.morale_proposals == [proposal]


# ----------------------------------------------------------------------------- horses' own attacks (R25)


@st.composite
def horse_states(draw: st.DrawFn) -> tuple[Encounter, str, str]:
    """A random fight state on a horse's turn: the Destrier (a warhorse) or the Nag (a riding horse)
    attacks, ridden by Alice or not, having moved or not, carrying a rider who moved or not, against a
    target that attacked it or not."""
    encounter = skirmish()
    horse = encounter.combatant(draw(st.sampled_from(["Destrier", "Nag"])))
    alice = encounter.combatant("Alice")
    target = encounter.combatant(draw(st.sampled_from(["Bandit 1", "Bandit 2", "Bob"])))
    encounter.initiative.turn_of = horse.holder
    if draw(st.booleans()):
        alice.position.mount = horse.id
        alice.moves = draw(st.integers(0, 2))
    horse.moves = draw(st.integers(0, 1))
    if draw(st.booleans()):
        encounter.blows.append(Blow(by=target.id, against=horse.id))
    if draw(st.booleans()):
        target.last_target = horse.id
    return encounter, horse.name, target.name


@settings(max_examples=80, deadline=None)
@given(horse_states())
def test_r25_odds_and_attack_agree_on_when_a_horse_may_strike(state: tuple[Encounter, str, str]) -> None:
    """Lords of Hack: a warhorse "will strike out with its hooves any combat round when it does not
    move"; riding horses "will only attack if they are attacked, cannot flee, and have no rider".
    /odds and /attack allow the same horse attacks, and refuse the others with the same words."""
    encounter, horse_name, target_name = state
    horse, target = encounter.combatant(horse_name), encounter.combatant(target_name)
    try:
        encounter_odds(
            encounter, CATALOG, horse, target, dice=1, attack_type=None, extra=Advantage.NONE, void=False
        )
        asked = None
    except RulesError as refused:
        asked = str(refused)
    copy = encounter.model_copy(deep=True)
    try:
        declare_attack(
            copy,
            CATALOG,
            GM,
            copy.combatant(horse_name),
            copy.combatant(target_name),
            Declaration(dice=1),
            RandomDice.seeded(3),
            NOW,
        )
        made = None
    except RulesError as refused:
        made = str(refused)
    assert asked == made
    rider = next((c for c in encounter.combatants if c.position.mount == horse.id), None)
    if horse.steed is not None and horse.steed.warhorse:
        moved = horse.moves > 0 or (rider is not None and rider.moves > 0)
        assert (made is not None) == moved
    else:
        attacked = target.last_target == horse.id or any(b.by == target.id for b in encounter.blows)
        assert (made is not None) == (rider is not None or not attacked)
