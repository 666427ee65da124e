"""``/attack`` and the buttons of an exchange: the defender's choice, desperation, Binds, counterattacks.

The attacker rolls with ``/attack`` (R9-R12, R17, R24-R26). The defender's player (the GM for NPCs) is
asked with buttons: Passive, Active with 1..k dice, with the shield, Void (R13, R14). The table's
defense policy answers for NPCs, and for players who let the timeout run out. The result shows both
rolls, the outcome, the damage and its DR, and the HP left, with buttons for what may follow: a
desperation defense (R15), another die that makes a Bind (R9), a counterattack (R14) and a morale
check (R22). Every step is one transaction on the fight document; the buttons carry the exchange's
id and step, so they keep working after a restart and a double click acts once.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable, Coroutine
from datetime import UTC, datetime
from typing import Any, Literal

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import Pommel
from bot.encounter.attacks import (
    AcAttack,
    Declaration,
    DefenseChoice,
    ExchangeReport,
    attack_armor_class,
    choose_die,
    declare_attack,
    defend,
    desperate_defense,
    require_this_fight,
    time_out,
)
from bot.encounter.document import Encounter
from bot.encounter.done import Done
from bot.encounter.fighters import fighter
from bot.encounter.log_lines import ac_attack_log_line, exchange_log_line, request_log_line
from bot.encounter.permissions import acting_combatant
from bot.interactions import actor_of, channel_encounter, encounter_channel
from bot.rules.combat import passive_defense
from bot.rules.equipment import AttackType
from bot.rules.errors import RulesError
from bot.ui.buttons import view_of
from bot.ui.combatant_choices import combatant_choices
from bot.ui.errors import answer_failure
from bot.ui.exchange_views import (
    EXCHANGE_BUTTON,
    REACTION_BUTTON,
    ExchangeAction,
    ac_attack_content,
    answered_notice,
    clip,
    defense_buttons,
    follow_up_buttons,
    request_content,
    result_content,
)
from bot.ui.morale_views import proposal_button
from bot.ui.rolls import SituationChoice, advantage_of

log = logging.getLogger(__name__)

TIMER_MARGIN = 0.05
"""Seconds a defense timer waits past its deadline."""

AttackTypeChoice = Literal["bash", "pierce", "chop", "slash"]


class Combat(commands.Cog):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        self.timers: dict[tuple[int, int], asyncio.Task[None]] = {}

    async def cog_load(self) -> None:
        self.bot.add_dynamic_items(ExchangeButton, ReactionButton)
        for channel_id in await self.bot.store.fight_channels():
            encounter = await self.bot.store.load_encounter(channel_id)
            if encounter is not None:
                self.schedule_timeouts(encounter)

    async def cog_unload(self) -> None:
        self.bot.remove_dynamic_items(ExchangeButton, ReactionButton)
        for task in self.timers.values():
            task.cancel()
        self.timers.clear()

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
        two_weapons="Fight with both weapons: +1, and the better damage (R26)",
        holy_blessed="The weapon is Holy Blessed (it harms spirits, R27)",
        situation="Advantage or disadvantage from the situation (R10, R25)",
        bonus="Any other modifier the GM allows",
        helpless="The target is unaware or helpless: defense 2 in melee, 8 against missiles (R13)",
        against_ac="Roll a plain d20 against the target's Armor Class (R24)",
    )
    @app_commands.guild_only()
    async def attack(
        self,
        interaction: discord.Interaction,
        target: str,
        dice: app_commands.Range[int, 1, 4] = 1,
        attack_type: AttackTypeChoice | None = None,
        who: str | None = None,
        grapple: bool = False,
        bypass_armor: bool = False,
        at_armor: bool = False,
        two_weapons: bool = False,
        holy_blessed: bool = False,
        situation: SituationChoice | None = None,
        bonus: app_commands.Range[int, -20, 20] = 0,
        helpless: bool = False,
        against_ac: bool = False,
    ) -> None:
        declared = Declaration(
            dice=dice,
            attack_type=AttackType(attack_type) if attack_type else None,
            grapple=grapple,
            bypass=bypass_armor,
            at_armor=at_armor,
            two_weapons=two_weapons,
            holy_blessed=holy_blessed,
            situation=advantage_of(situation),
            bonus=bonus,
            helpless=helpless,
        )
        if against_ac:
            await self.attack_against_ac(interaction, target, who, declared)
            return
        await self.declare(interaction, target, who, declared)

    @attack.autocomplete("target")
    @attack.autocomplete("who")
    async def combatant_names(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        return combatant_choices(await channel_encounter(interaction), current)

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

        def change(encounter: Encounter) -> Done[ExchangeReport]:
            if fight is not None:
                require_this_fight(encounter, fight)
            attacker = acting_combatant(encounter, actor, who, "attack")
            report = declare_attack(
                encounter,
                self.bot.catalog,
                actor,
                attacker,
                encounter.combatant(target),
                declared,
                self.bot.dice,
                now,
            )
            exchange = encounter.exchange(report.exchange_id)
            line = (
                request_log_line(encounter, exchange)
                if exchange.pending
                else exchange_log_line(encounter, exchange, report)
            )
            return Done(report, log=[line], kind="attack")

        saved, report = await self.bot.store.change(channel_id, actor.user_id, change)
        content, view, ping = self.exchange_message(saved, report, actor_id=actor.user_id)
        sent = await interaction.response.send_message(
            content, view=view or discord.utils.MISSING, allowed_mentions=_pinging(ping)
        )
        exchange = saved.exchange(report.exchange_id)
        if exchange.pending and exchange.deadline is not None and sent.message_id is not None:
            saved = await self._remember_request(channel_id, exchange.id, sent.message_id) or saved
        self.schedule_timeouts(saved)
        if counter_of is not None:
            await self._refresh_buttons(saved, counter_of)
        await self.bot.trackers.publish(saved)

    async def _remember_request(self, channel_id: int, exchange_id: int, message_id: int) -> Encounter | None:
        """Keep the id of the message asking for a defense with a timeout, so the timeout can take its
        buttons away even after a restart (a transaction of its own, after the reply was sent)."""

        def remember(encounter: Encounter) -> Done[None]:
            for exchange in encounter.exchanges:
                if exchange.id == exchange_id:
                    exchange.message_id = message_id
            return Done(None)

        try:
            saved, _ = await self.bot.store.change(
                channel_id, self.bot.user.id if self.bot.user else 0, remember
            )
        except RulesError:
            return None  # the fight ended meanwhile
        return saved

    def exchange_message(
        self, encounter: Encounter, report: ExchangeReport, *, actor_id: int
    ) -> tuple[str, discord.ui.View | None, list[int]]:
        """The message about an exchange now, its buttons, and whom it pings: the defender's player
        (the GM for NPCs) when a defense is asked, the GM when a result proposes a morale check (R22)."""
        exchange = encounter.exchange(report.exchange_id)
        attacker = encounter.combatant(exchange.attacker)
        weapon = self.bot.catalog.weapon(attacker.weapon).name
        if exchange.pending:
            defender = encounter.combatant(exchange.defender)
            passive = passive_defense(
                fighter(defender, self.bot.catalog), missile=exchange.attack.missile
            ).total
            content = request_content(encounter, exchange, weapon, passive)
            asked = defender.owner_id if defender.owner_id is not None else encounter.gm_id
            return content, view_of(defense_buttons(encounter, exchange, passive)), [asked]
        rows = follow_up_buttons(encounter, exchange)
        if report.proposals:
            rows.append([proposal_button(proposal) for proposal in report.proposals[:5]])
        content = result_content(encounter, exchange, weapon, report)
        notice = answered_notice(encounter, exchange, report, actor_id=actor_id, now=exchange.asked_at)
        if notice is None:
            return content, view_of(rows), []
        return clip(f"{content}\n{notice.content}"), view_of(rows), notice.ping

    async def attack_against_ac(
        self, interaction: discord.Interaction, target: str, who: str | None, declared: Declaration
    ) -> None:
        channel_id = encounter_channel(interaction)
        actor = actor_of(interaction)

        def change(encounter: Encounter) -> Done[AcAttack]:
            attacker = acting_combatant(encounter, actor, who, "attack")
            result = attack_armor_class(
                encounter,
                self.bot.catalog,
                actor,
                attacker,
                encounter.combatant(target),
                declared,
                self.bot.dice,
            )
            return Done(result, log=[ac_attack_log_line(encounter, result)], kind="attack")

        saved, result = await self.bot.store.change(channel_id, actor.user_id, change)
        weapon = self.bot.catalog.weapon(result.weapon).name
        await interaction.response.send_message(ac_attack_content(saved, result, weapon))
        await self.bot.trackers.publish(saved)

    # ------------------------------------------------------------------------------ buttons

    async def click(self, interaction: discord.Interaction, button: ExchangeButton) -> None:
        """A button of an exchange message: answer in place, with the exchange as it now stands."""
        channel_id = encounter_channel(interaction)
        actor = actor_of(interaction)
        catalog, source = self.bot.catalog, self.bot.dice
        exchange_id, step, action, dice = button.exchange_id, button.step, button.action, button.dice

        def change(encounter: Encounter) -> Done[ExchangeReport]:
            require_this_fight(encounter, button.fight)
            if action is ExchangeAction.DESPERATE:
                report = desperate_defense(encounter, catalog, actor, exchange_id, step, source)
            elif action is ExchangeAction.ATTACKER_DIE:
                report = choose_die(encounter, catalog, actor, exchange_id, step, "attacker", source)
            elif action is ExchangeAction.DEFENDER_DIE:
                report = choose_die(encounter, catalog, actor, exchange_id, step, "defender", source)
            else:
                choice = (
                    DefenseChoice(mode="passive")
                    if action is ExchangeAction.PASSIVE
                    else DefenseChoice(
                        mode="active",
                        dice=dice,
                        shield=action is ExchangeAction.SHIELD,
                        void=action is ExchangeAction.VOID,
                    )
                )
                report = defend(encounter, catalog, actor, exchange_id, step, choice, source)
            exchange = encounter.exchange(exchange_id)
            return Done(report, log=[exchange_log_line(encounter, exchange, report)], kind="attack")

        saved, report = await self.bot.store.change(channel_id, actor.user_id, change)
        self._forget_timer(channel_id, exchange_id)
        content, view, _ = self.exchange_message(saved, report, actor_id=actor.user_id)
        await interaction.response.edit_message(content=content, view=view)
        exchange = saved.exchange(exchange_id)
        notice = answered_notice(saved, exchange, report, actor_id=actor.user_id, now=datetime.now(UTC))
        if notice is not None:  # an edited message notifies nobody: the news goes in a message of its own
            await interaction.followup.send(notice.content, allowed_mentions=notice.allowed_mentions)
        await self.bot.trackers.publish(saved)

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
        ids = _custom_ids(message)
        view = None
        for exchange in encounter.exchanges:
            prefix = f"pommel:x:{encounter.tag}:{exchange.id}:"
            if exchange.result is not None and any(i.startswith(prefix) for i in ids):
                view = view_of(follow_up_buttons(encounter, exchange))
        await message.edit(view=view)

    # ------------------------------------------------------------------------------ timeouts

    def schedule_timeouts(self, encounter: Encounter) -> None:
        """A timer for each defense waiting with a deadline (again after a restart)."""
        for exchange in encounter.exchanges:
            key = (encounter.channel_id, exchange.id)
            waiting = exchange.pending and exchange.deadline is not None and not exchange.gm_pinged
            if waiting and exchange.deadline is not None and key not in self.timers:
                self.timers[key] = asyncio.create_task(self._expire(key, exchange.deadline))

    def _forget_timer(self, channel_id: int, exchange_id: int) -> None:
        task = self.timers.pop((channel_id, exchange_id), None)
        if task is not None and task is not asyncio.current_task():
            task.cancel()

    async def _expire(self, key: tuple[int, int], deadline: datetime) -> None:
        # A little past the deadline: the event loop's clock and the wall clock may disagree slightly.
        await asyncio.sleep(max(0.0, (deadline - datetime.now(UTC)).total_seconds()) + TIMER_MARGIN)
        try:
            await self.run_timeout(*key)
        except RulesError:
            pass  # answered meanwhile, or the fight ended
        except Exception:
            log.exception("the defense timeout of exchange %s in channel %s failed", key[1], key[0])
        finally:
            self.timers.pop(key, None)

    async def run_timeout(self, channel_id: int, exchange_id: int) -> None:
        """The defender did not answer in time: the policy decides, or the GM is asked."""
        now = datetime.now(UTC)
        catalog, source = self.bot.catalog, self.bot.dice

        def change(encounter: Encounter) -> Done[ExchangeReport | None]:
            report = time_out(encounter, catalog, exchange_id, source, now)
            exchange = encounter.exchange(exchange_id)
            if report is None:
                defender = encounter.combatant(exchange.defender)
                return Done(
                    None, log=[f"{defender.name} did not defend in time; the GM is asked"], kind="attack"
                )
            return Done(report, log=[exchange_log_line(encounter, exchange, report)], kind="attack")

        bot_id = self.bot.user.id if self.bot.user else 0
        saved, report = await self.bot.store.change(channel_id, bot_id, change)
        channel = self.bot.get_channel(channel_id) or await self.bot.fetch_channel(channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            return
        request = saved.exchange(exchange_id).message_id
        if report is None:
            exchange = saved.exchange(exchange_id)
            defender = saved.combatant(exchange.defender)
            asking = ExchangeReport(
                exchange_id=exchange_id, hp_before=defender.hp, nonlethal_before=defender.nonlethal
            )
            content, view, _ = self.exchange_message(saved, asking, actor_id=bot_id)
            await channel.send(
                f"⏰ <@{saved.gm_id}>: time is up and nobody picked a defense; you decide.\n{content}",
                view=view or discord.utils.MISSING,
                allowed_mentions=_pinging([saved.gm_id]),
            )
            return
        if request is not None:  # the old buttons go first, so nobody clicks them beside the result
            await channel.get_partial_message(request).edit(view=None)
        content, view, ping = self.exchange_message(saved, report, actor_id=bot_id)
        await channel.send(content, view=view or discord.utils.MISSING, allowed_mentions=_pinging(ping))
        await self.bot.trackers.publish(saved)


def _pinging(users: list[int]) -> discord.AllowedMentions:
    """Only these users may be pinged by the message (never roles, @everyone or typed names)."""
    return discord.AllowedMentions(users=[discord.Object(user) for user in users])


def _custom_ids(message: discord.Message) -> list[str]:
    ids: list[str] = []
    for row in message.components:
        for child in getattr(row, "children", []):
            custom_id = getattr(child, "custom_id", None)
            if custom_id:
                ids.append(custom_id)
    return ids


class ExchangeButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=EXCHANGE_BUTTON):
    """The buttons of an exchange message, alive across restarts (the id says it all)."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(discord.ui.Button(custom_id=match.group(0)))
        self.fight, self.exchange_id, self.step = match["fight"], int(match["exchange"]), int(match["step"])
        self.action, self.dice = ExchangeAction(match["action"]), int(match["dice"] or 0)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ExchangeButton:
        return cls(match)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _answer(interaction, lambda cog: cog.click(interaction, self))


class ReactionButton(discord.ui.DynamicItem[discord.ui.Button[discord.ui.View]], template=REACTION_BUTTON):
    """The buttons of an attack owed (a counterattack, an opportunity attack), alive across restarts."""

    def __init__(self, match: re.Match[str]) -> None:
        super().__init__(discord.ui.Button(custom_id=match.group(0)))
        self.fight, self.by, self.against = match["fight"], match["by"], match["against"]
        self.dice = int(match["dice"])

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: re.Match[str], /
    ) -> ReactionButton:
        return cls(match)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _answer(interaction, lambda cog: cog.react(interaction, self))


async def _answer(
    interaction: discord.Interaction[Any], press: Callable[[Combat], Coroutine[Any, Any, None]]
) -> None:
    """Run a button's action on the Combat cog; a button has no command tree, so failures are answered
    here as tree.on_error answers a command's."""
    cog = interaction.client.get_cog("Combat")
    try:
        if not isinstance(cog, Combat):
            raise RulesError("Pommel is starting up; try again in a moment.")
        await press(cog)
    except Exception as error:
        await answer_failure(interaction, error)


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Combat(bot))
