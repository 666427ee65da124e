"""The roster and the running of a fight, as the cogs run them: each operation through ``Store.change``
on a real SQLite store, asserting the document saved and the log lines written with it. A refused
operation saves nothing and logs nothing.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.catalog import Catalog, load_catalog
from bot.encounter import roster
from bot.encounter.document import Encounter, TableOptions, player_holder
from bot.encounter.done import Done
from bot.encounter.errors import NotAllowed
from bot.encounter.permissions import Actor
from bot.encounter.results import HpChange
from bot.encounter.roster import CombatantEdit, Role, option_changes, parse_hp_change
from bot.guild_settings import GuildSettings
from bot.rules.dice import ScriptedDice
from bot.rules.errors import RulesError
from bot.rules.morale import MoraleTriggerReason
from bot.rules.options import CriticalDamage, RuleOptions
from bot.rules.pool import Spend
from bot.rules.turns import ClaimPause
from bot.store import Store, open_store
from bot.wording.roster import TURN_CUT_SHORT, options_log_line
from tests.rules.conftest import card, deck_dealing
from tests.sheets import character

CATALOG = load_catalog()
CHANNEL = 100
GUILD = 10
GM = 1
ANN = 11
BOB = 12
GM_ROLE = 77
THE_GM = Actor(GM)
ANN_ACTS = Actor(ANN)
BOB_ACTS = Actor(BOB)


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A real SQLite store with a fight in #100: Ansel (Ann's), Bors (Bob's) and three Bandits, led
    by the first."""
    opened = await open_store(tmp_path / "pommel.db")
    encounter = Encounter(
        channel_id=CHANNEL, guild_id=GUILD, gm_id=GM, table=TableOptions(claim_pause=ClaimPause.NEVER)
    )
    encounter.join(ANN, character("Ansel"), None)
    encounter.join(BOB, character("Bors"), None)
    bandit = CATALOG.monster("bandit")
    encounter.add_npcs(bandit, None, count=3, group="Bandits", leader=True)
    await opened.save_encounter(encounter)
    yield opened
    await opened.close()


async def saved(store: Store) -> Encounter:
    encounter = await store.load_encounter(CHANNEL)
    assert encounter is not None
    return encounter


async def logged(store: Store) -> list[str]:
    return [entry.text for entry in await store.read_log(channel_id=CHANNEL)]


async def refused(store: Store, operation: Callable[[Encounter], Done[Any]], match: str) -> RulesError:
    """The operation is refused with ``match`` in its message, and the store holds what it held."""
    before, log_before = await saved(store), await store.read_log(channel_id=CHANNEL)
    with pytest.raises(RulesError, match=match) as refusal:
        await store.change(CHANNEL, GM, operation)
    assert await saved(store) == before
    assert await store.read_log(channel_id=CHANNEL) == log_before
    return refusal.value


async def deal(store: Store, *codes: str) -> Encounter:
    """Cards dealt to Ann, Bob and the Bandits in that order; the first card's turn starts (R1, R2)."""
    encounter = await saved(store)
    encounter.initiative.deck = deck_dealing(*codes)
    encounter.deal(ScriptedDice([]))
    return await store.save_encounter(encounter)


# ----------------------------------------------------------------------------- the fight


def test_a_fight_starts_run_by_its_starter_with_the_servers_rulings() -> None:
    settings = GuildSettings(guild_id=GUILD, options=RuleOptions(joker_bonus=4))
    started = roster.start(settings, Actor(ANN), "Ann", CHANNEL)
    assert (started.result.channel_id, started.result.guild_id, started.result.gm_id) == (CHANNEL, GUILD, ANN)
    assert started.result.options.joker_bonus == 4
    assert list(started.log) == ["Ann started a fight"]

    ruled = GuildSettings(guild_id=GUILD, gm_role_id=GM_ROLE)
    with pytest.raises(NotAllowed, match=f"<@&{GM_ROLE}> role can start a fight"):
        roster.start(ruled, Actor(ANN), "Ann", CHANNEL)
    assert roster.start(ruled, Actor(GM, role_ids=frozenset({GM_ROLE})), "GM", CHANNEL).result.gm_id == GM


async def test_the_gm_ends_the_fight_and_its_last_line_counts_the_rounds(store: Store) -> None:
    await refused(store, lambda e: roster.end(e, ANN_ACTS, "Ann"), r"Only the GM of this fight \(<@1>\)")
    await deal(store, "KS", "QS", "JS")
    ended, _ = await store.change(CHANNEL, GM, lambda e: roster.end(e, THE_GM, "GM"))
    assert ended.initiative.round == 1
    assert await store.load_encounter(CHANNEL) is None
    assert await logged(store) == ["GM ended the fight after 1 round"]


async def test_the_end_keeps_the_fight_and_its_gm_or_manage_server_reopens_it(store: Store) -> None:
    before = await deal(store, "KS", "QS", "JS")
    await store.change(CHANNEL, GM, lambda e: roster.end(e, THE_GM, "GM"))
    [listed] = await store.ended_encounters(CHANNEL)
    kept = await store.ended_encounter(listed.id)
    assert kept is not None
    assert kept.encounter == before

    with pytest.raises(NotAllowed, match=r"Only the GM of this fight \(<@1>\) can reopen it"):
        roster.reopen(kept.encounter, ANN_ACTS, "Ann")
    assert list(roster.reopen(kept.encounter, Actor(ANN, manages_server=True), "Ann").log) == [
        "Ann reopened the fight"
    ]
    reopened = roster.reopen(kept.encounter, THE_GM, "GM")
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
    await refused(store, lambda e: roster.change_options(e, ANN_ACTS, rules, table), "Only the GM")
    fight, changes = await store.change(CHANNEL, GM, lambda e: roster.change_options(e, THE_GM, rules, table))
    assert changes == [("joker_bonus", 2, 3), ("hide_npc_cards", False, True)]
    assert (fight.options.joker_bonus, fight.table.hide_npc_cards) == (3, True)
    assert (await saved(store)).options.joker_bonus == 3
    assert await logged(store) == ["options changed: joker bonus 2 → 3; hide npc cards off → on"]

    _, again = await store.change(CHANNEL, GM, lambda e: roster.change_options(e, THE_GM, rules, table))
    assert again == []
    assert len(await logged(store)) == 1


# ----------------------------------------------------------------------------- who runs it


async def test_the_gm_hands_the_fight_to_a_member_the_server_lets_run_fights(store: Store) -> None:
    ruled = GuildSettings(guild_id=GUILD, gm_role_id=GM_ROLE)
    await refused(
        store, lambda e: roster.hand_over(e, ANN_ACTS, "Ann", ruled, ANN_ACTS, "Ann"), "Only the GM"
    )
    await refused(
        store, lambda e: roster.hand_over(e, THE_GM, "GM", ruled, ANN_ACTS, "Ann"), "<@11> can't run fights"
    )
    await refused(store, lambda e: roster.hand_over(e, THE_GM, "GM", ruled, THE_GM, "GM"), "already runs")
    ann_gm = Actor(ANN, role_ids=frozenset({GM_ROLE}))
    fight, handed = await store.change(
        CHANNEL, GM, lambda e: roster.hand_over(e, THE_GM, "GM", ruled, ann_gm, "Ann")
    )
    assert (handed.old_gm, handed.new_gm, fight.gm_id) == (GM, ANN, ANN)
    assert (await saved(store)).gm_id == ANN
    assert await logged(store) == ["GM handed the fight to Ann"]


def test_only_manage_server_sets_the_servers_gm_role() -> None:
    settings = GuildSettings(guild_id=GUILD)
    with pytest.raises(NotAllowed, match="Only members with the Manage Server permission"):
        roster.set_gm_role(settings, Actor(GM), "GM", Role(GM_ROLE, "Game Masters"))
    admin = Actor(5, manages_server=True)
    with pytest.raises(RulesError, match="Everyone has @everyone"):
        roster.set_gm_role(settings, admin, "Admin", Role(GUILD, "@everyone"))

    done = roster.set_gm_role(settings, admin, "Admin", Role(GM_ROLE, "Game Masters"))
    assert done.result == GuildSettings(guild_id=GUILD, gm_role_id=GM_ROLE)
    assert settings.gm_role_id is None  # a copy to save
    assert (done.kind, list(done.log)) == ("settings", ["Admin set the server's GM role to Game Masters"])
    cleared = roster.set_gm_role(done.result, admin, "Admin", None)
    assert cleared.result.gm_role_id is None
    assert (cleared.kind, list(cleared.log)) == ("settings", ["Admin cleared the server's GM role"])


def test_a_fight_starts_with_the_servers_table_habits() -> None:
    habits = TableOptions(hide_npc_cards=True, defense_timeout_minutes=3)
    started = roster.start(GuildSettings(guild_id=GUILD, table=habits), Actor(ANN), "Ann", CHANNEL)
    assert started.result.table == habits


def test_only_manage_server_sets_the_defaults_of_new_fights() -> None:
    settings = GuildSettings(guild_id=GUILD)
    rules, table = {"joker_bonus": 4}, {"hide_npc_cards": True, "claim_pause": ClaimPause.NEVER}
    with pytest.raises(NotAllowed, match="Only members with the Manage Server permission"):
        roster.set_defaults(settings, Actor(GM), "GM", rules, table)
    admin = Actor(5, manages_server=True)
    done = roster.set_defaults(settings, admin, "Admin", rules, table)
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
    again = roster.set_defaults(done.result.settings, admin, "Admin", rules, table)
    assert (again.result.changes, list(again.log)) == ([], [])


# ----------------------------------------------------------------------------- players


def test_a_pool_is_sized_for_no_armor_when_the_catalog_has_no_no_armor_entry() -> None:
    sheet = character("Ansel")
    assert sheet.armor == "none"
    assert roster.pool_armor(CATALOG, sheet) == CATALOG.armor("none")
    bare = Catalog(
        weapons=CATALOG.weapons,
        armors={key: armor for key, armor in CATALOG.armors.items() if key != "none"},
        shields=CATALOG.shields,
        monsters=CATALOG.monsters,
    )
    assert roster.pool_armor(bare, sheet) is None
    assert roster.pool_armor(bare, character("Ansel", armor="full_plate")) == CATALOG.armor("full_plate")


async def test_a_character_that_leaves_and_joins_again_comes_back_as_it_left(store: Store) -> None:
    """/leave then /join was a free full heal (HP 4/22, prone, pool spent came back 22/22, full pool):
    the fight keeps the character as it left and gives it back."""
    sheet = character("Cedric", hp=22)
    armor = roster.pool_armor(CATALOG, sheet)
    _, done = await store.change(CHANNEL, ANN, lambda e: roster.join(e, ANN, "Ann", sheet, armor))

    def hurt(encounter: Encounter) -> Done[None]:
        cedric = encounter.combatant("Cedric")
        cedric.hp = 4
        cedric.add_condition("prone")
        cedric.pool.spend(2, Spend.ATTACK)
        return Done(None)

    await store.change(CHANNEL, ANN, hurt)
    await store.change(CHANNEL, ANN, lambda e: roster.leave(e, Actor(ANN), "Ann", "Cedric"))
    _, back = await store.change(CHANNEL, ANN, lambda e: roster.join(e, ANN, "Ann", sheet, armor))
    assert back.returning
    cedric = (await saved(store)).combatant("Cedric")
    assert (cedric.id, cedric.hp, cedric.max_hp, cedric.conditions) == (done.combatant.id, 4, 22, ["prone"])
    assert cedric.pool.remaining == cedric.pool.size - 2
    assert (await saved(store)).departed == []
    log = [entry.text for entry in await store.read_log(channel_id=CHANNEL)]
    assert log[-1] == "Ann brought Cedric back, as they left: HP 4/22"


async def test_a_player_joins_with_a_saved_character(store: Store) -> None:
    sheet = character("Cedric", prowess=3)
    armor = roster.pool_armor(CATALOG, sheet)
    _, done = await store.change(CHANNEL, ANN, lambda e: roster.join(e, ANN, "Ann", sheet, armor))
    joined = done.combatant
    assert not done.returning
    assert (joined.name, joined.owner_id, joined.holder, joined.pool.size) == (
        "Cedric",
        ANN,
        player_holder(ANN),
        4,
    )
    assert (await saved(store)).combatant("Cedric") == joined
    log = await store.read_log(channel_id=CHANNEL)
    assert [(entry.text, entry.data) for entry in log] == [
        ("Ann joined with Cedric", {"combatant": joined.id})
    ]

    await refused(
        store, lambda e: roster.join(e, ANN, "Ann", sheet, armor), "Cedric is already in this fight"
    )


async def test_a_player_takes_out_their_only_character(store: Store) -> None:
    _, left = await store.change(CHANNEL, ANN, lambda e: roster.leave(e, ANN_ACTS, "Ann", None))
    assert (left.combatant.name, left.discarded, left.cut_short) == ("Ansel", True, False)
    assert [c.name for c in (await saved(store)).combatants if c.owner_id == ANN] == []
    assert await logged(store) == ["Ann took Ansel out of the fight"]


async def test_a_player_takes_out_only_their_own_and_the_gm_anyones(store: Store) -> None:
    await refused(store, lambda e: roster.leave(e, BOB_ACTS, "Bob", "Ansel"), "Ansel is not yours")
    await refused(store, lambda e: roster.leave(e, Actor(99), "Eve", None), "You have no character")
    await refused(store, lambda e: roster.leave(e, THE_GM, "GM", "Bandit 1"), "the GM takes NPCs out")
    _, left = await store.change(CHANNEL, GM, lambda e: roster.leave(e, THE_GM, "GM", "ansel"))
    assert left.combatant.name == "Ansel"
    assert await logged(store) == ["GM took Ansel out of the fight"]


async def test_r2_leaving_on_ones_own_turn_ends_it(store: Store) -> None:
    dealt = await deal(store, "KS", "QS", "JS")
    assert dealt.initiative.turn_of == player_holder(ANN)
    fight, left = await store.change(CHANNEL, ANN, lambda e: roster.leave(e, ANN_ACTS, "Ann", None))
    assert (left.discarded, left.cut_short) == (True, True)
    assert fight.initiative.turn_of is None
    assert player_holder(ANN) not in fight.initiative.cards
    assert await logged(store) == ["Ann took Ansel out of the fight", TURN_CUT_SHORT]


# ----------------------------------------------------------------------------- NPCs


async def test_the_gm_adds_npcs_from_a_template(store: Store) -> None:
    def add(actor: Actor) -> Callable[[Encounter], Done[Any]]:
        return lambda e: roster.add_npcs(e, actor, "GM", CATALOG, "wolf", count=2, leader=True, hp=9)

    await refused(store, add(ANN_ACTS), "Only the GM of this fight")
    await refused(store, lambda e: roster.add_npcs(e, THE_GM, "GM", CATALOG, "wolff"), "no monster called")
    _, added = await store.change(CHANNEL, GM, add(THE_GM))
    assert [(npc.name, npc.group, npc.leader, npc.hp) for npc in added] == [
        ("Wolf 1", "Wolves", True, 9),
        ("Wolf 2", "Wolves", False, 9),
    ]
    assert [c.name for c in (await saved(store)).combatants][-2:] == ["Wolf 1", "Wolf 2"]
    assert await logged(store) == ["GM added Wolf 1, Wolf 2 (Wolf) to the group Wolves"]


async def test_one_npc_leaves_and_its_group_keeps_its_card(store: Store) -> None:
    await deal(store, "KS", "QS", "JS")
    fight, removal = await store.change(
        CHANNEL, GM, lambda e: roster.remove_npcs(e, THE_GM, "GM", "Bandit 2")
    )
    assert ([c.name for c in removal.removed], removal.emptied, removal.discarded) == (
        ["Bandit 2"],
        None,
        None,
    )
    assert [c.name for c in fight.combatants if c.group == "Bandits"] == ["Bandit 1", "Bandit 3"]
    assert await logged(store) == ["GM removed Bandit 2 from the fight"]


async def test_r2_the_whole_group_leaves_on_its_turn_and_discards_its_card(store: Store) -> None:
    dealt = await deal(store, "JS", "QS", "KS")
    assert dealt.initiative.turn_of == "g:bandits"
    fight, removal = await store.change(
        CHANNEL, GM, lambda e: roster.remove_npcs(e, THE_GM, "GM", "g:bandits")
    )
    assert [c.name for c in removal.removed] == ["Bandit 1", "Bandit 2", "Bandit 3"]
    assert (removal.emptied, removal.discarded, removal.cut_short) == ("Bandits", card("KS"), True)
    assert [c.name for c in fight.combatants] == ["Ansel", "Bors"]
    assert "g:bandits" not in fight.initiative.cards
    assert await logged(store) == [
        "GM removed Bandit 1, Bandit 2, Bandit 3 from the fight",
        f"the card of Bandits ({card('KS').label}) was discarded",
        TURN_CUT_SHORT,
    ]


async def test_npc_remove_refuses_a_player_and_anyone_but_the_gm(store: Store) -> None:
    await refused(store, lambda e: roster.remove_npcs(e, ANN_ACTS, "Ann", "Bandit 1"), "Only the GM")
    await refused(store, lambda e: roster.remove_npcs(e, THE_GM, "GM", "Ansel"), "is a player's character")
    await refused(store, lambda e: roster.remove_npcs(e, THE_GM, "GM", "Nobody"), "Nobody called 'Nobody'")


def test_npc_remove_means_an_npc_or_its_whole_group() -> None:
    encounter = Encounter(channel_id=CHANNEL, guild_id=GUILD, gm_id=GM)
    encounter.add_npcs(CATALOG.monster("bandit"), None, count=2, group="Bandits")
    assert [c.name for c in roster.npcs(encounter, "g:bandits")] == ["Bandit 1", "Bandit 2"]
    assert [c.name for c in roster.npcs(encounter, "bandits")] == ["Bandit 1", "Bandit 2"]
    assert [c.name for c in roster.npcs(encounter, "c2")] == ["Bandit 2"]


# ----------------------------------------------------------------------------- HP and conditions


@pytest.mark.parametrize(
    ("text", "sign", "amount", "hp"),
    [("-5", "-", 5, 7), (" + 3 ", "+", 3, 15), ("12", "", 12, 12), ("-0", "-", 0, 12)],
)
def test_an_hp_change_takes_gives_or_sets(text: str, sign: str, amount: int, hp: int) -> None:
    change = parse_hp_change(text)
    assert change == HpChange(sign, amount)
    assert change.apply(12) == hp
    assert str(change) == f"{sign}{amount}"


@pytest.mark.parametrize("text", ["", "five", "-12345", "3-", "+-2", "1.5", "٣", "-٣"])
def test_anything_else_is_not_an_hp_change(text: str) -> None:
    with pytest.raises(RulesError, match=r"is not an HP change\. Write -5 to take 5 HP"):
        parse_hp_change(text)


async def test_a_player_changes_their_own_hp_within_bounds(store: Store) -> None:
    _, changed = await store.change(
        CHANNEL, ANN, lambda e: roster.change_hp(e, ANN_ACTS, "Ann", "Ansel", HpChange("-", 30))
    )
    assert (changed.old, changed.combatant.hp, changed.proposals) == (12, -12, [])
    assert (await saved(store)).combatant("Ansel").hp == -12
    assert await logged(store) == ["Ann: Ansel HP 12 → -12 (-30) (down)"]
    await refused(
        store, lambda e: roster.change_hp(e, ANN_ACTS, "Ann", "Bors", HpChange("-", 1)), "Bors is not yours"
    )


@pytest.mark.parametrize("change", [HpChange("-", 0), HpChange("+", 0), HpChange("", 12), HpChange("+", 5)])
async def test_an_hp_change_that_changes_nothing_is_refused_and_posts_nothing(
    store: Store, change: HpChange
) -> None:
    """`-0` (or +5 at full HP, or 12 at 12) used to post a public line about nothing."""
    await refused(
        store,
        lambda e: roster.change_hp(e, ANN_ACTS, "Ann", "Ansel", change),
        r"Ansel is at HP 12/12, and `.*` leaves it there: nothing was changed or posted\.",
    )


async def test_r22_hp_taken_from_a_leader_proposes_the_groups_morale_check(store: Store) -> None:
    _, changed = await store.change(
        CHANNEL, GM, lambda e: roster.change_hp(e, THE_GM, "GM", "Bandit 1", HpChange("", 0))
    )
    (proposal,) = changed.proposals
    assert (proposal.id, proposal.group, proposal.reason) == (1, "Bandits", MoraleTriggerReason.LEADER_LOST)
    fight = await saved(store)
    assert fight.morale_proposals == [proposal]
    assert fight.next_proposal == 2
    _, again = await store.change(
        CHANNEL, GM, lambda e: roster.change_hp(e, THE_GM, "GM", "Bandit 2", HpChange("", 0))
    )
    assert again.proposals == []  # the open proposal answers for this too
    assert (await saved(store)).morale_proposals == [proposal]
    assert await logged(store) == ["GM: Bandit 1 HP 11 → 0 (0) (down)", "GM: Bandit 2 HP 11 → 0 (0) (down)"]


async def test_conditions_are_added_and_removed_by_their_player_or_the_gm(store: Store) -> None:
    assert roster.condition_name("  knocked   flat ") == "knocked flat"
    with pytest.raises(RulesError, match="Name the condition"):
        roster.condition_name("   ")
    _, added = await store.change(
        CHANNEL, ANN, lambda e: roster.change_condition(e, ANN_ACTS, "Ann", "Ansel", "Prone", add=True)
    )
    assert (added.combatant.conditions, added.condition, added.added) == (["Prone"], "Prone", True)
    await refused(
        store,
        lambda e: roster.change_condition(e, BOB_ACTS, "Bob", "Ansel", "prone", add=False),
        "Ansel is not yours",
    )
    await refused(
        store,
        lambda e: roster.change_condition(e, ANN_ACTS, "Ann", "Ansel", "stunned", add=False),
        "stunned",
    )
    _, removed = await store.change(
        CHANNEL, GM, lambda e: roster.change_condition(e, THE_GM, "GM", "Ansel", "prone", add=False)
    )
    assert (removed.condition, removed.added) == ("Prone", False)
    assert (await saved(store)).combatant("Ansel").conditions == []
    assert await logged(store) == ["Ann: Ansel is now Prone", "GM: Ansel is no longer Prone"]


# ----------------------------------------------------------------------------- the GM's edits


def test_an_edit_asks_for_something() -> None:
    with pytest.raises(RulesError, match="Say what to change"):
        CombatantEdit()
    with pytest.raises(RulesError, match="Say what to change"):
        CombatantEdit(repair=False)
    assert CombatantEdit(repair=True).repair
    assert CombatantEdit(leader=False).leader is False


async def test_r6_the_gm_edits_stats_and_gear_and_the_pool_follows(store: Store) -> None:
    edit = CombatantEdit(name="Bandit Chief", prowess=3, max_hp=8, shield="buckler", off_hand="none")
    await refused(store, lambda e: roster.edit_combatant(e, ANN_ACTS, "Ann", CATALOG, "Bandit 1", edit), "GM")
    _, edited = await store.change(
        CHANNEL, GM, lambda e: roster.edit_combatant(e, THE_GM, "GM", CATALOG, "Bandit 1", edit)
    )
    assert edited.name == "Bandit 1"
    assert edited.changes == [
        ("name", "Bandit 1", "Bandit Chief"),
        ("Prowess", 1, 3),
        ("max HP", 11, 8),
        ("HP", 11, 8),
        ("shield", None, "Buckler"),
        ("off hand", "Dagger, Small", None),
        ("Martial Pool", 2, 4),
    ]
    chief = (await saved(store)).combatant("Bandit Chief")
    assert (chief.prowess, chief.max_hp, chief.hp, chief.shield, chief.off_hand) == (3, 8, 8, "buckler", None)
    assert chief.pool.size == 4
    assert await logged(store) == [
        "GM edited Bandit 1: name Bandit 1 → Bandit Chief; Prowess 1 → 3; max HP 11 → 8; HP 11 → 8; "
        "shield None → Buckler; off hand Dagger, Small → None; Martial Pool 2 → 4"
    ]


async def test_an_edit_to_the_values_it_has_changes_and_logs_nothing(store: Store) -> None:
    before = await saved(store)
    fight, edited = await store.change(
        CHANNEL,
        GM,
        lambda e: roster.edit_combatant(e, THE_GM, "GM", CATALOG, "Ansel", CombatantEdit(prowess=2)),
    )
    assert edited == roster.Edited("Ansel", [])
    assert fight.combatant("Ansel") == before.combatant("Ansel")
    assert await logged(store) == []


async def test_r26_an_edit_the_hands_cannot_hold_saves_nothing(store: Store) -> None:
    both_hands = CombatantEdit(weapon="greatsword", shield="heater")
    await refused(
        store,
        lambda e: roster.edit_combatant(e, THE_GM, "GM", CATALOG, "Ansel", both_hands),
        "needs both hands",
    )
    await refused(
        store,
        lambda e: roster.edit_combatant(e, THE_GM, "GM", CATALOG, "Ansel", CombatantEdit(name="bors")),
        "Bors is already in this fight",
    )


def test_a_refused_edit_leaves_the_document_as_it_was() -> None:
    encounter = Encounter(channel_id=CHANNEL, guild_id=GUILD, gm_id=GM)
    encounter.join(ANN, character("Ansel"), None)
    encounter.add_npcs(CATALOG.monster("bandit"), None, count=2, leader=True)
    before = encounter.model_dump()
    edits = {
        "needs both hands": CombatantEdit(name="Chief", prowess=4, weapon="greatsword", shield="heater"),
        "no armor called": CombatantEdit(name="Chief", leader=True, armor="plate of dreams"),
    }
    for says, edit in edits.items():
        with pytest.raises(RulesError, match=says):
            roster.edit_combatant(encounter, THE_GM, "GM", CATALOG, "Bandit 2", edit)
        assert encounter.model_dump() == before


async def test_r22_a_new_leader_takes_over_from_the_old(store: Store) -> None:
    _, edited = await store.change(
        CHANNEL,
        GM,
        lambda e: roster.edit_combatant(e, THE_GM, "GM", CATALOG, "Bandit 2", CombatantEdit(leader=True)),
    )
    assert edited.changes == [("Bandit 1 leader", "yes", "no"), ("leader", "no", "yes")]
    fight = await saved(store)
    assert [c.name for c in fight.combatants if c.leader] == ["Bandit 2"]
