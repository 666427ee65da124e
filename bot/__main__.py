"""``python -m bot`` / ``pommel``: read the settings, then run the bot until stopped; ``pommel backup``,
``restore`` and ``check`` look after its database (:mod:`bot.maintenance`)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import signal
import sys
from collections.abc import Coroutine, Sequence
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
import discord
from discord import app_commands
from pydantic import ValidationError

from . import __version__
from .catalog import CatalogError
from .config import Settings
from .store import StoreUnavailable

EXIT_CONFIG = 2
EXIT_UNREACHABLE = 1
EXIT_UNHEALTHY = 1
EXIT_LEASE_LOST = 3
EXIT_INTERRUPTED = 130
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)

log = logging.getLogger("bot")

T = TypeVar("T")


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run`` on uvloop's event loop: every interaction's requests, timers and callbacks pass
    through the loop, and uvloop's costs less CPU per action than asyncio's own (issue 29, goal 4).
    Signals, ``KeyboardInterrupt`` and closing behave as under ``asyncio.run``. uvloop has no Windows
    build (``pyproject.toml`` does not install it there): asyncio's own loop runs then."""
    try:
        import uvloop
    except ModuleNotFoundError:
        return asyncio.run(main)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(main)


def _settings_problem(error: ValidationError) -> str:
    """One line for a GM, naming the setting at fault."""
    problems = {str(e["loc"][0]) if e["loc"] else "": e["msg"] for e in error.errors()}
    if "discord_token" in problems:
        return (
            "DISCORD_TOKEN is not set: put DISCORD_TOKEN=<your bot token> in .env (see .env.example) "
            "or in the environment."
        )
    name, message = next(iter(problems.items()))
    if not name:  # a check of several settings together (the shards)
        return f"The settings are invalid: {message.removeprefix('Value error, ')}. See .env.example."
    return f"The setting {name.upper()} is invalid: {message}. See .env.example."


async def serve(bot: discord.Client, token: str) -> None:
    """Run ``bot`` until it stops by itself or SIGINT/SIGTERM arrives, then close it cleanly.

    Closing disconnects from Discord and closes the store; every acknowledged action was already
    committed, so stopping mid-fight loses nothing. The handlers stay in place until the bot is closed,
    so an impatient second Ctrl-C cannot interrupt the closing half-way.
    """
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()

    def on_signal(signum: signal.Signals) -> None:
        if stop.is_set():
            log.info("%s received; already shutting down", signum.name)
            return
        log.info("%s received, shutting down", signum.name)
        stop.set()

    previous = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, on_signal, signum)
    try:
        running = asyncio.create_task(bot.start(token), name="pommel")
        stopping = asyncio.create_task(stop.wait(), name="pommel-stop-signal")
        try:
            await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            stopping.cancel()
            await bot.close()
            if not running.done():
                running.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await running  # re-raises a login failure or a crash of the bot itself
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)
            signal.signal(signum, previous[signum])  # e.g. asyncio.run's own Ctrl-C handling
    log.info("stopped")


def main() -> int:
    try:
        settings = Settings()  # the token comes from the environment or .env
    except ValidationError as error:
        print(_settings_problem(error), file=sys.stderr)
        return EXIT_CONFIG
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    from .app import Pommel

    try:
        bot = Pommel(settings)
    except CatalogError as error:
        print(f"The equipment data is invalid: {error}", file=sys.stderr)
        return EXIT_CONFIG
    try:
        run(serve(bot, settings.discord_token.get_secret_value()))
    except discord.LoginFailure:
        print(
            "Discord refused DISCORD_TOKEN: check the bot token in .env or the environment.", file=sys.stderr
        )
        return EXIT_CONFIG
    except StoreUnavailable as error:
        print(error, file=sys.stderr)
        return EXIT_CONFIG
    except (aiohttp.ClientError, OSError) as error:
        print(f"Can't reach Discord ({error}); check the network connection and try again.", file=sys.stderr)
        return EXIT_UNREACHABLE
    except KeyboardInterrupt:  # before the signal handlers were in place: nothing was started yet
        return EXIT_INTERRUPTED
    except discord.PrivilegedIntentsRequired:
        print("Discord refused the bot's intents: enable them in the developer portal.", file=sys.stderr)
        return EXIT_CONFIG
    if bot.lease_lost:
        print(
            "The database connection holding this process's shards ended, so it stopped serving them: "
            "start it again (a supervisor restarting on failure does).",
            file=sys.stderr,
        )
        return EXIT_LEASE_LOST
    return 0


async def clear_commands(token: str, guild_id: int | None) -> int:
    """Sync an empty command list to ``guild_id`` (or globally): Discord then shows none of the bot's
    commands there. How many there were."""
    client = discord.Client(intents=discord.Intents.none())
    try:
        await client.login(token)
        tree = app_commands.CommandTree(client)
        guild = discord.Object(id=guild_id) if guild_id is not None else None
        before = await tree.fetch_commands(guild=guild)
        await tree.sync(guild=guild)  # the tree is empty: the list is replaced by none
    finally:
        await client.close()
    return len(before)


def _clear_commands(guild_id: int | None) -> int:
    try:
        settings = Settings()
    except ValidationError as error:
        print(_settings_problem(error), file=sys.stderr)
        return EXIT_CONFIG
    try:
        cleared = run(clear_commands(settings.discord_token.get_secret_value(), guild_id))
    except discord.LoginFailure:
        print(
            "Discord refused DISCORD_TOKEN: check the bot token in .env or the environment.", file=sys.stderr
        )
        return EXIT_CONFIG
    except discord.HTTPException as error:
        print(f"Discord refused to change the commands: {error}.", file=sys.stderr)
        return EXIT_CONFIG
    except (aiohttp.ClientError, OSError) as error:
        print(f"Can't reach Discord ({error}); check the network connection and try again.", file=sys.stderr)
        return EXIT_UNREACHABLE
    if guild_id is not None:
        print(
            f"Removed the {cleared} slash commands synced to server {guild_id} alone; the global ones "
            "stay. Discord's picker may show them until it is reopened."
        )
    else:
        print(
            f"Removed the {cleared} global slash commands; those synced to a DEV_GUILD_ID stay. Pommel "
            "syncs them again whenever it starts without DEV_GUILD_ID."
        )
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pommel",
        description="Pommel, a Discord bot for Martial Pool fights. Without a command, it runs the bot. "
        "Settings come from the environment or .env (see .env.example).",
        epilog="docs/OPERATIONS.md says more: backups, upgrades, health checks and exit statuses.",
    )
    parser.add_argument("--version", action="version", version=f"pommel {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("run", help="run the bot (the default)")
    backup = commands.add_parser(
        "backup", help="copy the SQLite database, consistently, even while the bot runs"
    )
    backup.add_argument("path", type=Path, help="the new file to write (never overwritten)")
    restore = commands.add_parser("restore", help="put a backup in place of the database (bot stopped)")
    restore.add_argument("path", type=Path, help="the backup file")
    clear = commands.add_parser(
        "clear-commands",
        help="remove the bot's slash commands from one server (--guild) or the global ones, after "
        "switching between DEV_GUILD_ID and global sync showed them twice",
    )
    clear.add_argument("--guild", type=int, metavar="ID", help="the server whose own copies go")
    check = commands.add_parser("check", help="check the database's integrity and migrations")
    check.add_argument(
        "--alive",
        action="store_true",
        help="instead, check that the running bot wrote its heartbeat (HEARTBEAT_PATH) lately",
    )
    return parser


def cli(argv: Sequence[str] | None = None) -> int:
    """The ``pommel`` command: :func:`main` without arguments (or with ``run``), else a tool."""
    arguments = _parser().parse_args(argv)
    if arguments.command in (None, "run"):
        return main()
    if arguments.command == "clear-commands":
        return _clear_commands(arguments.guild)
    from . import maintenance

    try:
        # The tools never contact Discord: the token is not needed, the other settings are read as usual.
        settings = Settings(discord_token="not needed")
    except ValidationError as error:
        print(_settings_problem(error), file=sys.stderr)
        return EXIT_CONFIG
    try:
        if arguments.command == "backup":
            print(maintenance.backup(settings, arguments.path))
            return 0
        if arguments.command == "restore":
            print(maintenance.restore(settings, arguments.path))
            return 0
        checked = maintenance.alive(settings) if arguments.alive else maintenance.check(settings)
    except (maintenance.MaintenanceError, StoreUnavailable) as error:
        print(error, file=sys.stderr)
        return EXIT_CONFIG
    print("\n".join(checked.lines), file=sys.stdout if checked.healthy else sys.stderr)
    return 0 if checked.healthy else EXIT_UNHEALTHY


if __name__ == "__main__":
    sys.exit(cli())
