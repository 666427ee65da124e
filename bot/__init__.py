"""Pommel: Codex Martialis Martial Pool fights with Lords of Hack card initiative, on Discord."""
