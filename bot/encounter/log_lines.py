"""The plain-text lines of an encounter's log, and the small wording they share with the replies.

A log line is written inside the operation's transaction and kept with the encounter's log: plain
text on one line, every number a GM needs when reading it back later (the log escapes Markdown when it
shows it). The replies in :mod:`bot.ui` use the same wording for the same things (dice counts, signed
bonuses, a move and its cost).
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum
from typing import Protocol

from ..rules.cards import Card
from ..rules.dice import Advantage, PoolRoll
from ..rules.engagement import RangeChange
from ..rules.initiative import JOKER_BONUS_ROLLS, CardInPlay, DealResult, RollKind, TurnStarted
from ..rules.morale import MoraleStanding
from ..rules.movement import COMBAT_RANGE_COST, RUNNING_MOVES, MoveResult
from ..rules.saves import SaveResult
from ..rules.spirits import banishment, banishment_days
from ..rules.turns import Advance
from .combatants import Combatant, Lasting
from .document import HOLDER_NAME_LIMIT, Encounter
from .records import Exchange, MoraleProposal
from .results import (
    AcAttack,
    DrivenOut,
    ExchangeReport,
    HpChange,
    MindHealed,
    MoraleCheckReport,
    RallyReport,
    SpiritAttack,
    TurnMove,
)

Change = tuple[str, object, object]
"""What an edit or an options change changed: a label (or an option's field), the old value and the new."""


def dice_count(n: int) -> str:
    """``1 die``, ``3 dice``, ``no dice``."""
    if n == 0:
        return "no dice"
    return f"{n} {'die' if n == 1 else 'dice'}"


def signed(value: int) -> str:
    return f"{value:+d}"


def exchange_log_line(encounter: Encounter, exchange: Exchange, report: ExchangeReport) -> str:
    """The log's plain-text line for a resolved exchange: every die, both totals, what it did."""
    result = exchange.result
    assert result is not None
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    outcome = "critical hit" if result.judgement.critical else result.outcome.value
    if result.judgement.fumble:
        outcome += " (fumble)"
    defense = "passive" if result.defense.roll is None else f"active {plain_roll(result.defense.roll)}"
    desperate = (
        f", desperation {plain_roll(result.desperation.roll)}"
        if result.desperation and result.desperation.roll
        else ""
    )
    line = (
        f"{attacker.name} → {defender.name}: attack {plain_roll(result.attack.roll)} = {result.attack.total} "
        f"vs {defense}{desperate} = {result.defense.total}: {outcome} ({result.judgement.rule})"
    )
    if exchange.applied.range_before is not None:
        return f"{line}; now at Grapple"
    damage = result.damage
    if damage is not None and damage.armor_damage:
        line += f"; {damage.armor_damage} to the armor, {defender.armor_hp} HP left"
    elif damage is not None and damage.shield is not None:
        line += f"; {damage.shield_damage} to the shield, {defender.shield_hp} HP left"
    elif damage is not None:
        line += f"; damage {damage.lethal}"
        if damage.nonlethal:
            line += f" + {damage.nonlethal} nonlethal"
        line += f"; HP {report.hp_before} → {defender.hp}"
    if result.shield_damage is not None:
        line += f"; {result.shield_damage.damage} to the shield, {defender.shield_hp} HP left"
    if report.declared_bind is not None:
        declarer = attacker if report.declared_bind == "attacker" else defender
        line += f"; {declarer.name} declares the tie a Bind"
    elif result.judgement.declarable:
        line += "; a tie either side with dice left may declare a Bind"
    if result.weapon_damage is not None:
        weapon = result.weapon_damage.weapon
        line += f"; {weapon} immune (Fuhlen)" if result.weapon_damage.fuhlen else f"; {weapon} may be damaged"
    if exchange.awaiting_knockout_save and not defender.out_of_the_fight:
        line += f"; Knock-Out threat {exchange.knockout_threat}: a Will save is owed"
    line += situations_note(exchange.situations)
    banished = banishment_line(defender, report.hp_before)
    return f"{line}; {banished}" if banished else line


def banishment_line(combatant: Combatant, hp_before: int) -> str | None:
    """R27: a spirit just brought to 0 HP is not killed: a demon is sent back to Hell, another spirit
    dissipated, for 100 ÷ its HD days, rounded up. None for anyone else, or a spirit already down."""
    if not (combatant.spirit and combatant.is_down) or hp_before <= 0:
        return None
    fate = banishment(combatant.demon).value
    if combatant.hit_dice is None:
        return (
            f"{combatant.name} is not killed but {fate} (R27), for 100 ÷ its Hit Dice days; the fight does "
            "not know its HD (the GM sets them with /combatant edit hit_dice:)"
        )
    days = banishment_days(combatant.hit_dice)
    return (
        f"{combatant.name} is not killed but {fate} for {days} days "
        f"(100 ÷ {combatant.hit_dice} HD, rounded up; R27)"
    )


def knockout_save_log_line(encounter: Encounter, exchange: Exchange) -> str:
    """R16, R20: the defender's Will save against a Knock-Out threat, and what it did."""
    defender = encounter.combatant(exchange.defender)
    save = exchange.knockout_save
    assert save is not None, "only a rolled Will save is logged"
    outcome = "knocked out (unconscious)" if exchange.knocked_out else "stays conscious"
    return (
        f"{defender.name}'s Will save against the Knock-Out threat of {exchange.knockout_threat}: "
        f"{plain_roll(save.roll)} {signed(save.bonus)} = {save.total}: {outcome}"
    )


def situations_note(situations: Sequence[str]) -> str:
    """R25: the situations on an attack, with their sources, for its log line (nothing when none)."""
    return f" [{'; '.join(situations)}]" if situations else ""


def request_log_line(encounter: Encounter, exchange: Exchange) -> str:
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    roll = exchange.attack
    rolled = f"{plain_roll(roll.roll)} = {roll.total}"
    waiting = f"awaiting the defense{situations_note(exchange.situations)}"
    return f"{attacker.name} attacks {defender.name}: {rolled}; {waiting}"


def plain_roll(roll: PoolRoll) -> str:
    """``20 (7)``: the die that counts, then the others in brackets (plain text, for the log)."""
    others = [str(face) for index, face in enumerate(roll.faces) if index != roll.counting]
    return f"{roll.value} ({', '.join(others)})" if others else str(roll.value)


def ac_attack_log_line(encounter: Encounter, attack: AcAttack) -> str:
    """The log's plain-text line for an attack against AC (R24)."""
    attacker = encounter.combatant(attack.attacker)
    defender = encounter.combatant(attack.defender)
    verdict = "hit" if attack.roll.hit else "miss"
    damage = f", {attack.damage.lethal} damage" if attack.damage else ""
    banished = banishment_line(defender, attack.hp_before)
    return (
        f"{attacker.name} attacks {defender.name} against AC {attack.roll.armor_class}: "
        f"{attack.roll.total}, {verdict}{damage}{situations_note(attack.situations)}"
        + (f"; {banished}" if banished else "")
    )


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def dice_left(combatant: Combatant) -> str:
    """``1/3 dice left`` (R7: what is not spent stays for active defense)."""
    pool = combatant.pool
    return f"{pool.remaining}/{pool.size} {'die' if pool.size == 1 else 'dice'} left"


def move_cost(result: MoveResult, *, combat_range: bool) -> str:
    """What a walking move cost: the move itself (free the first time) and combat range (1 MP)."""
    range_cost = COMBAT_RANGE_COST if combat_range else 0
    move_cost = result.cost - range_cost
    if not result.cost:
        return "free"
    if not range_cost:
        return f"{dice_count(move_cost)} from the Martial Pool"
    if not move_cost:
        return f"free, but {dice_count(range_cost)} from the Martial Pool to enter or leave combat range"
    return (
        f"{dice_count(result.cost)} from the Martial Pool: {move_cost} for the move, "
        f"{range_cost} to enter or leave combat range"
    )


def move_what(result: MoveResult, *, combat_range: bool) -> str:
    """The plain-text middle of a move's reply and log line: which move it was and what it cost."""
    if result.running:
        spent = (
            f"spending the {dice_count(result.cost)} left in the Martial Pool"
            if result.cost
            else "no dice left"
        )
        return f"runs ({RUNNING_MOVES} moves this round, {spent})"
    cost = move_cost(result, combat_range=combat_range)
    return f"moves ({ordinal(result.moves_this_round)} move this round, {cost})"


def move_log_line(by: str, combatant: Combatant, result: MoveResult, *, combat_range: bool) -> str:
    return f"{by}: {combatant.name} {move_what(result, combat_range=combat_range)}, {dice_left(combatant)}"


def range_log_line(
    by: str, mover: Combatant, target: Combatant, change: RangeChange, *, provoked: bool
) -> str:
    line = (
        f"{by}: {mover.name} changed range with {target.name}: {change.old.label} → {change.new.label} "
        f"({dice_count(change.cost)}), {dice_left(mover)}"
    )
    if provoked:
        line += f"; {target.name} may make an opportunity attack on {mover.name}"
    return line


def save_log_line(by: str, combatant: Combatant, result: SaveResult) -> str:
    roll = result.roll
    situation = {Advantage.ADVANTAGE: " with advantage", Advantage.DISADVANTAGE: " with disadvantage"}
    outcome = "saved" if result.success else "failed"
    return (
        f"{by}: {combatant.name} saving throw vs {result.target} "
        f"with {dice_count(roll.committed)} from the pool"
        f"{situation.get(roll.advantage, '')}: {list(roll.faces)} keep {roll.value} {signed(result.bonus)} "
        f"= {result.total}, {outcome}; {dice_left(combatant)}"
    )


def situation_words(advantage: Advantage) -> str:
    return {
        Advantage.ADVANTAGE: " with advantage",
        Advantage.DISADVANTAGE: " with disadvantage",
    }.get(advantage, "")


# ----------------------------------------------------------------------------- morale


def check_log_line(by: str, who: str, report: MoraleCheckReport) -> str:
    """Plain text: ``Gamemaster: morale check for Bandits: Bandit 1 9+1=10 routed; Skeleton immune``."""
    parts: list[str] = []
    for combatant, result in report.results:
        if result.immune:
            parts.append(f"{combatant.name} immune")
            continue
        assert result.roll is not None
        faces = "/".join(str(face) for face in result.roll.faces)
        outcome = "holds" if result.passed else result.standing.value
        bonus = signed(result.modifier_total)
        parts.append(f"{combatant.name} {faces} keep {result.roll.value} {bonus} = {result.total} {outcome}")
    situation = situation_words(report.advantage)
    escape = "" if report.can_escape else " (cannot escape)"
    what = "morale recheck" if report.recheck else "morale check"
    return f"{by}: {what} for {who}{situation}{escape}: {'; '.join(parts)}"


def rally_log_line(by: str, report: RallyReport) -> str:
    result = report.result
    faces = "/".join(str(face) for face in result.roll.faces)
    outcome = "succeeded" if result.success else "failed"
    back = ", ".join(result.returned) or "nobody"
    tail = f"; back: {back}" if result.success else ""
    return (
        f"{by}: {report.rallier.name} rallied (CHA {faces} keep {result.roll.value} "
        f"{signed(sum(m.value for m in result.modifiers))} = {result.total}) and {outcome}{tail}"
    )


def standing_log_line(by: str, combatant: Combatant, previous: MoraleStanding) -> str:
    """``Gamemaster: Bandit 2 is now frightened (was routed)``: the GM's ruling (R21)."""
    return f"{by}: {combatant.name} is now {combatant.standing.value} (was {previous.value})"


def proposal_settled_log_line(by: str, proposal: MoraleProposal) -> str:
    """A confirmed proposal (R22) whose group has nobody left to check."""
    return f"{by}: morale proposal #{proposal.id} for {proposal.group} settled, nobody left to check"


def proposal_dismissed_log_line(by: str, proposal: MoraleProposal) -> str:
    """The GM declined a proposed check (R22): nothing was rolled."""
    return f"{by}: no morale check for {proposal.group} (proposal #{proposal.id}, {proposal.reason.value})"


def spirit_log_line(attack: SpiritAttack) -> str:
    """The fight log's line: plain text, every number, for the GM reading it later."""
    result = attack.result
    ability = result.ability.value
    outcome = (
        f"won, {ability} {result.score_before} → {result.score_after}"
        if result.attacker_wins
        else f"lost, {ability} stays {result.score_before}"
    )
    effect = f"; {attack.defender} is {result.effect.value}" if result.effect is not None else ""
    return (
        f"{attack.spirit} made a spiritual attack on {attack.defender}'s {ability}: "
        f"{result.attacker_total} vs {result.defender_total}, {outcome}{effect}"
    )


def driven_out_log_line(out: DrivenOut) -> str:
    before = f" (was {out.cha_before})" if out.cha_before is not None else ""
    spirit = out.spirit or "The spirit"
    line = (
        f"{spirit} is driven out of {out.person}: CHA {out.cha_after}{before}, Frightened until healed "
        "to CHA 3"
    )
    if out.proposal is not None:
        line += f"; morale check #{out.proposal.id} proposed for {out.proposal.group}"
    return line


def mind_healed_log_line(healed: MindHealed) -> str:
    healing = healed.healing
    ended = f"; no longer {healed.ended}" if healed.ended else ""
    return f"{healed.person}'s {healing.ability.value} healed {healing.before} → {healing.after}{ended}"


# ----------------------------------------------------------------------------- initiative


class Voice(Protocol):
    """How the initiative's wording is dressed: :data:`PLAIN` for the log, Markdown with mentions for
    the table (:mod:`bot.ui.announcements`). The words are the same; this only dresses them."""

    def holder(self, encounter: Encounter, holder: str) -> str:
        """A card's holder, named as :func:`holder_label` names it."""
        ...

    def strong(self, text: str) -> str:
        """Words that stand out: the round dealt, a button's name."""
        ...

    def name(self, text: str) -> str:
        """A name a user typed, shown as typed."""
        ...

    def mention(self, user_id: int) -> str:
        """`` <@user>``, leading space included, for the user to be told; or nothing."""
        ...


class _Plain:
    """The log's voice: names as typed, no Markdown, no mentions."""

    def holder(self, encounter: Encounter, holder: str) -> str:
        return holder_label(encounter, holder)

    def strong(self, text: str) -> str:
        return text

    def name(self, text: str) -> str:
        return text

    def mention(self, user_id: int) -> str:
        return ""


PLAIN: Voice = _Plain()
FACE_DOWN = "🂠"
JOKER_ROLLS = ", ".join(kind.value for kind in RollKind if kind in JOKER_BONUS_ROLLS)
ORDER_LIMIT = 1100
NAMES_LIMIT = 300
"""Budgets that keep an announcement within Discord's 2000 characters even with 54 long names."""


def holder_label(encounter: Encounter, holder: str) -> str:
    """A card's holder as the table reads it: the NPC group, or the player's characters (cut short)."""
    full = encounter.holder_name(holder)
    return full if len(full) <= HOLDER_NAME_LIMIT else full[: HOLDER_NAME_LIMIT - 1].rstrip() + "…"


def listing(items: list[str], separator: str, limit: int) -> str:
    """Items joined until ``limit`` characters; the rest are counted ("… and 12 more, on the tracker")."""
    text = ""
    for index, item in enumerate(items):
        candidate = item if not text else text + separator + item
        if len(candidate) > limit:
            rest = f"… and {len(items) - index} more (see the tracker)"
            return f"{text}{separator}{rest}" if text else rest
        text = candidate
    return text


def initiative_log_line(encounter: Encounter, move: TurnMove) -> str:
    """The log's line for a press on the initiative: what the table was told, on one line."""
    return " ".join(turn_move_lines(encounter, move, PLAIN))


def turn_move_lines(encounter: Encounter, move: TurnMove, voice: Voice) -> list[str]:
    """What a Deal, Next, Hold or Act did, line by line, read from the encounter after it."""
    lines = deal_lines(encounter, move.dealt, voice) if move.dealt is not None else []
    lines += [
        f"⌛ {voice.name(ran_out.combatant)} is no longer {voice.name(ran_out.condition)} (it ran out)."
        for ran_out in move.ran_out
    ]
    lines += [
        f"🐴 #{proposal.id} {voice.name(proposal.group)} should check morale: {voice.name(proposal.detail)} "
        "The GM rolls it from `/morale proposals`."
        for proposal in move.proposals
    ]
    return lines + advance_lines(encounter, move.advance, voice, held=move.held)


def deal_lines(encounter: Encounter, dealt: DealResult, voice: Voice) -> list[str]:
    """R2, R4, R5: the new round's cards, highest first, and what happened to the deck."""
    lines = [f"{voice.strong(f'Round {dealt.round}')} — the cards are dealt (R2)."]
    shown = _in_order(encounter, dealt.order, voice)
    if shown:
        lines.append(listing(shown, " · ", ORDER_LIMIT))
    if dealt.kept:
        kept = listing([voice.holder(encounter, holder) for holder in dealt.kept], ", ", NAMES_LIMIT)
        lines.append(f"Still held face down from an earlier round (R4): {kept}.")
    for reshuffle in dealt.reshuffles:
        before = f" before dealing to {voice.holder(encounter, reshuffle.before)}" if reshuffle.before else ""
        lines.append(
            f"🔀 Reshuffled {reshuffle.cards} discards into the deck{before}: {reshuffle.reason.value}."
        )
    for a, b in dealt.swapped:
        lines.append(
            f"🔁 {voice.holder(encounter, a)} and {voice.holder(encounter, b)} swapped initiative (R15)."
        )
    if encounter.combatants:
        short = [c for c in encounter.combatants if c.pool.remaining < c.pool.size]
        if not short:
            lines.append("Every Martial Pool is full again (R5, R8).")
        else:
            down = listing(
                [f"{voice.name(c.name)} {c.pool.remaining}/{c.pool.size}" for c in short], ", ", NAMES_LIMIT
            )
            lines.append(
                "Every Martial Pool is full again (R5, R8), but for a desperation defense's lost die "
                f"(R6, R15): {down}."
            )
    return lines


def _in_order(encounter: Encounter, ranked: list[CardInPlay], voice: Voice) -> list[str]:
    """The dealt cards, highest first (R1: ``DealResult.order``), NPC cards face down if hidden."""
    hidden = encounter.table.hide_npc_cards
    visible = [entry for entry in ranked if not (hidden and encounter.is_npc_holder(entry.holder))]
    shown = [f"{entry.card.label} {voice.holder(encounter, entry.holder)}" for entry in visible]
    concealed = [entry for entry in ranked if entry not in visible]
    if concealed:
        groups = listing([voice.holder(encounter, entry.holder) for entry in concealed], ", ", NAMES_LIMIT)
        shown.append(f"{FACE_DOWN} {groups} (NPC cards hidden until their turn)")
    return shown


def _player_of(encounter: Encounter, holder: str) -> int:
    """Who plays a card: its player, or the GM for an NPC group."""
    owner = encounter.holder_owner(holder)
    return owner if owner is not None else encounter.gm_id


def possessive(name: str) -> str:
    """``name``'s, or ``name``' for a name ending in s (a group: "Bandits' turn"); bold Markdown kept."""
    return f"{name}'" if name.rstrip("*").endswith(("s", "S")) else f"{name}'s"


def turn_started_lines(encounter: Encounter, started: TurnStarted, voice: Voice) -> list[str]:
    """R1, R3, R4: whose turn it is, on which card (shown now, even a hidden NPC card), with the
    Joker's bonus spelled out."""
    how = ""
    if started.claimed:
        how = " (claimed with a Joker)" if started.card.is_joker else " (claimed with a held card)"
    who = voice.holder(encounter, started.holder)
    mention = voice.mention(_player_of(encounter, started.holder))
    lines = [f"▶️ {possessive(who)} turn{how} — {started.card.label}{mention}"]
    if started.card.is_joker:
        lines.append(
            f"🃏 Joker: +{encounter.options.joker_bonus} to {JOKER_ROLLS} rolls made this turn (R3)."
        )
    return lines


def advance_lines(encounter: Encounter, advance: Advance, voice: Voice, *, held: bool = False) -> list[str]:
    """What Next, Hold or Act did to the turns: the turn over or held, a claim, the turn started, the
    turn offered between turns, the round over."""
    lines: list[str] = []
    if advance.ended is not None:
        ended = voice.holder(encounter, advance.ended.holder)
        if held or advance.ended.held:
            lines.append(f"{FACE_DOWN} {ended} holds: the card stays face down (R4).")
        else:
            lines.append(f"{possessive(ended)} turn is over.")
    if advance.queued is not None:
        current = encounter.initiative.turn_of
        after = f" when {possessive(voice.holder(encounter, current))} turn ends" if current else ""
        lines.append(
            f"{voice.holder(encounter, advance.queued)} claims the next turn: it starts{after} (R3, R4)."
        )
    if advance.started is not None:
        lines += turn_started_lines(encounter, advance.started, voice)
    act, next_ = voice.strong("Act"), voice.strong("Next")
    if advance.offered and not advance.round_over:
        offered = listing(
            [
                f"{voice.holder(encounter, holder)}{voice.mention(_player_of(encounter, holder))}"
                for holder in advance.offered
            ],
            ", ",
            NAMES_LIMIT,
        )
        following = encounter.initiative.order
        then = f" with {voice.holder(encounter, following[0].holder)}" if following else ""
        lines.append(
            f"⏸️ Between turns: {offered} may take the turn now with {act} (R3, R4); {next_} goes on{then}."
        )
    if advance.round_over:
        gm = voice.mention(encounter.gm_id)
        lines.append(f"⏹️ Round {encounter.initiative.round} is over. The GM{gm} deals the next round.")
        if advance.offered:
            waiting = listing(
                [voice.holder(encounter, holder) for holder in advance.offered], ", ", NAMES_LIMIT
            )
            lines.append(f"Held cards may still act first with {act}: {waiting}.")
    return lines


# ----------------------------------------------------------------------------- roster


def started_log_line(by: str) -> str:
    return f"{by} started a fight"


def ended_log_line(by: str, rounds: int) -> str:
    return f"{by} ended the fight after {rounds} round{'' if rounds == 1 else 's'}"


def reopened_log_line(by: str) -> str:
    return f"{by} reopened the fight"


def option_label(field: str) -> str:
    return field.replace("_", " ")


def option_value(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, Enum):
        return str(value.value)
    return str(value)


def _changes_listed(changes: Sequence[tuple[str, object, object]]) -> str:
    return "; ".join(f"{option_label(f)} {option_value(o)} → {option_value(n)}" for f, o, n in changes)


def options_log_line(changes: Sequence[tuple[str, object, object]]) -> str:
    return f"options changed: {_changes_listed(changes)}"


def defaults_log_line(by: str, changes: Sequence[tuple[str, object, object]]) -> str:
    """The options new fights start with, changed on the server; a log line of kind "settings"."""
    return f"{by} changed the server's defaults for new fights: {_changes_listed(changes)}"


def handed_over_log_line(by: str, whom: str) -> str:
    return f"{by} handed the fight to {whom}"


def gm_role_log_line(by: str, role: str | None) -> str:
    """The server's GM role set (by its name) or cleared; a log line of kind "settings"."""
    if role is None:
        return f"{by} cleared the server's GM role"
    return f"{by} set the server's GM role to {role}"


def joined_log_line(player: str, joined: Combatant, *, returning: bool = False) -> str:
    if returning:
        return f"{player} brought {joined.name} back, as they left: HP {joined.hp}/{joined.max_hp}"
    return f"{player} joined with {joined.name}"


def left_log_line(player: str, left: Combatant) -> str:
    return f"{player} took {left.name} out of the fight"


TURN_CUT_SHORT = "Their turn was in progress and is over; the GM starts the next one with Next."
"""Said when the combatants whose turn it was leave the fight (R2: their card is discarded)."""


def npcs_added_log_line(by: str, added: Sequence[Combatant], template: str) -> str:
    names = ", ".join(npc.name for npc in added)
    return f"{by} added {names} ({template}) to the group {added[0].group}"


def npcs_removed_log_line(by: str, removed: Sequence[Combatant]) -> str:
    return f"{by} removed {', '.join(target.name for target in removed)} from the fight"


def card_discarded_log_line(group: str | None, card: Card) -> str:
    return f"the card of {group} ({card.label}) was discarded"


def hp_log_line(by: str, combatant: Combatant, old: int, change: HpChange) -> str:
    down = f" ({combatant.state_label})" if combatant.is_down else ""
    banished = banishment_line(combatant, old)
    return f"{by}: {combatant.name} HP {old} → {combatant.hp} ({change}){down}" + (
        f"; {banished}" if banished else ""
    )


def condition_log_line(
    by: str, combatant: Combatant, condition: str, *, added: bool, lasting: Lasting | None = None
) -> str:
    until = f" ({duration_label(lasting)})" if lasting is not None else ""
    return f"{by}: {combatant.name} is {'now' if added else 'no longer'} {condition}{until}"


def duration_label(lasting: Lasting) -> str:
    """How long a condition still lasts, as the tracker and the log say it: "2 rounds"."""
    if lasting.rounds_left is not None:
        return f"{lasting.rounds_left} round{'s' if lasting.rounds_left != 1 else ''}"
    return "to end of next turn"


def edit_log_line(by: str, name: str, changes: Sequence[tuple[str, object, object]]) -> str:
    listed = "; ".join(f"{label} {old} → {new}" for label, old, new in changes)
    return f"{by} edited {name}: {listed}"


def position_log_line(
    by: str, combatant: Combatant, changes: Sequence[Change], notes: Sequence[str] = ()
) -> str:
    """``/situation``: what changed in where a combatant stands (R25), and what it cost."""
    listed = "; ".join(f"{label} {old} → {new}" for label, old, new in changes) or "nothing changed"
    extra = f" ({' '.join(notes)})" if notes else ""
    return f"{by}: {combatant.name}'s situation: {listed}{extra}"
