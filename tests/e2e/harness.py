"""Run the real Pommel bot against :class:`FakeDiscord` and drive it like users would.

``BotRunner`` points discord.py at the fake, starts real ``bot.app.Pommel`` instances (several in a row
on the same database file if a test needs a restart) and stops them cleanly.  ``RunningBot`` sends
interactions over the gateway and returns an :class:`InteractionResult` once the bot is *done*.

"Done" is decided without sleeping: discord.py handles an interaction in tasks it creates while parsing
INTERACTION_CREATE (``CommandTree-invoker`` for app commands, ``discord-ui-view-dispatch-<id>`` for
components, ``discord-ui-modal-dispatch-<id>`` for modals, ``discord.py: on_<event>`` for listeners).  A
context variable is set while the bot parses a tracked event, and a task factory files every task
created in that context (and, transitively, in tasks those tasks create) under the event's id.  Waiting
for those named tasks covers the error path as well, where ``app_command_completion`` never fires.
Error logs emitted inside those tasks are attributed the same way, so a command that raised fails
the test with its traceback instead of just "no answer".

The benchmark reuses this module directly (no pytest needed)::

    async with FakeDiscord() as fake:
        world = build_world(fake)
        async with BotRunner(fake, tmp / "pommel.sqlite3") as runner:
            bot = await runner.start_bot()
            result = await bot.slash("ping", user=world.player, channel=world.table)
            print(result.latency)
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
import discord.http
import yarl
from discord.gateway import DiscordWebSocket

from bot.catalog import Catalog, load_catalog
from bot.drawing_budget import Budget

from .fake_discord import (
    CallbackRecord,
    DispatchError,
    EditRecord,
    FakeChannel,
    FakeDiscord,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    RecordedRequest,
)
from .payloads import check_visible, command_data, component_data, modal_submit_data

if TYPE_CHECKING:
    from bot.app import Pommel

__all__ = [
    "HANDLER_TASK_PREFIXES",
    "HANG_GUARD",
    "BotRunner",
    "ChatResult",
    "InteractionResult",
    "RunningBot",
    "local_only",
    "patch_discord",
]

HANG_GUARD = 60.0
"""Seconds the harness waits for what must happen (the bot started, an interaction handled, the bot
closed) before failing the test as hung: a guard against hanging, never a measure of speed. A loaded
2-core machine takes seconds to do what takes milliseconds when idle (the first bot of a process more,
importing and starting up), so it is generous."""

HANDLER_TASK_PREFIXES = (
    "CommandTree-invoker",
    "discord-ui-view-dispatch-",
    "discord-ui-modal-dispatch-",
    "discord-ui-dynamic-item-",
    "discord.py: ",
)
"""Names of the tasks discord.py 2.7.1 runs handlers in (app_commands/tree.py, ui/view.py, ui/modal.py,
client.py).  Other tasks a handler starts (view timeouts, ``delete_after`` sleepers) are not waited for."""

_TRACKED: contextvars.ContextVar[int | None] = contextvars.ContextVar("fake_discord_event", default=None)


class _Tracking:
    def __init__(self, key: int, loop: asyncio.AbstractEventLoop) -> None:
        self.key = key
        self.parsed: asyncio.Future[None] = loop.create_future()
        self.tasks: list[asyncio.Task[Any]] = []
        self.errors: list[logging.LogRecord] = []


def _is_handler(task: asyncio.Task[Any]) -> bool:
    return task.get_name().startswith(HANDLER_TASK_PREFIXES)


class _Tracker(logging.Handler):
    """Files bot-side tasks and ERROR logs under the event (interaction/message id) that caused them."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.tracked: dict[int, _Tracking] = {}
        self.unattributed: list[logging.LogRecord] = []
        self._loop: asyncio.AbstractEventLoop | None = None
        self._previous: Any = None

    def install(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._previous = loop.get_task_factory()
        loop.set_task_factory(self._factory)  # type: ignore[arg-type]
        logging.getLogger().addHandler(self)

    def uninstall(self) -> None:
        logging.getLogger().removeHandler(self)
        if self._loop is not None:
            self._loop.set_task_factory(self._previous)
            self._loop = None

    def _factory(
        self, loop: asyncio.AbstractEventLoop, coro: Coroutine[Any, Any, Any], **kwargs: Any
    ) -> asyncio.Task[Any]:
        if self._previous is not None:
            task: asyncio.Task[Any] = self._previous(loop, coro, **kwargs)
        else:
            task = asyncio.Task(coro, loop=loop, **kwargs)
        context: contextvars.Context | None = kwargs.get("context")
        key = context.get(_TRACKED) if context is not None else _TRACKED.get()
        if key is not None:
            tracking = self.tracked.get(key)
            if tracking is not None:
                tracking.tasks.append(task)
        return task

    def emit(self, record: logging.LogRecord) -> None:
        if record.name.startswith(__package__ or "tests.e2e"):
            return  # the fake's own complaints are already recorded as problems
        key = _TRACKED.get()
        tracking = self.tracked.get(key) if key is not None else None
        (tracking.errors if tracking is not None else self.unattributed).append(record)

    def expect(self, key: int) -> _Tracking:
        assert self._loop is not None, "BotRunner is not started"
        tracking = self.tracked[key] = _Tracking(key, self._loop)
        return tracking

    def wrap_parser(self, bot: discord.Client, event: str) -> None:
        parsers: dict[str, Callable[[Any], None]] = bot._connection.parsers
        original = parsers[event]

        def parse(data: Any) -> None:
            key = int(data["id"])
            tracking = self.tracked.get(key)
            if tracking is None:
                original(data)
                return
            token = _TRACKED.set(key)
            try:
                original(data)
            except BaseException as exc:
                if not tracking.parsed.done():
                    tracking.parsed.set_exception(exc)
                raise
            finally:
                _TRACKED.reset(token)
            if not tracking.parsed.done():
                tracking.parsed.set_result(None)

        parsers[event] = parse


def _format_records(records: Sequence[logging.LogRecord]) -> str:
    formatter = logging.Formatter("%(levelname)s %(name)s: %(message)s")
    return "\n".join(formatter.format(r) for r in records)


@contextlib.contextmanager
def patch_discord(fake: FakeDiscord) -> Iterator[None]:
    """Point discord.py's REST base and gateway at the fake (and put them back afterwards)."""
    saved = (discord.http.Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY)
    discord.http.Route.BASE = fake.api_base
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
    try:
        yield
    finally:
        discord.http.Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY = saved


def local_only(fake: FakeDiscord) -> aiohttp.TraceConfig:
    """An aiohttp trace for the bot's session that refuses any request not aimed at 127.0.0.1.

    The hook runs before aiohttp resolves or connects, so a stray URL (a CDN asset, a forgotten
    ``Route.BASE`` patch) fails loudly and never leaves the machine.
    """

    async def on_request_start(
        session: aiohttp.ClientSession, context: Any, params: aiohttp.TraceRequestStartParams
    ) -> None:
        if params.url.host != "127.0.0.1":
            fake.problem("network", f"the bot tried to reach {params.method} {params.url}")
            raise RuntimeError(f"end-to-end tests must not reach {params.url}")

    trace = aiohttp.TraceConfig()
    trace.on_request_start.append(on_request_start)
    return trace


# ------------------------------------------------------------------------------------------ results


@dataclass
class InteractionResult:
    """What users saw after one interaction, once every handler task of the bot has finished."""

    interaction: FakeInteraction
    errors: list[logging.LogRecord]
    """ERROR logs emitted by the bot while handling this interaction (tracebacks included)."""
    channel_messages: list[FakeMessage]
    """Messages the bot posted through channel routes (not the interaction webhook) meanwhile."""
    requests: list[RecordedRequest]
    """Every REST request the fake received meanwhile (other concurrent work included)."""

    @property
    def callback(self) -> CallbackRecord | None:
        """The first response: ``.type`` (4 message, 5 deferred, 6 deferred update, 7 update,
        8 autocomplete, 9 modal) and ``.data`` as sent (content, embeds, components, flags)."""
        return self.interaction.callback

    @property
    def callback_type(self) -> int | None:
        return None if self.interaction.callback is None else self.interaction.callback.type

    @property
    def message(self) -> FakeMessage | None:
        """The response message in its current state (after edits and a deferred follow-up)."""
        return self.interaction.original

    @property
    def content(self) -> str:
        return self.message.content if self.message is not None else ""

    @property
    def embeds(self) -> list[dict[str, Any]]:
        return self.message.embeds if self.message is not None else []

    @property
    def components(self) -> list[dict[str, Any]]:
        return self.message.components if self.message is not None else []

    @property
    def flags(self) -> int:
        return self.message.flags if self.message is not None else 0

    @property
    def ephemeral(self) -> bool:
        return self.message is not None and self.message.ephemeral

    @property
    def followups(self) -> list[FakeMessage]:
        return self.interaction.followups

    @property
    def edits(self) -> list[EditRecord]:
        return self.interaction.edits

    @property
    def choices(self) -> list[dict[str, Any]]:
        """Autocomplete choices (``name``/``value`` dicts); empty if the bot answered none."""
        if self.callback_type != 8:
            raise AssertionError(f"not an autocomplete answer (callback type {self.callback_type})")
        return self.interaction.choices or []

    @property
    def modal(self) -> dict[str, Any]:
        if self.interaction.modal is None:
            raise AssertionError(f"the bot opened no modal (callback type {self.callback_type})")
        return self.interaction.modal

    @property
    def messages(self) -> list[FakeMessage]:
        """Everything the bot posted for this interaction: response, follow-ups, channel messages."""
        seen: list[FakeMessage] = []
        for message in [self.message, *self.followups, *self.channel_messages]:
            if message is not None and message not in seen:
                seen.append(message)
        return seen

    @property
    def text(self) -> str:
        """Content and embed text of every message above, for ``"..." in result.text`` assertions."""
        return "\n".join(f"{m.content}\n{m.embed_text}".strip() for m in self.messages)

    @property
    def latency(self) -> float:
        """Seconds from sending INTERACTION_CREATE to receiving the first callback."""
        inter = self.interaction
        if inter.callback is None or inter.dispatched_at is None:
            raise AssertionError("no callback, so no latency")
        return inter.callback.at - inter.dispatched_at


@dataclass
class ChatResult:
    """After a user message: what the bot posted while handling it."""

    message: FakeMessage
    errors: list[logging.LogRecord]
    channel_messages: list[FakeMessage] = field(default_factory=list)


# ---------------------------------------------------------------------------------------- the bot


class RunningBot:
    """A started Pommel plus the helpers that act on it as users."""

    def __init__(self, runner: BotRunner, bot: Pommel, task: asyncio.Task[None]) -> None:
        self.runner = runner
        self.fake = runner.fake
        self.bot = bot
        self.task = task
        self.default_channel: FakeChannel | None = runner.default_channel

    @property
    def tree(self) -> discord.app_commands.CommandTree[Any]:
        return self.bot.tree

    def _channel(self, channel: FakeChannel | None) -> FakeChannel:
        if channel is not None:
            return channel
        if self.default_channel is not None:
            return self.default_channel
        for guild in self.fake.guilds.values():
            if guild.text_channels:
                return guild.text_channels[0]
        raise DispatchError("no channel given and the fake has no text channel")

    # ------------------------------------------------------------------------------ interactions

    async def slash(
        self,
        command: str,
        *,
        user: FakeUser,
        channel: FakeChannel | None = None,
        options: Mapping[str, Any] | None = None,
        locale: str | None = None,
        enforce_permissions: bool = True,
        timeout: float = HANG_GUARD,
        expect_errors: bool = False,
        expect_response: bool = True,
    ) -> InteractionResult:
        """``/command [group] [sub] option:value...`` as ``user`` in ``channel`` (a DM: fake.dm_channel).

        ``command`` is the full name with spaces ("fight start"); ``options`` map option names to
        Python values (str/int/float/bool, FakeUser, FakeChannel, FakeRole, FakeAttachment).  With
        ``enforce_permissions`` a command the user could not see raises :class:`CommandNotVisible`.
        """
        where = self._channel(channel)
        root, *path = command.split()
        synced = self.fake.find_command(root, where.guild)
        if enforce_permissions:
            check_visible(synced, user, where)
        data = command_data(self.fake, synced, path, options or {}, where)
        inter = self.fake.new_interaction(
            type=2, user=user, channel=where, data=data, command_name=command, locale=locale
        )
        return await self.run(
            inter, timeout=timeout, expect_errors=expect_errors, expect_response=expect_response
        )

    async def autocomplete(
        self,
        command: str,
        *,
        user: FakeUser,
        focused: str,
        value: str | int | float = "",
        options: Mapping[str, Any] | None = None,
        channel: FakeChannel | None = None,
        locale: str | None = None,
        timeout: float = HANG_GUARD,
        expect_errors: bool = False,
    ) -> InteractionResult:
        """The user is typing ``value`` into option ``focused``; ``result.choices`` is the answer."""
        where = self._channel(channel)
        root, *path = command.split()
        synced = self.fake.find_command(root, where.guild)
        check_visible(synced, user, where)
        values = {**(options or {}), focused: value}
        data = command_data(self.fake, synced, path, values, where, focused=focused)
        inter = self.fake.new_interaction(
            type=4, user=user, channel=where, data=data, command_name=command, locale=locale
        )
        return await self.run(inter, timeout=timeout, expect_errors=expect_errors)

    async def click(
        self,
        message: FakeMessage | InteractionResult,
        custom_id: str,
        *,
        user: FakeUser,
        timeout: float = HANG_GUARD,
        expect_errors: bool = False,
        expect_response: bool = True,
    ) -> InteractionResult:
        """``user`` clicks the button ``custom_id`` on ``message`` (or on a result's response message)."""
        return await self._component(message, custom_id, None, user, timeout, expect_errors, expect_response)

    async def select(
        self,
        message: FakeMessage | InteractionResult,
        custom_id: str,
        values: Sequence[Any],
        *,
        user: FakeUser,
        timeout: float = HANG_GUARD,
        expect_errors: bool = False,
        expect_response: bool = True,
    ) -> InteractionResult:
        """``user`` picks ``values`` (option values, or FakeUser/FakeRole/FakeChannel) in a select."""
        return await self._component(
            message, custom_id, values, user, timeout, expect_errors, expect_response
        )

    async def _component(
        self,
        target: FakeMessage | InteractionResult,
        custom_id: str,
        values: Sequence[Any] | None,
        user: FakeUser,
        timeout: float,
        expect_errors: bool,
        expect_response: bool,
    ) -> InteractionResult:
        message = target.message if isinstance(target, InteractionResult) else target
        if message is None:
            raise DispatchError("that interaction produced no message to click on")
        owner = message.interaction.user if message.interaction is not None else None
        if message.ephemeral and owner is not None and owner is not user:
            raise DispatchError(f"message {message.id} is ephemeral: only {owner.username} can see it")
        data = component_data(message, custom_id, values, message.channel)
        inter = self.fake.new_interaction(
            type=3, user=user, channel=message.channel, data=data, message=message
        )
        return await self.run(
            inter, timeout=timeout, expect_errors=expect_errors, expect_response=expect_response
        )

    async def submit_modal(
        self,
        opened: InteractionResult,
        values: Mapping[str, str | Sequence[str]],
        *,
        user: FakeUser | None = None,
        timeout: float = HANG_GUARD,
        expect_errors: bool = False,
    ) -> InteractionResult:
        """Fill in and submit the modal the bot opened in ``opened`` (text input values by custom_id)."""
        trigger = opened.interaction
        data = modal_submit_data(opened.modal, values)
        inter = self.fake.new_interaction(
            type=5,
            user=user or trigger.user,
            channel=trigger.channel,
            data=data,
            message=trigger.message,
            trigger=trigger,
        )
        return await self.run(inter, timeout=timeout, expect_errors=expect_errors)

    async def run(
        self,
        inter: FakeInteraction,
        *,
        timeout: float = HANG_GUARD,
        expect_errors: bool = False,
        expect_response: bool = True,
    ) -> InteractionResult:
        """Send a prepared interaction and wait until the bot's handler tasks for it have finished."""
        tracking = self.runner.tracker.expect(inter.id)
        first_message = len(self.fake.message_log)
        first_request = len(self.fake.requests)
        try:
            await self.fake.send_interaction(inter)
            await self._settle(tracking, timeout, f"interaction {inter.command_name or inter.type}")
        finally:
            self.runner.tracker.tracked.pop(inter.id, None)
        result = InteractionResult(
            interaction=inter,
            errors=tracking.errors,
            channel_messages=[m for m in self.fake.message_log[first_message:] if m.interaction is None],
            requests=self.fake.requests[first_request:],
        )
        if tracking.errors and not expect_errors:
            raise AssertionError(
                f"the bot logged errors while handling {describe(inter)}:\n{_format_records(tracking.errors)}"
            )
        if expect_response and inter.callback is None:
            spawned = [t.get_name() for t in tracking.tasks] or "none (no handler matched?)"
            raise AssertionError(
                f"the bot never answered {describe(inter)} (Discord would show 'This interaction failed'); "
                f"tasks it spawned: {spawned}"
            )
        return result

    async def _settle(self, tracking: _Tracking, timeout: float, what: str) -> None:
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        await self._wait_any({tracking.parsed}, deadline, timeout, f"waiting for the bot to parse {what}")
        tracking.parsed.result()  # re-raise a parse failure here, in the test
        while pending := [t for t in tracking.tasks if _is_handler(t) and not t.done()]:
            names = ", ".join(sorted({t.get_name() for t in pending}))
            await self._wait_any(set(pending), deadline, timeout, f"waiting for {what} ({names})")

    async def _wait_any(
        self, waits: set[asyncio.Future[Any]], deadline: float, timeout: float, what: str
    ) -> None:
        remaining = deadline - asyncio.get_running_loop().time()
        done, _ = await asyncio.wait(
            {*waits, self.task}, timeout=max(remaining, 0), return_when="FIRST_COMPLETED"
        )
        if self.task in done:
            outcome = "it was cancelled" if self.task.cancelled() else repr(self.task.exception())
            raise AssertionError(f"the bot stopped while {what}: {outcome}")
        if not done:
            raise AssertionError(f"timed out after {timeout} s {what}")

    # ---------------------------------------------------------------------------------- chatting

    async def say(self, user: FakeUser, content: str, *, channel: FakeChannel | None = None) -> ChatResult:
        """``user`` writes ``content`` (MESSAGE_CREATE); waits for the bot's on_message handlers."""
        where = self._channel(channel)
        first_message = len(self.fake.message_log)
        # the id is only known once the fake creates the message, so track by pre-allocating it
        message_id = self.fake.snowflake()
        tracking = self.runner.tracker.expect(message_id)
        try:
            message = await self.fake.send_user_message(user, where, content, message_id=message_id)
            await self._settle(tracking, HANG_GUARD, f"message {content[:30]!r}")
        finally:
            self.runner.tracker.tracked.pop(message_id, None)
        bot_messages = [
            m for m in self.fake.message_log[first_message + 1 :] if m.author is self.fake.bot_user
        ]
        if tracking.errors:
            raise AssertionError(f"the bot logged errors on a message:\n{_format_records(tracking.errors)}")
        return ChatResult(message, tracking.errors, bot_messages)

    # ---------------------------------------------------------------------------------- lifecycle

    async def wait_for_event(self, event: str, *, timeout: float = HANG_GUARD) -> Any:
        """Wait for a discord.py event on the bot (e.g. ``resumed``), failing if the bot dies."""
        waiter = asyncio.ensure_future(self.bot.wait_for(event))
        try:
            deadline = asyncio.get_running_loop().time() + timeout
            await self._wait_any({waiter}, deadline, timeout, f"waiting for the bot's {event!r} event")
            return waiter.result()
        finally:
            waiter.cancel()

    async def close(self) -> None:
        """``bot.close()`` and wait for ``bot.start()`` to return (its database is then closed too)."""
        await self.runner._close_bot(self)


def describe(inter: FakeInteraction) -> str:
    kind = {2: "command", 3: "component", 4: "autocomplete", 5: "modal submit"}.get(
        inter.type, str(inter.type)
    )
    name = inter.command_name or (inter.data or {}).get("custom_id") or ""
    return f"{kind} {name!r} from {inter.user.username} in #{inter.channel.name}"


@functools.cache
def shipped_catalog() -> Catalog:
    """``bot/data/`` read once for all the bots a test run starts (the catalog is read-only)."""
    return load_catalog()


class BotRunner:
    """Starts and stops real Pommel bots against one FakeDiscord (the pytest fixture wraps this)."""

    def __init__(
        self,
        fake: FakeDiscord,
        database_path: Path,
        *,
        guild_ready_timeout: float = 0.01,
        settings: Mapping[str, Any] | None = None,
        default_channel: FakeChannel | None = None,
    ) -> None:
        self.fake = fake
        self.database_path = database_path
        self.guild_ready_timeout = guild_ready_timeout
        self.settings = dict(settings or {})
        self.default_channel = default_channel
        self.tracker = _Tracker()
        self.bots: list[RunningBot] = []
        self._patch: contextlib.AbstractContextManager[None] | None = None

    async def start(self) -> None:
        """Install the task tracker on this loop and patch discord.py (idempotent)."""
        if self._patch is not None:
            return
        self.tracker.install(asyncio.get_running_loop())
        self._patch = patch_discord(self.fake)
        self._patch.__enter__()

    async def close(self) -> None:
        for running in list(self.bots):
            await self._close_bot(running)
        if self._patch is not None:
            self._patch.__exit__(None, None, None)
            self._patch = None
            self.tracker.uninstall()

    async def __aenter__(self) -> BotRunner:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def settings_for(self, **overrides: Any) -> Any:
        from bot.config import Settings

        values: dict[str, Any] = {
            "discord_token": self.fake.token,
            "database_path": self.database_path,
            "dev_guild_id": None,
            **self.settings,
            **overrides,
        }
        return Settings(_env_file=None, **values)

    async def start_bot(
        self,
        *,
        setup: Callable[[Pommel], Awaitable[None] | None] | None = None,
        settings: Mapping[str, Any] | None = None,
        timeout: float = HANG_GUARD,
        tracker_spacing: float = 0.0,
        tracker_budget: float | None = None,
        **bot_kwargs: Any,
    ) -> RunningBot:
        """Build ``Pommel(settings, **bot_kwargs)``, let ``setup(bot)`` add test commands, start it and
        wait until it is ready and has every fake guild of its shards in its cache.

        A test's commands come milliseconds apart, and each waits for its tracker to be drawn: so that
        they do not wait a second each, the tracker board draws with no spacing between a channel's
        edits unless ``tracker_spacing`` says (the bot's own is :data:`bot.trackers.TRACKER_SPACING`),
        and with no limit over all channels unless ``tracker_budget`` says (drawings a second; the
        bot's own is :data:`bot.drawing_budget.TRACKER_DRAWS_PER_SECOND`)."""
        from bot.app import Pommel

        await self.start()
        assert discord.http.Route.BASE.startswith("http://127.0.0.1:"), "discord.py is not patched"
        bot_kwargs.setdefault("catalog", shipped_catalog())
        bot = Pommel(self.settings_for(**dict(settings or {})), **bot_kwargs)
        bot._connection.guild_ready_timeout = self.guild_ready_timeout
        bot.trackers.spacing = tracker_spacing
        bot.trackers.budget = Budget(tracker_budget) if tracker_budget is not None else None
        if bot.http.http_trace is None:
            bot.http.http_trace = local_only(self.fake)
        else:  # a trace given to the bot (``http_trace=``): the check runs before its hooks
            bot.http.http_trace.on_request_start[:0] = local_only(self.fake).on_request_start
        for event in ("INTERACTION_CREATE", "MESSAGE_CREATE"):
            self.tracker.wrap_parser(bot, event)
        ready = asyncio.get_running_loop().create_future()

        def check_ready() -> None:
            guilds = [bot.get_guild(g) for g in self.fake.guilds if bot.owns(g)]  # its shards' guilds
            if all(g is not None and not g.unavailable for g in guilds) and not ready.done():
                ready.set_result(None)

        async def on_ready() -> None:
            check_ready()

        async def on_guild_available(guild: discord.Guild) -> None:
            if bot.is_ready():
                check_ready()

        bot.add_listener(on_ready, "on_ready")
        bot.add_listener(on_guild_available, "on_guild_available")
        bot.add_listener(on_guild_available, "on_guild_join")
        if setup is not None:
            outcome = setup(bot)
            if inspect.isawaitable(outcome):
                await outcome
        task = asyncio.create_task(bot.start(self.fake.token), name="pommel-under-test")
        running = RunningBot(self, bot, task)
        self.bots.append(running)
        try:
            await running._wait_any(
                {ready},
                asyncio.get_running_loop().time() + timeout,
                timeout,
                "starting up (login, setup_hook, command sync, READY, GUILD_CREATE)",
            )
        except BaseException:
            await self._close_bot(running)
            raise
        return running

    async def _close_bot(self, running: RunningBot) -> None:
        if running not in self.bots:
            return
        self.bots.remove(running)
        await running.bot.close()
        try:
            await asyncio.wait_for(asyncio.shield(running.task), HANG_GUARD)
        except TimeoutError:
            running.task.cancel()
            raise AssertionError(f"bot.start() did not return within {HANG_GUARD} s of bot.close()") from None
        except Exception as exc:
            self.tracker.unattributed.append(
                logging.LogRecord(
                    "harness", logging.ERROR, __file__, 0, f"bot.start() raised {exc!r}", None, None
                )
            )

    def failures(self, *, include_problems: bool = True) -> list[str]:
        """Why the run should fail: the fake's problems and errors the bot logged outside handlers."""
        out = [str(p) for p in self.fake.problems] if include_problems else []
        if self.tracker.unattributed:
            out.append(
                "the bot logged errors outside any tracked handler:\n"
                + _format_records(self.tracker.unattributed)
            )
        return out

    def check(self) -> None:
        failures = self.failures()
        if failures:
            raise AssertionError("end-to-end run had problems:\n" + "\n".join(f" - {f}" for f in failures))
