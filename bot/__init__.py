"""Pommel: Codex Martialis Martial Pool fights with Lords of Hack card initiative, on Discord."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("pommel")
except PackageNotFoundError:  # run from a checkout that was never installed
    __version__ = "0+unknown"
"""The installed version (``pommel --version``, ``/help``), from the package's metadata."""
