"""The buttons a message that shows a step of a fight (:class:`~bot.encounter.records.FightMessage`)
carries now: exactly those the fight would accept, drawn from its state. The request for a defense
has its defense buttons while the defense waits (on the one message that asks for it); a result has
its follow-ups (R9, R15, R16) while they are open, the attacks owed between its two sides (R12, R14)
while they are owed, and the morale checks it proposed (R22) while the GM has not rolled or dismissed
them; the ``/morale proposals`` message, its proposals while open.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import discord

from ..encounter.document import Encounter
from ..encounter.records import Exchange, FightMessage, ReactionKind
from ..encounter.results import TurnAction
from .attack_views.follow_ups import follow_up_buttons, reaction_buttons
from .attack_views.request import defense_buttons
from .buttons import Button, turn_custom_id
from .morale_views import PROPOSAL_BUTTON_LIMIT, dismiss_button, proposal_button

ROW = 5
"""Buttons in one row (Discord's limit)."""


def message_buttons(
    encounter: Encounter, message: FightMessage, passive: Callable[[int], int]
) -> list[list[Button]]:
    """The rows of buttons ``message`` should carry in ``encounter`` (``passive``: an exchange's passive
    defense, for the Passive button's label)."""
    open_proposals = [p for p in encounter.morale_proposals if p.id in message.proposals]
    if message.exchange is None:
        flat: list[Button] = []
        for proposal in open_proposals[:PROPOSAL_BUTTON_LIMIT]:
            flat.append(proposal_button(proposal, encounter.tag))
            if message.dismissable:
                flat.append(dismiss_button(proposal, encounter.tag))
        return [flat[i : i + ROW] for i in range(0, len(flat), ROW)]
    exchange = next((e for e in encounter.exchanges if e.id == message.exchange), None)
    if exchange is not None and exchange.pending:
        if exchange.message_id != message.id:
            return []  # the defense is asked in another message now
        return defense_buttons(encounter, exchange, passive(exchange.id))
    if exchange is not None and exchange.message_id != message.id:
        rows = []  # its result's choices are on the exchange's own message (a redo's, a timeout's)
    else:
        rows = follow_up_buttons(encounter, exchange) if exchange is not None else _owed(encounter, message)
    if open_proposals:
        rows.append([proposal_button(proposal, encounter.tag) for proposal in open_proposals[:ROW]])
    if exchange is not None and exchange.message_id == message.id:
        rows += next_row(encounter, exchange)
    return rows[:ROW]


def next_row(encounter: Encounter, exchange: Exchange) -> list[list[Button]]:
    """R1: Next on the result of the turn's latest attack, when the turn has nothing left to wait for
    (no defense, no Will save, no attack owed against the side acting: R12, R14), so the table need
    not scroll up to the tracker; none otherwise."""
    state = encounter.initiative
    attacker = next((c for c in encounter.combatants if c.id == exchange.attacker), None)
    if state.turn_of is None or attacker is None or attacker.holder != state.turn_of or exchange.pending:
        return []
    if any(e.pending or e.awaiting_knockout_save for e in encounter.exchanges):
        return []
    acting = {c.id for c in encounter.members(state.turn_of)}
    if any(reaction.against in acting for reaction in encounter.reactions):
        return []
    if exchange.id != max(e.id for e in encounter.exchanges if e.attacker in acting):
        return []
    next_button = Button(
        label="Next",
        emoji="⏭️",
        style=discord.ButtonStyle.primary,
        custom_id=turn_custom_id(TurnAction.NEXT, encounter.flow.step, encounter.tag),
    )
    return [[next_button]]


def _owed(encounter: Encounter, message: FightMessage) -> list[list[Button]]:
    """The attacks owed between an exchange's sides once the exchange itself is forgotten: the
    defender's counterattack or opportunity attack (R12, R14), the rider's warhorse's trample (R25)."""
    by_id = {c.id: c for c in encounter.combatants}
    attacker, defender = by_id.get(message.attacker or ""), by_id.get(message.defender or "")
    if attacker is None or defender is None:
        return []
    rows = []
    owed = encounter.reaction(defender, attacker)
    if owed is not None:
        rows.append(reaction_buttons(encounter, owed))
    mount = by_id.get(attacker.position.mount or "")
    trample = encounter.reaction(mount, defender, ReactionKind.TRAMPLE) if mount is not None else None
    if trample is not None:
        rows.append(reaction_buttons(encounter, trample))
    return [row for row in rows if row]


def custom_ids(rows: Sequence[Sequence[discord.ui.Item[discord.ui.View]]]) -> list[str]:
    """The custom ids of the buttons in ``rows``, in order (what :attr:`FightMessage.drawn` keeps)."""
    return [str(getattr(item, "custom_id", "")) for row in rows for item in row]
