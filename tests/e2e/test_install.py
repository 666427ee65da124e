"""Pommel installed as a server installs it: ``deploy/install.sh`` (what the Docker image runs) builds the
wheel of a copy of the checkout and installs it into a fresh virtualenv outside it; the installed
``pommel`` then starts from another directory against the fake Discord, reaches ready and answers.

The wheel's dependencies come from the tests' own environment (a ``.pth`` in the fresh virtualenv names
its site-packages, whose own ``.pth`` files, such as an editable install of Pommel, are not read), so pip
finds them installed and the test needs no network for them (pip itself comes from there too); Pommel
itself is only the wheel's.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

from bot.permissions import REQUIRED_PERMISSIONS

from .fake_discord import FakeDiscord, World
from .processes import SETTINGS, send, slash

ROOT = Path(__file__).resolve().parents[2]

LAUNCH = """
import runpy, sys
import discord, yarl
from discord.gateway import DiscordWebSocket
api_base, gateway, script = sys.argv[1:4]
discord.http.Route.BASE = api_base
DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
import bot
print("pommel", bot.__version__, "from", bot.__file__, file=sys.stderr, flush=True)
sys.argv = [script]
runpy.run_path(script, run_name="__main__")
"""
"""Points discord.py at the fake (as ``tests/e2e/bot_process.py`` does), then runs the installed
``pommel`` console script itself."""


def copy_of_the_checkout(target: Path) -> Path:
    """The files git knows (committed or not, ignored ones left out), as a fresh clone has them."""
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    )
    for name in filter(None, listed.stdout.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def fresh_venv_with_our_dependencies(venv: Path) -> None:
    # Without pip of its own (ensurepip takes 10 to 25 s on a loaded machine): ours, found through the .pth.
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    [site_packages] = (venv / "lib").glob("python3.*/site-packages")
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site_packages / "pommel_test_dependencies.pth").write_text("\n".join(sorted(ours)) + "\n")


async def test_the_installed_wheel_starts_from_anywhere_and_answers(
    fake_discord: FakeDiscord, world: World, tmp_path: Path
) -> None:
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    checkout = copy_of_the_checkout(tmp_path / "clone")
    venv = tmp_path / "venv"
    await asyncio.to_thread(fresh_venv_with_our_dependencies, venv)
    installed = await asyncio.to_thread(
        subprocess.run,
        ["sh", str(checkout / "deploy" / "install.sh"), str(venv)],
        cwd=tmp_path,
        env={**os.environ, "PYTHON": sys.executable},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert installed.returncode == 0, installed.stderr
    assert installed.stdout.strip().splitlines()[-1] == f"pommel {version}"
    assert not (checkout / "build").exists()  # built in a copy of its own

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    heartbeat = elsewhere / "pommel.alive"
    environment = {k: v for k, v in os.environ.items() if k not in (*SETTINGS, "PYTHONPATH")}
    environment |= {
        "DISCORD_TOKEN": fake_discord.token,
        "DATABASE_PATH": "pommel.sqlite3",
        "HEARTBEAT_PATH": str(heartbeat),
        "LOG_LEVEL": "INFO",
    }
    log_path = tmp_path / "pommel.log"
    with log_path.open("w") as log:
        process = await asyncio.create_subprocess_exec(
            str(venv / "bin" / "python"),
            "-c",
            LAUNCH,
            fake_discord.api_base,
            fake_discord.gateway_url,
            str(venv / "bin" / "pommel"),
            cwd=elsewhere,
            env=environment,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=log,
            stderr=log,
        )
        try:
            deadline = asyncio.get_running_loop().time() + 60
            while "ready as" not in log_path.read_text():
                assert process.returncode is None, log_path.read_text()
                assert asyncio.get_running_loop().time() < deadline, log_path.read_text()
                await asyncio.sleep(0.1)
            roll = slash(
                fake_discord,
                "roll dice",
                user=world.player,
                channel=world.table,
                options={"expression": "1d20"},
            )
            assert await send(fake_discord, roll), log_path.read_text()
            assert roll.original is not None
            assert "1d20" in roll.original.content

            while not heartbeat.exists():
                assert asyncio.get_running_loop().time() < deadline, log_path.read_text()
                await asyncio.sleep(0.1)
            alive = await asyncio.to_thread(
                subprocess.run,
                [str(venv / "bin" / "pommel"), "check", "--alive"],
                cwd=elsewhere,
                env=environment,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
            assert alive.returncode == 0, alive.stderr
        finally:
            if process.returncode is None:
                process.send_signal(signal.SIGTERM)
            status = await asyncio.wait_for(process.wait(), 30)
    text = log_path.read_text()
    assert status == 0, text
    assert f"pommel {version} from {venv}/lib/" in text  # the wheel's Pommel, not the checkout's
    assert f"&permissions={REQUIRED_PERMISSIONS.value}" in text
    assert "invite Pommel to a server with https://discord.com/oauth2/authorize?client_id=" in text
    assert (elsewhere / "pommel.sqlite3").exists()
    assert not heartbeat.exists()  # a stopped bot is not alive
