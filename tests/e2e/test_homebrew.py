"""``/homebrew`` end to end: a server's own entries imported from an attached file (checked whole, all or
nothing), exported, listed, removed, offered as you type, kept by a running fight, and made in a form."""

from __future__ import annotations

from typing import Any

import yaml

from tests.store.test_homebrew import FILE

from .fake_discord import FakeDiscord, World
from .fights import fight_of, start
from .harness import RunningBot
from .test_character import create


def weapon(key: str, name: str, size: str = "M") -> dict[str, Any]:
    return {
        "key": key,
        "name": name,
        "source": "house value",
        "size": size,
        "reach": 1,
        "speed": 0,
        "defense": 0,
        "damage": "1d6",
        "types": ["bash"],
    }


def monster(key: str, weapon: str, **more: object) -> dict[str, Any]:
    return {
        "key": key,
        "name": key.title(),
        "source": "house value",
        "prowess": 1,
        "hp": 5,
        "weapon": weapon,
        **more,
    }


FIVE_ERRORS = yaml.safe_dump(
    {
        "weapons": [
            weapon("Bad-Key", "Pick"),  # a key of capitals and a dash
            weapon("club2", "Club", size="XL"),  # no such size
            weapon("club3", "A club whose name is far longer than forty characters allows"),
        ],
        "monsters": [
            monster("goblin", "club", colour="green"),  # no such field
            monster("ogre", "no_such_blade"),  # no such weapon
        ],
    }
).encode()
"""A file with five problems, each of its own kind."""


def plain(text: str) -> str:
    return text.replace("\\", "")


async def imports(
    pommel: RunningBot, fake: FakeDiscord, world: World, name: str, data: bytes, **kw: Any
) -> Any:
    attachment = fake.attachment(name, data, "text/yaml")
    return await pommel.slash("homebrew import", user=world.admin, options={"file": attachment}, **kw)


async def test_a_good_file_is_imported_whole_and_said_so(
    pommel: RunningBot, fake_discord: FakeDiscord, world: World
) -> None:
    await pommel.slash("server gm_role", user=world.admin, options={"role": world.gm_role})
    done = await imports(pommel, fake_discord, world, "orcs.yaml", FILE)
    text = plain(done.content)
    assert "Imported **orcs.yaml**" in text
    assert "added **Orc Axe** (`orc_axe`), **Orc Chieftain** (`orc_chieftain`)" in text
    assert "shadowing the built-in entries of the same key, on this server only: **Orcish Mail**" in text
    assert "The server holds 3 homebrew entries" in text
    listed = await pommel.slash("homebrew list", user=world.player)
    assert listed.ephemeral
    assert "**Orcish Mail** (`mail_shirt`, shadows the built-in)" in plain(listed.content)


async def test_five_errors_are_reported_together_and_nothing_is_imported(
    pommel: RunningBot, fake_discord: FakeDiscord, world: World
) -> None:
    refused = await imports(pommel, fake_discord, world, "bad.yaml", FIVE_ERRORS)
    text = plain(refused.content)
    assert refused.ephemeral
    assert "Nothing was imported: **bad.yaml** has 5 problems." in text
    assert "weapons: entry 'Bad-Key': field 'key'" in text
    assert "weapons: entry 'club2': field 'size'" in text
    assert "weapons: entry 'club3': field 'name': 60 characters; at most 40" in text
    assert "monsters: entry 'goblin': field 'colour': unknown field" in text
    assert "monsters: entry 'ogre': field 'weapon': no entry 'no_such_blade' in the weapons built in" in text
    assert "at most 256 KiB, 200 entries per server" in text
    assert len(await pommel.bot.store.homebrew(world.guild.id)) == 0


async def test_an_oversized_binary_or_hostile_file_is_refused_clearly(
    pommel: RunningBot, fake_discord: FakeDiscord, world: World
) -> None:
    big = await imports(pommel, fake_discord, world, "big.yaml", b"#" * (300 * 1024))
    assert "a homebrew file may be at most 256 KiB" in big.content
    binary = await imports(pommel, fake_discord, world, "orc.png", b"\x89PNG\r\n\x1a\n\0\0\0")
    assert "is not a text file" in binary.content
    bomb = b"a: &a [x, x, x, x, x, x, x, x, x, x]\n" + b"".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n".encode() for i in range(6)
    )
    boom = await imports(pommel, fake_discord, world, "bomb.yaml", bomb)
    assert "once its aliases (*name) are expanded" in plain(boom.content)
    tagged = await imports(
        pommel, fake_discord, world, "t.yaml", b"weapons: !!python/object/apply:os.system [ls]"
    )
    assert "YAML tags are not read" in tagged.content
    assert all(r.ephemeral for r in (big, binary, boom, tagged))
    assert len(await pommel.bot.store.homebrew(world.guild.id)) == 0


async def test_export_then_import_gives_the_same_entries(
    pommel: RunningBot, fake_discord: FakeDiscord, world: World
) -> None:
    await imports(pommel, fake_discord, world, "orcs.yaml", FILE)
    before = await pommel.bot.store.homebrew(world.guild.id)
    exported = await pommel.slash("homebrew export", user=world.player)
    assert exported.message is not None
    [file] = exported.message.attachments
    assert yaml.safe_load(file.data)["monsters"][0]["key"] == "orc_chieftain"
    await pommel.slash("homebrew remove", user=world.admin, options={"key": "orc_chieftain"})
    await pommel.slash("homebrew remove", user=world.admin, options={"key": "orc_axe"})
    await pommel.slash("homebrew remove", user=world.admin, options={"key": "mail_shirt"})
    assert len(await pommel.bot.store.homebrew(world.guild.id)) == 0
    await imports(pommel, fake_discord, world, file.filename, file.data)
    assert await pommel.bot.store.homebrew(world.guild.id) == before


async def test_a_player_may_not_import(pommel: RunningBot, fake_discord: FakeDiscord, world: World) -> None:
    await pommel.slash("server gm_role", user=world.admin, options={"role": world.gm_role})
    attachment = fake_discord.attachment("orcs.yaml", FILE)
    refused = await pommel.slash("homebrew import", user=world.player, options={"file": attachment})
    assert "Only members with the" in refused.content
    assert "Manage Server can change this server's homebrew" in refused.content


async def test_shadowing_and_autocomplete_in_one_server_and_not_another(
    pommel: RunningBot, fake_discord: FakeDiscord, world: World
) -> None:
    await imports(pommel, fake_discord, world, "orcs.yaml", FILE)
    here = await pommel.autocomplete("npc add", user=world.gm, focused="template", value="orc")
    assert {
        "name": "🏠 Orc Chieftain (this server, Prowess 3, 30 HP)",
        "value": "orc_chieftain",
    } in here.choices
    armor = await pommel.autocomplete("character create", user=world.player, focused="armor", value="mail")
    assert "🏠 Orcish Mail (this server, DR 4, bypass -4)" in [c["name"] for c in armor.choices]
    other_guild = fake_discord.create_guild("Elsewhere", owner=world.owner)
    other = other_guild.create_text_channel("hall")
    other_guild.add_member(world.gm)
    there = await pommel.autocomplete(
        "npc add", user=world.gm, focused="template", value="orc", channel=other
    )
    assert all(c["value"] != "orc_chieftain" for c in there.choices)
    mail = await pommel.autocomplete(
        "character create", user=world.gm, focused="armor", value="mail", channel=other
    )
    assert "🏠" not in str(mail.choices)


async def test_a_running_fight_keeps_the_values_it_was_started_with(
    pommel: RunningBot, fake_discord: FakeDiscord, world: World
) -> None:
    await imports(pommel, fake_discord, world, "orcs.yaml", FILE)
    await start(pommel, world)
    added = await pommel.slash("npc add", user=world.gm, options={"template": "orc_chieftain"})
    assert "Orc Chieftain" in added.content
    fight = await fight_of(pommel, world)
    assert fight.homebrew.weapons["orc_axe"].reach == 1
    await imports(pommel, fake_discord, world, "again.yaml", FILE.replace(b"reach: 1", b"reach: 4"))
    assert (await pommel.bot.store.homebrew(world.guild.id)).weapons["orc_axe"].reach == 4
    fight = await fight_of(pommel, world)
    assert fight.homebrew.weapons["orc_axe"].reach == 1
    await pommel.slash("homebrew remove", user=world.admin, options={"key": "orc_chieftain"})
    await pommel.slash("homebrew remove", user=world.admin, options={"key": "orc_axe"})
    overview = await pommel.slash("encounter show", user=world.gm)
    assert "Orc Axe" in overview.text


async def test_the_quick_npc_form_saves_a_template(pommel: RunningBot, world: World) -> None:
    await pommel.slash("server gm_role", user=world.admin, options={"role": world.gm_role})
    opened = await pommel.slash("homebrew npc", user=world.gm)
    assert opened.modal["title"] == "Quick NPC template"
    form = {
        "pommel:quick-npc:name": "Orc Chieftain",
        "pommel:quick-npc:prowess_dex": "3 / +1",
        "pommel:quick-npc:hp": "30",
        "pommel:quick-npc:morale": "2",
        "pommel:quick-npc:gear": "messer / mail shirt",
    }
    saved = await pommel.submit_modal(opened, form)
    assert "Monster template **Orc Chieftain** (`orc_chieftain`) saved" in plain(saved.content)
    template = (await pommel.bot.store.homebrew(world.guild.id)).monsters["orc_chieftain"]
    assert (template.prowess, template.dex_mod, template.hp, template.morale) == (3, 1, 30, 2)
    assert (template.weapon, template.armor) == ("messer", "mail_shirt")
    again = await pommel.slash("homebrew npc", user=world.gm)
    wrong = await pommel.submit_modal(again, {**form, "pommel:quick-npc:hp": "lots"})
    assert wrong.ephemeral
    assert "HP should be a whole number like 3 or -1, not 'lots'." in wrong.content


async def test_a_character_carries_the_server_s_gear_into_a_fight_and_not_once_it_is_gone(
    pommel: RunningBot, fake_discord: FakeDiscord, world: World
) -> None:
    await imports(pommel, fake_discord, world, "orcs.yaml", FILE.split(b"monsters:")[0])
    grusk = {"name": "Grusk", "weapon": "orc_axe", "armor": "mail_shirt", "shield": None}
    created = await create(pommel, world, **grusk)
    assert "Orc Axe" in plain(created.text)
    await start(pommel, world)
    await pommel.slash("join", user=world.player, options={"character": "Grusk"})
    fight = await fight_of(pommel, world)
    assert set(fight.homebrew.weapons) == {"orc_axe"}
    assert fight.homebrew.armors["mail_shirt"].name == "Orcish Mail"
    await pommel.slash("leave", user=world.player)
    await pommel.slash("homebrew remove", user=world.admin, options={"key": "orc_axe"})
    # Back in the same fight: it kept the axe. A new fight has none to give.
    back = await pommel.slash("join", user=world.player, options={"character": "Grusk"})
    assert not back.ephemeral
    await pommel.slash("encounter start", user=world.gm, channel=world.lobby)
    refused = await pommel.slash(
        "join", user=world.player, options={"character": "Grusk"}, channel=world.lobby
    )
    assert refused.ephemeral
    assert "Grusk's weapon 'orc_axe' is no longer in this server's catalog" in plain(refused.content)
