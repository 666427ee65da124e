"""``/encounter start | end | reopen | undo | redo | show | log | history | options | gm``: a channel's fight
from its start to its summary, and after.

One fight per channel (or thread). Whoever starts it is its GM (when the server sets a GM role with
``/server gm_role``, only members with it may); the GM changes its options, hands it on, and ends it:
``/encounter end`` asks first, privately, and the GM's click on "End the fight" (:class:`EndButton`)
ends it, then posts the summary with the log attached (private rolls without their dice) and sends the
GM the whole log. The log stays in the store: ``/encounter log`` in a channel whose fight ended gives
that fight's log again, as a file. The ended fight is kept whole too (the channel's last
:data:`~bot.store.ENDED_KEPT`): ``/encounter history`` lists them with a button for each one's log
(:class:`HistoryButton`), and ``/encounter reopen`` brings the last one back, as it ended. What these
change is in :mod:`bot.encounter.lifecycle`.

``/encounter undo [steps]`` (the GM; a player too, for changes they made all of, when the fight's
``players_undo`` allows) shows privately the log lines of the last changes and asks; the click on "Undo"
(:class:`UndoButton`) takes the fight back as a new version (the store keeps the running fight's last
:data:`~bot.store.HISTORY_KEPT` changes), marks those lines undone in the log, logs the undo and tells the
channel; ``/encounter redo`` (or the "Redo" on the undo's note, :class:`RedoButton`) takes the last undo
back until the fight's next change.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from functools import partial

import discord
from discord import app_commands
from discord.ext import commands

from bot import fight_views
from bot.app import Pommel
from bot.button_kinds import EndButton, HistoryButton, OverviewButton, RedoButton, UndoButton
from bot.channel_access import TRACKER_NEEDS, require_may_post
from bot.encounter import document, history, lifecycle
from bot.encounter.errors import NoFight, OtherFight
from bot.encounter.kept_entries import fight_catalog
from bot.encounter.lifecycle import EndedFight
from bot.encounter.permissions import is_gm, require_fight, require_may_recover
from bot.events import FightRestored, announce
from bot.fight_views import EndedLog, is_private
from bot.interactions.actors import (
    actor_of,
    channel_encounter,
    encounter_channel,
    encounter_place,
    member_actor,
)
from bot.interactions.answering import answer, answer_by_editing
from bot.option_parameters import SetsOptions, options_command
from bot.rules.errors import RulesError
from bot.store import (
    EndedGone,
    HistoryStep,
    LogEntry,
    NothingToRedo,
    SetAsideGone,
    StaleEncounter,
    log_entries,
    reads_fight,
)
from bot.ui.encounter_views import (
    FORGOTTEN,
    NOTHING_SET_ASIDE,
    NOTHING_TO_REOPEN,
    OVERVIEW_GONE,
    REOPENING,
    already_running,
    gm_handed_reply,
    options_changed_reply,
    options_embed,
    overview_page,
    recover_reply,
    recovered_line,
    recovered_reply,
    reopened_reply,
    set_aside_file,
    set_aside_note,
    started_reply,
    who_runs_fights,
)
from bot.ui.errors import DISCORD_FAILURES
from bot.ui.fight_log import (
    ALREADY_ENDED,
    FIGHT_GOES_ON,
    LOG_DEFAULT,
    LOG_MAX,
    REDO_OUT_OF_DATE,
    REDONE_NOTE,
    UNDO_MAX,
    UNDO_OUT_OF_DATE,
    UNDONE_NOTE,
    channel_label,
    end_confirmation,
    end_not_shown,
    ended_log_reply,
    ended_note,
    failure_of,
    fight_over_embed,
    fight_summary,
    full_copy_note,
    hidden_private,
    history_reply,
    log_embed,
    log_file,
    redo_confirmation,
    redo_log_line,
    redo_view,
    redone_reply,
    undo_confirmation,
    undo_log_line,
    undone_reply,
)

logger = logging.getLogger(__name__)


@app_commands.guild_only()
class Encounter(
    SetsOptions, commands.GroupCog, group_name="encounter", group_description="Run this channel's fight (GM)"
):
    def __init__(self, bot: Pommel) -> None:
        self.bot = bot
        super().__init__()

    async def cog_load(self) -> None:
        self.bot.buttons.route(EndButton, self.end_button)
        self.bot.buttons.route(HistoryButton, self.history_button)
        self.bot.buttons.route(UndoButton, self.undo_button)
        self.bot.buttons.route(RedoButton, self.redo_button)
        self.bot.buttons.route(OverviewButton, self.overview_button)

    async def cog_unload(self) -> None:
        self.bot.buttons.unroute(EndButton, HistoryButton, UndoButton, RedoButton, OverviewButton)

    async def load(self, interaction: discord.Interaction) -> document.Encounter:
        """The channel's running fight; with none, the refusal also says when the one that was here
        could not be read and was set aside (so the GM knows why it is gone, and what to do)."""
        _, channel_id = encounter_place(interaction)  # refuses direct messages
        encounter = await channel_encounter(interaction)
        if encounter is None:
            set_aside = await self.bot.store.pending_set_aside(channel_id)
            if set_aside is not None:
                raise RulesError(set_aside_note(set_aside, starting=False))
        return require_fight(encounter)

    # ------------------------------------------------------------------------------ start and end

    @app_commands.command(name="start", description="Start a fight in this channel, with you as its GM")
    async def start(self, interaction: discord.Interaction) -> None:
        guild_id, channel_id = encounter_place(interaction)
        settings = await self.bot.store.guild_settings(guild_id)
        started = lifecycle.start(settings, actor_of(interaction), interaction.user.display_name, channel_id)
        require_may_post(interaction, "this fight's tracker", TRACKER_NEEDS, then="`/encounter start` again.")
        encounter = started.result
        events = log_entries(started, guild_id, channel_id, interaction.user.id, at=encounter.started_at)
        try:
            saved = await self.bot.store.save_encounter(encounter, events=events)
        except StaleEncounter:
            raise await self.already_running(channel_id, "a new one can start") from None
        reply = started_reply(saved)
        set_aside = await self.bot.store.pending_set_aside(channel_id)
        if set_aside is not None and await self.bot.store.acknowledge_set_aside(set_aside.id):
            reply = f"{reply}\n{set_aside_note(set_aside, starting=True)}"
        await answer(interaction, reply)

    async def already_running(self, channel_id: int, before: str) -> RulesError:
        """The refusal of a fight where one is running, naming its GM."""
        return RulesError(already_running(await self.bot.store.load_encounter(channel_id), before))

    @app_commands.command(
        name="end", description="GM: end this fight (asks first); posts the summary and the log"
    )
    async def end(self, interaction: discord.Interaction) -> None:
        _, channel_id = encounter_place(interaction)
        # An ended fight is kept as stored: what is noted of its messages is written first, so that a
        # reopen knows them (before the version the confirmation carries: this write does not outdate it).
        await self.bot.store.write_notes(channel_id=channel_id)
        encounter = await self.load(interaction)
        asked = lifecycle.ask_to_end(encounter, actor_of(interaction))
        content, view = end_confirmation(asked)
        await answer(interaction, content, view=view, ephemeral=True)

    async def end_button(self, interaction: discord.Interaction, button: EndButton) -> None:
        """The GM's answer to the confirmation: "Keep it going" changes nothing; "End the fight" ends the
        fight it was drawn for (commits), then says so, then posts the summary and the log files."""
        if button.action == "keep":
            await self.keep_going(interaction, button)
            return
        actor = actor_of(interaction)
        by = interaction.user.display_name
        _, channel_id = encounter_place(interaction)
        try:
            _, ended = await self.bot.store.change(
                channel_id,
                actor.user_id,
                lambda encounter: lifecycle.end(
                    encounter, actor, by, fight=button.fight, version=button.version
                ),
            )
        except NoFight:
            raise RulesError(ALREADY_ENDED) from None
        # The fight is ended. Whatever fails from here on, the GM must hear that it is, and where its log is.
        summary = fight_summary(ended)
        try:
            await answer_by_editing(interaction, content=ended_note(ended), view=None)
        except DISCORD_FAILURES:
            logger.warning("could not confirm the end of the fight in channel %s", channel_id, exc_info=True)
        # The tracker is closed with the summary while the summary and the log are posted (bot/events.py).
        await self.bot.events.beside(self.post_end(interaction, channel_id, ended, summary))

    async def post_end(
        self, interaction: discord.Interaction, channel_id: int, ended: EndedFight, summary: str
    ) -> None:
        """The summary and the log for the channel, the whole log for the GM; what Discord does not take,
        the GM is told privately (the fight is ended all the same, and its log kept)."""
        log = await fight_views.closing_log(self.bot.store, channel_id, ended)
        channel = channel_label(interaction.channel, channel_id)
        missing: list[str] = []
        failure = ""
        try:
            await interaction.followup.send(
                embed=fight_over_embed(summary),
                file=log_file(log, channel=channel, reader=None, full=False),
            )
        except DISCORD_FAILURES as error:
            logger.warning("could not post the end of the fight in channel %s", channel_id, exc_info=True)
            missing.append("the summary with its log file")
            failure = failure_of(error)
        private = sum(1 for entry in log.entries if is_private(entry))
        if private:
            try:
                await interaction.followup.send(
                    full_copy_note(private),
                    file=log_file(log, channel=channel, reader=None, full=True),
                    ephemeral=True,
                )
            except DISCORD_FAILURES as error:
                logger.warning("could not send the GM the whole log in channel %s", channel_id, exc_info=True)
                missing.append("your copy of the whole log")
                failure = failure or failure_of(error)
        if missing:
            try:
                await interaction.followup.send(end_not_shown(missing, failure), ephemeral=True)
            except DISCORD_FAILURES:
                logger.warning(
                    "could not tell the GM in channel %s what was not posted", channel_id, exc_info=True
                )

    async def keep_going(self, interaction: discord.Interaction, button: EndButton) -> None:
        """ "Keep it going": after the same confirmation's End, if that came first, it is refused; before
        it, it makes that End refused (the two never both answer as if they had won)."""
        actor = actor_of(interaction)
        try:
            await self.bot.store.change(
                encounter_channel(interaction),
                actor.user_id,
                lambda encounter: lifecycle.keep_going(encounter, actor, fight=button.fight),
            )
        except (NoFight, OtherFight):
            raise RulesError(ALREADY_ENDED) from None
        await answer_by_editing(interaction, content=FIGHT_GOES_ON, view=None)

    # ------------------------------------------------------------------------------ undo

    @app_commands.command(
        name="undo",
        description="Take back the fight's last changes (GM, or a player's own if the fight allows); asks"
        " first",
    )
    @app_commands.describe(steps=f"How many of the last changes to take back (default 1, at most {UNDO_MAX})")
    async def undo(
        self, interaction: discord.Interaction, steps: app_commands.Range[int, 1, UNDO_MAX] = 1
    ) -> None:
        encounter = await self.load(interaction)
        kept = await fight_views.undoable(self.bot.store, encounter, actor_of(interaction), steps)
        content, view = undo_confirmation(kept, encounter.tag, encounter.version)
        await answer(interaction, content, view=view, ephemeral=True)

    async def undo_button(self, interaction: discord.Interaction, button: UndoButton) -> None:
        """The click on "Undo": takes the fight back the steps shown, if it is still the fight and the
        version they were shown for (commits), then tells the channel and brings its messages up to date."""
        encounter = await self.load(interaction)
        if encounter.tag != button.fight or encounter.version != button.version:
            raise RulesError(UNDO_OUT_OF_DATE)
        await fight_views.undoable(self.bot.store, encounter, actor_of(interaction), button.steps)
        line = self._put_back_line(interaction, undo_log_line, "undone")
        restore = self.bot.store.bookkeeping.restoring(self._restore())  # what it carries over is as drawn
        try:
            saved, undone = await self.bot.store.undo(
                encounter.channel_id, button.steps, button.version, restore, line
            )
        except StaleEncounter:
            raise RulesError(UNDO_OUT_OF_DATE) from None
        restore.taken()
        redoable = await self.bot.store.redoable(encounter.channel_id)
        view = None if redoable is None else redo_view(saved.tag, redoable.undo_id)
        await answer_by_editing(interaction, content=UNDONE_NOTE, view=view)
        told = undone_reply(interaction.user.display_name, undone)
        await self._put_back(interaction, told, encounter, saved)

    @app_commands.command(
        name="redo", description="Take back the last undo (whoever may undo; shows it first, then asks)"
    )
    async def redo(self, interaction: discord.Interaction) -> None:
        encounter = await self.load(interaction)
        redoable = await fight_views.redoable(self.bot.store, encounter, actor_of(interaction))
        content, view = redo_confirmation(redoable.steps, encounter.tag, redoable.undo_id)
        await answer(interaction, content, view=view, ephemeral=True)

    async def redo_button(self, interaction: discord.Interaction, button: RedoButton) -> None:
        """The click on "Redo" (of ``/encounter redo``, or of an undo's note): takes that undo back, if
        it is still the fight's last undo and nothing was changed since."""
        encounter = await self.load(interaction)
        redoable = await self.bot.store.redoable(encounter.channel_id)
        if encounter.tag != button.fight or redoable is None or redoable.undo_id != button.undo:
            raise RulesError(REDO_OUT_OF_DATE)
        await fight_views.redoable(self.bot.store, encounter, actor_of(interaction))
        line = self._put_back_line(interaction, redo_log_line, "redone")
        restore = self.bot.store.bookkeeping.restoring(self._restore())
        try:
            saved, redone = await self.bot.store.redo(encounter.channel_id, button.undo, restore, line)
        except NothingToRedo:
            raise RulesError(REDO_OUT_OF_DATE) from None
        restore.taken()
        await answer_by_editing(interaction, content=REDONE_NOTE, view=None)
        told = redone_reply(interaction.user.display_name, redone)
        await self._put_back(interaction, told, encounter, saved)

    @staticmethod
    def _restore() -> Callable[[document.Encounter, document.Encounter], document.Encounter]:
        return partial(history.restored, now=datetime.now(UTC))

    @staticmethod
    def _put_back_line(
        interaction: discord.Interaction, text: Callable[[str, Sequence[HistoryStep]], str], key: str
    ) -> Callable[[Sequence[HistoryStep]], LogEntry]:
        """The log line of an undo or a redo, made from the steps it takes back."""
        guild_id, channel_id = encounter_place(interaction)
        by = interaction.user

        def line(steps: Sequence[HistoryStep]) -> LogEntry:
            return LogEntry(
                guild_id=guild_id,
                channel_id=channel_id,
                user_id=by.id,
                kind="encounter",
                text=text(by.display_name, steps),
                data={key: len(steps)},
            )

        return line

    async def _put_back(
        self,
        interaction: discord.Interaction,
        told: str,
        before: document.Encounter,
        saved: document.Encounter,
    ) -> None:
        """After an undo or a redo: the channel is told while the fight's messages and tracker are drawn;
        then what the fight was put back from is announced (the attack cog asks again for the defenses it
        left waiting, after the channel's message)."""
        await self.bot.events.beside(
            interaction.followup.send(told, allowed_mentions=discord.AllowedMentions.none())
        )
        announce(FightRestored(before, saved, interaction.user.id))

    # ------------------------------------------------------------------------------ looking

    @app_commands.command(name="show", description="This fight at a glance: GM, round, options, combatants")
    async def show(self, interaction: discord.Interaction) -> None:
        encounter = await self.load(interaction)
        guild_id, _ = encounter_place(interaction)
        encounter = await self.bot.fight_messages.check_requests(encounter)  # none is stuck out of sight
        gm = is_gm(encounter, actor_of(interaction))
        embed, view = overview_page(
            encounter, fight_catalog(self.bot.catalog, encounter), guild_id=guild_id, gm=gm
        )
        await answer(interaction, embed=embed, view=view or discord.utils.MISSING, ephemeral=True)

    async def overview_button(self, interaction: discord.Interaction, button: OverviewButton) -> None:
        """Another page of ``/encounter show``'s private overview, drawn from the fight as it is now."""
        guild_id, _ = encounter_place(interaction)
        encounter = await channel_encounter(interaction)
        if encounter is None or encounter.tag != button.fight:
            raise RulesError(OVERVIEW_GONE)
        gm = is_gm(encounter, actor_of(interaction))
        embed, view = overview_page(
            encounter, fight_catalog(self.bot.catalog, encounter), guild_id=guild_id, gm=gm, page=button.page
        )
        await answer_by_editing(interaction, embed=embed, view=view)

    @app_commands.command(
        name="log",
        description="The latest entries of this fight's log; after a fight, its whole log as a file",
    )
    @app_commands.describe(entries=f"How many of the latest entries to show (default {LOG_DEFAULT})")
    async def log(
        self, interaction: discord.Interaction, entries: app_commands.Range[int, 1, LOG_MAX] = LOG_DEFAULT
    ) -> None:
        _, channel_id = encounter_place(interaction)
        encounter = await channel_encounter(interaction)
        if encounter is None:
            await self.ended_log(interaction, channel_id)
            return
        gm = is_gm(encounter, actor_of(interaction))
        latest, hidden = await fight_views.latest_log(
            self.bot.store, encounter, interaction.user.id, gm=gm, count=entries
        )
        await answer(interaction, embed=log_embed(latest, hidden), ephemeral=True)

    async def ended_log(self, interaction: discord.Interaction, channel_id: int) -> None:
        """The channel's last ended fight's log as a file, privately (see :meth:`send_ended_log`)."""
        log = await fight_views.last_ended_log(self.bot.store, channel_id)
        if log is None:
            raise NoFight()
        await self.send_ended_log(interaction, channel_id, log, last=True)

    async def send_ended_log(
        self, interaction: discord.Interaction, channel_id: int, log: EndedLog, *, last: bool
    ) -> None:
        """An ended fight's log as a file, privately: the whole log for that fight's GM and for Manage
        Server, the reader's own private rolls and others' without their dice otherwise."""
        actor = actor_of(interaction)
        full = fight_views.reads_whole_log(log.ended, actor)
        hidden = hidden_private(log.entries, reader=actor.user_id, full=full)
        channel = channel_label(interaction.channel, channel_id)
        await answer(
            interaction,
            ended_log_reply(log.ended, log.ended_at, full=full, hidden=hidden, last=last),
            file=log_file(log, channel=channel, reader=actor.user_id, full=full),
            ephemeral=True,
        )

    # ------------------------------------------------------------------------------ after the fight

    @app_commands.command(
        name="history", description="The fights that ended in this channel, with their logs to download"
    )
    async def history(self, interaction: discord.Interaction) -> None:
        _, channel_id = encounter_place(interaction)
        content, view = history_reply(await self.bot.store.ended_encounters(channel_id))
        await answer(interaction, content, view=view or discord.utils.MISSING, ephemeral=True)

    async def history_button(self, interaction: discord.Interaction, button: HistoryButton) -> None:
        """One ended fight's log, from ``/encounter history``'s list (the list stays as it is)."""
        _, channel_id = encounter_place(interaction)
        log = await fight_views.kept_ended_log(self.bot.store, channel_id, button.ended)
        if log is None:
            raise RulesError(FORGOTTEN)
        await self.send_ended_log(interaction, channel_id, log, last=False)

    @app_commands.command(
        name="recover",
        description="GM: download the fight Pommel set aside here, or bring it back once Pommel reads it",
    )
    @app_commands.describe(
        bring_back="Bring it back as this channel's running fight, as it was when it was set aside"
    )
    async def recover(self, interaction: discord.Interaction, bring_back: bool = False) -> None:
        guild_id, channel_id = encounter_place(interaction)
        kept = await self.bot.store.set_aside_fight(channel_id)
        if kept is None:
            raise RulesError(NOTHING_SET_ASIDE)
        set_aside, document = kept
        actor, by = actor_of(interaction), interaction.user.display_name
        require_may_recover(set_aside.gm_id, actor, "recover the fight set aside here")
        if not bring_back:
            readable = reads_fight(document)
            running = await self.bot.store.load_encounter(channel_id) is not None
            reply = recover_reply(set_aside, readable=readable, running=running)
            await answer(interaction, reply, file=set_aside_file(set_aside, document), ephemeral=True)
            return
        require_may_post(
            interaction,
            "the fight's tracker",
            TRACKER_NEEDS,
            then="`/encounter recover bring_back:True` again.",
        )
        line = LogEntry(
            guild_id=guild_id,
            channel_id=channel_id,
            user_id=actor.user_id,
            kind="encounter",
            text=recovered_line(by, set_aside),
        )
        try:
            saved = await self.bot.store.restore_set_aside(set_aside, document, events=[line])
        except StaleEncounter:
            raise await self.already_running(channel_id, "the fight set aside can come back") from None
        except SetAsideGone:
            raise RulesError(NOTHING_SET_ASIDE) from None
        await answer(interaction, recovered_reply(by, set_aside, saved))

    @app_commands.command(
        name="reopen", description="GM: bring back the last fight that ended here, as it ended"
    )
    async def reopen(self, interaction: discord.Interaction) -> None:
        _, channel_id = encounter_place(interaction)
        last = await self.bot.store.ended_encounters(channel_id, limit=1)
        kept = await self.bot.store.ended_encounter(last[0].id) if last else None
        if kept is None or kept.encounter is None:
            if await self.bot.store.load_encounter(channel_id) is not None:
                raise await self.already_running(channel_id, REOPENING)
            raise RulesError(NOTHING_TO_REOPEN)
        actor, by = actor_of(interaction), interaction.user.display_name
        reopened = lifecycle.reopen(kept.encounter, actor, by)
        require_may_post(interaction, "the fight's tracker", TRACKER_NEEDS, then="`/encounter reopen` again.")
        events = log_entries(reopened, kept.guild_id, channel_id, actor.user_id)
        try:
            saved = await self.bot.store.reopen_encounter(kept, events=events)
        except StaleEncounter:
            raise await self.already_running(channel_id, REOPENING) from None
        except EndedGone:
            raise RulesError(NOTHING_TO_REOPEN) from None
        await answer(interaction, reopened_reply(saved, by, kept.ended_at))

    # ------------------------------------------------------------------------------ options

    options = options_command("options", "GM: change this fight's rulings and table habits")

    async def set_options(
        self, interaction: discord.Interaction, rules: dict[str, object], table: dict[str, object]
    ) -> None:
        if not rules and not table:
            encounter = await self.load(interaction)
            await answer(interaction, embed=options_embed(encounter), ephemeral=True)
            return
        actor = actor_of(interaction)
        _, channel_id = encounter_place(interaction)
        _, changes = await self.bot.store.change(
            channel_id,
            actor.user_id,
            lambda encounter: lifecycle.change_options(encounter, actor, rules, table),
        )
        await answer(interaction, options_changed_reply(changes), ephemeral=not changes)

    # ------------------------------------------------------------------------------ who runs it

    @app_commands.command(name="gm", description="Hand this fight to another GM, or see who runs fights here")
    @app_commands.describe(member="GM: hand this fight to this member, who becomes its GM")
    async def gm(self, interaction: discord.Interaction, member: discord.Member | None = None) -> None:
        guild_id, channel_id = encounter_place(interaction)
        if member is None:
            settings = await self.bot.store.guild_settings(guild_id)
            encounter = await self.bot.store.load_encounter(channel_id)
            await answer(interaction, who_runs_fights(encounter, settings), ephemeral=True)
            return
        if member.bot:
            raise RulesError(f"{member.mention} is a bot; a fight needs a person as its GM.")
        settings = await self.bot.store.guild_settings(guild_id)
        actor, successor = actor_of(interaction), member_actor(member)
        by, whom = interaction.user.display_name, member.display_name
        _, handed = await self.bot.store.change(
            channel_id,
            actor.user_id,
            lambda encounter: lifecycle.hand_over(encounter, actor, by, settings, successor, whom),
        )
        new_gm = [discord.Object(handed.new_gm)] if handed.new_gm != interaction.user.id else []
        await answer(
            interaction, gm_handed_reply(handed), allowed_mentions=discord.AllowedMentions(users=new_gm)
        )


async def setup(bot: Pommel) -> None:
    await bot.add_cog(Encounter(bot))
