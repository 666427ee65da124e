"""What ``/homebrew`` says: what an import added and shadowed, every problem of a refused file, the
server's entries, what a removal gave back, the exported file, and the quick-NPC form."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

import discord

from ..catalog import KINDS, TABLES, Catalog, CatalogLayer
from ..homebrew import (
    LIMITS_TEXT,
    MAX_NAME_LENGTH,
    QUICK_NPC_FIELDS,
    Entry,
    Imported,
    Removed,
    export_text,
)
from ..rules.errors import shown

MESSAGE_LIMIT = 2000
"""Discord's limit on a message's text."""

_KIND_WORDS = {"weapon": "Weapons", "armor": "Armor", "shield": "Shields", "monster": "Monsters"}
HOMEBREW_DOC = "docs/HOMEBREW.md"


def _names(entries: Sequence[Entry]) -> str:
    return ", ".join(f"**{shown(entry.name)}** (`{entry.key}`)" for entry in entries)


def imported_reply(done: Imported, filename: str) -> str:
    """An import applied whole: what it added, shadowed and replaced, and what the server holds now."""
    lines = [f"🏠 Imported **{shown(filename)}** into this server's homebrew:"]
    if done.added:
        lines.append(f"• added {_names(done.added)}")
    if done.shadowed:
        lines.append(
            f"• shadowing the built-in entries of the same key, on this server only: {_names(done.shadowed)}"
        )
    if done.replaced:
        lines.append(f"• replacing this server's own: {_names(done.replaced)}")
    lines.append(
        f"The server holds {done.total} homebrew entries. Fights running now keep what they started with; "
        "`/npc add`, `/character` and `/combatant edit` offer the new entries."
    )
    return _fitted(lines)


def refused_reply(problems: Sequence[str], filename: str) -> str:
    """A file refused whole: every problem, each naming its entry and field; nothing was imported."""
    count = f"{len(problems)} problem{'s' * (len(problems) != 1)}"
    head = f"Nothing was imported: **{shown(filename)}** has {count}."
    tail = f"Fix them and import the whole file again (limits: {LIMITS_TEXT}; schema: {HOMEBREW_DOC})."
    lines = [head, *(f"• {shown(problem)}" for problem in problems)]
    return _fitted(lines, tail=tail)


def _fitted(lines: list[str], *, tail: str = "") -> str:
    """The lines that fit in one message, then how many more there were, then ``tail``."""
    room = MESSAGE_LIMIT - len(tail) - 40
    kept: list[str] = []
    for line in lines:
        if sum(len(k) + 1 for k in kept) + len(line) > room:
            kept.append(f"… and {len(lines) - len(kept)} more.")
            break
        kept.append(line)
    return "\n".join([*kept, tail] if tail else kept)


def entries_text(server: CatalogLayer, builtins: Catalog) -> str:
    """``/homebrew list``: the server's entries by kind, each with its key and whether it shadows."""
    if not len(server):
        return (
            "This server has no homebrew yet. `/homebrew import file:` reads a YAML or JSON file of entries "
            f"({HOMEBREW_DOC}); `/homebrew npc` makes a monster template in a form."
        )
    lines = [f"🏠 This server's homebrew ({len(server)} entries):"]
    for kind in KINDS:
        table = server.table(kind)
        if not table:
            continue
        shipped = getattr(builtins, TABLES[kind])
        described = [
            f"**{shown(entry.name)}** (`{key}`{', shadows the built-in' if key in shipped else ''})"
            for key, entry in sorted(table.items())
        ]
        lines.append(f"**{_KIND_WORDS[kind]}**: {', '.join(described)}")
    return _fitted(lines, tail="`/homebrew export` gives them all as a file.")


def removed_reply(removed: Removed) -> str:
    back = (
        f" The built-in **{shown(removed.builtin.name)}** is used under `{removed.entry.key}` again."
        if removed.builtin is not None
        else ""
    )
    return (
        f"🗑️ Removed this server's {removed.kind} **{shown(removed.entry.name)}** "
        f"(`{removed.entry.key}`).{back} "
        "Fights running now keep what they started with."
    )


def export_file(server: CatalogLayer, guild_id: int) -> discord.File:
    return discord.File(io.BytesIO(export_text(server).encode()), filename=f"homebrew-{guild_id}.yaml")


def exported_reply(server: CatalogLayer) -> str:
    return (
        f"🏠 This server's {len(server)} homebrew entries, as a file `/homebrew import` reads back "
        f"(schema: {HOMEBREW_DOC})."
    )


NO_HOMEBREW_TO_EXPORT = (
    "This server has no homebrew to export yet. `/homebrew import file:` reads a YAML or JSON file "
    f"({HOMEBREW_DOC}); `/homebrew npc` makes a monster template in a form."
)


def npc_saved_reply(done: Imported) -> str:
    [entry] = [*done.added, *done.shadowed, *done.replaced]
    how = "replacing this server's template of that key" if done.replaced else "saved"
    return (
        f"🏠 Monster template **{shown(entry.name)}** (`{entry.key}`) {how}: add it to a fight with "
        f"`/npc add template:{entry.key}`."
    )


# ---------------------------------------------------------------------------- the quick-NPC form

_PLACEHOLDERS = {
    "name": "Orc Chieftain",
    "prowess_dex": "3 / +1",
    "hp": "30",
    "morale": "2 (empty: never checks)",
    "gear": "messer / mail_shirt",
}
_LABELS = {
    "name": "Name",
    "prowess_dex": "Prowess / DEX modifier",
    "hp": "HP",
    "morale": "Morale",
    "gear": "Weapon / armor (keys or names)",
}


def quick_npc_input_id(field: str) -> str:
    return f"pommel:quick-npc:{field}"


def quick_npc_inputs() -> list[discord.ui.TextInput[Any]]:
    """The quick-NPC form's five text inputs (Discord's most in one modal): prowess and DEX share one,
    weapon and armor another."""
    return [
        discord.ui.TextInput[Any](
            label=_LABELS[field],
            custom_id=quick_npc_input_id(field),
            placeholder=_PLACEHOLDERS[field],
            required=field != "morale",
            max_length=MAX_NAME_LENGTH if field == "name" else 80,
        )
        for field in QUICK_NPC_FIELDS
    ]
