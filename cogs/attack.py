"""``/attack`` and the buttons of an exchange: the defender's choice, desperation, Binds, counterattacks.

The attacker rolls with ``/attack`` (R9-R12, R17, R24-R26). The defender's player (the GM for NPCs) is
asked with buttons: Passive, Active with 1..k dice, with the shield, Void (R13, R14). The table's
defense policy answers for NPCs, and for players who let the timeout run out. The result shows both
rolls, the outcome, the damage and its DR, and the HP left, with buttons for what may follow: a
desperation defense (R15), another die that makes a Bind (R9), a counterattack (R14), the Will save
against a Bash critical's Knock-Out threat (R16) and a morale check (R22). Every step is one
transaction on the fight document; the buttons carry the exchange's id and step, so they keep working
after a restart and a double click acts once.
"""

from __future__ import annotations

import contextlib
import logging
from datetime import UTC, datetime, timedelta
from typing import Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.button_kinds import ExchangeButton, KnockOutButton, ReactionButton
from bot.encounter import attacks, history
from bot.encounter.attacks import Declaration
from bot.encounter.document import Encounter
from bot.encounter.fighters import Hand
from bot.encounter.kept_entries import fight_catalog
from bot.encounter.records import FightMessage
from bot.encounter.results import ExchangeReport
from bot.events import FightRestored
from bot.interactions.actors import actor_of, encounter_channel
from bot.interactions.answering import answer, answer_by_editing
from bot.interactions.options import CombatantName
from bot.rules.equipment import AttackType
from bot.rules.errors import RulesError
from bot.ui.attack_views.follow_ups import answered_notice, follow_up_buttons
from bot.ui.attack_views.lines import clip
from bot.ui.attack_views.request import ASKED_AGAIN, expired_request_content, put_back_exchange_content
from bot.ui.attack_views.result import ac_attack_content
from bot.ui.buttons import view_of
from bot.ui.errors import DISCORD_FAILURES
from bot.ui.exchange_message import asked_again_content, exchange_message
from bot.ui.rolls import SituationChoice, advantage_of

log = logging.getLogger(__name__)

TIMER_MARGIN = 0.05
"""Seconds a defense timer waits past its deadline."""
DEFENSE = "defense timeout"
"""The first part of a defense timer's key in the bot's scheduler: (DEFENSE, channel, exchange)."""

AttackTypeChoice = Literal["bash", "pierce", "chop", "slash"]
HandChoice = Literal["main hand", "off hand", "unarmed"]


class Attack(commands.Cog):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot

    @property
    def timers(self) -> list[tuple[int, int]]:
        """The (channel, exchange) of each defense whose timeout is scheduled."""
        return [key[1:] for key in self.bot.scheduler.held() if isinstance(key, tuple) and key[0] == DEFENSE]

    async def cog_load(self) -> None:
        self.bot.buttons.route(ExchangeButton, self.click)
        self.bot.buttons.route(ReactionButton, self.react)
        self.bot.buttons.route(KnockOutButton, self.will_save)
        self.bot.events.subscribe(FightRestored, self.restored)
        # Only the fights with a defense's timer (the index of due times): no other fight is read.
        for due in await self.bot.store.due_fights(timers=True):
            if not self.bot.owns(due.guild_id):  # another process's
                continue
            encounter = await self.bot.store.load_encounter(due.channel_id)
            if encounter is not None:
                self.schedule_timeouts(encounter)

    async def cog_unload(self) -> None:
        self.bot.buttons.unroute(ExchangeButton, ReactionButton, KnockOutButton)
        self.bot.events.unsubscribe(FightRestored, self.restored)
        for channel_id, exchange_id in self.timers:
            self._forget_timer(channel_id, exchange_id)

    # ------------------------------------------------------------------------------ /attack

    @app_commands.command(name="attack", description="Attack with your Martial Pool dice (R9-R17)")
    @app_commands.describe(
        target="Whom to attack",
        dice="Martial Pool dice to roll; the highest counts (R9)",
        attack_type="Bash, pierce, chop or slash (default: the weapon's primary type)",
        who="Who attacks (when you run several combatants; the GM names an NPC)",
        grapple="Declare a grapple: a hit puts you at Grapple range (R12)",
        bypass_armor="Aim for the gaps: the armor's Bypass penalty, and a hit ignores DR (R17)",
        at_armor="Strike at the armor itself: damage less Hardness goes to its HP (R17)",
        at_shield="Strike at the shield, like armor: damage less its Toughness goes to its HP (R17)",
        two_weapons="Fight with both weapons: +1, and the better damage (R26)",
        holy_blessed="The weapon is Holy Blessed (it harms spirits, R27)",
        situation="Advantage or disadvantage from the situation (R10, R25)",
        bonus="Any other modifier the GM allows",
        helpless="The target is unaware or helpless: defense 2 in melee, 8 against missiles (R13)",
        against_ac="Roll a plain d20 against the target's Armor Class (R24)",
        hand="Strike with the main weapon (default), the off-hand one, or unarmed (at Grapple, R12)",
        unseen="The GM rules the target cannot see the attacker (stealth or magic): advantage (R25)",
        merciful="The attacker's side is known to show mercy: a frightened target may surrender (R21)",
        charge="A mounted charge: a lance from a heavy warhorse doubles damage, a warhorse tramples (R25)",
    )
    @app_commands.guild_only()
    async def attack(
        self,
        interaction: discord.Interaction,
        target: CombatantName,
        dice: app_commands.Range[int, 1, 4] = 1,
        attack_type: AttackTypeChoice | None = None,
        who: CombatantName | None = None,
        grapple: bool = False,
        bypass_armor: bool = False,
        at_armor: bool = False,
        at_shield: bool = False,
        two_weapons: bool = False,
        holy_blessed: bool = False,
        situation: SituationChoice | None = None,
        bonus: app_commands.Range[int, -20, 20] = 0,
        helpless: bool = False,
        against_ac: bool = False,
        hand: HandChoice | None = None,
        unseen: bool = False,
        merciful: bool = False,
        charge: bool = False,
    ) -> None:
        declared = Declaration(
            dice=dice,
            attack_type=AttackType(attack_type) if attack_type else None,
            grapple=grapple,
            bypass=bypass_armor,
            at_armor=at_armor,
            at_shield=at_shield,
            two_weapons=two_weapons,
            holy_blessed=holy_blessed,
            situation=advantage_of(situation),
            bonus=bonus,
            helpless=helpless,
            hand=Hand(hand) if hand else Hand.MAIN,
            unseen=unseen,
            merciful=merciful,
            charge=charge,
        )
        if against_ac:
            await self.attack_against_ac(interaction, target, who, declared)
            return
        await self.declare(interaction, target, who, declared)

    async def declare(
        self,
        interaction: discord.Interaction,
        target: str,
        who: str | None,
        declared: Declaration,
        *,
        counter_of: discord.Message | None = None,
        fight: str | None = None,
    ) -> None:
        """Roll the attack; answer with the request for a defense, or the result when it was decided.
        ``fight`` is the tag a button carried (the attack must be in that fight)."""
        channel_id = encounter_channel(interaction)
        actor = actor_of(interaction)
        now = datetime.now(UTC)
        saved, report = await self.bot.store.change(
            channel_id,
            actor.user_id,
            lambda encounter: attacks.attack(
                encounter,
                fight_catalog(self.bot.catalog, encounter),
                actor,
                who=who,
                target=target,
                declared=declared,
                dice=self.bot.dice,
                now=now,
                fight=fight,
            ),
        )
        content, view, ping = self.exchange_message(saved, report, actor_id=actor.user_id)
        try:
            sent = await answer(
                interaction,
                content,
                view=view or discord.utils.MISSING,
                allowed_mentions=_pinging(ping, actor.user_id),
                echo=True,  # the fight remembers its message (a request's deadline edits it)
            )
        except DISCORD_FAILURES:
            # Saved, but the reply never came through: a request is posted on the channel instead (the
            # defender pinged), so the fight never waits on a message nobody can see.
            await self._declared(saved, report, None, view, counter_of)
            raise
        await self._declared(saved, report, sent, view, counter_of)

    async def _declared(
        self,
        saved: Encounter,
        report: ExchangeReport,
        sent: int | None,
        view: discord.ui.View | None,
        counter_of: discord.Message | None,
    ) -> None:
        """After an attack's reply (``sent``: its message id, None when it failed): the fight knows the
        message, a request that did not come through is posted again, its timeout runs."""
        exchange = report.exchange
        if sent is not None:  # saved with what the fight's redraw after this answer draws, in one write
            saved = await self.bot.fight_messages.remember_after(saved, self._message(report, sent), view)
        elif exchange.pending:
            saved = await self.bot.fight_messages.post_missing_requests(saved)
        self.schedule_timeouts(saved)
        if counter_of is not None:
            await self._refresh_buttons(saved, counter_of)

    @staticmethod
    def _message(report: ExchangeReport, message_id: int) -> FightMessage:
        """The message ``message_id`` about the report's exchange, as the fight knows it."""
        exchange = report.exchange
        return FightMessage(
            id=message_id,
            exchange=exchange.id,
            attacker=exchange.attacker,
            defender=exchange.defender,
            proposals=[proposal.id for proposal in report.proposals],
        )

    def exchange_message(
        self, encounter: Encounter, report: ExchangeReport, *, actor_id: int
    ) -> tuple[str, discord.ui.View | None, list[int]]:
        """The message about an exchange now (:func:`~bot.ui.exchange_message.exchange_message`)."""
        return exchange_message(
            encounter, report, fight_catalog(self.bot.catalog, encounter), actor_id=actor_id
        )

    async def attack_against_ac(
        self, interaction: discord.Interaction, target: str, who: str | None, declared: Declaration
    ) -> None:
        actor = actor_of(interaction)
        saved, result = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: attacks.ac_attack(
                encounter,
                fight_catalog(self.bot.catalog, encounter),
                actor,
                who=who,
                target=target,
                declared=declared,
                dice=self.bot.dice,
            ),
        )
        weapon = fight_catalog(self.bot.catalog, saved).weapon(result.weapon).name
        await answer(interaction, ac_attack_content(saved, result, weapon))

    # ------------------------------------------------------------------------------ buttons

    async def click(self, interaction: discord.Interaction, button: ExchangeButton) -> None:
        """A button of an exchange message: answer in place, with the exchange as it now stands."""
        channel_id = encounter_channel(interaction)
        actor = actor_of(interaction)
        clicked = interaction.message.id if interaction.message is not None else None
        saved, report = await self.bot.store.change(
            channel_id,
            actor.user_id,
            # what the answer draws on the clicked message is noted with the change: one write, not two
            self.bot.fight_messages.drawing(
                clicked,
                lambda encounter: attacks.answer(
                    encounter,
                    fight_catalog(self.bot.catalog, encounter),
                    actor,
                    fight=button.fight,
                    exchange_id=button.exchange_id,
                    step=button.step,
                    action=button.action,
                    dice_committed=button.dice,
                    dice=self.bot.dice,
                ),
            ),
        )
        self._forget_timer(channel_id, button.exchange_id)
        content, view, _ = self.exchange_message(saved, report, actor_id=actor.user_id)
        await self._redraw_clicked(interaction, saved, report, content, view)
        now = datetime.now(UTC)
        url = interaction.message.jump_url if interaction.message is not None else None
        notice = answered_notice(
            saved, report.exchange, report, actor_id=actor.user_id, now=now, result_url=url
        )
        # An edited message notifies nobody: the news goes in a message of its own, when it pings someone
        # (else the edited result already says it all), while the tracker is drawn.
        if notice is not None and notice.ping:
            await self.bot.events.beside(
                interaction.followup.send(notice.content, allowed_mentions=notice.allowed_mentions)
            )

    async def will_save(self, interaction: discord.Interaction, button: KnockOutButton) -> None:
        """R16, R20: the defender's Will save against a Knock-Out threat, from its button: the result
        message is redrawn with the save and its outcome."""
        actor = actor_of(interaction)
        saved, report = await self.bot.store.change(
            encounter_channel(interaction),
            actor.user_id,
            lambda encounter: attacks.will_save(
                encounter,
                actor,
                fight=button.fight,
                exchange_id=button.exchange_id,
                step=button.step,
                pool_dice=button.dice,
                dice=self.bot.dice,
            ),
        )
        content, view, _ = self.exchange_message(saved, report, actor_id=actor.user_id)
        await self._redraw_clicked(interaction, saved, report, content, view)
        if report.proposals:  # R22: a leader knocked out; the GM hears it in a message of its own
            now = datetime.now(UTC)
            url = interaction.message.jump_url if interaction.message is not None else None
            notice = answered_notice(
                saved, report.exchange, report, actor_id=actor.user_id, now=now, result_url=url
            )
            if notice is not None:
                await self.bot.events.beside(
                    interaction.followup.send(notice.content, allowed_mentions=notice.allowed_mentions)
                )

    async def _redraw_clicked(
        self,
        interaction: discord.Interaction,
        saved: Encounter,
        report: ExchangeReport,
        content: str,
        view: discord.ui.View | None,
    ) -> None:
        """A click's answer: its message shows the exchange as it now stands. When Discord drops that
        answer, the message is edited by its id instead, so it never goes on asking for what is done."""
        message = interaction.message
        try:
            await answer_by_editing(interaction, content=content, view=view)
        except DISCORD_FAILURES:
            if message is None:
                raise
            try:
                await message.edit(content=content, view=view)
            except DISCORD_FAILURES:
                log.warning("could not show the exchange %s on its message", report.exchange.id)
                raise
            raise
        finally:
            if message is not None:
                if report.proposals:
                    await self.bot.fight_messages.remember(saved, self._message(report, message.id), view)
                else:
                    self.bot.fight_messages.shown(saved.channel_id, message.id, view)

    async def react(self, interaction: discord.Interaction, button: ReactionButton) -> None:
        """R12, R14: a counterattack or opportunity attack owed, from its button: ``by`` strikes
        ``against`` with ``dice`` dice and its weapon's usual attack type."""
        await self.declare(
            interaction,
            button.against,
            button.by,
            Declaration(dice=button.dice),
            counter_of=interaction.message,
            fight=button.fight,
        )

    async def _refresh_buttons(self, encounter: Encounter, message: discord.Message) -> None:
        """After an attack owed was made from a message's button, that message keeps only what is left:
        an exchange's other choices, or nothing."""
        shown = {(button.fight, button.exchange_id) for button in ExchangeButton.on_message(message)}
        view = None
        for exchange in encounter.exchanges:
            if exchange.result is not None and (encounter.tag, exchange.id) in shown:
                view = view_of(follow_up_buttons(encounter, exchange))
        await message.edit(view=view)
        self.bot.fight_messages.shown(encounter.channel_id, message.id, view)

    # ------------------------------------------------------------------------------ after an undo

    async def restored(self, event: FightRestored) -> None:
        """An undo or a redo by ``by`` put the fight back (``before`` → ``after``, announced by
        ``/encounter``): each defense it left waiting is asked anew, pinging whoever must answer (but the
        user who undid), with its timeout; each exchange message it made untrue says so and loses its
        buttons. (Every message's buttons then follow from the fight's change, drawn after this.)"""
        before, after, by = event.before, event.encounter, event.by
        still_open = {(exchange.id, exchange.step) for exchange in after.exchanges if exchange.pending}
        for exchange in before.exchanges:
            if exchange.pending and (exchange.id, exchange.step) not in still_open:
                self._forget_timer(before.channel_id, exchange.id)
        try:
            await self._ask_again(before, after, by)
        except DISCORD_FAILURES as error:
            if not await self.bot.trackers.refusals.refused(after, "a defense asked again", error):
                raise

    async def _ask_again(self, before: Encounter, after: Encounter, by: int) -> None:
        channel = self.bot.get_channel(after.channel_id) or await self.bot.fetch_channel(after.channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            return
        bot_id = self.bot.user.id if self.bot.user else 0
        links: dict[int, str] = {}
        for exchange in history.asked_again(before, after):
            report = attacks.waiting_report(after, fight_catalog(self.bot.catalog, after), exchange.id)
            content, view, ping = self.exchange_message(after, report, actor_id=bot_id)
            content = asked_again_content(after, content, time_ran_out=exchange.gm_pinged)
            if exchange.gm_pinged:  # its time had run out before: the GM decides, as then
                ping = [after.gm_id]
            sent = await channel.send(
                clip(f"{ASKED_AGAIN}\n{content}"),
                view=view or discord.utils.MISSING,
                allowed_mentions=_pinging(ping, by),
            )
            links[exchange.id] = sent.jump_url
            after = await self.bot.fight_messages.remember(after, self._message(report, sent.id), view)
        self.schedule_timeouts(after)
        standing = {exchange.id: exchange for exchange in after.exchanges}
        for exchange in history.superseded(before, after):
            assert exchange.message_id is not None
            link = links.get(exchange.id)
            content = put_back_exchange_content(
                before,
                exchange,
                fight_catalog(self.bot.catalog, before).weapon(exchange.weapon).name,
                now=standing.get(exchange.id),
                asked_again=None if link is None else f"[this message]({link})",
            )
            try:
                await channel.get_partial_message(exchange.message_id).edit(content=content, view=None)
            except DISCORD_FAILURES:
                log.warning(
                    "could not mark the undone exchange %s in channel %s", exchange.id, after.channel_id
                )
            else:
                self.bot.fight_messages.shown(after.channel_id, exchange.message_id, None)
        for exchange in history.shown_again(before, after):
            # a redo made the exchange's first message its own again: it no longer says "asked again"
            assert exchange.message_id is not None
            content = put_back_exchange_content(
                after,
                exchange,
                fight_catalog(self.bot.catalog, after).weapon(exchange.weapon).name,
                now=exchange,
                asked_again=None,
            )
            try:
                await channel.get_partial_message(exchange.message_id).edit(content=content)
            except DISCORD_FAILURES:
                log.warning(
                    "could not mark the redone exchange %s in channel %s", exchange.id, after.channel_id
                )

    # ------------------------------------------------------------------------------ timeouts

    def schedule_timeouts(self, encounter: Encounter) -> None:
        """A timer for each defense waiting with a deadline (again after a restart)."""
        for exchange in encounter.exchanges:
            key = (DEFENSE, encounter.channel_id, exchange.id)
            waiting = exchange.pending and exchange.deadline is not None and not exchange.gm_pinged
            if waiting and exchange.deadline is not None and key not in self.bot.scheduler:
                # A little past the deadline: the event loop's clock and the wall clock may disagree slightly.
                when = exchange.deadline + timedelta(seconds=TIMER_MARGIN)
                self.bot.scheduler.schedule_at(when, key, self._expire(encounter.channel_id, exchange.id))

    def _forget_timer(self, channel_id: int, exchange_id: int) -> None:
        self.bot.scheduler.cancel((DEFENSE, channel_id, exchange_id))

    async def _expire(self, channel_id: int, exchange_id: int) -> None:
        with contextlib.suppress(RulesError):  # answered meanwhile, or the fight ended
            await self.run_timeout(channel_id, exchange_id)

    async def run_timeout(self, channel_id: int, exchange_id: int) -> None:
        """The defender did not answer in time: the policy decides, or the GM is asked. Not a command:
        a unit of work of its own (:mod:`bot.events`), whose change is drawn once it is told."""
        async with self.bot.events.collecting():
            await self._time_out(channel_id, exchange_id)

    async def _time_out(self, channel_id: int, exchange_id: int) -> None:
        now = datetime.now(UTC)
        bot_id = self.bot.user.id if self.bot.user else 0
        saved, report = await self.bot.store.change(
            channel_id,
            bot_id,
            lambda encounter: attacks.expire(
                encounter, fight_catalog(self.bot.catalog, encounter), exchange_id, self.bot.dice, now
            ),
        )
        exchange = report.exchange
        content, view, ping = self.exchange_message(saved, report, actor_id=bot_id)
        if exchange.pending:  # asking the GM: the GM gets the buttons, pinged
            content = clip(
                f"⏰ <@{saved.gm_id}>: time is up and nobody picked a defense; you decide.\n{content}"
            )
            ping = [saved.gm_id]
        asked_in = exchange.message_id
        try:
            channel = self.bot.get_channel(channel_id) or await self.bot.fetch_channel(channel_id)
            if not isinstance(channel, discord.abc.Messageable):
                return
            sent = await channel.send(
                content, view=view or discord.utils.MISSING, allowed_mentions=_pinging(ping, bot_id)
            )
        except DISCORD_FAILURES as error:
            if await self.bot.trackers.refusals.refused(saved, "the end of a defense's wait", error):
                return  # the fight is saved; its GM is told why the channel does not show it
            raise
        saved = await self.bot.fight_messages.remember_after(saved, self._message(report, sent.id), view)
        if asked_in is not None:  # the request says what became of it, and loses its buttons
            weapon = fight_catalog(self.bot.catalog, saved).weapon(exchange.weapon).name
            closed = expired_request_content(
                saved, exchange, weapon, where=f"[this message]({sent.jump_url})"
            )
            # Known as closed before the tracker's drawing starts, so that its messages are not redrawn.
            self.bot.fight_messages.shown(channel_id, asked_in, None)
            closing = channel.get_partial_message(asked_in).edit(content=closed, view=None)
            await self.bot.events.beside(closing)  # the tracker meanwhile


def _pinging(users: list[int], actor_id: int) -> discord.AllowedMentions:
    """Only these users may be pinged by the message (never roles, @everyone or typed names), and never
    the one whose action it answers: nobody is pinged for what they did themselves."""
    return discord.AllowedMentions(users=[discord.Object(user) for user in users if user != actor_id])


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Attack(bot))
