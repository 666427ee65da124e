"""What /encounter, /npc and /combatant show: options and their changes, the overview, the replies."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.catalog import load_catalog
from bot.characters import MAX_NAME_LENGTH, Character
from bot.encounter.combatant import HpChanged
from bot.encounter.combatants import MAX_CONDITION_LENGTH, MAX_CONDITIONS, MAX_HP
from bot.encounter.document import MAX_COMBATANTS, Encounter, TrackerMessage
from bot.encounter.lifecycle import HandedOver, option_changes
from bot.encounter.records import MoraleProposal
from bot.guild_settings import GuildSettings
from bot.rules.cards import Card
from bot.rules.engagement import Range
from bot.rules.feats import MartialFeat
from bot.rules.morale import MoraleTriggerReason
from bot.rules.options import CriticalDamage, RuleOptions
from bot.store import SetAsideFight
from bot.table_options import TableOptions
from bot.ui.encounter_views import (
    OVERVIEW_PAGE_LIMIT,
    RULE_OPTION_HELP,
    TABLE_OPTION_HELP,
    condition_reply,
    edit_reply,
    gm_handed_reply,
    gm_role_reply,
    hp_announcement,
    hp_reply,
    not_default_lines,
    npcs_added_reply,
    npcs_removed_reply,
    options_changed_reply,
    options_embed,
    overview_embed,
    overview_page,
    overview_pages,
    recover_reply,
    set_aside_note,
    table_line,
    tracker_url,
    who_runs_fights,
)
from bot.ui.tracker import name
from bot.wording.roster import TURN_CUT_SHORT
from cogs.npc import MAX_NPCS_AT_ONCE

CATALOG = load_catalog()


def fight() -> Encounter:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    alice = Character(
        name="Alice", prowess=2, dexterity=1, wisdom=0, charisma=0, proficiency=2, hp=14, weapon="longsword"
    )
    encounter.join(7, alice, CATALOG.armor(alice.armor))
    encounter.add_npcs(CATALOG.monster("bandit"), CATALOG.armor("light_gambeson"), count=2, leader=True)
    return encounter


def test_every_option_is_described_within_discords_limit() -> None:
    assert set(RULE_OPTION_HELP) == set(RuleOptions.model_fields)
    assert set(TABLE_OPTION_HELP) == set(TableOptions.model_fields)
    assert all(len(text) <= 100 for text in [*RULE_OPTION_HELP.values(), *TABLE_OPTION_HELP.values()])


def test_the_options_changed_reply_lists_each_change() -> None:
    old = RuleOptions()
    new = old.model_copy(update={"joker_bonus": 3, "critical_damage": CriticalDamage.DOUBLE})
    reply = options_changed_reply(option_changes(old, new))
    assert "- critical damage: by attack type → **double damage**" in reply
    assert "- joker bonus: 2 → **3**" in reply
    assert "nothing changed" in options_changed_reply([])


def test_options_away_from_the_defaults_are_listed_with_the_default() -> None:
    encounter = fight()
    assert not_default_lines(encounter) == []
    encounter.options = encounter.options.model_copy(update={"dynamic_criticals": False})
    encounter.table = encounter.table.model_copy(update={"repost_tracker": True})
    assert not_default_lines(encounter) == ["dynamic criticals: **off** (default on)"]
    assert (
        table_line(encounter.table)
        == "repost tracker **on** · hide npc cards **off** · claim pause **jokers** · "
        "defense policy **ask the GM** · defense timeout minutes **10** · remind after hours **0** · "
        "players undo **off**"
    )
    text = options_embed(encounter).description or ""
    assert "dynamic criticals: **off** (default on) — *R16" in text
    assert "joker bonus: **2** — *R3" in text


def test_the_overview_shows_the_gm_everything_and_players_their_side() -> None:
    encounter = fight()
    encounter.tracker = TrackerMessage(channel_id=5, message_id=77)
    assert tracker_url(1, encounter) == "https://discord.com/channels/1/5/77"
    gm_view = overview_embed(encounter, CATALOG, guild_id=1, gm=True).description or ""
    assert "Tracker: https://discord.com/channels/1/5/77" in gm_view
    assert "**Alice** (<@7>) · HP 14/14 · Prowess 2 · pool ●●● 3/3 · Longsword" in gm_view
    assert "**Bandit 1** (Bandits, leader) · HP 11/11 · Prowess 1 · pool ●● 2/2 · " in gm_view
    assert "Sword, Messer & Dagger, Small · Gambeson, Light" in gm_view
    player_view = overview_embed(encounter, CATALOG, guild_id=1, gm=False).description or ""
    assert "**Bandit 1** (Bandits, leader) · HP 11/11\n" in player_view
    assert "Prowess 2" in player_view


def test_replies_escape_what_users_typed() -> None:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    added = encounter.add_npcs(CATALOG.monster("goblin"), None, count=1, name="_Sneaky_", group="**Gang**")
    assert npcs_added_reply(added) == (
        "🆕 **\\_Sneaky\\_** joins the fight in the group **\\*\\*Gang\\*\\*** (it acts on the group's card)."
    )
    alone = encounter.add_npcs(CATALOG.monster("goblin"), None, count=1, name="Bayard")
    assert npcs_added_reply(alone) == "🆕 **Bayard** joins the fight (it acts on a card of its own, R2)."
    goblin = added[0]
    goblin.hp = -2
    assert hp_reply(goblin, 5) == "❤️ **\\_Sneaky\\_**: HP 5 → **-2**/7 — **down**"
    goblin.conditions.append("`stuck`")
    assert condition_reply(goblin, "`stuck`", added=True) == (
        "🩹 **\\_Sneaky\\_** is now *\\`stuck\\`*. Conditions: \\`stuck\\`."
    )
    assert edit_reply("_Sneaky_", [("shield", None, "Buckler")]) == (
        "✏️ **\\_Sneaky\\_** changed:\n- shield: none → **Buckler**"
    )


def test_removing_a_group_says_its_card_is_discarded_unless_hidden() -> None:
    encounter = fight()
    bandits = encounter.members("g:bandits")
    card = Card.model_validate("KS")
    assert npcs_removed_reply(bandits, "Bandits", None) == (
        "🚪 **Bandit 1**, **Bandit 2** leave the fight.\nThe group **Bandits** is gone."
    )
    shown = npcs_removed_reply(bandits, "Bandits", card)
    assert f"Nobody is left in **Bandits**: its card ({card.label}) is discarded (R2)." in shown
    hidden = npcs_removed_reply(bandits, "Bandits", card, hide_card=True)
    assert "its card is discarded (R2)" in hidden
    assert card.label not in hidden
    assert npcs_removed_reply(bandits[:1], None, None) == "🚪 **Bandit 1** leaves the fight."
    cut_short = npcs_removed_reply(bandits, "Bandits", card, cut_short=True)
    assert cut_short.splitlines()[-1] == TURN_CUT_SHORT


def test_who_runs_fights_and_the_servers_gm_role() -> None:
    encounter = fight()
    anyone = GuildSettings(guild_id=1)
    ruled = GuildSettings(guild_id=1, gm_role_id=77)
    assert who_runs_fights(encounter, anyone) == (
        "This fight's GM: <@9>.\nAnyone on this server may start a fight."
    )
    assert who_runs_fights(None, ruled) == (
        "No fight runs in this channel.\nOnly members with the <@&77> role (or Manage Server) may run fights."
    )
    assert (
        gm_role_reply(77)
        == "👑 Only members with the <@&77> role (or Manage Server) may now start fights here."
    )
    assert gm_role_reply(None) == "👑 Anyone on this server may now start fights."
    assert gm_handed_reply(HandedOver(9, 7)) == "👑 <@9> hands this fight to <@7>, who is now its GM."


def test_r22_hp_that_sets_off_a_morale_check_pings_the_gm_unless_the_gm_made_it() -> None:
    encounter = fight()
    leader = encounter.combatant("Bandit 1")
    leader.hp = 0
    proposal = MoraleProposal(
        id=1, group="Bandits", reason=MoraleTriggerReason.LEADER_LOST, detail="", round=1
    )
    changed = HpChanged(leader, 11, [proposal])
    by_player = hp_announcement(changed, gm_id=9, actor_id=7)
    assert by_player.content.splitlines()[0] == hp_reply(leader, 11)
    assert by_player.content.splitlines()[-1] == (
        "🏳️ <@9>: roll the check with the button, or see `/morale proposals`."
    )
    assert by_player.ping == [9]
    assert hp_announcement(changed, gm_id=9, actor_id=9).ping == []


LONGEST = "_" * MAX_NAME_LENGTH
"""A name at the length limit that escaping doubles: the worst case for a reply's length."""
CONTENT_LIMIT = 2000


def test_adding_the_most_npcs_with_the_longest_names_stays_within_a_message() -> None:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    added = encounter.add_npcs(
        CATALOG.monster("bandit"), None, count=MAX_NPCS_AT_ONCE, name=LONGEST, group=LONGEST, leader=True
    )
    reply = npcs_added_reply(added)
    assert len(reply) <= CONTENT_LIMIT
    assert reply.startswith(f"🆕 **{name(added[0].name)}** (leader), **{name(added[1].name)}**, ")
    assert "more (see the tracker) join the fight in the group **" + name(LONGEST) + "**" in reply


def test_removing_a_whole_fight_of_the_longest_names_stays_within_a_message() -> None:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    for _ in range(MAX_COMBATANTS // MAX_NPCS_AT_ONCE):
        encounter.add_npcs(
            CATALOG.monster("bandit"), None, count=MAX_NPCS_AT_ONCE, name=LONGEST, group=LONGEST
        )
    assert len(encounter.combatants) == MAX_COMBATANTS
    reply = npcs_removed_reply(encounter.combatants, LONGEST, Card.model_validate("10H"))
    assert len(reply) <= CONTENT_LIMIT
    assert "more (see the tracker) leave the fight." in reply
    assert reply.endswith(f"Nobody is left in **{name(LONGEST)}**: its card (10♥) is discarded (R2).")


def test_the_longest_edit_and_condition_replies_stay_within_a_message() -> None:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    (npc,) = encounter.add_npcs(CATALOG.monster("bandit"), None, count=1, name=LONGEST)
    longest_gear = {
        kind: max((entry.name for entry in table.values()), key=len)
        for kind, table in (
            ("weapon", CATALOG.weapons),
            ("armor", CATALOG.armors),
            ("shield", CATALOG.shields),
        )
    }
    changes: list[tuple[str, object, object]] = [
        ("name", LONGEST, "*" * MAX_NAME_LENGTH),
        ("Prowess", 20, 0),
        ("DEX", -5, 10),
        ("WIS", -5, 10),
        ("CHA", -5, 10),
        ("max HP", MAX_HP, 1),
        ("HP", -MAX_HP, 1),
        *((kind, LONGEST, gear) for kind, gear in longest_gear.items()),
        ("Martial Pool", 4, 1),
    ]
    assert len(edit_reply(LONGEST, changes)) <= CONTENT_LIMIT
    npc.conditions = ["_" * MAX_CONDITION_LENGTH] * MAX_CONDITIONS
    assert len(condition_reply(npc, "_" * MAX_CONDITION_LENGTH, added=True)) <= CONTENT_LIMIT
    assert len(hp_reply(npc, -MAX_HP)) <= CONTENT_LIMIT


def test_r12_the_overview_lists_the_pairs_at_melee_or_grapple_and_not_those_at_onset() -> None:
    encounter = fight()
    (wolf,) = encounter.add_npcs(CATALOG.monster("goblin"), None, count=1, name="Wolf")
    alice, bandit_1, bandit_2 = (encounter.combatant(who) for who in ("Alice", "Bandit 1", "Bandit 2"))
    encounter.engagement(alice, bandit_1).range = Range.MELEE
    encounter.engagement(bandit_2, wolf).enter_grapple()
    encounter.engagement(alice, bandit_2).record_attack(3)  # attacked once: still at Onset
    for gm in (True, False):
        text = overview_embed(encounter, CATALOG, guild_id=1, gm=gm).description or ""
        assert text.endswith(
            "\n\n**Ranges** (every other pair is at Onset, R12)\n"
            "🤼 Bandit 2 — Wolf: Grapple\n"
            "⚔️ Alice — Bandit 1: Melee"
        )
        assert "Alice — Bandit 2" not in text
    encounter.remove(wolf)
    text = overview_embed(encounter, CATALOG, guild_id=1, gm=True).description or ""
    assert "Wolf" not in text
    assert text.endswith("**Ranges** (every other pair is at Onset, R12)\n⚔️ Alice — Bandit 1: Melee")


def test_r12_the_overview_of_a_whole_fight_of_the_longest_names_pages_everyone_and_every_range() -> None:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    for _ in range(MAX_COMBATANTS // MAX_NPCS_AT_ONCE):
        encounter.add_npcs(
            CATALOG.monster("bandit"), None, count=MAX_NPCS_AT_ONCE, name=LONGEST[:-3], group=LONGEST
        )
    everyone = encounter.combatants
    for first, second in zip(everyone[::2], everyone[1::2], strict=True):
        encounter.engagement(first, second).range = Range.MELEE
    pages = overview_pages(encounter, CATALOG, guild_id=1, gm=True)
    assert len(pages) > 1
    assert all(len(page) <= OVERVIEW_PAGE_LIMIT for page in pages)
    text = "\n".join(pages)
    assert "more lines" not in text
    assert "more pairs" not in text
    assert text.count("· HP 11/11") == MAX_COMBATANTS
    ranges = text.split("**Ranges** (every other pair is at Onset, R12)\n")[1].splitlines()
    assert len(ranges) == MAX_COMBATANTS // 2
    last, buttons = overview_page(encounter, CATALOG, guild_id=1, gm=True, page=99)
    assert last.description == pages[-1]
    assert last.footer.text == f"Page {len(pages)} of {len(pages)}"
    assert buttons is not None
    back, on = (item.to_component_dict() for item in buttons.children)
    assert back["custom_id"] == f"pommel:show:{encounter.tag}:{len(pages) - 2}:back"
    assert not back.get("disabled")
    assert on.get("disabled")
    first_page, _ = overview_page(encounter, CATALOG, guild_id=1, gm=True)
    assert first_page.footer.text == f"Page 1 of {len(pages)}"


def test_the_overview_of_a_small_fight_is_one_page_without_buttons() -> None:
    encounter = Encounter(channel_id=5, guild_id=1, gm_id=9)
    encounter.add_npcs(CATALOG.monster("bandit"), None, count=2)
    page, buttons = overview_page(encounter, CATALOG, guild_id=1, gm=True)
    assert buttons is None
    assert page.footer.text is None
    assert "**Rulings**: the defaults (docs/RULES.md)" in (page.description or "")


def test_the_overview_names_the_martial_feats_a_combatant_holds() -> None:
    encounter = fight()
    encounter.combatant("Alice").feats = [MartialFeat.FUHLEN, MartialFeat.MUTIEREN]
    encounter.combatant("Bandit 1").feats = [MartialFeat.MISSILE_PARRYING]
    gm_view = overview_embed(encounter, CATALOG, guild_id=1, gm=True).description or ""
    assert (
        "**Alice** (<@7>) · HP 14/14 · Prowess 2 · pool ●●● 3/3 · Longsword · feats: fuhlen, mutieren"
        in gm_view
    )
    assert "feats: missile parrying" in gm_view
    player_view = overview_embed(encounter, CATALOG, guild_id=1, gm=False).description or ""
    assert "feats: missile parrying" not in player_view  # an NPC's numbers are the GM's


NEWER_REASON = "it was saved by a newer version of Pommel: a fight of version 2, where this one reads up to 1"


def _set_aside(reason: str, gm_id: int | None = 5) -> SetAsideFight:
    return SetAsideFight(
        id=3,
        channel_id=9,
        guild_id=1,
        gm_id=gm_id,
        version=4,
        reason=reason,
        set_aside_at=datetime(2026, 12, 2, 12, 0, tzinfo=UTC),
        acknowledged=False,
    )


def test_a_fight_set_aside_is_told_in_the_tables_words_with_the_way_back() -> None:
    newer = _set_aside(
        "it was saved by a newer version of Pommel: a fight of version 2, where this one reads up to 1"
    )
    said = set_aside_note(newer, starting=False)
    assert "Pommel could not read the fight that was running here (GM <@5>)" in said
    assert "it was saved by a newer version of Pommel than the one running now" in said
    assert (
        "version 2" not in said
    )  # the numbers are for whoever runs the bot: in /encounter recover's file reply
    assert "`/encounter recover`" in said
    assert said.endswith("the GM starts a new one with `/encounter start`.")
    damaged = set_aside_note(_set_aside("the groups is not something it can have", gm_id=None), starting=True)
    assert "not something it can have" not in damaged
    assert "something this version of Pommel does not understand" in damaged
    assert "(GM" not in damaged
    assert damaged.endswith("This new fight starts afresh.")


def test_recover_says_whether_the_fight_can_come_back_now() -> None:
    kept = _set_aside(
        "it was saved by a newer version of Pommel: a fight of version 2, where this one reads up to 1"
    )
    assert "still can't read it" in recover_reply(kept, readable=False, running=False)
    assert "end the fight running here" in recover_reply(kept, readable=True, running=True)
    assert recover_reply(kept, readable=True, running=False).endswith(
        "reads it now: bring it back with `/encounter recover bring_back:True`."
    )
    assert "<t:1796212800:f>" in recover_reply(kept, readable=True, running=False)
