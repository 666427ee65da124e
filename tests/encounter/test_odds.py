"""The odds of an attack on the fight document (R11-R14): the same defenses ``/attack`` allows.

What defends against an attack is one rule (:func:`bot.encounter.fighters.undefended_because`,
:func:`~bot.encounter.fighters.may_defend_actively`): a target down defends passively, a helpless one
is undefended, one with dice left may also defend actively. Each case here is checked against the
defense :func:`~bot.encounter.attacks.declare_attack` really resolves against. Asking changes nothing.
"""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction

import pytest

from bot.catalog import load_catalog
from bot.encounter.attacks import Declaration, declare_attack
from bot.encounter.document import Encounter
from bot.encounter.odds import EncounterOdds, encounter_odds, odds_in_encounter
from bot.encounter.permissions import Actor
from bot.encounter.records import Reaction, ReactionKind
from bot.rules.dice import Advantage, ScriptedDice
from bot.rules.errors import RulesError
from bot.rules.odds import attack_odds
from bot.table_options import DefensePolicy, TableOptions
from tests.rules.conftest import deck_dealing
from tests.sheets import character

CATALOG = load_catalog()
GM = Actor(user_id=1)
ALICE = Actor(user_id=11)
NOW = datetime(2026, 12, 1, tzinfo=UTC)


def duel() -> Encounter:
    """Alice (player 11: Prowess 2, Dex +1, arming sword, pool 3) against a Bandit (Prowess 1, Dex +1,
    messer, light gambeson, pool 2: passive 10); Alice's turn (K♠ against 2♣). NPCs defend passively
    when attacked, so :func:`declare_attack` resolves at once."""
    encounter = Encounter(
        channel_id=5, guild_id=6, gm_id=GM.user_id, table=TableOptions(defense_policy=DefensePolicy.PASSIVE)
    )
    sheet = character("Alice")
    encounter.join(ALICE.user_id, sheet, CATALOG.armor(sheet.armor))
    bandit = CATALOG.monster("bandit")
    encounter.add_npcs(bandit, CATALOG.armor(bandit.armor or "none"), count=1)
    encounter.initiative.deck = deck_dealing("KS", "2C")
    encounter.deal(ScriptedDice([]))
    return encounter


def ask(encounter: Encounter | None) -> EncounterOdds:
    """Alice's next attack on the Bandit, 1 die, as /odds target:Bandit asks it."""
    return odds_in_encounter(
        encounter,
        CATALOG,
        ALICE,
        target="Bandit",
        attacker=None,
        dice=None,
        attack_type=None,
        extra=Advantage.NONE,
        void=False,
    )


def alices_odds(encounter: Encounter) -> EncounterOdds:
    before = encounter.model_dump()
    odds = ask(encounter)
    assert encounter.model_dump() == before  # asking changes nothing
    return odds


def rolled_against(encounter: Encounter) -> int:
    """The defense total Alice's 1-die attack (a 2: no critical, no fumble; a 1 for damage if it hits)
    is resolved against, on a copy of the document."""
    copy = encounter.model_copy(deep=True)
    alice, bandit = copy.combatant("Alice"), copy.combatant("Bandit")
    report = declare_attack(
        copy, CATALOG, ALICE, alice, bandit, Declaration(dice=1), ScriptedDice([2, 1]), NOW
    )
    exchange = copy.exchange(report.exchange_id)
    assert exchange.defense is not None, "the attack waits for a defense"
    return exchange.defense.total


def test_r13_a_target_with_dice_left_defends_passively_or_actively() -> None:
    encounter = duel()
    odds = alices_odds(encounter)
    assert [m.label for m in odds.bonus] == ["Prowess", "Reach"]
    passive, active = odds.defenses
    assert (passive.active, passive.undefended) == (False, None)
    assert passive.odds == attack_odds(attack_dice=1, attack_bonus=5, passive_defense=10)
    assert (active.dice, active.shield) == (2, False)
    assert active.odds == attack_odds(attack_dice=1, attack_bonus=5, defense_dice=2, defense_bonus=5)
    assert sum(m.value for m in passive.bonus) == rolled_against(encounter) == 10


@pytest.mark.parametrize("how", ["down", "unconscious", "incapacitated"])
def test_r13_r25_a_helpless_target_is_undefended_2_in_melee_and_hit_automatically(how: str) -> None:
    """The Codex: "Undefended targets have a Passive Defense value of 2 vs melee weapons (roll dice for
    Critical)"; R13 counts the helpless among them. A combatant down, out cold or incapacitated is
    undefended as /attack resolves it: 2 in melee, no active line, hit automatically (R25), and any
    natural 20 is a critical."""
    encounter = duel()
    bandit = encounter.combatant("Bandit")
    if how == "down":
        bandit.hp = 0
    elif how == "unconscious":
        bandit.nonlethal = bandit.hp
    else:
        bandit.add_condition("incapacitated")
    odds = alices_odds(encounter)
    [undefended] = odds.defenses
    assert (undefended.active, undefended.undefended) == (False, how)
    assert [(m.label, m.value) for m in undefended.bonus] == [("Undefended", 2)]
    assert sum(m.value for m in undefended.bonus) == rolled_against(encounter) == 2
    assert undefended.odds == attack_odds(attack_dice=1, attack_bonus=5, passive_defense=2, automatic=True)
    assert undefended.odds.hit == 1
    assert undefended.odds.critical == Fraction(1, 20)
    assert f"Bandit is {how}: hit automatically in melee (R25)" in odds.notes
    assert not any("Martial Pool" in note for note in odds.notes)


@pytest.mark.parametrize("how", ["unconscious", "incapacitated"])
def test_r13_a_helpless_target_shot_at_meets_8_and_is_not_asked_to_defend(how: str) -> None:
    """The Codex: undefended targets "are considered to have a Passive Defense value of 8 against
    missile weapons". An unconscious Bandit shot at met its full passive 10; an incapacitated one (with
    dice left) was asked for an active defense. Both now meet 8, in /odds as in /attack."""
    encounter = duel()
    encounter.combatant("Alice").weapon = "long_bow"
    bandit = encounter.combatant("Bandit")
    encounter.table = TableOptions(defense_policy=DefensePolicy.ASK_GM)
    if how == "unconscious":
        bandit.add_condition("unconscious")
    else:
        bandit.add_condition("incapacitated")
    odds = alices_odds(encounter)
    [undefended] = odds.defenses
    assert (undefended.undefended, sum(m.value for m in undefended.bonus)) == (how, 8)
    assert rolled_against(encounter) == 8  # resolved at once: nobody is asked for a defense


def test_r13_the_helpless_condition_leaves_the_target_undefended_as_attack_does() -> None:
    encounter = duel()
    encounter.combatant("Bandit").add_condition("helpless")
    odds = alices_odds(encounter)
    [undefended] = odds.defenses
    assert (undefended.active, undefended.undefended) == (False, "helpless")
    assert sum(m.value for m in undefended.bonus) == rolled_against(encounter) == 2
    assert undefended.odds == attack_odds(attack_dice=1, attack_bonus=5, passive_defense=2)


def test_r13_down_and_helpless_is_undefended() -> None:
    encounter = duel()
    bandit = encounter.combatant("Bandit")
    bandit.hp = 0
    bandit.add_condition("unaware")
    [undefended] = alices_odds(encounter).defenses
    assert undefended.undefended == "unaware"
    assert sum(m.value for m in undefended.bonus) == rolled_against(encounter) == 2


def test_r7_a_target_without_dice_left_only_defends_passively_and_a_note_says_why() -> None:
    encounter = duel()
    encounter.combatant("Bandit").pool.remaining = 0
    odds = alices_odds(encounter)
    [passive] = odds.defenses
    assert passive.undefended is None
    assert "Bandit has no Martial Pool dice left this round" in odds.notes[0]


def test_r11_r14_off_its_turn_an_owed_counterattack_uses_speed() -> None:
    """It is Alice's turn: the Bandit's attack on her is the counterattack it is owed, with Speed."""
    encounter = duel()
    bandit, alice = encounter.combatant("Bandit"), encounter.combatant("Alice")
    encounter.reactions.append(
        Reaction(kind=ReactionKind.COUNTERATTACK, by=bandit.id, against=alice.id, round=1, reason="a fumble")
    )
    odds = encounter_odds(
        encounter, CATALOG, bandit, alice, dice=None, attack_type=None, extra=Advantage.NONE, void=False
    )
    assert odds.kind == "counterattack"
    assert [(m.label, m.value) for m in odds.bonus] == [("Prowess", 1), ("Speed", 4)]
    assert odds.attack_type == "chop"


def test_refusals_change_nothing() -> None:
    encounter = duel()
    before = encounter.model_dump()
    alice = encounter.combatant("Alice")
    with pytest.raises(RulesError, match="cannot attack themselves"):
        encounter_odds(
            encounter, CATALOG, alice, alice, dice=None, attack_type=None, extra=Advantage.NONE, void=False
        )
    with pytest.raises(RulesError, match="There is no fight in this channel"):
        ask(None)
    assert encounter.model_dump() == before
