"""The message about an exchange of ``/attack`` as it stands now: its text, its buttons, and whom it
pings. The texts and buttons themselves are drawn in :mod:`bot.ui.attack_views`."""

from __future__ import annotations

import discord

from ..catalog import Catalog
from ..encounter.document import Encounter
from ..encounter.permissions import player_of
from ..encounter.results import ExchangeReport
from .attack_views.follow_ups import answered_notice, follow_up_buttons
from .attack_views.lines import clip
from .attack_views.request import defense_buttons, request_content
from .attack_views.result import result_content
from .buttons import view_of
from .message_buttons import next_row
from .morale_views import proposal_button


def exchange_message(
    encounter: Encounter, report: ExchangeReport, catalog: Catalog, *, actor_id: int
) -> tuple[str, discord.ui.View | None, list[int]]:
    """The message about an exchange now, its buttons, and whom it pings: the defender's player
    (the GM for NPCs) when a defense is asked, the GM when a result proposes a morale check (R22)."""
    exchange = report.exchange
    weapon = catalog.weapon(exchange.weapon).name
    if exchange.pending and report.passive is not None:
        defender = encounter.combatant(exchange.defender)
        content = request_content(encounter, exchange, weapon, report.passive)
        asked = player_of(encounter, defender)
        return content, view_of(defense_buttons(encounter, exchange, report.passive)), [asked]
    rows = follow_up_buttons(encounter, exchange)
    if report.proposals:
        rows.append([proposal_button(proposal, encounter.tag) for proposal in report.proposals[:5]])
    rows = (rows + next_row(encounter, exchange))[:5]
    content = result_content(encounter, exchange, weapon, report)
    notice = answered_notice(encounter, exchange, report, actor_id=actor_id, now=exchange.asked_at)
    if notice is None:
        return content, view_of(rows), []
    return clip(f"{content}\n{notice.content}"), view_of(rows), notice.ping


def asked_again_content(encounter: Encounter, content: str, *, time_ran_out: bool) -> str:
    """A defense an undo or a redo left waiting, asked anew; when its time had run out before, its GM
    decides, as then."""
    if time_ran_out:
        content = clip(f"<@{encounter.gm_id}>: its time had run out, so you decide.\n{content}")
    return content
