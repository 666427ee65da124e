"""``/help``'s embed: within Discord's limits, each command a mention when its id is known."""

from __future__ import annotations

from bot.ui.help_views import FAMILIES, help_embed, mention_of


def test_a_command_is_a_clickable_mention_with_its_id_else_plain_text() -> None:
    mention = mention_of({"encounter": 12, "attack": 34})
    assert mention("encounter start") == "</encounter start:12>"
    assert mention("attack") == "</attack:34>"
    assert mention("odds") == "`/odds`"


def test_the_embed_stays_within_discords_limits_with_the_longest_ids() -> None:
    ids = {path.split()[0]: 10**19 - 1 for _, _, paths in FAMILIES for path in paths} | {"help": 10**19 - 1}
    embed = help_embed(ids, "0.1.0")
    assert len(embed) <= 6000
    assert embed.description is not None
    assert len(embed.description) <= 4096
    assert len(embed.fields) <= 25
    assert all(len(field.value or "") <= 1024 and len(field.name or "") <= 256 for field in embed.fields)
    assert embed.footer.text == "Pommel 0.1.0"
