"""The request for a defense: the attack rolled and the defender asked to choose, with its buttons
(R13, R14); and that message once its time ran out, or once an undo or a redo made it untrue."""

from __future__ import annotations

from datetime import timedelta

import discord

from ...encounter.attacks import ExchangeAction
from ...encounter.combatants import Combatant
from ...encounter.document import Encounter
from ...encounter.fighters import shield_usable
from ...encounter.permissions import player_of
from ...encounter.records import Exchange
from ...rules.pool import MAX_POOL
from ...table_options import DefensePolicy
from ...wording.phrases import dice_count
from ..buttons import Button
from ..tracker import name
from .custom_ids import exchange_custom_id
from .lines import attack_headline, attack_line, clip


def request_content(encounter: Encounter, exchange: Exchange, weapon: str, passive: int) -> str:
    """The attack rolled, and the defender asked to choose (pinging its player or the GM)."""
    defender = encounter.combatant(exchange.defender)
    asked = player_of(encounter, defender)
    who = f"<@{asked}>" if asked == defender.owner_id else f"<@{asked}> (GM)"
    left = defender.pool.remaining
    active = "its last die" if left == 1 else f"1 to {left} of {dice_count(left)} left"
    lines = [
        attack_headline(encounter, exchange, weapon),
        attack_line(exchange.attack),
        f"🛡️ {who}: how does **{name(defender.name)}** defend? Passive **{passive}**, or active with "
        f"{active}{_free_dice(defender, exchange)} (R13, R14).",
    ]
    if exchange.deadline is not None and not exchange.gm_pinged:
        fallback = encounter.table.defense_policy
        then = "the GM is asked" if fallback is DefensePolicy.ASK_GM else f"the defense is {fallback.value}"
        lines.append(f"⏰ If nobody picks by {deadline_shown(exchange)}, {then}.")
    return clip("\n".join(lines))


def deadline_shown(exchange: Exchange) -> str:
    """A defense's deadline as Discord shows it, in each reader's time zone: the time alone for a wait
    within the hour (a voice table's minutes), with its date for a longer one (a play-by-post table's
    day, read the next morning: "by 14:03" alone would read as a time already gone)."""
    assert exchange.deadline is not None
    style = "t" if exchange.deadline - exchange.asked_at <= timedelta(hours=1) else "f"
    return f"<t:{int(exchange.deadline.timestamp())}:{style}>"


def expired_request_content(encounter: Encounter, exchange: Exchange, weapon: str, *, where: str) -> str:
    """The request for a defense once its time ran out: the attack as it was asked, and what happened
    instead, pointing at the message (``where``, its link) that now carries the defense or its result.
    Its buttons go with this edit, so nobody answers a question that is closed."""
    deadline = f" by {deadline_shown(exchange)}" if exchange.deadline is not None else ""
    if exchange.pending:
        then = f"the GM decides, in {where}."
    else:
        policy = encounter.table.defense_policy.value
        then = f"the table's policy defended (**{policy}**); the result is in {where}."
    return clip(
        "\n".join(
            [
                attack_headline(encounter, exchange, weapon),
                attack_line(exchange.attack),
                f"⏰ Nobody picked a defense{deadline}: {then}",
            ]
        )
    )


def put_back_exchange_content(
    before: Encounter, exchange: Exchange, weapon: str, *, now: Exchange | None, asked_again: str | None
) -> str:
    """An exchange's message once an undo or a redo made it untrue (drawn from the fight as it was
    before): the attack, and what became of it (``now``: the exchange after, if it still stands),
    pointing at the new request (``asked_again``, its link) when the defense is asked anew. Its buttons
    go with this edit."""
    if asked_again is not None:
        then = f"↩️ Put back: the defense is asked again, in {asked_again}."
    elif now is None:
        then = "↩️ Undone: this attack no longer stands; the fight went back to before it."
    else:
        then = "↪️ Redone: this attack's result, as first rolled, stands again (see `/encounter log`)."
    return clip("\n".join([attack_headline(before, exchange, weapon), attack_line(exchange.attack), then]))


ASKED_AGAIN = "↩️ After an undo or a redo, this attack waits for its defense again."
"""The first line of a request posted anew after an undo or a redo."""


def _free_dice(defender: Combatant, exchange: Exchange) -> str:
    """R14: the free dice an active defense would add: the shield's, and one per 25% of cover against a
    missile."""
    free: list[str] = []
    if _shield_usable(defender, exchange):
        free.append("+1 free die with the shield")
    cover = defender.position.cover if exchange.attack.missile else 0
    if cover:
        free.append(f"+{dice_count(cover)} free from {cover * 25}% cover against the missile")
    return f" ({'; '.join(free)})" if free else ""


def _shield_usable(defender: Combatant, exchange: Exchange) -> bool:
    return shield_usable(defender, exchange.attack.attack.range)


def defense_buttons(encounter: Encounter, exchange: Exchange, passive: int) -> list[list[Button]]:
    """Passive; Active with 1..k dice; the same with the shield; Void (R13, R14) — one row each."""
    defender = encounter.combatant(exchange.defender)
    left = min(defender.pool.remaining, MAX_POOL)
    rows: list[list[Button]] = [
        [
            Button(
                label=f"Passive ({passive})",
                emoji="🛡️",
                style=discord.ButtonStyle.secondary,
                custom_id=exchange_custom_id(exchange, ExchangeAction.PASSIVE),
            )
        ]
    ]
    if left < 1:
        return rows
    rows.append(_dice_row(exchange, ExchangeAction.ACTIVE, "Active", discord.ButtonStyle.primary, left))
    if _shield_usable(defender, exchange):
        rows.append(_dice_row(exchange, ExchangeAction.SHIELD, "Shield +", discord.ButtonStyle.success, left))
    rows.append(_dice_row(exchange, ExchangeAction.VOID, "Void", discord.ButtonStyle.secondary, left))
    return rows


def _dice_row(
    exchange: Exchange,
    action: ExchangeAction,
    label: str,
    style: discord.ButtonStyle,
    left: int,
    emoji: str | None = None,
) -> list[Button]:
    """One button per number of dice, 1 to ``left``."""
    return [
        Button(
            label=f"{label} {dice_count(n)}",
            emoji=emoji,
            style=style,
            custom_id=exchange_custom_id(exchange, action, n),
        )
        for n in range(1, left + 1)
    ]
