"""Who may do what in a fight: the GM runs it, Manage Server may step in, players act for their own.

Every refusal is a NotAllowed whose message says who may do it instead.
"""

from __future__ import annotations

import pytest

from bot.characters import Character
from bot.encounter.document import HOLDER_NAME_LIMIT, Encounter, group_holder, player_holder
from bot.encounter.errors import NoFight, NotAllowed
from bot.encounter.permissions import (
    Actor,
    controls,
    is_gm,
    may_run_fights,
    plays_holder,
    require_control,
    require_fight,
    require_gm,
    require_may_run_fights,
    require_plays_holder,
)
from bot.guild_settings import GuildSettings
from bot.rules.equipment import MonsterTemplate
from bot.rules.errors import RulesError

GM = 1
ANN = 11
BOB = 12
GM_ROLE = 500

GM_ACTOR = Actor(GM)
ANN_ACTOR = Actor(ANN)
BOB_ACTOR = Actor(BOB)
ADMIN = Actor(99, manages_server=True)


def character(name: str) -> Character:
    return Character(
        name=name, prowess=2, dexterity=0, wisdom=0, charisma=0, proficiency=2, hp=10, weapon="arming_sword"
    )


BANDIT = MonsterTemplate(
    key="bandit", name="Bandit", source="house value", prowess=1, hp=7, weapon="arming_sword"
)


def fight() -> Encounter:
    encounter = Encounter(channel_id=100, guild_id=10, gm_id=GM)
    encounter.join(ANN, character("Ansel"), None)
    encounter.join(BOB, character("Bors"), None)
    encounter.add_npcs(BANDIT, None, count=2)
    return encounter


def test_no_fight_in_the_channel_is_refused_with_how_to_start_one() -> None:
    with pytest.raises(NoFight, match="/encounter start"):
        require_fight(None)
    encounter = fight()
    assert require_fight(encounter) is encounter
    assert issubclass(NoFight, RulesError)


def test_the_gm_and_manage_server_run_the_fight_players_do_not() -> None:
    encounter = fight()
    assert is_gm(encounter, GM_ACTOR)
    assert is_gm(encounter, ADMIN), "Manage Server may step in for an absent GM"
    assert not is_gm(encounter, ANN_ACTOR)
    require_gm(encounter, GM_ACTOR, "deal the cards")
    require_gm(encounter, ADMIN, "deal the cards")
    with pytest.raises(NotAllowed, match=r"^Only the GM of this fight \(<@1>\) can deal the cards\.$"):
        require_gm(encounter, ANN_ACTOR, "deal the cards")


def test_a_gm_role_is_not_the_gm_of_someone_elses_fight() -> None:
    encounter = fight()
    assert not is_gm(encounter, Actor(ANN, role_ids=frozenset({GM_ROLE})))


def test_without_a_gm_role_anyone_may_run_fights() -> None:
    settings = GuildSettings(guild_id=10)
    assert may_run_fights(settings, ANN_ACTOR)
    require_may_run_fights(settings, ANN_ACTOR, "start a fight")


def test_a_gm_role_limits_who_may_run_fights() -> None:
    settings = GuildSettings(guild_id=10, gm_role_id=GM_ROLE)
    assert may_run_fights(settings, Actor(ANN, role_ids=frozenset({GM_ROLE, 7})))
    assert may_run_fights(settings, ADMIN), "Manage Server needs no role"
    assert not may_run_fights(settings, Actor(ANN, role_ids=frozenset({7})))
    assert not may_run_fights(settings, GM_ACTOR)
    with pytest.raises(
        NotAllowed, match=r"^On this server only members with the <@&500> role can start a fight\.$"
    ):
        require_may_run_fights(settings, ANN_ACTOR, "start a fight")


def test_a_player_controls_only_their_own_combatants() -> None:
    encounter = fight()
    ansel, bors = encounter.combatant("Ansel"), encounter.combatant("Bors")
    bandit = encounter.combatant("Bandit 1")
    assert controls(encounter, ANN_ACTOR, ansel)
    assert not controls(encounter, ANN_ACTOR, bors)
    assert not controls(encounter, ANN_ACTOR, bandit)
    for combatant in (ansel, bors, bandit):
        assert controls(encounter, GM_ACTOR, combatant)
        assert controls(encounter, ADMIN, combatant)
        require_control(encounter, GM_ACTOR, combatant, "attack")
    require_control(encounter, ANN_ACTOR, ansel, "attack")


def test_require_control_names_the_owner_or_the_gm() -> None:
    encounter = fight()
    with pytest.raises(NotAllowed, match=r"^Bors is not yours: only <@12> or the GM can attack for them\.$"):
        require_control(encounter, ANN_ACTOR, encounter.combatant("Bors"), "attack")
    with pytest.raises(NotAllowed, match=r"^Bandit 1 is not yours: only .*the GM can attack for them\.$"):
        require_control(encounter, ANN_ACTOR, encounter.combatant("Bandit 1"), "attack")


def test_only_a_cards_player_or_the_gm_plays_it() -> None:
    encounter = fight()
    bandits = group_holder("Bandits")
    assert plays_holder(encounter, ANN_ACTOR, player_holder(ANN))
    assert not plays_holder(encounter, ANN_ACTOR, player_holder(BOB))
    assert not plays_holder(encounter, ANN_ACTOR, bandits)
    assert plays_holder(encounter, GM_ACTOR, bandits)
    assert plays_holder(encounter, ADMIN, player_holder(BOB))
    require_plays_holder(encounter, ANN_ACTOR, player_holder(ANN), "act on")
    with pytest.raises(
        NotAllowed, match=r"^That card belongs to Bors: only <@12> or the GM can act on it\.$"
    ):
        require_plays_holder(encounter, ANN_ACTOR, player_holder(BOB), "act on")
    with pytest.raises(NotAllowed, match=r"^That card belongs to Bandits: only .*the GM can act on it\.$"):
        require_plays_holder(encounter, ANN_ACTOR, bandits, "act on")


def test_refusals_for_npcs_name_the_gm_once() -> None:
    encounter = fight()
    with pytest.raises(NotAllowed) as control:
        require_control(encounter, ANN_ACTOR, encounter.combatant("Bandit 1"), "attack")
    with pytest.raises(NotAllowed) as card:
        require_plays_holder(encounter, ANN_ACTOR, group_holder("Bandits"), "act on")
    for refusal in (control.value, card.value):
        assert "the GM or the GM" not in refusal.message
        assert "only the GM can" in refusal.message


def test_refusals_escape_the_markdown_in_names_and_clip_a_long_card_name() -> None:
    encounter = Encounter(channel_id=100, guild_id=10, gm_id=GM)
    bold = encounter.join(BOB, character("*bold*_name_"), None)
    with pytest.raises(NotAllowed) as caught:
        require_control(encounter, ANN_ACTOR, bold, "attack")
    assert caught.value.message.startswith("\\*bold\\*\\_name\\_ is not yours")
    with pytest.raises(NotAllowed) as caught:
        require_plays_holder(encounter, ANN_ACTOR, player_holder(BOB), "act on")
    assert caught.value.message.startswith("That card belongs to \\*bold\\*\\_name\\_: only <@12>")
    for number in range(40):
        encounter.join(BOB, character(f"{'_' * 60} {number}"), None)
    with pytest.raises(NotAllowed) as caught:
        require_plays_holder(encounter, ANN_ACTOR, player_holder(BOB), "act on")
    assert caught.value.message.endswith("…: only <@12> or the GM can act on it.")
    assert len(caught.value.message) <= 2 * HOLDER_NAME_LIMIT + 100
