"""Exchanges on the fight document: invariants over any sequence of attacks, defenses and follow-ups
(R7, R9, R14, R15), and the bookkeeping a choice must undo.

The dice are random but seeded by hypothesis; whatever they show, no pool goes below zero, HP stay
within their bounds, a follow-up never counts a blow twice, and a refused step changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.catalog import load_catalog
from bot.encounter.attacks import (
    Declaration,
    DefenseChoice,
    ExchangeAction,
    answer,
    attack,
    attack_armor_class,
    choose_die,
    declare_attack,
    defend,
    desperate_defense,
    may_desperately_defend,
    will_save,
)
from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.errors import OutOfDate
from bot.encounter.permissions import Actor
from bot.encounter.results import ExchangeReport
from bot.rules.dice import RandomDice, ScriptedDice
from bot.rules.errors import RulesError
from bot.rules.options import BashCritical, RuleOptions
from bot.store import Store, open_store
from bot.table_options import DefensePolicy, TableOptions
from tests.rules.conftest import deck_dealing
from tests.sheets import character

CATALOG = load_catalog()
GM = Actor(user_id=1)
NOW = datetime(2026, 12, 1, tzinfo=UTC)


def duel(policy: DefensePolicy = DefensePolicy.ASK_GM) -> Encounter:
    """Alice (player 11, arming sword, pool 3) against a Bandit (messer, light gambeson, pool 2);
    Alice's turn (K♠ against 2♣)."""
    encounter = Encounter(
        channel_id=5, guild_id=6, gm_id=GM.user_id, table=TableOptions(defense_policy=policy)
    )
    sheet = character("Alice", shield="buckler")
    encounter.join(11, sheet, CATALOG.armor(sheet.armor))
    bandit = CATALOG.monster("bandit")
    encounter.add_npcs(bandit, CATALOG.armor(bandit.armor or "none"), count=1)
    encounter.initiative.deck = deck_dealing("KS", "2C")
    encounter.deal(ScriptedDice([]))
    return encounter


def alice_attacks(encounter: Encounter, dice: RandomDice | ScriptedDice, n: int = 1) -> int:
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    report = declare_attack(encounter, CATALOG, GM, alice, bandit, Declaration(dice=n), dice, NOW)
    return report.exchange_id


def test_r9_counting_another_die_for_a_bind_gives_the_hp_back() -> None:
    """R9, R14.6: hit by 25 against 21, the Bandit counts its other die, the 15 the attack showed: a
    Bind, and the 3 HP the hit took come back."""
    encounter = duel()
    declared = Declaration(dice=1, bonus=5)
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    exchange_id = declare_attack(
        encounter, CATALOG, GM, alice, bandit, declared, ScriptedDice([15]), NOW
    ).exchange_id
    # 15 + 2 Prowess + 3 Reach + 5 = 25 against 16 + 1 Prowess + 1 Dex + 3 Messer = 21: 6 damage - 3 DR.
    defend(
        encounter,
        CATALOG,
        GM,
        exchange_id,
        0,
        DefenseChoice(mode="active", dice=2),
        ScriptedDice([16, 15, 6]),
    )
    exchange = encounter.exchange(exchange_id)
    assert exchange.result is not None
    assert exchange.result.hit
    assert exchange.result.defender_bind_choice == 1
    assert bandit.hp == 8
    choose_die(encounter, CATALOG, GM, exchange_id, exchange.step, "defender", ScriptedDice([]))
    assert exchange.result.outcome.value == "bind"
    assert exchange.result.judgement.rule == "R14.6"
    assert bandit.hp == 11
    assert bandit.pool.remaining == 0  # the defense's dice stay spent
    assert not exchange.follow_ups
    before = encounter.model_dump()
    try:
        choose_die(encounter, CATALOG, GM, exchange_id, exchange.step, "defender", ScriptedDice([]))
    except RulesError:
        pass
    else:
        raise AssertionError("a second choice was allowed")
    assert encounter.model_dump() == before


def test_r15_a_desperation_defense_that_stands_takes_the_blow_back_and_costs_a_die_next_round() -> None:
    """R15: the Bandit (who acts after Alice: no initiative) is hit through one die, spends its last
    die on a second defense that wins; the hit is undone and it loses a die at the next refill (R6)."""
    encounter = duel()
    exchange_id = alice_attacks(encounter, ScriptedDice([15]))
    defend(encounter, CATALOG, GM, exchange_id, 0, DefenseChoice(mode="active", dice=1), ScriptedDice([4, 6]))
    bandit = encounter.combatant("Bandit")
    assert bandit.hp == 8
    exchange = encounter.exchange(exchange_id)
    report = desperate_defense(encounter, CATALOG, GM, exchange_id, exchange.step, ScriptedDice([18]))
    assert report.desperation_improved
    assert exchange.result is not None
    assert exchange.result.outcome.value == "miss"
    assert bandit.hp == 11
    assert (bandit.pool.remaining, bandit.pool.penalty_next_round) == (0, 1)
    assert report.pool_penalty == 1
    assert not report.swap_initiative


OPERATIONS = st.lists(
    st.tuples(st.sampled_from(["attack", "defend", "choose", "desperate"]), st.integers(1, 4), st.booleans()),
    max_size=12,
)


@settings(max_examples=200, deadline=None)
@given(operations=OPERATIONS, seed=st.integers(0, 2**32 - 1), hp=st.integers(1, 11))
def test_no_sequence_of_steps_overdraws_a_pool_or_counts_a_blow_twice(
    operations: list[tuple[str, int, bool]], seed: int, hp: int
) -> None:
    """R7: pools never go below zero; HP only ever move by the damage of the exchanges as they stand
    now (a Bind by choice or a desperation defense takes its blow back, exactly, even at the floor of
    minus the maximum HP); refusals change nothing."""
    encounter = duel()
    encounter.combatant("Bandit").max_hp = encounter.combatant("Bandit").hp = hp  # a few HP reach the floor
    dice = RandomDice.seeded(seed)
    dealt: dict[int, int] = {}
    """Lethal damage per exchange as it stands now; a settled exchange leaves the document (at the
    next attack) but its damage stays dealt."""
    for operation, n, shield in operations:
        before = encounter.model_dump()
        try:
            if operation == "attack":
                alice_attacks(encounter, dice, n)
            else:
                open_ones = [e for e in encounter.exchanges if e.pending or e.follow_ups]
                if not open_ones:
                    continue
                exchange = open_ones[-1]
                if operation == "defend":
                    choice = (
                        DefenseChoice(mode="active", dice=n, shield=shield)
                        if n < 4
                        else DefenseChoice(mode="passive")
                    )
                    defend(encounter, CATALOG, GM, exchange.id, exchange.step, choice, dice)
                elif operation == "choose":
                    choose_die(
                        encounter,
                        CATALOG,
                        GM,
                        exchange.id,
                        exchange.step,
                        "defender" if shield else "attacker",
                        dice,
                    )
                else:
                    desperate_defense(encounter, CATALOG, GM, exchange.id, exchange.step, dice)
        except RulesError:
            assert encounter.model_dump() == before, f"a refused {operation} changed the fight"
        for combatant in encounter.combatants:
            assert 0 <= combatant.pool.remaining <= combatant.pool.size
            assert -combatant.max_hp <= combatant.hp <= combatant.max_hp
        bandit = encounter.combatant("Bandit")
        dealt.update({e.id: e.applied.hp for e in encounter.exchanges if e.defender == bandit.id})
        assert bandit.hp == hp - sum(dealt.values())


def test_r12_r14_the_all_dice_policy_leaves_the_shield_out_at_grapple_range() -> None:
    """R12: at Grapple a shield defends passively only, so the policy defends with the dice alone
    (before, it picked the shield and the attack itself was refused)."""
    encounter = duel(DefensePolicy.ACTIVE_ALL)
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    alice.weapon, bandit.shield = "small_dagger", "buckler"
    encounter.engagement(alice, bandit).enter_grapple()
    # Alice 10 + 2 Prowess + 6 Speed = 18; the Bandit's two dice 3 and 12 + 1 + 1 (no weapon DB at
    # Grapple, no shield) = 14: a hit for the dagger's 4 - 3 DR (its AP 2 leaves 1).
    exchange_id = alice_attacks(encounter, ScriptedDice([10, 3, 12, 4]))
    exchange = encounter.exchange(exchange_id)
    assert exchange.defense is not None
    assert exchange.defense.roll is not None
    assert (exchange.defense.roll.committed, exchange.defense.shield) == (2, False)
    assert exchange.result is not None
    assert exchange.result.hit


# ----------------------------------------------------------------------------- use cases, through a store


async def stored_duel(policy: DefensePolicy = DefensePolicy.ASK_GM) -> Store:
    """The duel, saved in a throwaway in-memory store: what a command would find in its channel."""
    store = await open_store(":memory:")
    await store.save_encounter(duel(policy))
    return store


def attacking(who: str, target: str, faces: list[int]) -> Callable[[Encounter], Done[ExchangeReport]]:
    """``/attack target:`` with one die by ``who``, as the cog hands it to the store."""
    declared = Declaration(dice=1)
    return lambda e: attack(
        e, CATALOG, GM, who=who, target=target, declared=declared, dice=ScriptedDice(faces), now=NOW
    )


def passive_click(
    exchange_id: int, step: int, faces: list[int]
) -> Callable[[Encounter], Done[ExchangeReport]]:
    """The GM's click on an exchange's Passive button drawn at ``step``."""
    return lambda e: answer(
        e,
        CATALOG,
        GM,
        fight=e.tag,
        exchange_id=exchange_id,
        step=step,
        action=ExchangeAction.PASSIVE,
        dice_committed=0,
        dice=ScriptedDice(faces),
    )


async def test_an_attack_and_its_defense_are_each_one_change_with_their_log_line() -> None:
    """/attack then the Bandit's Passive, as the cog runs them: each operation's result says what the
    reply needs (the exchange, the passive defense offered), and its log line is saved with it."""
    store = await stored_duel()
    try:
        saved, asked = await store.change(5, GM.user_id, attacking("Alice", "Bandit", [15]))
        assert asked.exchange.pending
        assert asked.passive == 10  # R13: the Bandit defends passively with 8 + Prowess 1 + DEX 1
        assert saved.exchange(asked.exchange_id) is asked.exchange
        assert saved.combatant("Alice").pool.remaining == 2  # R7: the attack's die is spent
        saved, answered = await store.change(5, GM.user_id, passive_click(asked.exchange_id, 0, [6]))
        assert not answered.exchange.pending
        assert answered.exchange.result is not None
        assert answered.exchange.result.hit
        texts = [entry.text for entry in await store.read_log(channel_id=5)]
        assert texts == [
            "Alice attacks Bandit: 15 = 20; awaiting the defense",
            # R13: 20 beats 10; the arming sword's 6 less the gambeson's DR 3: 3 of the Bandit's 11 HP
            "Alice → Bandit: attack 15 = 20 vs passive = 10: hit (R13); damage 3; HP 11 → 8",
        ]
    finally:
        await store.close()


async def test_a_refused_attack_changes_nothing_and_logs_nothing() -> None:
    """A stale button (drawn for step 0 of an exchange already answered) and an attack out of turn are
    refused: the document keeps its version and the log its lines."""
    store = await stored_duel(DefensePolicy.PASSIVE)
    try:
        saved, report = await store.change(5, GM.user_id, attacking("Alice", "Bandit", [15, 6]))
        assert not report.exchange.pending  # the passive policy answered for the Bandit
        version, lines = saved.version, len(await store.read_log(channel_id=5))
        with pytest.raises(OutOfDate):
            await store.change(5, GM.user_id, passive_click(report.exchange_id, 0, []))
        with pytest.raises(RulesError, match="only on their own turn"):
            await store.change(5, GM.user_id, attacking("Bandit", "Alice", [9]))
        unchanged = await store.load_encounter(5)
        assert unchanged is not None
        assert unchanged.version == version
        assert len(await store.read_log(channel_id=5)) == lines
    finally:
        await store.close()


# ----------------------------------------------------------------------------- against AC (R24)


def against_ac(encounter: Encounter, attacker: str, target: str, faces: list[int]) -> int:
    """The AC ``attacker``'s attack against AC on ``target`` was rolled against."""
    result = attack_armor_class(
        encounter,
        CATALOG,
        GM,
        encounter.combatant(attacker),
        encounter.combatant(target),
        Declaration(dice=1),
        ScriptedDice(faces),
    )
    return result.roll.armor_class


def test_r24_a_skeleton_s_shield_is_counted_once_and_an_unarmored_character_adds_dex() -> None:
    """The skeleton's AC modifier 4 already counts its round shield: AC 14, not 16. Ansel, in no armor
    with DEX +3, has AC 13 (10 + DEX), not 10."""
    encounter = Encounter(channel_id=5, guild_id=6, gm_id=GM.user_id)
    encounter.join(11, character("Alice"), None)
    encounter.join(12, character("Ansel", dexterity=3, armor="none"), None)
    skeleton = CATALOG.monster("skeleton")
    encounter.add_npcs(skeleton, None, count=1)
    encounter.initiative.deck = deck_dealing("KS", "QS", "2C")
    encounter.deal(ScriptedDice([]))
    assert encounter.initiative.turn_of == encounter.combatant("Alice").holder
    assert against_ac(encounter, "Alice", "Skeleton", [1]) == 14
    assert against_ac(encounter, "Alice", "Ansel", [1]) == 13


def test_r15_no_desperation_defense_is_offered_against_a_hit_that_does_nothing() -> None:
    """Alice's 20 beats the Bandit's active 10, but her sword's 2 does not pass the gambeson's DR 3:
    a desperation defense could change nothing and would cost the Bandit's last die, so it is not
    offered (it was)."""
    encounter = duel()
    exchange_id = alice_attacks(encounter, ScriptedDice([15]))
    defend(encounter, CATALOG, GM, exchange_id, 0, DefenseChoice(mode="active", dice=1), ScriptedDice([5, 2]))
    exchange = encounter.exchange(exchange_id)
    assert exchange.result is not None
    assert exchange.result.hit
    assert exchange.result.damage is not None
    assert exchange.result.damage.lethal == 0
    assert encounter.combatant("Bandit").pool.remaining == 1
    assert not may_desperately_defend(exchange.result, encounter.combatant("Bandit"))
    assert not exchange.follow_ups


def knockout_blow(encounter: Encounter) -> int:
    """R16 with the Knock-Out option: Alice's war club rolls a natural 20 against the Bandit's passive
    defense, 6 damage + a d6 crit of 4: a threat of 10; 6 - 3 DR = 3 HP lost. Returns the exchange."""
    encounter.options = RuleOptions(bash_critical=BashCritical.KNOCKOUT)
    encounter.combatant("Alice").weapon = "war_club"
    exchange_id = alice_attacks(encounter, ScriptedDice([20]))
    defend(encounter, CATALOG, GM, exchange_id, 0, DefenseChoice(mode="passive"), ScriptedDice([6, 4]))
    exchange = encounter.exchange(exchange_id)
    assert exchange.knockout_threat == 10
    assert exchange.awaiting_knockout_save
    return exchange_id


@pytest.mark.parametrize(("faces", "pool_dice", "knocked_out"), [([5], 0, True), ([3, 10], 1, False)])
def test_r16_the_will_save_against_the_knockout_threat(
    faces: list[int], pool_dice: int, knocked_out: bool
) -> None:
    encounter = duel()
    exchange_id = knockout_blow(encounter)
    exchange = encounter.exchange(exchange_id)
    bandit = encounter.combatant("Bandit")
    done = will_save(
        encounter,
        GM,
        fight=encounter.tag,
        exchange_id=exchange_id,
        step=exchange.step,
        pool_dice=pool_dice,
        dice=ScriptedDice(faces),
    )
    assert exchange.knockout_save is not None
    assert exchange.knockout_save.success is not knocked_out
    assert exchange.knocked_out is knocked_out
    assert bandit.unconscious is knocked_out
    assert bandit.out_of_the_fight is knocked_out
    assert bandit.conditions == (["unconscious"] if knocked_out else [])
    assert bandit.pool.remaining == 2 - pool_dice
    assert (done.result.hp_before, bandit.hp) == (11, 8)
    outcome = "knocked out (unconscious)" if knocked_out else "stays conscious"
    total = 5 if knocked_out else 10
    assert done.log[0].endswith(
        f"Knock-Out threat of 10: {total}{' (3)' if pool_dice else ''} +0 = {total}: {outcome}"
    )
    # The save is made once: the same button again is out of date, and nothing changes.
    before = encounter.model_copy(deep=True)
    with pytest.raises(OutOfDate):
        will_save(
            encounter,
            GM,
            fight=encounter.tag,
            exchange_id=exchange_id,
            step=exchange.step - 1,
            pool_dice=0,
            dice=ScriptedDice([]),
        )
    assert encounter == before


def test_r16_only_the_defenders_side_makes_the_will_save() -> None:
    encounter = duel()
    exchange_id = knockout_blow(encounter)
    before = encounter.model_copy(deep=True)
    with pytest.raises(RulesError, match="Bandit is not yours: only the GM can make the Will save"):
        will_save(
            encounter,
            Actor(user_id=11),
            fight=encounter.tag,
            exchange_id=exchange_id,
            step=encounter.exchange(exchange_id).step,
            pool_dice=0,
            dice=ScriptedDice([]),
        )
    assert encounter == before
