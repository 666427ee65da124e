"""What ``/move``, ``/range``, ``/save`` and ``/pool`` show: the replies the table reads in the channel,
the opportunity attack leaving Grapple gives as buttons, and a combatant's Martial Pool as its player
looks it up.

A reply is written to be understood on its own in a play-by-post channel read hours later: who did
what, what it cost in Martial Pool dice (R7) and how many dice are left; it shares that wording with
the log lines (:mod:`bot.wording.maneuvers`). Names users typed go through
:func:`~bot.ui.tracker.name`.
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from ..encounter.combatants import Combatant
from ..encounter.document import Encounter
from ..encounter.maneuvers import MoveOutcome, RangeOutcome, SaveOutcome
from ..encounter.records import Reaction
from ..rules.dice import Advantage
from ..rules.engagement import Range
from ..rules.movement import FREE_MOVES, MAX_WALKING_MOVES, RUNNING_MOVES
from ..wording.maneuvers import move_what
from ..wording.phrases import dice_count, dice_left, listing, signed
from .announcements import CONTENT_LIMIT, Announcement, fitted
from .attack_views.follow_ups import reaction_buttons
from .buttons import view_of
from .morale_views import proposal_button, proposal_line
from .rolls import pool_faces
from .tracker import SHORT_NAME, fight_ranges, name, pool_pips, short

# ---------------------------------------------------------------------------------- /move (R19)


def move_reply(moved: MoveOutcome) -> str:
    """``🏃 **Alice** moves (2nd move this round, 1 die from the Martial Pool) — 1/3 dice left``."""
    combatant, result = moved.combatant, moved.result
    what = move_what(result, combat_range=moved.combat_range)
    line = f"🏃 **{name(combatant.name)}** {what} — {dice_left(combatant)}"
    if result.running:
        return f"{line}. No more moves this round (R19)."
    if result.moves_this_round >= MAX_WALKING_MOVES:
        return f"{line}. That was the last move this round: {MAX_WALKING_MOVES} is the most (R19)."
    return line


def moves_text(moves: int) -> str:
    """Moves made this round and what the next would cost (R19)."""
    if moves >= RUNNING_MOVES:
        return f"ran this round ({RUNNING_MOVES} moves): no more moves"
    if moves >= MAX_WALKING_MOVES:
        return f"{moves} this round: no more (3 is the most)"
    if moves < FREE_MOVES:
        return "none yet this round (the first is free)"
    return f"{moves} this round (the next costs 1 die; 3 is the most)"


# ---------------------------------------------------------------------------------- /range (R12)


def range_announcement(changed: RangeOutcome, *, actor_id: int, gm_id: int | None = None) -> Announcement:
    """The pair's new range and its cost; when leaving Grapple gave the target an opportunity attack
    (R12), who may make it, pinging whoever plays the target (unless they made the change); when a
    riding horse closed with an enemy, the morale check proposed for it (R25), pinging the GM."""
    mover, target, change, reaction = changed.mover, changed.target, changed.change, changed.reaction
    announcement = Announcement()
    announcement.lines.append(
        f"↔️ **{name(mover.name)}** changes range with **{name(target.name)}**: "
        f"{change.old.label} → **{change.new.label}** ({dice_count(change.cost)} from the Martial Pool, "
        f"1 per step) — {dice_left(mover)}"
    )
    if reaction is not None:
        mention = announcement.notify(changed.controller, actor_id)
        pool = target.pool
        announcement.lines.append(
            f"⚠️ Leaving Grapple provokes an opportunity attack (R12): **{name(target.name)}** may now "
            f"attack **{name(mover.name)}** (the buttons below, or `/attack`) before the round ends "
            f"(it costs Martial Pool dice, and {name(target.name)} has {pool.remaining}/{pool.size} left). "
            f"{mention}".rstrip()
        )
    elif change.provokes_opportunity_attack:
        why = "is out of the fight" if target.out_of_the_fight else "has no Martial Pool dice left this round"
        announcement.lines.append(
            f"Leaving Grapple would provoke an opportunity attack (R12), but **{name(target.name)}** {why}."
        )
    for proposal in changed.proposals:
        mention = announcement.notify(gm_id, actor_id)
        announcement.lines.append(f"{proposal_line(proposal)} {mention}".rstrip())
    return announcement


def range_buttons(encounter: Encounter, changed: RangeOutcome) -> discord.ui.View | None:
    """The opportunity attack the target may now make on the mover, as buttons (R12), and the morale
    check proposed for a riding horse closing with an enemy (R25), if any."""
    rows: list[Sequence[discord.ui.Item[discord.ui.View]]] = []
    if changed.owed is not None:
        rows.append(reaction_buttons(encounter, changed.owed))
    if changed.proposals:
        rows.append([proposal_button(p, encounter.tag) for p in changed.proposals])
    return view_of(rows) if rows else None


# ---------------------------------------------------------------------------------- /save (R20)

_SITUATION = {
    Advantage.ADVANTAGE: " with advantage (one extra die, R10)",
    Advantage.DISADVANTAGE: " with disadvantage (the highest die is removed, R10)",
}


def save_reply(saved: SaveOutcome) -> str:
    """Every die (the one that counts in bold), the bonus, the total against the target, the outcome
    and the dice left, the Joker's part of the bonus apart (R3)."""
    combatant, result, joker = saved.combatant, saved.result, saved.joker
    roll = result.roll
    paid = f" + {dice_count(roll.committed)} from the Martial Pool" if roll.committed else ""
    situation = _SITUATION.get(roll.advantage, "")
    bonus = signed(result.bonus)
    if joker:
        bonus = f"{signed(result.bonus - joker)} {signed(joker)} Joker (R3)"
    verdict = "✅ **saved**" if result.success else "❌ **failed**"
    return "\n".join(
        [
            f"🛡️ **{name(combatant.name)}** makes a saving throw against **{result.target}** "
            f"with 1 free die{paid}{situation}, keeping the highest (R20)",
            f"{pool_faces(roll)} → {roll.value} {bonus} = `{result.total}` vs {result.target}: {verdict} "
            f"— {dice_left(combatant)}",
        ]
    )


# ---------------------------------------------------------------------------------- /pool


def _spent_text(combatant: Combatant) -> str:
    spent = [(purpose, count) for purpose, count in combatant.pool.spent.items() if count]
    if not spent:
        return "nothing yet"
    return ", ".join(f"{count} on {purpose.value}" for purpose, count in spent)


def _reaction_text(encounter: Encounter, reaction: Reaction) -> str:
    against = next((c for c in encounter.combatants if c.id == reaction.against), None)
    whom = f"**{name(against.name)}**" if against is not None else "a combatant who left"
    return f"{reaction.kind.value} on {whom} ({name(reaction.reason)}) with `/attack`"


POOL_RANGES_LIMIT = 600
"""The characters a combatant's ranges take in ``/pool`` at most; the other opponents are counted."""


def ranges_text(encounter: Encounter, combatant: Combatant) -> str | None:
    """R12: ``at Grapple with **Wolf**; at Melee with **Bandit 1**, **Bandit 2**; at Onset with everyone
    else``, closest first; None when ``combatant`` is at Onset with everyone."""
    opponents: dict[Range, list[str]] = {}
    for pair in fight_ranges(encounter):
        if combatant.id in (pair.first.id, pair.second.id):
            other = pair.second if pair.first.id == combatant.id else pair.first
            opponents.setdefault(pair.range, []).append(f"**{name(other.name)}**")
    if not opponents:
        return None
    each = [
        f"at {at.label} with {listing(names, ', ', POOL_RANGES_LIMIT // len(opponents))}"
        for at, names in opponents.items()
    ]
    return "; ".join([*each, "at Onset with everyone else"])


def pool_lines(encounter: Encounter, combatant: Combatant) -> list[str]:
    """One combatant's Martial Pool: dice left, what went where this round (R7), its moves (R19),
    any desperation penalty at the next refill (R6, R15), the reactions it may make (R12, R14), and
    its ranges (R12)."""
    pool = combatant.pool
    lines = [
        f"**{name(combatant.name)}** · {pool_pips(combatant)} {dice_left(combatant)}",
        f"Spent this round: {_spent_text(combatant)}",
        f"Moves: {moves_text(combatant.moves)}",
    ]
    if pool.penalty_next_round:
        lines.append(
            f"Next round: {dice_count(pool.penalty_next_round)} fewer at the refill (desperation defense, R6)"
        )
    owed = [reaction for reaction in encounter.reactions if reaction.by == combatant.id]
    lines.extend(f"May make: {_reaction_text(encounter, reaction)}" for reaction in owed)
    ranges = ranges_text(encounter, combatant)
    if ranges is not None:
        lines.append(f"Ranges: {ranges} (R12)")
    if combatant.out_of_the_fight:
        lines.append(f"{name(combatant.name)} is {combatant.state_label}.")
    return lines


def pool_report(encounter: Encounter, combatants: Sequence[Combatant]) -> str:
    """``/pool``: the pools of ``combatants``, within one message."""
    state = encounter.initiative
    heading = (
        f"🎲 **Martial Pool** — round {state.round}"
        if state.round
        else "🎲 **Martial Pool** — no cards dealt yet; every pool refills at each deal (R8)"
    )
    lines = [heading]
    for combatant in combatants:
        lines.append("")
        lines.extend(pool_lines(encounter, combatant))
    if len("\n".join(lines)) <= CONTENT_LIMIT:
        return "\n".join(lines)
    more = "Dice left and moves made, one line each; `/pool who:` gives one in full."
    compact = [heading, *(pool_short_line(encounter, combatant) for combatant in combatants), more]
    if len("\n".join(compact)) <= CONTENT_LIMIT:
        return "\n".join(compact)
    by_dice: dict[str, list[str]] = {}
    for combatant in combatants:
        left = f"{pool_pips(combatant)} {dice_left(combatant)}"
        by_dice.setdefault(left, []).append(f"**{short(combatant.name, SHORT_NAME)}**")
    share = (CONTENT_LIMIT - len(heading) - len(more)) // len(by_dice) - 40
    grouped = [f"{left} ({len(names)}): {listing(names, ', ', share)}" for left, names in by_dice.items()]
    return fitted([heading, *grouped, "`/pool who:` gives one in full."])


def pool_short_line(encounter: Encounter, combatant: Combatant) -> str:
    """A combatant's pool in a big group's ``/pool``, on one line: ``**Bandit 1** · ●●○ 2/3 · 1 move``
    (dice left, moves made), and the attacks it may make, its penalty and its state, when it has any."""
    pool = combatant.pool
    parts = [
        f"**{short(combatant.name, SHORT_NAME)}**",
        f"{pool_pips(combatant)} {pool.remaining}/{pool.size}",
    ]
    if combatant.moves:
        parts.append(f"{combatant.moves} move{'' if combatant.moves == 1 else 's'}")
    owed = sum(1 for reaction in encounter.reactions if reaction.by == combatant.id)
    if owed:
        parts.append(f"may make {owed} attack{'' if owed == 1 else 's'} out of turn")
    if pool.penalty_next_round:
        parts.append(f"{dice_count(pool.penalty_next_round)} fewer next round")
    if combatant.out_of_the_fight:
        parts.append(f"**{combatant.state_label}**")
    return " · ".join(parts)
