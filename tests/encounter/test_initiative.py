"""One press on the card initiative, on the document alone: who may deal, move on, hold and act
(R1-R5), the step a button carries, and what the press leaves for the reply and the log.

Every refusal leaves the whole document as it was.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import pytest

from bot.catalog import load_catalog
from bot.encounter import combatant, maneuvers
from bot.encounter.attacks import Declaration, declare_attack
from bot.encounter.document import Encounter, group_holder, player_holder
from bot.encounter.done import Done
from bot.encounter.errors import NotAllowed, OutOfDate
from bot.encounter.fighters import attack_state
from bot.encounter.initiative import press
from bot.encounter.permissions import Actor
from bot.encounter.results import RanOut, TurnAction, TurnMove
from bot.rules.dice import RandomDice, ScriptedDice
from bot.rules.equipment import MonsterTemplate
from bot.rules.errors import RulesError
from bot.rules.situations import Situation, situations_of
from bot.rules.turns import ClaimPause
from bot.table_options import TableOptions
from tests.rules.conftest import deck_dealing
from tests.sheets import character

NO_SHUFFLE = ScriptedDice([])
NOW = datetime(2026, 12, 1, tzinfo=UTC)
GM, ANN, BOB = 1, 11, 12
GM_ACTOR, ANN_ACTOR, BOB_ACTOR = Actor(GM), Actor(ANN), Actor(BOB)
ADMIN = Actor(99, manages_server=True)
ANSEL, BORS, BANDITS, WOLVES = (
    player_holder(ANN),
    player_holder(BOB),
    group_holder("Bandits"),
    group_holder("Wolves"),
)
NEXT, HOLD, ACT, DEAL = TurnAction.NEXT, TurnAction.HOLD, TurnAction.ACT, TurnAction.DEAL


def template(name: str) -> MonsterTemplate:
    return MonsterTemplate(
        key=name.lower(), name=name, source="house value", prowess=1, dex_mod=1, hp=7, weapon="arming_sword"
    )


def fight(*codes: str, pause: ClaimPause = ClaimPause.NEVER, wolves: bool = False) -> Encounter:
    """Ansel (Ann), Bors (Bob) and two Bandits (then two Wolves), not dealt yet; the deck will deal
    ``codes`` in that holder order."""
    encounter = Encounter(channel_id=100, guild_id=10, gm_id=GM, table=TableOptions(claim_pause=pause))
    encounter.join(ANN, character("Ansel"), None)
    encounter.join(BOB, character("Bors"), None)
    encounter.add_npcs(template("Bandit"), None, count=2)
    if wolves:
        encounter.add_npcs(template("Wolf"), None, count=2)
    encounter.initiative.deck = deck_dealing(*codes)
    return encounter


def dealt(*codes: str, **over: Any) -> Encounter:
    encounter = fight(*codes, **over)
    press(encounter, DEAL, GM_ACTOR, NO_SHUFFLE)
    return encounter


def go(encounter: Encounter, action: TurnAction, actor: Actor, **over: Any) -> TurnMove:
    return press(encounter, action, actor, NO_SHUFFLE, **over).result


def refused(
    encounter: Encounter,
    action: TurnAction,
    actor: Actor,
    match: str,
    error: type[RulesError] = RulesError,
    **over: Any,
) -> None:
    """The press is refused with ``error`` matching ``match``, and the document is as it was."""
    before = encounter.model_dump()
    with pytest.raises(error, match=match):
        go(encounter, action, actor, **over)
    assert encounter.model_dump() == before


# --------------------------------------------------------------------------------- the step


def test_a_button_drawn_for_an_earlier_step_is_refused_and_changes_nothing() -> None:
    """A double click acts once: the second click carries the step the first one moved past."""
    encounter = dealt("KS", "QS", "2C")
    step = encounter.flow.step
    go(encounter, NEXT, ANN_ACTOR, step=step)
    assert encounter.initiative.turn_of == BORS
    for action in TurnAction:
        refused(encounter, action, GM_ACTOR, "earlier moment of the fight", OutOfDate, step=step)


def test_the_step_is_checked_before_the_permission() -> None:
    """A stale click says it is stale, even from someone who could not have clicked it anyway."""
    encounter = dealt("KS", "QS", "2C")
    stale = encounter.flow.step - 1
    refused(encounter, NEXT, BOB_ACTOR, "earlier", OutOfDate, step=stale)


def test_a_command_carries_no_step_and_a_current_button_goes_on() -> None:
    encounter = dealt("KS", "QS", "2C")
    go(encounter, NEXT, ANN_ACTOR, step=encounter.flow.step)
    go(encounter, NEXT, BOB_ACTOR)
    assert encounter.initiative.turn_of == BANDITS


# --------------------------------------------------------------------------------- deal


@pytest.mark.parametrize("actor", [GM_ACTOR, ADMIN])
def test_the_gm_or_manage_server_deals(actor: Actor) -> None:
    encounter = fight("KS", "QS", "2C")
    move = go(encounter, DEAL, actor)
    assert move.dealt is not None
    assert move.dealt.round == 1
    assert encounter.initiative.turn_of == ANSEL


def test_a_player_cannot_deal() -> None:
    encounter = fight("KS", "QS", "2C")
    refused(
        encounter,
        DEAL,
        ANN_ACTOR,
        r"^Only the GM of this fight \(<@1>\) can deal",
        NotAllowed,
    )


# --------------------------------------------------------------------------------- next


def test_next_belongs_to_the_player_whose_turn_it_is_or_the_gm() -> None:
    """R1: Ansel's K♠ is up; Bob may not end it, Ann and the GM may."""
    encounter = dealt("KS", "QS", "2C")
    refused(
        encounter,
        NEXT,
        BOB_ACTOR,
        r"That card belongs to Ansel: only <@11> or the GM can end the turn of it",
        NotAllowed,
    )
    assert go(encounter, NEXT, ANN_ACTOR).advance.started is not None
    assert encounter.initiative.turn_of == BORS
    go(encounter, NEXT, GM_ACTOR)
    assert encounter.initiative.turn_of == BANDITS


def test_nobody_but_the_gm_ends_an_npc_groups_turn() -> None:
    encounter = dealt("2C", "3C", "KS")  # the Bandits' K♠ first
    assert encounter.initiative.turn_of == BANDITS
    refused(encounter, NEXT, ANN_ACTOR, r"only the GM can end the turn of it", NotAllowed)
    go(encounter, NEXT, ADMIN)
    assert encounter.initiative.turn_of == BORS


def test_between_turns_only_the_gm_or_a_player_offered_the_turn_moves_on() -> None:
    """R3: Ansel holds a Joker; when Bors' turn ends the turn is offered to Ansel. Bob may not go on;
    Ann may (declining the offer), like the GM."""
    encounter = dealt("BJ", "KS", "2C", pause=ClaimPause.JOKERS)
    go(encounter, HOLD, ANN_ACTOR)
    offered = go(encounter, NEXT, BOB_ACTOR)
    assert offered.advance.offered == [ANSEL]
    assert encounter.initiative.turn_of is None
    refused(
        encounter,
        NEXT,
        BOB_ACTOR,
        r"^Only the GM \(<@1>\) can start the next turn now\.",
        NotAllowed,
    )
    go(encounter, NEXT, ANN_ACTOR)
    assert encounter.initiative.turn_of == BANDITS


# --------------------------------------------------------------------------------- hold


def test_hold_belongs_to_the_player_whose_turn_it_is_or_the_gm() -> None:
    """R4: the card in play flips face down; only its player or the GM may hold it."""
    encounter = dealt("KS", "QS", "2C")
    refused(encounter, HOLD, BOB_ACTOR, r"only <@11> or the GM can hold it", NotAllowed)
    move = go(encounter, HOLD, ANN_ACTOR)
    assert move.held
    assert ANSEL in encounter.initiative.held
    go(encounter, HOLD, GM_ACTOR)  # the GM holds Bors's card for Bob
    assert BORS in encounter.initiative.held


def test_hold_needs_a_turn_in_progress() -> None:
    encounter = dealt("KS", "QS", "2C")
    while encounter.initiative.turn_of is not None:
        go(encounter, NEXT, GM_ACTOR)
    refused(encounter, HOLD, GM_ACTOR, "^No turn is in progress")


# --------------------------------------------------------------------------------- act


def test_act_is_for_the_players_own_card_unless_they_name_one() -> None:
    """R4: Ansel holds; during Bors' turn Ann claims the next turn with no card named: her own."""
    encounter = dealt("KS", "QS", "2C")
    go(encounter, HOLD, ANN_ACTOR)
    move = go(encounter, ACT, ANN_ACTOR)
    assert move.advance.queued == ANSEL
    assert encounter.flow.queued == [ANSEL]


def test_a_player_may_not_act_on_another_players_card() -> None:
    encounter = dealt("KS", "QS", "2C")
    go(encounter, HOLD, ANN_ACTOR)
    for wanted in (ANSEL, "ansel"):  # by the holder autocomplete gives, or by name in any case
        refused(encounter, ACT, BOB_ACTOR, r"only <@11> or the GM can act on it", NotAllowed, holder=wanted)
    go(encounter, ACT, GM_ACTOR, holder="Ansel")
    assert encounter.flow.queued == [ANSEL]


def test_a_card_not_in_play_is_named_with_the_cards_that_may_act() -> None:
    encounter = dealt("KS", "QS", "2C")
    go(encounter, HOLD, ANN_ACTOR)
    refused(
        encounter,
        ACT,
        GM_ACTOR,
        r"^No card called 'Nobody' is in play\. Cards that may act now: Ansel\.$",
        holder="Nobody",
    )


def test_the_gm_acts_for_the_only_npc_group_that_may_claim() -> None:
    """R4: the Bandits held; the GM's Act without a card is theirs."""
    encounter = dealt("2C", "3C", "KS")
    go(encounter, HOLD, GM_ACTOR)
    assert encounter.initiative.turn_of == BORS
    assert go(encounter, ACT, GM_ACTOR).advance.queued == BANDITS


def test_the_gm_names_the_group_when_several_may_claim() -> None:
    encounter = dealt("2C", "3C", "KS", "QS", wolves=True)  # Bandits K♠, then Wolves Q♠
    go(encounter, HOLD, GM_ACTOR)
    go(encounter, HOLD, GM_ACTOR)
    assert encounter.initiative.turn_of == BORS
    refused(
        encounter,
        ACT,
        GM_ACTOR,
        r"^Several NPC cards may act: Bandits, Wolves\. Name one with `/init act card:`\.$",
    )
    assert go(encounter, ACT, GM_ACTOR, holder="Wolves").advance.queued == WOLVES


def test_the_gm_with_no_npc_claimant_and_a_player_without_a_card_are_told_why() -> None:
    encounter = dealt("KS", "QS", "2C")
    refused(encounter, ACT, GM_ACTOR, "^No NPC group holds a card or a Joker")
    refused(encounter, ACT, Actor(13), "^You have no card in this round")


# --------------------------------------------------------------------------------- what a press leaves


def test_a_press_returns_what_the_reply_needs_and_one_plain_log_line() -> None:
    encounter = dealt("KS", "QS", "2C")
    done = press(encounter, NEXT, ANN_ACTOR, NO_SHUFFLE)
    assert done.kind == "initiative"
    assert done.result.action is NEXT
    assert done.result.actor_id == ANN
    assert done.result.dealt is None
    assert not done.result.held
    assert list(done.log) == ["Ansel's turn is over. ▶️ Bors' turn — Q♠"]


def test_a_deals_log_line_tells_the_round_the_order_and_the_first_turn() -> None:
    encounter = fight("KS", "QS", "2C")
    done = press(encounter, DEAL, GM_ACTOR, NO_SHUFFLE)
    assert list(done.log) == [
        "Round 1 — the cards are dealt (R2). K♠ Ansel · Q♠ Bors · 2♣ Bandits "
        "Every Martial Pool is full again (R5, R8). ▶️ Ansel's turn — K♠"
    ]


def test_r15_a_deal_does_not_call_a_pool_short_of_a_die_full() -> None:
    """A desperation defense without the initiative costs a die at the next refill (R6, R15): the deal
    says whose pool is short instead of "Every Martial Pool is full again" (which it said)."""
    encounter = fight("KS", "QS", "2C")
    encounter.combatant("Ansel").pool.penalty_next_round = 1
    done = press(encounter, DEAL, GM_ACTOR, NO_SHUFFLE)
    [line] = done.log
    assert "Every Martial Pool is full again (R5, R8), but for a desperation defense's lost die" in line
    assert "(R6, R15): Ansel 2/3." in line


def test_a_joker_turn_logs_its_bonus_on_the_same_line() -> None:
    """R3: the announcement spells out the Joker's bonus on a line of its own; the log keeps one line."""
    done = press(fight("BJ", "KS", "2C"), DEAL, GM_ACTOR, NO_SHUFFLE)
    [line] = done.log
    assert "\n" not in line
    assert line.endswith(
        "▶️ Ansel's turn — 🃏 Joker (black) 🃏 Joker: +2 to attack, damage, skill, ability check, magic, "
        "heal, morale rolls made this turn (R3)."
    )


# --------------------------------------------------------------------------------- conditions that run out


def lasting(encounter: Encounter, who: str, condition: str, **duration: Any) -> None:
    """The GM puts ``condition`` on ``who`` for ``duration`` (rounds, until_turn_end)."""
    combatant.change_condition(encounter, GM_ACTOR, "GM", who, condition, add=True, **duration)


def next_round(encounter: Encounter) -> Done[TurnMove]:
    """The GM ends the turns left in the round, then deals the next one."""
    while encounter.initiative.turn_of is not None:
        go(encounter, NEXT, GM_ACTOR)
    return press(encounter, DEAL, GM_ACTOR, NO_SHUFFLE)


CATALOG = load_catalog()


def situations_on(encounter: Encounter, who: str) -> list[Situation]:
    """R25: the situations a melee attack on ``who`` by another combatant of the fight has."""
    target = encounter.combatant(who)
    attacker = next(c for c in encounter.combatants if c.id != target.id)
    weapon = CATALOG.weapon(attacker.weapon)
    return situations_of(attack_state(encounter, CATALOG, attacker, target, weapon).facts)


def test_a_two_round_condition_runs_out_at_the_second_deal_and_the_log_says_so() -> None:
    encounter = dealt("KS", "QS", "2C")
    lasting(encounter, "Ansel", "prone", rounds=2)
    done = next_round(encounter)
    assert done.result.ran_out == []
    assert encounter.combatant("Ansel").conditions == ["prone"]
    assert encounter.combatant("Ansel").lasting["prone"].rounds_left == 1
    assert situations_on(encounter, "Ansel") == [Situation.PRONE_TARGET_MELEE]
    done = next_round(encounter)
    assert done.result.ran_out == [RanOut("Ansel", "prone")]
    assert encounter.combatant("Ansel").conditions == []
    assert encounter.combatant("Ansel").lasting == {}
    assert situations_on(encounter, "Ansel") == []
    assert "Ansel is no longer prone (it ran out)." in done.log[0]


def test_until_the_end_of_the_next_turn_runs_out_when_its_holders_turn_ends_and_not_before() -> None:
    """Ansel's K♠ is up, then Bors's Q♠: Bors's stun lasts through Ansel's turn, ends with his own."""
    encounter = dealt("KS", "QS", "2C")
    lasting(encounter, "Bors", "stunned", until_turn_end=True)
    assert go(encounter, NEXT, ANN_ACTOR).ran_out == []
    assert encounter.combatant("Bors").conditions == ["stunned"]
    done = press(encounter, NEXT, BOB_ACTOR, NO_SHUFFLE)
    assert done.result.ran_out == [RanOut("Bors", "stunned")]
    assert encounter.combatant("Bors").conditions == []
    assert "Bors is no longer stunned (it ran out)." in done.log[0]


def test_put_on_during_its_holders_own_turn_it_lasts_to_the_end_of_the_next_one() -> None:
    encounter = dealt("KS", "QS", "2C")
    lasting(encounter, "Ansel", "stunned", until_turn_end=True)
    go(encounter, NEXT, ANN_ACTOR)
    assert encounter.combatant("Ansel").conditions == ["stunned"]
    next_round(encounter)
    for _ in range(6):
        if encounter.initiative.turn_of == ANSEL:
            break
        go(encounter, NEXT, GM_ACTOR)
    assert encounter.initiative.turn_of == ANSEL
    assert encounter.combatant("Ansel").conditions == ["stunned"]
    assert go(encounter, HOLD, ANN_ACTOR).ran_out == [RanOut("Ansel", "stunned")]


def test_a_condition_without_a_duration_stays() -> None:
    encounter = dealt("KS", "QS", "2C")
    lasting(encounter, "Ansel", "prone")
    assert next_round(encounter).result.ran_out == []
    assert next_round(encounter).result.ran_out == []
    assert encounter.combatant("Ansel").conditions == ["prone"]
    assert encounter.combatant("Ansel").lasting == {}


def test_both_durations_at_once_are_refused_saying_why() -> None:
    encounter = dealt("KS", "QS", "2C")
    before = encounter.model_dump()
    with pytest.raises(RulesError, match=r"one duration: `rounds`.*not both"):
        lasting(encounter, "Ansel", "prone", rounds=2, until_turn_end=True)
    with pytest.raises(RulesError, match="A duration goes with `action:add`"):
        combatant.change_condition(encounter, GM_ACTOR, "GM", "Ansel", "prone", add=False, rounds=2)
    assert encounter.model_dump() == before


# --------------------------------------------------------------------------------- R4: hold instead of acting


def test_r4_attack_then_hold_is_refused_so_nobody_attacks_twice_in_a_round() -> None:
    """R4 holds a card instead of acting: Ansel attacked on his turn, so his card cannot be held
    (held, it could Act again this round: a second attack). The refusal changes nothing."""
    encounter = dealt("KS", "QS", "2C")
    bandit = encounter.combatant("Bandit 1")
    ansel = encounter.combatant("Ansel")
    declare_attack(
        encounter, CATALOG, ANN_ACTOR, ansel, bandit, Declaration(dice=1), RandomDice(random.Random(4)), NOW
    )
    refused(encounter, HOLD, ANN_ACTOR, r"already used.*R4 holds a card instead of acting")
    refused(encounter, HOLD, GM_ACTOR, r"already used")
    go(encounter, NEXT, ANN_ACTOR)
    assert ANSEL in encounter.initiative.acted
    refused(encounter, ACT, ANN_ACTOR, "already acted this round")


def test_r4_a_move_uses_the_turn_too_and_an_untouched_turn_may_still_hold() -> None:
    encounter = dealt("KS", "QS", "2C")
    maneuvers.move(encounter, ANN_ACTOR, who=None, combat_range=False, by="Ann")
    refused(encounter, HOLD, ANN_ACTOR, "already used")
    go(encounter, NEXT, ANN_ACTOR)
    assert go(encounter, HOLD, BOB_ACTOR).advance.ended is not None
    assert BORS in encounter.initiative.held
