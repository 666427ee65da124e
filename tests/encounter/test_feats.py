"""Martial Feats, the declared passive Bind and Damage to Weapons During Binds on the fight document
(R13, R14, R17): granted by the GM, applied by the exchange, each test quoting the Codex."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.encounter.attacks import (
    PASSIVE,
    Declaration,
    declare_attack,
    declare_bind,
    defend,
    may_declare_bind,
)
from bot.encounter.combatant import grant_feat
from bot.encounter.document import Encounter
from bot.encounter.odds import EncounterOdds, encounter_odds
from bot.encounter.permissions import Actor
from bot.encounter.records import Reaction, ReactionKind
from bot.encounter.results import ExchangeReport
from bot.rules.attack_rolls import AttackKind
from bot.rules.dice import Advantage, RandomDice, ScriptedDice
from bot.rules.engagement import Range
from bot.rules.errors import IllegalAction, RulesError
from bot.rules.feats import MartialFeat
from bot.rules.judgement import Outcome
from bot.rules.options import BindFeats, PassiveTie, RuleOptions
from bot.rules.pool import Spend
from bot.table_options import DefensePolicy
from tests.encounter.test_attacks import CATALOG, GM, NOW, alice_attacks, duel
from tests.encounter.test_situations import fight_states
from tests.sheets import character

ALICE = Actor(user_id=11)
ONE = Declaration(dice=1)


def tie_on_the_bandit(encounter: Encounter, *, dice: int = 1) -> int:
    """Alice's 5 (+2 Prowess +3 Reach = 10) against the Bandit's passive 10 (8 + 1 + 1): a tie (R13)."""
    exchange_id = alice_attacks(encounter, ScriptedDice([5] + [1] * (dice - 1)), n=dice)
    if encounter.exchange(exchange_id).pending:  # a Bandit without dice defends passively unasked
        defend(encounter, CATALOG, GM, exchange_id, 0, PASSIVE, ScriptedDice([3, 3, 3]))
    return exchange_id


# ----------------------------------------------------------------------------- granting feats


def test_the_gm_grants_and_takes_back_a_feat_and_a_player_cannot() -> None:
    encounter = duel()
    done = grant_feat(encounter, GM, "the GM", "Alice", MartialFeat.FUHLEN)
    assert encounter.combatant("Alice").feats == [MartialFeat.FUHLEN]
    assert done.log == ["the GM edited Alice: Martial Feats none → fuhlen"]
    with pytest.raises(RulesError, match="already holds fuhlen"):
        grant_feat(encounter, GM, "the GM", "Alice", MartialFeat.FUHLEN)
    with pytest.raises(RulesError):
        grant_feat(encounter, ALICE, "Alice's player", "Alice", MartialFeat.MUTIEREN)
    grant_feat(encounter, GM, "the GM", "Alice", MartialFeat.FUHLEN, remove=True)
    assert encounter.combatant("Alice").feats == []
    with pytest.raises(RulesError, match="does not hold fuhlen"):
        grant_feat(encounter, GM, "the GM", "Alice", MartialFeat.FUHLEN, remove=True)


def test_a_sheet_s_feats_come_into_the_fight() -> None:
    encounter = duel()
    sheet = character("Brun", feats=[MartialFeat.MISSILE_PARRYING])
    joined = encounter.join(12, sheet, CATALOG.armor(sheet.armor))
    assert joined.feats == [MartialFeat.MISSILE_PARRYING]


def test_the_passive_weapon_feat_raises_the_passive_defense_the_request_offers() -> None:
    """Codex: "Normally weapon defense does not apply to Passive Defense (some Martial Feats trump this,
    see Martial Feats)". The Bandit's messer has DB 3 (docs: Equipment numbers)."""
    encounter = duel()
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    asked = declare_attack(encounter, CATALOG, GM, alice, bandit, Declaration(dice=1), ScriptedDice([2]), NOW)
    assert asked.passive == 10
    encounter = duel()
    encounter.combatant("Bandit").feats = [MartialFeat.PASSIVE_WEAPON]
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    asked = declare_attack(encounter, CATALOG, GM, alice, bandit, Declaration(dice=1), ScriptedDice([2]), NOW)
    assert asked.passive == 10 + CATALOG.weapon(bandit.weapon).defense


# ----------------------------------------------------------------------------- the declared passive Bind


def test_by_default_a_passive_tie_is_a_bind_nobody_declares() -> None:
    encounter = duel()
    exchange = encounter.exchange(tie_on_the_bandit(encounter))
    assert exchange.result is not None
    assert exchange.result.outcome is Outcome.BIND
    assert not exchange.follow_ups


def test_a_side_with_dice_left_declares_the_passive_tie_a_bind() -> None:
    """Codex: "A die roll value which is equal to the targets Passive Defense is a Miss, but it also
    counts as a Bind. Either attacker or defender can declare a Bind if they have any MP remaining." """
    encounter = duel()
    encounter.options = RuleOptions(passive_tie=PassiveTie.DECLARED)
    exchange_id = tie_on_the_bandit(encounter)
    exchange = encounter.exchange(exchange_id)
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    assert exchange.result is not None
    assert exchange.result.outcome is Outcome.MISS
    assert exchange.result.judgement.declarable
    assert exchange.follow_ups
    assert may_declare_bind(exchange.result, alice)
    assert may_declare_bind(exchange.result, bandit)
    with pytest.raises(RulesError):  # Alice's player does not speak for the Bandit
        declare_bind(encounter, CATALOG, ALICE, exchange_id, exchange.step, "defender", ScriptedDice([]))
    report = declare_bind(encounter, CATALOG, ALICE, exchange_id, exchange.step, "attacker", ScriptedDice([]))
    assert report.declared_bind == "attacker"
    declared = report.exchange.result
    assert declared is not None
    assert declared.outcome is Outcome.BIND
    assert declared.judgement.rule == "R13"
    assert not exchange.follow_ups
    assert alice.pool.remaining == 2  # declaring spends nothing
    assert bandit.pool.remaining == 2


def test_without_dice_left_nobody_may_declare_the_bind() -> None:
    """ "if they have any MP remaining": Alice put all 3 dice in the attack and the Bandit has spent its
    2, so the tie stays a miss and nothing is offered."""
    encounter = duel()
    encounter.options = RuleOptions(passive_tie=PassiveTie.DECLARED)
    encounter.combatant("Bandit").pool.spend_all(Spend.MOVEMENT)
    exchange_id = tie_on_the_bandit(encounter, dice=3)
    exchange = encounter.exchange(exchange_id)
    assert exchange.result is not None
    assert exchange.result.judgement.declarable
    assert not exchange.follow_ups
    before = encounter.model_dump()
    with pytest.raises(RulesError):
        declare_bind(encounter, CATALOG, GM, exchange_id, exchange.step, "attacker", ScriptedDice([]))
    assert encounter.model_dump() == before


# ----------------------------------------------------------------------------- Bind & Strike, Mutieren


def bound_with_feats(options: RuleOptions) -> Encounter:
    """Alice (Mutieren) ties the Bandit (Bind & Strike)'s passive defense: a Bind (R13)."""
    encounter = duel()
    encounter.options = options
    encounter.combatant("Alice").feats = [MartialFeat.MUTIEREN]
    encounter.combatant("Bandit").feats = [MartialFeat.BIND_AND_STRIKE]
    tie_on_the_bandit(encounter)
    return encounter


def test_a_bind_gives_each_holder_of_a_bind_feat_an_attack_that_lands_together() -> None:
    """Codex: "If two opponents both have MF triggered by a Bind, such as for example if the attacker has
    Mutieren MF but the defender has Bind & Strike MF, these attacks take place simultaneously." """
    encounter = bound_with_feats(RuleOptions())
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    for by, against in ((alice, bandit), (bandit, alice)):
        owed = encounter.reaction(by, against, ReactionKind.BIND_ATTACK)
        assert owed is not None
        assert owed.together
    # Alice's Bind attack fells the Bandit (on her own turn it is still the Bind attack: Speed, R11) ...
    bandit.hp = 1
    report = declare_attack(
        encounter, CATALOG, GM, alice, bandit, Declaration(dice=1), ScriptedDice([19]), NOW
    )
    assert report.exchange.attack.attack.kind is AttackKind.BIND_ATTACK
    assert "Speed" in [m.label for m in report.exchange.attack.bonus]
    defend(encounter, CATALOG, GM, report.exchange.id, 0, PASSIVE, ScriptedDice([8, 8]))
    assert bandit.out_of_the_fight
    # ... and the Bandit's, landing at the same moment, is made all the same.
    struck = declare_attack(
        encounter, CATALOG, GM, bandit, alice, Declaration(dice=1), ScriptedDice([12]), NOW
    )
    assert struck.exchange.attack.attack.kind is AttackKind.BIND_ATTACK
    assert encounter.reaction(bandit, alice, ReactionKind.BIND_ATTACK) is None  # made once


def test_with_initiative_first_the_side_with_the_initiative_strikes_first() -> None:
    """Codex: "Alternately if you prefer a less 'bloody' system you can allow the person with the
    initiative to go first." Alice's King of Spades acts before the Bandit's 2 of Clubs."""
    encounter = bound_with_feats(RuleOptions(bind_feats=BindFeats.INITIATIVE_FIRST))
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    owed = encounter.reaction(bandit, alice, ReactionKind.BIND_ATTACK)
    assert owed is not None
    assert not owed.together
    before = encounter.model_dump()
    with pytest.raises(IllegalAction, match="Alice has the initiative and makes its Bind attack first"):
        declare_attack(encounter, CATALOG, GM, bandit, alice, ONE, ScriptedDice([12]), NOW)
    assert encounter.model_dump() == before
    bandit.hp = 1
    report = declare_attack(
        encounter, CATALOG, GM, alice, bandit, Declaration(dice=1), ScriptedDice([19]), NOW
    )
    defend(encounter, CATALOG, GM, report.exchange.id, 0, PASSIVE, ScriptedDice([8, 8]))
    assert bandit.out_of_the_fight
    with pytest.raises(IllegalAction, match="down"):  # felled first, the Bandit strikes no more
        declare_attack(encounter, CATALOG, GM, bandit, alice, ONE, ScriptedDice([12]), NOW)


def test_no_bind_attack_without_the_feat_or_without_dice() -> None:
    encounter = duel()
    encounter.combatant("Alice").feats = [MartialFeat.MUTIEREN]
    tie_on_the_bandit(encounter, dice=3)  # Alice has no die left for it
    alice, bandit = encounter.combatant("Alice"), encounter.combatant("Bandit")
    assert encounter.reaction(alice, bandit) is None
    assert encounter.reaction(bandit, alice) is None


# ----------------------------------------------------------------------------- weapons damaged in Binds


def test_damage_to_weapons_during_binds_names_the_weapon_and_spares_fuhlen() -> None:
    """Codex: "If you are using the optional rule Damage to Weapons During Binds the attacker has
    potentially damaged the defenders weapon. (On the other hand the Fuhlen MF confers immunity from
    your weapon being damaged in a bind.)" """
    encounter = duel()
    exchange = encounter.exchange(tie_on_the_bandit(encounter))
    assert exchange.result is not None
    assert exchange.result.weapon_damage is None  # the option is off by default
    encounter = duel()
    encounter.options = RuleOptions(weapon_damage_in_binds=True)
    exchange = encounter.exchange(tie_on_the_bandit(encounter))
    assert exchange.result is not None
    assert exchange.result.weapon_damage is not None
    assert exchange.result.weapon_damage.weapon == "Sword, Messer"
    assert not exchange.result.weapon_damage.fuhlen
    encounter = duel()
    encounter.options = RuleOptions(weapon_damage_in_binds=True)
    encounter.combatant("Bandit").feats = [MartialFeat.FUHLEN]
    exchange = encounter.exchange(tie_on_the_bandit(encounter))
    assert exchange.result is not None
    assert exchange.result.weapon_damage is not None
    assert exchange.result.weapon_damage.fuhlen


# ----------------------------------------------------------------------------- /odds agrees with /attack


@st.composite
def fight_states_with_feats(draw: st.DrawFn) -> tuple[Encounter, str, bool]:
    """The fight states of the situations' property (tests/encounter/test_situations.py), with Martial
    Feats on Alice and her target, any range between them (R12), and sometimes a Bind attack Alice is
    owed on it (R14)."""
    encounter, target, unseen = draw(fight_states())
    alice, targeted = encounter.combatant("Alice"), encounter.combatant(target)
    for who in (alice, targeted):
        who.feats = draw(st.lists(st.sampled_from(list(MartialFeat)), unique=True))
    encounter.engagement(alice, targeted).range = draw(st.sampled_from(list(Range)))
    if draw(st.booleans()):
        bind = Reaction(
            kind=ReactionKind.BIND_ATTACK,
            by=alice.id,
            against=targeted.id,
            round=encounter.initiative.round,
            reason="mutieren on the Bind",
        )
        encounter.reactions.append(bind)
    return encounter, target, unseen


def _made(encounter: Encounter, target: str, unseen: bool, policy: DefensePolicy) -> ExchangeReport | str:
    """Alice's /attack on ``target`` in a copy of the fight, NPCs defending by ``policy``."""
    copy = encounter.model_copy(deep=True)
    copy.table = copy.table.model_copy(update={"defense_policy": policy})
    try:
        return declare_attack(
            copy,
            CATALOG,
            GM,
            copy.combatant("Alice"),
            copy.combatant(target),
            Declaration(dice=1, unseen=unseen, holy_blessed=True),
            RandomDice.seeded(7),
            NOW,
        )
    except RulesError as refused:
        return str(refused)


def _asked(encounter: Encounter, target: str, unseen: bool) -> EncounterOdds | str:
    try:
        return encounter_odds(
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


@settings(max_examples=120, deadline=None)
@given(fight_states_with_feats())
def test_odds_and_attack_use_the_same_attack_and_defenses_with_feats_and_bind_attacks(
    state: tuple[Encounter, str, bool],
) -> None:
    """Whatever feats the two hold and whatever Bind attack is owed: /odds names the same kind of attack
    (a Bind attack uses Speed, R11, R14) with the same bonus, the same passive defense (R13, the weapon's
    DB with its feat), and the same active defense bonus (R14, Missile Parrying, shield and weapon) as
    /attack, or both refuse alike."""
    encounter, target, unseen = state
    alice = encounter.combatant("Alice")
    spent = encounter.initiative.round in (alice.forfeit_round, alice.attack_forfeit_round)
    if spent and isinstance(_made(encounter, target, unseen, DefensePolicy.PASSIVE), str):
        # R25: /attack refuses an attacker whose round (or attack) is spent, before anything else (an
        # owed Bind attack, a reaction, is not refused); /odds answers what it can and says so (the
        # situations' property checks that note)
        return
    asked = _asked(encounter, target, unseen)
    if isinstance(asked, str):
        assert _made(encounter, target, unseen, DefensePolicy.PASSIVE) == asked  # refused alike
        return
    made = _made(encounter, target, unseen, DefensePolicy.PASSIVE)
    assert not isinstance(made, str), made
    exchange = made.exchange
    assert asked.kind == exchange.attack.attack.kind.value
    assert list(asked.bonus) == exchange.attack.bonus
    passive = sum(m.value for m in asked.defenses[0].bonus)
    if exchange.pending:  # a player's target: the request offers the passive defense
        assert made.passive == passive
    else:
        assert exchange.defense is not None
        assert not exchange.defense.active
        assert exchange.defense.total == passive
    active = _made(encounter, target, unseen, DefensePolicy.ACTIVE_ALL)
    assert not isinstance(active, str), active
    defense = active.exchange.defense
    if defense is not None and defense.active:
        assert len(asked.defenses) == 2
        assert list(asked.defenses[1].bonus) == defense.bonus
