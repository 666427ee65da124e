"""The Makefile's set-up: a Python older than 3.11 is refused before a virtualenv is built, a virtualenv
of an older Python is not reused, and `make run` installs Pommel without the test tools."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def make(*arguments: str) -> subprocess.CompletedProcess[str]:
    """``make`` in the checkout, as a user runs it (not as a sub-make of the `make test` running this)."""
    environment = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), *arguments],
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def old_python(path: Path) -> Path:
    """A stand-in for a Python 3.10: it answers the version question as one would."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\necho 3.10\n")
    path.chmod(0o755)
    return path


def test_a_python_older_than_3_11_is_refused_in_one_line_before_a_virtualenv_is_built(tmp_path: Path) -> None:
    python = old_python(tmp_path / "python3")
    venv = tmp_path / "venv"
    done = make("run", f"PYTHON={python}", f"VENV={venv}")
    assert done.returncode != 0
    [line] = [line for line in done.stderr.splitlines() if not line.startswith("make")]
    assert line == (
        f"Pommel needs Python 3.11 or newer, and '{python}' is Python 3.10: install Python 3.11+ and name "
        "it with PYTHON=python3.11"
    )
    assert not venv.exists()


def test_a_virtualenv_made_with_an_older_python_is_made_anew(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    old_python(venv / "bin" / "python")
    (venv / ".installed-test").touch()  # the stamp of a set-up that is to be redone
    done = make("venv", f"PYTHON={sys.executable}", f"VENV={venv}")
    assert done.returncode == 0, done.stderr
    assert f"{venv} was made with an older Python: making it anew" in done.stdout
    assert not (venv / ".installed-test").exists()
    version = subprocess.run(
        [str(venv / "bin" / "python"), "-c", "import sys; print(sys.version_info >= (3, 11))"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert version.stdout.strip() == "True"


def test_make_run_installs_pommel_without_the_test_tools(tmp_path: Path) -> None:
    done = make("-n", "run", f"PYTHON={sys.executable}", f"VENV={tmp_path / 'venv'}")
    assert done.returncode == 0, done.stderr
    installs = [line for line in done.stdout.splitlines() if "pip install" in line]
    assert installs == [f"{tmp_path / 'venv'}/bin/python -m pip install --quiet -e ."]
    tested = make("-n", "test", f"PYTHON={sys.executable}", f"VENV={tmp_path / 'venv'}")
    assert "pip install --quiet -e '.[test]'" in tested.stdout
