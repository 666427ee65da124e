"""``deploy/``: no container engine runs here, so the image's install steps are ``deploy/install.sh``
(run for real by ``tests/e2e/test_install.py``); these tests hold the Dockerfile, the compose file and the
systemd unit to what the rest of Pommel promises (its exit statuses, its settings, its health check)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from bot.__main__ import EXIT_CONFIG, EXIT_LEASE_LOST

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"


def instructions(dockerfile: str) -> list[tuple[str, str]]:
    """The Dockerfile's instructions, continuation lines joined, comments left out."""
    joined = re.sub(r"\\\n\s*", " ", dockerfile)
    found = []
    for line in joined.splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            keyword, _, rest = line.strip().partition(" ")
            found.append((keyword.upper(), rest.strip()))
    return found


def test_the_image_installs_with_the_tested_script_and_runs_as_no_root() -> None:
    steps = instructions((DEPLOY / "Dockerfile").read_text())
    assert steps[0] == ("FROM", "python:3.11-slim")
    runs = [rest for keyword, rest in steps if keyword == "RUN"]
    assert runs[0].startswith("sh /tmp/pommel-source/deploy/install.sh /opt/pommel")
    assert not any("[test]" in run or "pytest" in run for run in runs)
    [user] = [rest for keyword, rest in steps if keyword == "USER"]
    assert user not in ("root", "0")
    assert ("VOLUME", "/data") in steps
    environment = " ".join(rest for keyword, rest in steps if keyword == "ENV")
    assert "DATABASE_PATH=/data/pommel.sqlite3" in environment
    assert "HEARTBEAT_PATH=" in environment
    [health] = [rest for keyword, rest in steps if keyword == "HEALTHCHECK"]
    assert health.endswith('CMD ["pommel", "check", "--alive"]')


def test_the_build_leaves_the_token_and_the_databases_out() -> None:
    ignored = (DEPLOY.parent / ".dockerignore").read_text().splitlines()
    assert {".env", ".venv", "*.sqlite3", "*.sqlite3-*"} <= set(ignored)


def test_compose_runs_sqlite_by_default_and_postgresql_in_its_profile() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    pommel, postgres = compose["services"]["pommel"], compose["services"]["postgres"]
    assert "profiles" not in pommel
    assert pommel["volumes"] == ["pommel-data:/data"]
    assert pommel["build"] == {"context": "..", "dockerfile": "deploy/Dockerfile"}
    assert postgres["profiles"] == ["postgres"]
    assert postgres["healthcheck"]["test"][:2] == ["CMD", "pg_isready"]
    assert pommel["depends_on"]["postgres"] == {"condition": "service_healthy", "required": False}
    assert set(compose["volumes"]) == {"pommel-data", "pommel-postgres"}


def test_the_systemd_unit_restarts_on_failure_but_not_on_a_setting_to_fix() -> None:
    unit = dict(
        line.split("=", 1)
        for line in (DEPLOY / "pommel.service").read_text().splitlines()
        if "=" in line and not line.startswith("#")
    )
    assert unit["ExecStart"] == "/opt/pommel/bin/pommel"
    assert unit["Restart"] == "on-failure"  # a lost lease (EXIT_LEASE_LOST) is restarted
    assert unit["RestartPreventExitStatus"] == str(EXIT_CONFIG)
    assert EXIT_LEASE_LOST not in (0, EXIT_CONFIG)
    assert unit["User"] == "pommel"
