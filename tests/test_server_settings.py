"""What ``/server`` changes in a server's settings: who may run fights there, and the defaults of new
fights; only Manage Server may."""

from __future__ import annotations

import pytest

from bot import server_settings
from bot.encounter.errors import NotAllowed
from bot.encounter.permissions import Actor
from bot.guild_settings import GuildSettings
from bot.rules.errors import RulesError
from bot.rules.options import RuleOptions
from bot.rules.turns import ClaimPause
from bot.server_settings import Role
from bot.table_options import TableOptions

GUILD = 10
GM = 1
GM_ROLE = 77


def test_only_manage_server_sets_the_servers_gm_role() -> None:
    settings = GuildSettings(guild_id=GUILD)
    with pytest.raises(NotAllowed, match="Only members with the Manage Server permission"):
        server_settings.set_gm_role(settings, Actor(GM), "GM", Role(GM_ROLE, "Game Masters"))
    admin = Actor(5, manages_server=True)
    with pytest.raises(RulesError, match="Everyone has @everyone"):
        server_settings.set_gm_role(settings, admin, "Admin", Role(GUILD, "@everyone"))

    done = server_settings.set_gm_role(settings, admin, "Admin", Role(GM_ROLE, "Game Masters"))
    assert done.result == GuildSettings(guild_id=GUILD, gm_role_id=GM_ROLE)
    assert settings.gm_role_id is None  # a copy to save
    assert (done.kind, list(done.log)) == ("settings", ["Admin set the server's GM role to Game Masters"])
    cleared = server_settings.set_gm_role(done.result, admin, "Admin", None)
    assert cleared.result.gm_role_id is None
    assert (cleared.kind, list(cleared.log)) == ("settings", ["Admin cleared the server's GM role"])


def test_only_manage_server_sets_the_defaults_of_new_fights() -> None:
    settings = GuildSettings(guild_id=GUILD)
    rules, table = {"joker_bonus": 4}, {"hide_npc_cards": True, "claim_pause": ClaimPause.NEVER}
    with pytest.raises(NotAllowed, match="Only members with the Manage Server permission"):
        server_settings.set_defaults(settings, Actor(GM), "GM", rules, table)
    admin = Actor(5, manages_server=True)
    done = server_settings.set_defaults(settings, admin, "Admin", rules, table)
    assert done.result.settings == GuildSettings(
        guild_id=GUILD,
        options=RuleOptions(joker_bonus=4),
        table=TableOptions(hide_npc_cards=True, claim_pause=ClaimPause.NEVER),
    )
    assert settings == GuildSettings(guild_id=GUILD)  # a copy to save
    assert done.result.changes == [
        ("joker_bonus", 2, 4),
        ("hide_npc_cards", False, True),
        ("claim_pause", ClaimPause.JOKERS, ClaimPause.NEVER),
    ]
    assert done.kind == "settings"
    assert list(done.log) == [
        "Admin changed the server's defaults for new fights: joker bonus 2 → 4; hide npc cards off → on; "
        "claim pause jokers → never"
    ]
    again = server_settings.set_defaults(done.result.settings, admin, "Admin", rules, table)
    assert (again.result.changes, list(again.log)) == ([], [])
