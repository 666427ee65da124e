"""How a fight starts, ends and is reopened, its options and who runs it (``/encounter``), each
operation through ``Store.change`` on the fight of ``conftest.py``."""

from __future__ import annotations

import pytest

from bot.encounter import lifecycle
from bot.encounter.errors import NotAllowed
from bot.encounter.lifecycle import option_changes
from bot.encounter.permissions import Actor
from bot.guild_settings import GuildSettings
from bot.rules.options import CriticalDamage, RuleOptions
from bot.store import Store
from bot.table_options import TableOptions
from bot.wording.roster import options_log_line
from tests.encounter.conftest import (
    ANN,
    ANN_ACTS,
    CHANNEL,
    GM,
    GM_ROLE,
    GUILD,
    THE_GM,
    deal,
    logged,
    refused,
    saved,
)

# ----------------------------------------------------------------------------- the fight


def test_a_fight_starts_run_by_its_starter_with_the_servers_rulings() -> None:
    settings = GuildSettings(guild_id=GUILD, options=RuleOptions(joker_bonus=4))
    started = lifecycle.start(settings, Actor(ANN), "Ann", CHANNEL)
    assert (started.result.channel_id, started.result.guild_id, started.result.gm_id) == (CHANNEL, GUILD, ANN)
    assert started.result.options.joker_bonus == 4
    assert list(started.log) == ["Ann started a fight"]

    ruled = GuildSettings(guild_id=GUILD, gm_role_id=GM_ROLE)
    with pytest.raises(NotAllowed, match=f"<@&{GM_ROLE}> role can start a fight"):
        lifecycle.start(ruled, Actor(ANN), "Ann", CHANNEL)
    assert lifecycle.start(ruled, Actor(GM, role_ids=frozenset({GM_ROLE})), "GM", CHANNEL).result.gm_id == GM


async def test_the_gm_ends_the_fight_and_its_last_line_counts_the_rounds(store: Store) -> None:
    await refused(store, lambda e: lifecycle.end(e, ANN_ACTS, "Ann"), r"Only the GM of this fight \(<@1>\)")
    await deal(store, "KS", "QS", "JS")
    ended, _ = await store.change(CHANNEL, GM, lambda e: lifecycle.end(e, THE_GM, "GM"))
    assert ended.initiative.round == 1
    assert await store.load_encounter(CHANNEL) is None
    assert await logged(store) == ["GM ended the fight after 1 round"]


async def test_the_end_keeps_the_fight_and_its_gm_or_manage_server_reopens_it(store: Store) -> None:
    before = await deal(store, "KS", "QS", "JS")
    await store.change(CHANNEL, GM, lambda e: lifecycle.end(e, THE_GM, "GM"))
    [listed] = await store.ended_encounters(CHANNEL)
    kept = await store.ended_encounter(listed.id)
    assert kept is not None
    assert kept.encounter == before

    with pytest.raises(NotAllowed, match=r"Only the GM of this fight \(<@1>\) can reopen it"):
        lifecycle.reopen(kept.encounter, ANN_ACTS, "Ann")
    assert list(lifecycle.reopen(kept.encounter, Actor(ANN, manages_server=True), "Ann").log) == [
        "Ann reopened the fight"
    ]
    reopened = lifecycle.reopen(kept.encounter, THE_GM, "GM")
    assert reopened.result == before
    assert list(reopened.log) == ["GM reopened the fight"]


def test_option_changes_list_only_what_differs() -> None:
    old = RuleOptions()
    new = old.model_copy(update={"joker_bonus": 3, "critical_damage": CriticalDamage.DOUBLE})
    changes = option_changes(old, new)
    assert changes == [
        ("critical_damage", CriticalDamage.BY_ATTACK_TYPE, CriticalDamage.DOUBLE),
        ("joker_bonus", 2, 3),
    ]
    assert options_log_line(changes) == (
        "options changed: critical damage by attack type → double damage; joker bonus 2 → 3"
    )


async def test_the_gm_changes_options_and_only_changes_are_logged(store: Store) -> None:
    rules = {"joker_bonus": 3}
    table = {"hide_npc_cards": True}
    await refused(store, lambda e: lifecycle.change_options(e, ANN_ACTS, rules, table), "Only the GM")
    fight, changes = await store.change(
        CHANNEL, GM, lambda e: lifecycle.change_options(e, THE_GM, rules, table)
    )
    assert changes == [("joker_bonus", 2, 3), ("hide_npc_cards", False, True)]
    assert (fight.options.joker_bonus, fight.table.hide_npc_cards) == (3, True)
    assert (await saved(store)).options.joker_bonus == 3
    assert await logged(store) == ["options changed: joker bonus 2 → 3; hide npc cards off → on"]

    _, again = await store.change(CHANNEL, GM, lambda e: lifecycle.change_options(e, THE_GM, rules, table))
    assert again == []
    assert len(await logged(store)) == 1


# ----------------------------------------------------------------------------- who runs it


async def test_the_gm_hands_the_fight_to_a_member_the_server_lets_run_fights(store: Store) -> None:
    ruled = GuildSettings(guild_id=GUILD, gm_role_id=GM_ROLE)
    await refused(
        store, lambda e: lifecycle.hand_over(e, ANN_ACTS, "Ann", ruled, ANN_ACTS, "Ann"), "Only the GM"
    )
    await refused(
        store,
        lambda e: lifecycle.hand_over(e, THE_GM, "GM", ruled, ANN_ACTS, "Ann"),
        "<@11> can't run fights",
    )
    await refused(store, lambda e: lifecycle.hand_over(e, THE_GM, "GM", ruled, THE_GM, "GM"), "already runs")
    ann_gm = Actor(ANN, role_ids=frozenset({GM_ROLE}))
    fight, handed = await store.change(
        CHANNEL, GM, lambda e: lifecycle.hand_over(e, THE_GM, "GM", ruled, ann_gm, "Ann")
    )
    assert (handed.old_gm, handed.new_gm, fight.gm_id) == (GM, ANN, ANN)
    assert (await saved(store)).gm_id == ANN
    assert await logged(store) == ["GM handed the fight to Ann"]


def test_a_fight_starts_with_the_servers_table_habits() -> None:
    habits = TableOptions(hide_npc_cards=True, defense_timeout_minutes=3)
    started = lifecycle.start(GuildSettings(guild_id=GUILD, table=habits), Actor(ANN), "Ann", CHANNEL)
    assert started.result.table == habits
