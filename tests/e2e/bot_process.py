"""A real Pommel process against the fake Discord, as ``python -m bot`` runs it in production.

``python -m tests.e2e.bot_process API_BASE GATEWAY_URL``: discord.py's REST base and gateway point at
the fake (as :func:`tests.e2e.harness.patch_discord` does in the tests' own process), then
:func:`bot.__main__.main` reads the settings from the environment (``DISCORD_TOKEN``, ``DATABASE_URL``,
``SHARD_COUNT``, ``SHARD_IDS``) and serves until SIGTERM, or until it is killed.
"""

from __future__ import annotations

import sys

import discord
import yarl
from discord.gateway import DiscordWebSocket

from bot.__main__ import main


def point_at_the_fake(argv: list[str]) -> None:
    """discord.py's REST base and gateway from ``argv`` (``API_BASE GATEWAY_URL``, both on 127.0.0.1;
    anything else exits)."""
    api_base, gateway = argv[:2]
    if not (api_base.startswith("http://127.0.0.1:") and gateway.startswith("ws://127.0.0.1:")):
        sys.exit(f"the fake Discord runs on 127.0.0.1, not at {api_base} / {gateway}")
    discord.http.Route.BASE = api_base
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)


if __name__ == "__main__":
    point_at_the_fake(sys.argv[1:])
    sys.exit(main())
