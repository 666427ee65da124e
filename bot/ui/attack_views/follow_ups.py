"""What may follow an exchange: a desperation defense, another die for a Bind, a Bind declared, a
Will save against a Knock-Out, the attacks owed (R9, R12-R16, R20), with their lines and buttons;
and the notice that tells others when a click needs them."""

from __future__ import annotations

from datetime import datetime, timedelta

import discord

from ...encounter.attacks import ExchangeAction, may_declare_bind, may_desperately_defend
from ...encounter.combatants import KNOCKED_OUT, Combatant
from ...encounter.document import Encounter
from ...encounter.permissions import player_of
from ...encounter.records import Exchange, Reaction, ReactionKind
from ...encounter.results import ExchangeReport
from ...rules.dice import Modifier
from ...rules.pool import MAX_POOL
from ...wording.phrases import dice_count, signed
from ..announcements import Announcement
from ..buttons import Button
from ..tracker import name
from .custom_ids import exchange_custom_id, knockout_custom_id, reaction_custom_id
from .lines import breakdown


def follow_up_lines(encounter: Encounter, exchange: Exchange) -> list[str]:
    """What either side may still do about this exchange (R9, R14, R15)."""
    result = exchange.result
    if result is None or not exchange.follow_ups:
        return []
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    lines = []
    if may_desperately_defend(result, defender):
        lines.append(
            f"😱 {name(defender.name)} may make a **desperation defense** with "
            f"{_all_left(defender.pool.remaining)} (R15)."
        )
    if result.attacker_bind_choice is not None:
        face = result.attack.roll.faces[result.attacker_bind_choice]
        lines.append(f"🎯 {name(attacker.name)} may count the **{face}** instead: a Bind (R9).")
    if result.defender_bind_choice is not None and result.defense.roll is not None:
        face = result.defense.roll.faces[result.defender_bind_choice]
        lines.append(f"🎯 {name(defender.name)} may count the **{face}** instead: a Bind (R9).")
    declarers = [c for c in (attacker, defender) if may_declare_bind(result, c)]
    if declarers:
        who = " or ".join(name(c.name) for c in declarers)
        lines.append(f"⛓️ {who} may declare the tie a Bind (R13).")
    return lines


def _all_left(n: int) -> str:
    return "the last die left" if n == 1 else f"all {n} dice left"


def bind_attack_lines(encounter: Encounter, exchange: Exchange) -> list[str]:
    """R14: the attacks this exchange's Bind gave holders of Bind & Strike or Mutieren, still owed, and
    in what order they come when both sides have one (``bind_feats``)."""
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    lines: list[str] = []
    owed: list[tuple[Combatant, Combatant, Reaction]] = []
    for by, against in ((attacker, defender), (defender, attacker)):
        reaction = encounter.reaction(by, against, ReactionKind.BIND_ATTACK)
        if reaction is not None:
            owed.append((by, against, reaction))
            lines.append(
                f"⛓️ {name(by.name)} may make a **Bind attack** on {name(against.name)} "
                f"({name(reaction.reason)}, R14)"
            )
    if len(owed) < 2:
        return lines
    if owed[0][2].together:
        return [*lines, "⛓️ The two Bind attacks land together: either may be made first (R14)."]
    first = next(
        (by for by, against, _ in owed if encounter.initiative.went_first(by.holder, against.holder)), None
    )
    if first is not None:
        lines.append(f"⛓️ {name(first.name)} has the initiative and strikes first (R14).")
    return lines


def knockout_lines(encounter: Encounter, exchange: Exchange) -> list[str]:
    """R16 (Knock-Out option), R20: the Will save the blow's threat asks for, or how it went."""
    threat = exchange.knockout_threat
    if threat is None:
        return []
    defender = encounter.combatant(exchange.defender)
    save = exchange.knockout_save
    if save is None:
        if defender.out_of_the_fight:
            return [f"😵 {name(defender.name)} is already {defender.state_label}: no Will save is needed."]
        return [
            f"😵 **{name(defender.name)}** must make a **Will save** against **{threat}** or be knocked out "
            f"(R16): d20 {signed(defender.wis_mod)} WIS, and Martial Pool dice may join it (R20)."
        ]
    verdict = (
        f"**knocked out**: {name(defender.name)} is *{KNOCKED_OUT}* until the condition is removed"
        if exchange.knocked_out
        else f"**{name(defender.name)} stays conscious**"
    )
    rolled = breakdown(save.roll, [Modifier(label="WIS", value=save.bonus)])
    return [f"😵 Will save against the Knock-Out threat (R16, R20): {rolled} vs **{threat}** — {verdict}."]


REACTION_LABELS = {
    ReactionKind.COUNTERATTACK: "Counterattack",
    ReactionKind.OPPORTUNITY: "Opportunity attack",
    ReactionKind.TRAMPLE: "Trample",
    ReactionKind.BIND_ATTACK: "Bind attack",
}


def reaction_buttons(encounter: Encounter, reaction: Reaction) -> list[Button]:
    """R12, R14: the attack owed, with 1..k of the striker's dice left (none when it has none)."""
    by = encounter.combatant(reaction.by)
    label = REACTION_LABELS[reaction.kind]
    return [
        Button(
            label=f"{by.name[:40]}: {label} {dice_count(n)}"
            if reaction.kind in (ReactionKind.TRAMPLE, ReactionKind.BIND_ATTACK)
            else f"{label} {dice_count(n)}",
            emoji="↩️",
            style=discord.ButtonStyle.danger,
            custom_id=reaction_custom_id(encounter, reaction, n),
        )
        for n in range(1, min(by.pool.remaining, MAX_POOL) + 1)
    ]


def follow_up_buttons(encounter: Encounter, exchange: Exchange) -> list[list[Button]]:
    """Desperation (R15), another die for a Bind (R9), and the counterattack (R14) or the grappled
    target's opportunity attack (R12) with 1..k dice."""
    result = exchange.result
    if result is None:
        return []
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    row: list[Button] = []
    if exchange.follow_ups and may_desperately_defend(result, defender):
        row.append(
            Button(
                label=f"Desperation defense ({dice_count(defender.pool.remaining)})",
                emoji="😱",
                style=discord.ButtonStyle.danger,
                custom_id=exchange_custom_id(exchange, ExchangeAction.DESPERATE),
            )
        )
    if exchange.follow_ups and result.attacker_bind_choice is not None:
        face = result.attack.roll.faces[result.attacker_bind_choice]
        row.append(_bind_button(exchange, attacker, face, ExchangeAction.ATTACKER_DIE))
    if exchange.follow_ups and result.defender_bind_choice is not None and result.defense.roll is not None:
        face = result.defense.roll.faces[result.defender_bind_choice]
        row.append(_bind_button(exchange, defender, face, ExchangeAction.DEFENDER_DIE))
    for side, action in ((attacker, ExchangeAction.ATTACKER_BIND), (defender, ExchangeAction.DEFENDER_BIND)):
        if exchange.follow_ups and may_declare_bind(result, side):
            row.append(
                Button(
                    label=f"{side.name[:40]}: declare a Bind",
                    emoji="⛓️",
                    style=discord.ButtonStyle.secondary,
                    custom_id=exchange_custom_id(exchange, action),
                )
            )
    rows = [row] if row else []
    saving = knockout_buttons(encounter, exchange)
    if saving:
        rows.append(saving)
    owed = encounter.reaction(defender, attacker)
    if owed is not None:
        rows.append(reaction_buttons(encounter, owed))
    binding = encounter.reaction(attacker, defender, ReactionKind.BIND_ATTACK)
    if binding is not None:
        rows.append(reaction_buttons(encounter, binding))
    mount = next((c for c in encounter.combatants if c.id == attacker.position.mount), None)
    trample = encounter.reaction(mount, defender, ReactionKind.TRAMPLE) if mount is not None else None
    if trample is not None:
        rows.append(reaction_buttons(encounter, trample))
    return rows


def knockout_buttons(encounter: Encounter, exchange: Exchange) -> list[Button]:
    """R16, R20: the defender's Will save, with the free die alone or 1..k Martial Pool dice joining it;
    none once it is rolled, or when the defender is already out of the fight."""
    defender = encounter.combatant(exchange.defender)
    if not exchange.awaiting_knockout_save or defender.out_of_the_fight:
        return []
    return [
        Button(
            label="Will save" if n == 0 else f"Will save +{dice_count(n)}",
            emoji="😵",
            style=discord.ButtonStyle.primary,
            custom_id=knockout_custom_id(exchange, n),
        )
        for n in range(min(defender.pool.remaining, MAX_POOL) + 1)
    ]


def _bind_button(exchange: Exchange, chooser: Combatant, face: int, action: ExchangeAction) -> Button:
    """R9: the side that may count its other die showing ``face`` (which makes a Bind)."""
    return Button(
        label=f"{chooser.name[:40]}: count the {face} (Bind)",
        emoji="🎯",
        style=discord.ButtonStyle.secondary,
        custom_id=exchange_custom_id(exchange, action),
    )


LATE_ANSWER = timedelta(minutes=2)
"""A defense answered later than this tells the attacker's player with a new message (play-by-post):
an edited message notifies nobody."""


def answered_notice(
    encounter: Encounter,
    exchange: Exchange,
    report: ExchangeReport,
    *,
    actor_id: int,
    now: datetime,
    result_url: str | None = None,
) -> Announcement | None:
    """What a click must tell others with a message of its own: the attacker's player when the defense
    came late (R13, R14: the result is above), the GM when it proposes a morale check (R22).
    ``result_url`` links the result's message, when the notice is a message of its own."""
    above = f"[the result]({result_url})" if result_url is not None else "the result above"
    # in a message of its own, the buttons are on the result it links; in the result itself, below
    buttons = f"on {above}" if result_url is not None else "below"
    notice = Announcement()
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    result = exchange.result
    owner = attacker.owner_id if attacker.owner_id is not None else encounter.gm_id
    late = now - exchange.asked_at > LATE_ANSWER
    if result is not None and late and report.decided_by is None and owner != actor_id:
        outcome = "a critical hit" if result.judgement.critical else f"a {result.outcome.value}"
        notice.lines.append(
            f"📬 {notice.notify(owner, actor_id)}: **{name(defender.name)}** answered "
            f"**{name(attacker.name)}**'s attack: {outcome} (see {above})."
        )
    saver = player_of(encounter, defender)
    if exchange.awaiting_knockout_save and not defender.out_of_the_fight and saver != actor_id:
        who = notice.notify(saver, actor_id)
        notice.lines.append(
            f"😵 {who}: **{name(defender.name)}** must make a Will save against a Knock-Out threat (R16); "
            f"its buttons are {buttons}."
        )
    if report.proposals:
        gm = notice.notify(encounter.gm_id, actor_id)
        notice.lines.append(f"🏳️ {gm}: a morale check is proposed (R22); its buttons are {buttons}.")
    return notice if notice.lines else None
