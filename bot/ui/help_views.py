"""What ``/help`` says: what Pommel does, a first fight in six steps, every family of commands (each a
clickable mention), where the rulings are written, and the version running."""

from __future__ import annotations

from collections.abc import Callable, Mapping

import discord

from .tracker import TRACKER_COLOUR

FAMILIES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "Running a fight",
        "The GM starts and ends it, adds foes, fixes mistakes and changes its rulings; anyone may look "
        "at it (`show`, `log`, `history`).",
        (
            "encounter start",
            "npc add",
            "npc remove",
            "combatant hp",
            "combatant condition",
            "combatant edit",
            "combatant feat",
            "encounter show",
            "encounter undo",
            "encounter redo",
            "encounter options",
            "encounter gm",
            "encounter end",
            "encounter reopen",
            "encounter log",
            "encounter history",
            "encounter recover",
        ),
    ),
    (
        "Turns",
        "The initiative cards: deal a round, take turns, hold and act.",
        (
            "init deal",
            "init next",
            "init hold",
            "init act",
            "init show",
        ),
    ),
    (
        "Fighting",
        "Join, attack (the defender answers with buttons), move and the rest of a turn.",
        (
            "join",
            "leave",
            "attack",
            "move",
            "range",
            "save",
            "pool",
            "situation set",
            "situation distance",
            "situation mount",
            "situation dismount",
        ),
    ),
    (
        "Morale and spirits",
        "When a side wavers, and what only holy means can harm.",
        (
            "morale check",
            "morale recheck",
            "morale rally",
            "morale proposals",
            "morale set",
            "spirit attack",
            "spirit drive-out",
            "spirit heal",
        ),
    ),
    (
        "Characters",
        "Your sheets on this server, used when you join a fight.",
        (
            "character create",
            "character form",
            "character edit",
            "character feat",
            "character show",
            "character list",
            "character delete",
        ),
    ),
    (
        "Dice and numbers",
        "Rolls outside a fight, the odds of an attack, how the dice have fallen.",
        (
            "roll dice",
            "roll pool",
            "roll log",
            "odds",
            "stats dice",
        ),
    ),
    (
        "This server (Manage Server)",
        "Who may run fights, how new ones start, and its data.",
        (
            "server gm_role",
            "server clear_gm_role",
            "server defaults",
            "server forget",
        ),
    ),
    (
        "This server's homebrew (Manage Server or GM role)",
        "Its own weapons, armor, shields and monsters beside the built-in ones (docs/HOMEBREW.md).",
        (
            "homebrew import",
            "homebrew export",
            "homebrew list",
            "homebrew remove",
            "homebrew npc",
        ),
    ),
)
"""Every command, by family, in the order a table meets them."""

FIRST_FIGHT = (
    "{character create} (or {character form}, as a form) — each player makes a sheet once (Prowess, "
    "modifiers, HP, weapon, armor).",
    "{encounter start} — the GM starts a fight in the channel; its tracker appears.",
    "{join} — players bring their characters in; the GM adds foes with {npc add}.",
    "{init deal} — round 1: every combatant gets a card, every pool refills.",
    "{attack} — on your turn; the defender picks a defense with the buttons.",
    "{init next} — the next card acts; {encounter end} when it is over posts the summary and the log.",
)


def mention_of(ids: Mapping[str, int]) -> Callable[[str], str]:
    """``/encounter start`` as a mention Discord makes clickable (``</encounter start:id>``) when the
    command's id is known, else as plain text."""

    def mention(path: str) -> str:
        command_id = ids.get(path.split()[0])
        return f"</{path}:{command_id}>" if command_id is not None else f"`/{path}`"

    return mention


def help_embed(ids: Mapping[str, int], version: str) -> discord.Embed:
    mention = mention_of(ids)
    named = {path: mention(path) for _, _, paths in FAMILIES for path in paths}
    steps = [f"{number}. {step.format_map(named)}" for number, step in enumerate(FIRST_FIGHT, start=1)]
    embed = discord.Embed(
        title="⚔️ Pommel",
        colour=TRACKER_COLOUR,
        description="\n".join(
            [
                "Pommel runs Codex Martialis fights in a channel: the Martial Pool, the attacks and their "
                "defenses, damage and morale, with Lords of Hack card initiative on a tracker everyone sees. "
                "It rolls every die and keeps a log of the fight.",
                "",
                "**A first fight in six steps**",
                *steps,
            ]
        ),
    )
    for title, blurb, paths in FAMILIES:
        embed.add_field(
            name=title, value=f"{blurb}\n{' '.join(mention(path) for path in paths)}", inline=False
        )
    embed.add_field(
        name="The rules",
        value=f"{mention('help')} shows this again. Every ruling Pommel applies is written in "
        "docs/RULES.md in Pommel's repository; what the rules leave open, and the options that change "
        "it, in docs/CHOICES.md; a server's own entries, in docs/HOMEBREW.md; running Pommel, in "
        "docs/OPERATIONS.md.",
        inline=False,
    )
    embed.set_footer(text=f"Pommel {version}")
    return embed
