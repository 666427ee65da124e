"""How an attack reads in the channel, and its buttons.

Every message about an exchange names both sides, the weapon and the range, so it can be read on its
own hours later (play-by-post). The buttons carry the fight's tag, the exchange's id and its step
(``pommel:x:5f3a9c1e:12:0:active:2``): they work after a restart, a second click on an answered
button is refused instead of acting twice, and a button left from an ended fight does nothing in the
channel's next one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import datetime, timedelta

import discord

from ..encounter.attacks import ExchangeAction, may_declare_bind, may_desperately_defend
from ..encounter.document import KNOCKED_OUT, Combatant, Encounter
from ..encounter.fighters import shield_usable
from ..encounter.permissions import player_of
from ..encounter.records import DefensePolicy, Exchange, Reaction, ReactionKind
from ..encounter.results import AcAttack, ExchangeReport
from ..rules.combat import AttackKind, AttackResult, AttackRoll, DamageRoll, Defense, Judgement, Outcome
from ..rules.dice import Advantage, Modifier, PoolRoll
from ..rules.pool import MAX_POOL
from ..wording.phrases import dice_count, signed
from ..wording.spirits import banishment_line
from .announcements import CONTENT_LIMIT, Announcement, fitted
from .morale_views import proposal_line
from .rolls import pool_faces
from .tracker import name

Button = discord.ui.Button[discord.ui.View]


EXCHANGE_BUTTON = re.compile(
    r"pommel:x:(?P<fight>[0-9a-f]+):(?P<exchange>\d+):(?P<step>\d+):(?P<action>[a-z]+)(?::(?P<dice>[1-4]))?"
)


KNOCKOUT_BUTTON = re.compile(
    r"pommel:ko:(?P<fight>[0-9a-f]+):(?P<exchange>\d+):(?P<step>\d+):(?P<dice>[0-4])"
)
"""R16, R20: the defender's Will save against an exchange's Knock-Out threat, with ``dice`` pool dice
joining the free die, for the exchange at ``step``."""


def knockout_custom_id(exchange: Exchange, dice: int) -> str:
    return f"pommel:ko:{exchange.fight}:{exchange.id}:{exchange.step}:{dice}"


REACTION_BUTTON = re.compile(
    r"pommel:react:(?P<fight>[0-9a-f]+):(?P<by>c\d+):(?P<against>c\d+):(?P<dice>[1-4])"
)
"""A counterattack or opportunity attack owed (R12, R14): ``by`` strikes ``against`` with ``dice``."""


def reaction_custom_id(encounter: Encounter, reaction: Reaction, dice: int) -> str:
    return f"pommel:react:{encounter.tag}:{reaction.by}:{reaction.against}:{dice}"


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


def exchange_custom_id(exchange: Exchange, action: ExchangeAction, dice: int | None = None) -> str:
    suffix = f":{dice}" if dice is not None else ""
    return f"pommel:x:{exchange.fight}:{exchange.id}:{exchange.step}:{action.value}{suffix}"


# ----------------------------------------------------------------------------- text pieces


def breakdown(roll: PoolRoll | None, bonus: Sequence[Modifier]) -> str:
    """``**14**, ~~7~~ +2 Prowess +3 Reach = **19**``: every die, dropped ones struck through (R9)."""
    parts = [pool_faces(roll)] if roll is not None else []
    parts += [str(modifier) for modifier in bonus if modifier.value or roll is None]
    total = (roll.value if roll is not None else 0) + sum(m.value for m in bonus)
    return f"{' '.join(parts)} = **{total}**"


def _situation(advantage: Advantage, why: Sequence[str] = ()) -> str:
    """R10, R25: the roll's situation, with the situations the fight applied by itself."""
    reasons = f" ({'; '.join(why)})" if why else ""
    if advantage is Advantage.ADVANTAGE:
        return f", with advantage{reasons}"
    if advantage is Advantage.DISADVANTAGE:
        return f", at disadvantage{reasons}"
    return f", advantage and disadvantage cancel{reasons}" if why else ""


def attack_headline(encounter: Encounter, exchange: Exchange, weapon: str) -> str:
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    attack = exchange.attack.attack
    kind = "" if attack.kind is AttackKind.NORMAL else f" ({attack.kind.value})"
    extras = [
        label
        for flag, label in (
            (attack.grapple, "grapple"),
            (attack.bypass, "bypassing the armor"),
            (attack.at_armor, "at the armor"),
            (attack.at_shield, "at the shield"),
            (attack.two_weapons, "two weapons"),
        )
        if flag
    ]
    extra = f", {', '.join(extras)}" if extras else ""
    headline = (
        f"⚔️ **{name(attacker.name)}** attacks **{name(defender.name)}**{kind} — {weapon}, "
        f"{attack.attack_type.value}, {dice_count(attack.dice)} at {attack.range.label}"
        f"{extra}{_situation(exchange.attack.roll.advantage, exchange.situations)}"
    )
    return "\n".join([headline, *notes_lines(exchange.notes)])


def notes_lines(notes: Sequence[str]) -> list[str]:
    """What the fight's situations did besides advantage (R25): each on a line of its own."""
    return [f"📌 {note}" for note in notes]


def stray_line(allies: Sequence[str], target: str) -> str:
    """R25: a critical failure shooting into a melee hits the ally instead of the target: named when
    there is one, else the GM picks which."""
    if len(allies) == 1:
        return (
            f"🎯 Shooting into the melee, the fumble hits **{name(allies[0])}** instead of {target} (R25): "
            "the GM applies the damage with `/combatant hp`."
        )
    listed = ", ".join(name(ally) for ally in allies)
    return (
        f"🎯 Shooting into the melee, the fumble hits one of {listed} instead of {target} (R25): "
        "the GM picks which and applies the damage with `/combatant hp`."
    )


def attack_line(roll: AttackRoll) -> str:
    return f"🎲 Attack: {breakdown(roll.roll, roll.bonus)}"


def defense_line(defense: Defense) -> str:
    if defense.roll is None:
        what = "Undefended (R13)" if defense.mode == "undefended" else "Passive defense (R13)"
        return f"🛡️ {what}: {breakdown(None, defense.bonus)}"
    how = ["void" if defense.void else "", "with the shield" if defense.shield else ""]
    detail = ", ".join(part for part in how if part)
    detail = f", {detail}" if detail else ""
    return (
        f"🛡️ Active defense, {dice_count(defense.roll.committed)}{detail}"
        f"{_situation(defense.roll.advantage)}: "
        f"{breakdown(defense.roll, defense.bonus)}"
    )


_RULE_TEXT = {
    "R14.1": "both counting dice are natural 1s",
    "R14.2": "the defender's counting die is a natural 1",
    "R14.3": "a natural 20",
    "R14.4": "the defender's natural 20",
    "R14.5": "the attacker fumbled",
    "R14.6": "the counting dice show the same number",
    "R14.7": "totals compared",
    "R13": "against the passive defense",
    "R16": "a natural 20",
    "R18": "every die that could count shows 1",
    "R25": "a helpless target is hit automatically in melee",
}


def outcome_line(judgement: Judgement, attacker: str, defender: str) -> str:
    why = _RULE_TEXT.get(judgement.rule, "")
    why = f" — {why} ({judgement.rule})" if why else f" ({judgement.rule})"
    if judgement.outcome is Outcome.HIT:
        head = "💥 **Critical hit!**" if judgement.critical else "💥 **Hit**"
    elif judgement.outcome is Outcome.BIND:
        head = "🔗 **Bind**: the attack is stopped, the weapons are locked"
    elif judgement.fumble:
        head = f"🤦 **Miss — {attacker} fumbles** (dropped weapon or similar: the GM decides)"
    elif judgement.near_miss:
        head = "💨 **A very near miss**"
    elif judgement.declarable:
        head = "💨 **Miss**, a tie: a Bind if a side with dice left declares one"
    else:
        head = "💨 **Miss**"
    line = f"{head}{why}"
    if judgement.counterattack:
        line += f"\n↩️ {defender} may **counterattack** (R14)"
    return line


def damage_line(
    damage: DamageRoll, weapon: str, *, at_armor: bool = False, broken_armor: bool = False
) -> str:
    """Damage with its whole breakdown: weapon dice, Joker, crit dice, then DR (R16, R17, R26)."""
    parts = [f"{weapon} [{', '.join(map(str, damage.faces))}] {damage.weapon_damage}"]
    if damage.off_hand_weapon is not None:
        parts.append(
            f"or {damage.off_hand_weapon} [{', '.join(map(str, damage.off_hand_faces))}] "
            f"{damage.off_hand_damage} (the better counts, R26)"
        )
    if damage.joker_bonus:
        parts.append(f"+{damage.joker_bonus} Joker")
    if damage.doubled:
        parts.append(f"+{damage.doubled} lance charge (double, R25)")
    if damage.critical_faces:
        dynamic = " dynamic" if damage.dynamic else ""
        die = f"d{damage.critical_die}" if damage.critical_die else "crit"
        crit = ", ".join(map(str, damage.critical_faces))
        parts.append(f"+ {len(damage.critical_faces)}{die}{dynamic} crit [{crit}]")
    elif damage.critical_damage:
        parts.append(f"+{damage.critical_damage} critical (double)")
    text = f"🩸 Damage: {' '.join(parts)} = {damage.before_dr}"
    if damage.shield is not None:
        return f"{text} - Toughness {damage.dr} → **{damage.shield_damage}** to {damage.shield}'s HP (R17)"
    if at_armor:
        return f"{text} - Hardness {damage.dr} → **{damage.armor_damage}** to {damage.armor}'s HP (R17)"
    if damage.armor is not None and damage.bypassed:
        text += f"; {damage.armor} bypassed: no DR (R17)"
    elif damage.armor is not None and broken_armor:
        text += f" - DR 0 ({damage.armor}: broken, R17)"
    elif damage.armor is not None:
        ap = f", after {damage.armor_piercing} Armor Piercing" if damage.armor_piercing else ""
        text += f" - DR {damage.dr} ({damage.armor}{ap})"
    dealt = f"**{damage.lethal}**"
    if damage.nonlethal:
        dealt += f" + **{damage.nonlethal} nonlethal** (Bash critical, R16)"
    if damage.knockout_threat is not None:
        dealt += f"; Knock-Out threat: a Will save against **{damage.knockout_threat}** (R16)"
    return f"{text} → {dealt}"


def hp_line(defender: Combatant, hp_before: int, nonlethal_before: int) -> str:
    line = f"❤️ **{name(defender.name)}**: HP {hp_before} → **{defender.hp}**/{defender.max_hp}"
    if defender.nonlethal != nonlethal_before:
        line += f", nonlethal {defender.nonlethal}"
    if defender.out_of_the_fight:
        line += f" — **{defender.state_label}**"
    return line


# ----------------------------------------------------------------------------- whole messages


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


def result_content(encounter: Encounter, exchange: Exchange, weapon: str, report: ExchangeReport) -> str:
    """The whole exchange: both rolls, the outcome, the damage and its DR, the HP left, what may follow."""
    result = exchange.result
    assert result is not None, "only a resolved exchange has a result"
    attacker = encounter.combatant(exchange.attacker)
    defender = encounter.combatant(exchange.defender)
    lines = [attack_headline(encounter, exchange, weapon), attack_line(result.attack)]
    if report.decided_by == "timeout":
        lines.append(
            "⏰ Nobody picked a defense in time: "
            f"**{encounter.table.defense_policy.value}** (the table's policy)."
        )
    lines.append(defense_line(result.defense))
    if exchange.cover_dice and result.defense.active:
        lines.append(
            f"🧱 {name(defender.name)}'s cover: +{dice_count(exchange.cover_dice)} free against the missile "
            "(one per 25%, R14)"
        )
    if result.desperation is not None:
        stood = _which_defense_stands(result, improved=bool(report.desperation_improved))
        lines.append(
            "😱 Desperation defense (R15): "
            f"{breakdown(result.desperation.roll, result.desperation.bonus)} — {stood}"
        )
        if report.swap_initiative:
            lines.append(f"🔄 {name(defender.name)} had the initiative: the two swap it next round (R15).")
        elif report.pool_penalty:
            lines.append(
                f"📉 {name(defender.name)} loses {dice_count(report.pool_penalty)} next round (R6, R15)."
            )
    if report.chose_die is not None:
        who = attacker if report.chose_die == "attacker" else defender
        lines.append(f"🎯 {name(who.name)} counts another die to force a Bind (R9).")
    if report.declared_bind is not None:
        who = attacker if report.declared_bind == "attacker" else defender
        lines.append(f"⛓️ {name(who.name)} declares the tie with the passive defense a Bind (R13).")
    lines.append(outcome_line(result.judgement, name(attacker.name), name(defender.name)))
    if result.judgement.fumble and exchange.allies_in_melee:
        lines.append(stray_line(exchange.allies_in_melee, name(defender.name)))
    if result.outcome is Outcome.BIND:
        lines.append(BIND_FOLLOWS)
    if exchange.applied.range_before is not None:
        lines.append(
            f"🤼 **{name(attacker.name)}** grapples **{name(defender.name)}**: "
            "they are at Grapple range (R12)"
            + (
                f"; {name(defender.name)} may take an opportunity attack first."
                if encounter.reaction(defender, attacker, ReactionKind.OPPORTUNITY) is not None
                else "."
            )
        )
    elif result.damage is not None:
        at_armor = result.attack.attack.at_armor
        broken = defender.armor_hp == 0 and not at_armor
        lines.append(
            damage_line(result.damage, weapon_name(result, weapon), at_armor=at_armor, broken_armor=broken)
        )
        if result.damage.armor_damage:
            lines.append(
                f"🪖 {name(defender.name)}'s armor: {defender.armor_hp} HP left{_broken(defender.armor_hp)}"
            )
        elif result.damage.shield is not None:
            left = defender.shield_hp if result.damage.shield_damage else "no damage; all its"
            lines.append(f"🛡️ {name(defender.name)}'s shield: {left} HP left{_broken(defender.shield_hp)}")
        else:
            lines.append(hp_line(defender, report.hp_before, report.nonlethal_before))
    if result.shield_damage is not None:
        shield = result.shield_damage
        lines.append(
            f"🛡️ The Bind strikes the shield (R17): {shield.rolled} - Toughness {shield.toughness} = "
            f"**{shield.damage}** to {shield.shield}"
            + (f"; {defender.shield_hp} HP left{_broken(defender.shield_hp)}" if shield.damage else "")
        )
    if result.weapon_damage is not None:
        lines.append(weapon_damage_line(result, name(defender.name)))
    lines += bind_attack_lines(encounter, exchange)
    banished = banishment_line(defender, report.hp_before)
    if banished is not None:
        lines.append(f"✨ {name(banished)}.")
    lines += knockout_lines(encounter, exchange)
    lines += follow_up_lines(encounter, exchange)
    lines += [proposal_line(proposal) for proposal in report.proposals]
    return clip("\n".join(lines))


def weapon_damage_line(result: AttackResult, defender: str) -> str:
    """R17 (option ``weapon_damage_in_binds``): the Bind may have damaged the defender's weapon; the
    Codex gives no number, so the GM says how much; Fuhlen is immune."""
    damage = result.weapon_damage
    assert damage is not None
    if damage.fuhlen:
        return (
            f"🗡️ Damage to Weapons During Binds (R17): {defender} has **Fuhlen**, so the {damage.weapon} "
            "takes no damage."
        )
    return (
        f"🗡️ Damage to Weapons During Binds (R17): the Bind may have damaged {defender}'s "
        f"**{damage.weapon}**; the Codex gives no number, so how much is the GM's."
    )


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


def _which_defense_stands(result: AttackResult, *, improved: bool) -> str:
    """R15: the better of the two defenses stands; say which, and truly (better for the defender, not
    always the higher total: two hits are the same outcome, whatever the totals)."""
    if improved:
        return "it stands"
    desperate = result.desperation
    if desperate is not None and desperate.total >= result.defense.total:
        return "no better an outcome, so the first defense stands"
    return "the first defense was better and stands"


BIND_FOLLOWS = (
    "⛓️ What may follow the Bind: either side may try to seize or disarm the other's weapon, or use a "
    "Martial Feat a Bind triggers (the GM rules on it)."
)
"""What may follow a Bind (the Codex Martialis' "Binding"), said under every Bind."""


def weapon_name(result: AttackResult, weapon: str) -> str:
    damage = result.damage
    return damage.weapon if damage is not None else weapon


def _broken(hp: int | None) -> str:
    return " — **broken**: no protection until repaired" if hp == 0 else ""


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


def ac_attack_content(encounter: Encounter, attack: AcAttack, weapon: str) -> str:
    """R24: the plain d20 against AC, and the damage on a hit."""
    attacker = encounter.combatant(attack.attacker)
    defender = encounter.combatant(attack.defender)
    roll = attack.roll
    opening = {17: " (at least 17 through a window, R25)", 21: " (at least 21 behind an arrow slit, R25)"}
    behind = opening.get(roll.armor_class, "") if defender.position.opening == roll.armor_class else ""
    lines = [
        f"⚔️ **{name(attacker.name)}** attacks **{name(defender.name)}** against AC — {weapon}"
        f"{_situation(roll.advantage, attack.situations)}",
        *notes_lines(attack.notes),
        f"🎲 {breakdown(roll.roll, attack.bonus + [m for m in roll.modifiers if m.label == 'Joker'])} "
        f"against **AC {roll.armor_class}**{behind} (R24)",
    ]
    if roll.hit:
        crit = " — **natural 20: critical!**" if roll.natural_20 else ""
        lines.append(f"💥 **Hit**{crit}")
    else:
        lines.append("💨 **Miss**" + (" — natural 1" if roll.natural_1 and roll.automatic else ""))
        if roll.natural_1 and attack.allies_in_melee:
            lines.append(stray_line(attack.allies_in_melee, name(defender.name)))
    if attack.damage is not None:
        lines.append(damage_line(attack.damage, attack.damage.weapon))
        lines.append(hp_line(defender, attack.hp_before, defender.nonlethal - attack.damage.nonlethal))
        banished = banishment_line(defender, attack.hp_before)
        if banished is not None:
            lines.append(f"✨ {name(banished)}.")
    return clip("\n".join(lines))


def clip(text: str) -> str:
    """A message about an exchange within Discord's 2,000 characters: its longest lines (the situations
    and names in the headline) give way, never its outcome, damage or HP left (:func:`fitted`)."""
    return fitted(text.split("\n"), CONTENT_LIMIT)


# ----------------------------------------------------------------------------- buttons


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
