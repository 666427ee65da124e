"""What a fight waits for, and where: every decision still open (a defense, the choices after a result,
a Will save, an offered turn, a morale proposal), who must make it, and a link to the message that
carries its buttons. The tracker and ``/encounter show`` list it, so a fight is never stuck on a
decision nobody can find.
"""

from __future__ import annotations

import discord

from ..encounter.attacks import may_declare_bind, may_desperately_defend
from ..encounter.combatants import Combatant
from ..encounter.document import Encounter
from ..encounter.permissions import player_of
from ..encounter.records import Exchange
from ..rules.errors import shown as name

WAITING_TITLE = "⏳ Waiting for"


def message_link(encounter: Encounter, message_id: int | None) -> str:
    """A jump link to one of the fight's messages (nothing when it is not known, or in a DM)."""
    if message_id is None or encounter.guild_id is None:
        return ""
    url = f"https://discord.com/channels/{encounter.guild_id}/{encounter.channel_id}/{message_id}"
    return f" — [its message]({url})"


def waiting_lines(encounter: Encounter) -> list[str]:
    """One line per decision the fight waits for, oldest first (empty: it waits for none)."""
    lines = [_exchange_line(encounter, exchange) for exchange in encounter.exchanges]
    found = [line for line in lines if line]
    if encounter.initiative.turn_of is None and encounter.flow.offered:
        holders = ", ".join(f"**{name(encounter.holder_name(h))}**" for h in encounter.flow.offered)
        players = dict.fromkeys(
            owner if owner is not None else encounter.gm_id
            for owner in (encounter.holder_owner(h) for h in encounter.flow.offered)
        )
        who = ", ".join(f"<@{user}>" for user in players)
        found.append(
            f"🃏 The next turn is offered to {holders} ({who}): Act with a held card or a Joker (R3, R4)"
        )
    for proposal in encounter.morale_proposals:
        shown_in = next((m.id for m in reversed(encounter.messages) if proposal.id in m.proposals), None)
        found.append(
            f"🏳️ <@{encounter.gm_id}> (GM): morale check #{proposal.id} for **{name(proposal.group)}** (R22), "
            f"or `/morale proposals`{message_link(encounter, shown_in)}"
        )
    return found


def _exchange_line(encounter: Encounter, exchange: Exchange) -> str | None:
    by_id = {c.id: c for c in encounter.combatants}
    attacker, defender = by_id.get(exchange.attacker), by_id.get(exchange.defender)
    if attacker is None or defender is None:
        return None
    link = message_link(encounter, exchange.message_id)
    against = f"**{name(attacker.name)}**'s attack"
    if exchange.pending:
        asked = encounter.gm_id if exchange.gm_pinged else player_of(encounter, defender)
        where = link or " — its request is being posted again"
        return f"🛡️ <@{asked}>: **{name(defender.name)}**'s defense against {against}{where}"
    if exchange.awaiting_knockout_save and not defender.out_of_the_fight:
        saver = player_of(encounter, defender)
        return f"😵 <@{saver}>: **{name(defender.name)}**'s Will save after {against} (R16){link}"
    if exchange.follow_ups and exchange.result is not None:
        still_open = f"still open after {against} on **{name(defender.name)}** (R9, R15){link}"
        who = " ".join(f"<@{user}>" for user in _choosers(encounter, exchange, attacker, defender))
        return f"🎯 {who}: choices {still_open}" if who else f"🎯 Choices {still_open}"
    return None


FIELD_LIMIT = 1024
"""Characters in an embed field's value (Discord's limit)."""


def add_waiting(embed: discord.Embed, encounter: Encounter) -> discord.Embed:
    """``embed`` (the tracker, ``/encounter show``) with a field listing what the fight waits for, if
    anything; lines that would not fit are counted instead."""
    lines = waiting_lines(encounter)
    if not lines:
        return embed
    kept: list[str] = []
    for number, line in enumerate(lines):
        more = f"… and {len(lines) - number} more: `/encounter show`"
        if len("\n".join([*kept, line])) > FIELD_LIMIT - len(more) - 1:
            kept.append(more)
            break
        kept.append(line)
    return embed.add_field(name=WAITING_TITLE, value="\n".join(kept), inline=False)


def _choosers(
    encounter: Encounter, exchange: Exchange, attacker: Combatant, defender: Combatant
) -> list[int]:
    """Whose choices are still open after a result (R9, R15): the defender's desperation defense or its
    other die, the attacker's other die, a Bind either side may declare; each player once."""
    result = exchange.result
    assert result is not None
    sides = []
    if result.attacker_bind_choice is not None or may_declare_bind(result, attacker):
        sides.append(attacker)
    if (
        may_desperately_defend(result, defender)
        or result.defender_bind_choice is not None
        or may_declare_bind(result, defender)
    ):
        sides.append(defender)
    users = [player_of(encounter, side) for side in sides]
    return [user for index, user in enumerate(users) if user not in users[:index]]
