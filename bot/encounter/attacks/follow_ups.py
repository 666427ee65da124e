"""Follow-ups while an exchange is fresh: another die counted or a Bind declared (R9, R13), a
desperation defense (R15), each taking back what the exchange did and applying the new result so HP
never count a blow twice; and the Will save against a Knock-Out threat (R16)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from ...catalog import Catalog
from ...rules.dice import D20Witness, DiceSource
from ...rules.errors import IllegalAction, RulesError, shown
from ...rules.exchange import AttackResult, desperation_defense, resolve_exchange
from ...rules.fighter import Fighter
from ...rules.pool import Spend
from ...rules.saves import knockout_save
from ...wording.attacks import knockout_save_log_line
from ..combatants import KNOCKED_OUT, MAX_CONDITIONS, Combatant
from ..document import Encounter
from ..done import Done
from ..fighters import fighter
from ..morale import group_snapshot, propose_checks
from ..permissions import Actor, require_control
from ..records import Exchange
from ..results import ExchangeReport
from .blows import apply_result, may_declare_bind, may_desperately_defend, undo_result
from .exchanges import open_exchange, report_of, require_this_fight


def _follow_up(
    encounter: Encounter, exchange_id: int, step: int | None
) -> tuple[Exchange, AttackResult, Combatant, Combatant]:
    exchange = open_exchange(encounter, exchange_id, step)
    result = exchange.result
    if exchange.pending or result is None:
        raise RulesError("That attack still waits for the defender's choice.")
    if not exchange.follow_ups:
        raise RulesError(
            "That exchange is settled: its choices were made, or a new round has begun. Nothing was changed."
        )
    return exchange, result, encounter.combatant(exchange.attacker), encounter.combatant(exchange.defender)


def choose_die(
    encounter: Encounter,
    catalog: Catalog,
    actor: Actor,
    exchange_id: int,
    step: int | None,
    side: Literal["attacker", "defender"],
    dice: DiceSource,
) -> ExchangeReport:
    """R9: the attacker or the defender counts another of their dice, which makes a Bind (R14.6)."""
    exchange, result, attacker, defender = _follow_up(encounter, exchange_id, step)
    chooser = attacker if side == "attacker" else defender
    require_control(encounter, actor, chooser, "choose a die")
    index = result.attacker_bind_choice if side == "attacker" else result.defender_bind_choice
    if index is None:
        raise IllegalAction(f"{shown(chooser.name)} has no other die that would make a Bind.")
    attack, defense = result.attack, result.defense
    if side == "attacker":
        attack = attack.choose(index)
    else:
        defense = defense.choose(index)
    report = report_of(exchange, defender)
    report.chose_die = side

    def bind(attacking: Fighter, defending: Fighter) -> AttackResult:
        exchange.attack, exchange.defense = attack, defense
        return resolve_exchange(attacking, defending, attack, defense, dice, encounter.options)

    _decide_again(encounter, catalog, exchange, attacker, defender, report, bind)
    return report


def declare_bind(
    encounter: Encounter,
    catalog: Catalog,
    actor: Actor,
    exchange_id: int,
    step: int | None,
    side: Literal["attacker", "defender"],
    dice: DiceSource,
) -> ExchangeReport:
    """R13 (``passive_tie: declared``): the attacker or the defender, with dice left, declares the
    tie against the passive defense a Bind; nothing is spent."""
    exchange, result, attacker, defender = _follow_up(encounter, exchange_id, step)
    declarer = attacker if side == "attacker" else defender
    require_control(encounter, actor, declarer, "declare a Bind")
    if not may_declare_bind(result, declarer):
        raise IllegalAction(
            f"{shown(declarer.name)} can declare a Bind only on a tie against a passive defense, with "
            "Martial Pool dice left (R13); nothing was changed."
        )
    report = report_of(exchange, defender)
    report.declared_bind = side

    def bind(attacking: Fighter, defending: Fighter) -> AttackResult:
        return resolve_exchange(
            attacking, defending, result.attack, result.defense, dice, encounter.options, bind_declared=True
        )

    _decide_again(encounter, catalog, exchange, attacker, defender, report, bind)
    return report


def _decide_again(
    encounter: Encounter,
    catalog: Catalog,
    exchange: Exchange,
    attacker: Combatant,
    defender: Combatant,
    report: ExchangeReport,
    decide: Callable[[Fighter, Fighter], AttackResult],
) -> None:
    """R9, R15: a resolved exchange decided anew (another die counted, a desperation defense): what the
    first result did is taken back, ``decide`` (run after it, with both fighters) gives the new result,
    which is applied; nothing else may follow, and a morale check its losses call for is proposed."""
    before = group_snapshot(encounter, defender.group) if defender.group else None
    undo_result(encounter, exchange, attacker, defender)
    attacking, defending = fighter(attacker, catalog, weapon=exchange.weapon), fighter(defender, catalog)
    apply_result(encounter, exchange, decide(attacking, defending), attacker, defender, defending)
    exchange.follow_ups = False
    if before is not None:
        report.proposals = propose_checks(encounter, before)


def desperate_defense(
    encounter: Encounter,
    catalog: Catalog,
    actor: Actor,
    exchange_id: int,
    step: int | None,
    dice: DiceSource,
) -> ExchangeReport:
    """R15: the defender, hit while defending actively, spends every die left on a second defense; the
    better stands. With the initiative the two swap it next round; without, it loses a die then (R6)."""
    exchange, result, attacker, defender = _follow_up(encounter, exchange_id, step)
    require_control(encounter, actor, defender, "make a desperation defense")
    if not may_desperately_defend(result, defender):
        raise IllegalAction(
            f"{shown(defender.name)} can make a desperation defense only when hit while defending "
            "actively, once, and with dice left."
        )
    state = encounter.initiative
    had_initiative = state.went_first(defender.holder, attacker.holder)
    report = report_of(exchange, defender)

    def desperately(attacking: Fighter, defending: Fighter) -> AttackResult:
        # The HP shown before is as the first result's undoing left them.
        report.hp_before, report.nonlethal_before = defender.hp, defender.nonlethal
        left = defender.pool.spend_all(Spend.DESPERATION_DEFENSE)
        outcome = desperation_defense(
            result,
            attacking,
            defending,
            dice,
            dice_left=left,
            defender_has_initiative=had_initiative,
            cover_quarters=defender.position.cover,
            options=encounter.options,
        )
        if outcome.swap_initiative and defender.holder != attacker.holder:
            state.swap_next_round(defender.holder, attacker.holder)
        defender.pool.penalty_next_round += outcome.pool_penalty
        report.desperation_improved = outcome.improved
        report.swap_initiative = outcome.swap_initiative
        report.pool_penalty = outcome.pool_penalty
        return outcome.result

    _decide_again(encounter, catalog, exchange, attacker, defender, report, desperately)
    return report


def will_save(
    encounter: Encounter,
    actor: Actor,
    *,
    fight: str,
    exchange_id: int,
    step: int,
    pool_dice: int,
    dice: DiceSource,
) -> Done[ExchangeReport]:
    """R16 (Knock-Out option), R20: the defender (its player, or the GM) rolls the Will save against the
    blow's Knock-Out threat, with ``pool_dice`` Martial Pool dice joining the free die; a failure puts
    the :data:`~bot.encounter.combatants.KNOCKED_OUT` condition on it (out of the fight until removed).

    Choice: rolling the save accepts the blow, so the exchange's other choices (R9, R15) close.
    """
    require_this_fight(encounter, fight)
    exchange = open_exchange(encounter, exchange_id, step)
    defender = encounter.combatant(exchange.defender)
    threat = exchange.knockout_threat
    if threat is None:
        raise RulesError("That blow made no Knock-Out threat, so there is no Will save to make (R16).")
    if exchange.knockout_save is not None:
        raise RulesError(f"{shown(defender.name)} has already made that Will save; nothing was changed.")
    require_control(encounter, actor, defender, "make the Will save")
    if defender.out_of_the_fight:
        raise IllegalAction(f"{shown(defender.name)} is {defender.state_label}: there is nothing to save.")
    if len(defender.conditions) >= MAX_CONDITIONS:
        raise IllegalAction(
            f"{shown(defender.name)} already has {MAX_CONDITIONS} conditions, and a failed save adds "
            f"'{KNOCKED_OUT}': remove one with /combatant condition first. Nothing was rolled."
        )
    if pool_dice:
        defender.pool.spend(pool_dice, Spend.SAVE)
    before = group_snapshot(encounter, defender.group) if defender.group else None
    witness = D20Witness(dice)
    save = knockout_save(witness, pool_dice=pool_dice, will=defender.wis_mod, threat=threat)
    exchange.knockout_save = save
    if not save.success:
        defender.add_condition(KNOCKED_OUT)
        exchange.knocked_out = True
    exchange.follow_ups = False
    exchange.step += 1
    report = ExchangeReport(
        exchange=exchange,
        hp_before=defender.hp + exchange.applied.hp,
        nonlethal_before=defender.nonlethal - exchange.applied.nonlethal,
    )
    if before is not None:
        report.proposals = propose_checks(encounter, before)
    return Done(report, log=[knockout_save_log_line(encounter, exchange)], kind="attack").rolled(witness)
