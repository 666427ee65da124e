"""Morale at the table: group snapshots, proposals, checks and rallies on the fight document (R21-R23),
and the ``/morale`` operations run as the cog runs them, through a real store, with their log lines.

Dice are scripted: a test that expects no roll gives none, so an unexpected die fails it. A refused
request must leave the whole document unchanged.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.encounter import morale
from bot.encounter.combatants import Combatant
from bot.encounter.document import Encounter, group_holder
from bot.encounter.errors import NotAllowed, ProposalResolved
from bot.encounter.morale import (
    check_group,
    check_morale,
    dismiss_proposal,
    group_snapshot,
    member_status,
    open_proposals,
    propose_checks,
    rally_allies,
    roll_proposal,
)
from bot.encounter.permissions import Actor
from bot.rules.dice import Advantage, ScriptedDice
from bot.rules.equipment import MonsterTemplate
from bot.rules.errors import RulesError
from bot.rules.morale import MemberStatus, MoraleStanding, MoraleTriggerReason
from bot.rules.turns import ClaimPause
from bot.store import Store, open_store
from bot.table_options import TableOptions
from tests.rules.conftest import deck_dealing
from tests.sheets import character

GM = 1
ANN = 11
BOB = 12
NO_DICE = ScriptedDice([])


def template(name: str, morale: int | None = 0) -> MonsterTemplate:
    return MonsterTemplate(
        key=name.lower().replace(" ", "_"),
        name=name,
        source="house value",
        prowess=1,
        dex_mod=0,
        hp=7,
        weapon="arming_sword",
        morale=morale,
    )


def fight() -> Encounter:
    """Ansel (Ann, WIS +1, proficiency 2, CHA +2), Bors (Bob), four Bandits (morale +1) led by the
    first, and two Skeletons (no morale number)."""
    encounter = Encounter(
        channel_id=100, guild_id=10, gm_id=GM, table=TableOptions(claim_pause=ClaimPause.NEVER)
    )
    encounter.join(ANN, character("Ansel", wisdom=1, proficiency=2, charisma=2), None)
    encounter.join(BOB, character("Bors", wisdom=-1, proficiency=3), None)
    encounter.add_npcs(template("Bandit"), None, count=4, group="Bandits", leader=True, morale=1)
    encounter.add_npcs(template("Skeleton", morale=None), None, count=2, group="Skeletons")
    return encounter


def dealt(*codes: str) -> Encounter:
    """The fight with cards dealt to Ansel, Bors, Bandits, Skeletons in that order (R1, R2)."""
    encounter = fight()
    encounter.initiative.deck = deck_dealing(*codes)
    encounter.deal(NO_DICE)
    return encounter


def bandits(encounter: Encounter) -> list[Combatant]:
    return [c for c in encounter.combatants if c.group == "Bandits"]


def refused(encounter: Encounter, action: Callable[[], Any], match: str) -> None:
    before = encounter.model_dump()
    with pytest.raises(RulesError, match=match):
        action()
    assert encounter.model_dump() == before


# ----------------------------------------------------------------------------- snapshots (R22)


def test_r22_member_status_reads_down_unconscious_routed_and_frightened() -> None:
    encounter = fight()
    one, two, three, four = bandits(encounter)
    one.hp = 0
    two.nonlethal = two.hp
    three.standing = MoraleStanding.ROUTED
    four.standing = MoraleStanding.FRIGHTENED
    assert [member_status(c) for c in (one, two, three, four)] == [
        MemberStatus.DOWN,
        MemberStatus.DOWN,
        MemberStatus.FLED,
        MemberStatus.DISABLED,
    ]
    skeleton = encounter.combatant("Skeleton 1")
    assert member_status(skeleton) is MemberStatus.ACTIVE


def test_r22_group_snapshot_has_the_members_the_leader_and_is_an_npc_group() -> None:
    encounter = fight()
    snapshot = group_snapshot(encounter, "bandits")  # any case
    assert snapshot.name == "Bandits"
    assert not snapshot.player_characters
    assert [(m.name, m.is_leader) for m in snapshot.members] == [
        ("Bandit 1", True),
        ("Bandit 2", False),
        ("Bandit 3", False),
        ("Bandit 4", False),
    ]
    assert group_snapshot(encounter, "Nobody").members == ()


# ----------------------------------------------------------------------------- proposals (R22)


def test_r22_a_leader_going_down_proposes_one_check_numbered_from_next_proposal() -> None:
    encounter = dealt("KS", "QS", "JS", "10S")
    encounter.next_proposal = 7
    before = group_snapshot(encounter, "Bandits")
    bandits(encounter)[0].hp = -3
    [proposal] = propose_checks(encounter, before)
    assert proposal.id == 7
    assert proposal.group == "Bandits"
    assert proposal.reason is MoraleTriggerReason.LEADER_LOST
    assert "Bandit 1, the leader, is down" in proposal.detail
    assert proposal.round == 1
    assert encounter.morale_proposals == [proposal]
    assert encounter.next_proposal == 8


def test_r22_the_leader_and_half_the_group_at_once_propose_one_check_naming_both() -> None:
    """The group makes one check whatever set it off: one proposal, one button for the GM."""
    encounter = fight()
    before = group_snapshot(encounter, "Bandits")
    first, second, *_ = bandits(encounter)
    first.hp = 0
    second.standing = MoraleStanding.ROUTED
    [proposal] = propose_checks(encounter, before)
    assert (proposal.id, proposal.reason) == (1, MoraleTriggerReason.LEADER_LOST)
    assert proposal.detail == "Bandit 1, the leader, is down. 2 of 4 are out of the fight."


def test_r22_a_group_with_an_open_proposal_is_not_proposed_another() -> None:
    encounter = fight()
    one, two, three, _ = bandits(encounter)
    before = group_snapshot(encounter, "Bandits")
    two.hp = 0
    three.hp = 0
    assert [p.reason for p in propose_checks(encounter, before)] == [MoraleTriggerReason.HALF_DOWN]
    # The leader falls while the first proposal is still open: the one check will answer both.
    before = group_snapshot(encounter, "Bandits")
    one.hp = 0
    assert propose_checks(encounter, before) == []
    assert [p.id for p in encounter.morale_proposals] == [1]
    # Once it is settled, a new trigger is a new proposal.
    assert dismiss_proposal(encounter, 1).id == 1  # the GM declines: nothing is rolled
    assert encounter.morale_proposals == []
    two.hp = three.hp = 5
    before = group_snapshot(encounter, "Bandits")
    two.hp = 0
    assert [p.id for p in propose_checks(encounter, before)] == [2]


def test_r22_nothing_changed_or_a_leaderless_loss_below_half_proposes_nothing() -> None:
    encounter = fight()
    before = group_snapshot(encounter, "Bandits")
    assert propose_checks(encounter, before) == []
    bandits(encounter)[3].hp = 0  # one of four, not the leader
    assert propose_checks(encounter, before) == []
    assert encounter.next_proposal == 1


def test_r21_r22_a_group_without_morale_is_proposed_no_check() -> None:
    """R22 would propose from the group's losses, but R21 makes every Skeleton immune: the GM is not
    asked about a check nobody would roll."""
    encounter = fight()
    before = group_snapshot(encounter, "Skeletons")
    encounter.combatant("Skeleton 1").hp = 0
    assert propose_checks(encounter, before) == []
    assert encounter.morale_proposals == []


# ----------------------------------------------------------------------------- the check (R21)


def test_r21_an_npc_checks_with_its_morale_number_and_a_fail_routs() -> None:
    encounter = fight()
    bandit = bandits(encounter)[1]
    report = check_morale(encounter, [bandit], ScriptedDice([9]))
    [(who, result)] = report.results
    assert who is bandit
    assert [(m.label, m.value) for m in result.modifiers] == [("morale", 1)]
    assert result.total == 10
    assert not result.passed
    assert bandit.standing is MoraleStanding.ROUTED


def test_r21_eleven_passes_and_cannot_escape_frightens_instead_of_routing() -> None:
    encounter = fight()
    first, second, *_ = bandits(encounter)
    report = check_morale(encounter, [first, second], ScriptedDice([10, 2]), can_escape=False)
    assert [r.total for _, r in report.results] == [11, 3]
    assert first.standing is MoraleStanding.STEADY
    assert second.standing is MoraleStanding.FRIGHTENED
    assert report.failed == [second]


def test_r21_a_pc_checks_with_wis_and_proficiency_and_disadvantage_keeps_the_lower_die() -> None:
    encounter = fight()
    ansel = encounter.combatant("Ansel")
    report = check_morale(encounter, [ansel], ScriptedDice([17, 7]), advantage=Advantage.DISADVANTAGE)
    [(_, result)] = report.results
    assert [(m.label, m.value) for m in result.modifiers] == [("WIS", 1), ("proficiency", 2)]
    assert result.roll is not None
    assert result.roll.value == 7
    assert result.total == 10
    assert ansel.standing is MoraleStanding.ROUTED


def test_r21_monsters_without_morale_roll_nothing() -> None:
    encounter = fight()
    report = check_group(encounter, "Skeletons", NO_DICE)
    assert [r.immune for _, r in report.results] == [True, True]
    assert all(c.standing is MoraleStanding.STEADY for c, _ in report.results)


def test_r3_the_joker_adds_2_to_morale_on_its_own_turn_only() -> None:
    """R3: the Bandits hold the Joker and it is their turn; Ansel's check, off his turn, gets nothing."""
    encounter = dealt("2C", "3C", "BJ", "4C")
    assert encounter.initiative.turn_of == bandits(encounter)[0].holder
    report = check_morale(
        encounter, [bandits(encounter)[0], encounter.combatant("Ansel")], ScriptedDice([8, 8])
    )
    bandit_check, ansel_check = (result for _, result in report.results)
    assert [(m.label, m.value) for m in bandit_check.modifiers] == [("morale", 1), ("Joker", 2)]
    assert bandit_check.total == 11
    assert bandit_check.passed
    assert [m.label for m in ansel_check.modifiers] == ["WIS", "proficiency"]


def test_r21_the_fallen_and_the_already_routed_are_passed_over() -> None:
    encounter = fight()
    one, two, three, four = bandits(encounter)
    one.hp = 0
    two.standing = MoraleStanding.ROUTED
    report = check_group(encounter, "Bandits", ScriptedDice([15, 15]))
    assert [c for c, _ in report.results] == [three, four]
    assert [(p.combatant.name, p.why) for p in report.passed_over] == [
        ("Bandit 1", "down"),
        ("Bandit 2", "already routed"),
    ]
    assert two.standing is MoraleStanding.ROUTED


def test_r21_a_check_nobody_can_make_is_refused_unchanged() -> None:
    encounter = fight()
    bandit = bandits(encounter)[0]
    bandit.standing = MoraleStanding.FRIGHTENED
    refused(encounter, lambda: check_morale(encounter, [bandit], NO_DICE), "already frightened.*rally")
    refused(encounter, lambda: check_group(encounter, "Ghosts", NO_DICE), "No NPC group called 'Ghosts'")


def test_r22_a_whole_group_check_settles_its_proposals_and_a_single_members_does_not() -> None:
    encounter = fight()
    before = group_snapshot(encounter, "Bandits")
    bandits(encounter)[0].hp = 0
    [proposal] = propose_checks(encounter, before)
    check_morale(encounter, [bandits(encounter)[1]], ScriptedDice([15]))
    assert open_proposals(encounter) == [proposal]
    report = check_group(encounter, "Bandits", ScriptedDice([15, 15, 15]))
    assert report.settled == [proposal]
    assert open_proposals(encounter) == []


# ----------------------------------------------------------------------------- confirming (R22)


def test_r22_confirming_a_proposal_rolls_the_group_once_and_a_second_confirmation_is_refused() -> None:
    encounter = fight()
    before = group_snapshot(encounter, "Bandits")
    bandits(encounter)[0].hp = 0
    bandits(encounter)[1].hp = 0
    [first] = propose_checks(encounter, before)
    rolled = roll_proposal(encounter, first.id, ScriptedDice([4, 12]))
    assert rolled.proposal == first
    assert rolled.report is not None
    assert [(c.name, c.standing) for c, _ in rolled.report.results] == [
        ("Bandit 3", MoraleStanding.ROUTED),
        ("Bandit 4", MoraleStanding.STEADY),
    ]
    assert rolled.report.settled == [first]
    with pytest.raises(ProposalResolved):
        roll_proposal(encounter, first.id, NO_DICE)
    refused(encounter, lambda: roll_proposal(encounter, 99, NO_DICE), "no morale proposal #99")


def test_r22_a_group_with_nobody_left_to_check_settles_without_a_roll() -> None:
    encounter = fight()
    before = group_snapshot(encounter, "Bandits")
    bandits(encounter)[0].hp = 0
    [first] = propose_checks(encounter, before)
    for bandit in bandits(encounter):
        bandit.hp = 0
    rolled = roll_proposal(encounter, first.id, NO_DICE)
    assert rolled.report is None
    assert open_proposals(encounter) == []
    before = group_snapshot(encounter, "Bandits")
    bandits(encounter)[3].hp = 5
    assert propose_checks(encounter, before) == []  # nothing new happened to the group


# ----------------------------------------------------------------------------- the rally (R23)


def test_r23_the_leader_rallies_routed_allies_normally_and_frightened_ones_at_disadvantage() -> None:
    encounter = dealt("2C", "3C", "KS", "4C")  # the Bandits' turn (no Joker)
    leader, routed, frightened, steady = bandits(encounter)
    leader.cha_mod = 1
    routed.standing = MoraleStanding.ROUTED
    frightened.standing = MoraleStanding.FRIGHTENED
    # CHA: 10 + 1 = 11 succeeds (one die: the leader has no disadvantage). Then the routed ally's
    # 12 + 1 passes; the frightened ally rolls 18 and 5, keeps 5 (R10): 6 fails.
    report = rally_allies(encounter, leader, ScriptedDice([10, 12, 18, 5]))
    assert report.result.success
    assert report.result.is_leader
    assert report.result.roll.faces == (10,)
    assert report.allies == [routed, frightened]
    assert routed.standing is MoraleStanding.STEADY
    assert frightened.standing is MoraleStanding.FRIGHTENED
    assert steady.standing is MoraleStanding.STEADY


def test_r23_a_non_leader_rallies_at_disadvantage_and_a_failed_cha_check_changes_nothing() -> None:
    encounter = dealt("2C", "3C", "KS", "4C")
    _, rallier, routed, _ = bandits(encounter)
    routed.standing = MoraleStanding.ROUTED
    report = rally_allies(encounter, rallier, ScriptedDice([19, 9]))
    assert not report.result.is_leader
    assert report.result.advantage is Advantage.DISADVANTAGE
    assert report.result.total == 9
    assert not report.result.success
    assert report.allies == []
    assert routed.standing is MoraleStanding.ROUTED


def test_r23_a_pc_rallies_the_party_on_its_own_turn() -> None:
    encounter = dealt("KS", "3C", "2C", "4C")  # Ansel's turn
    ansel, bors = encounter.combatant("Ansel"), encounter.combatant("Bors")
    bors.standing = MoraleStanding.ROUTED
    bandits(encounter)[1].standing = MoraleStanding.ROUTED  # an enemy: not Ansel's to rally
    # Ansel is no group's leader: CHA at disadvantage, 15 and 14 keep 14, +2 = 16. Bors: 9 - 1 + 3 = 11.
    report = rally_allies(encounter, ansel, ScriptedDice([15, 14, 9]))
    assert report.result.success
    assert report.allies == [bors]
    assert bors.standing is MoraleStanding.STEADY
    assert bandits(encounter)[1].standing is MoraleStanding.ROUTED


def test_r23_refusals_roll_nothing_and_change_nothing() -> None:
    encounter = dealt("2C", "3C", "KS", "4C")  # the Bandits' turn
    leader, other, _, _ = bandits(encounter)
    refused(encounter, lambda: rally_allies(encounter, leader, NO_DICE), "nobody routed or frightened")
    other.standing = MoraleStanding.ROUTED
    leader.standing = MoraleStanding.ROUTED
    refused(encounter, lambda: rally_allies(encounter, leader, NO_DICE), "routed and cannot rally")
    leader.standing = MoraleStanding.STEADY
    leader.hp = 0
    refused(encounter, lambda: rally_allies(encounter, leader, NO_DICE), "down and cannot rally")
    ansel = encounter.combatant("Ansel")
    encounter.combatant("Bors").standing = MoraleStanding.ROUTED
    refused(encounter, lambda: rally_allies(encounter, ansel, NO_DICE), "only on their own turn")


# ----------------------------------------------------------------------------- the operations, stored

CHANNEL = 100
BY = "Gamemaster"


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    """A real SQLite store in a file of its own; the tests put a fight in #100 first."""
    opened = await open_store(tmp_path / "pommel.db")
    try:
        yield opened
    finally:
        await opened.close()


async def stored(store: Store, encounter: Encounter) -> Encounter:
    return await store.save_encounter(encounter)


async def morale_log(store: Store) -> list[str]:
    return [entry.text for entry in await store.read_log(channel_id=CHANNEL) if entry.kind == "morale"]


async def saved_fight(store: Store) -> Encounter:
    encounter = await store.load_encounter(CHANNEL)
    assert encounter is not None
    return encounter


def with_leader_down() -> Encounter:
    """The fight with Bandit 1, the Bandits' leader, down and the R22 check proposed (#1)."""
    encounter = fight()
    before = group_snapshot(encounter, "Bandits")
    bandits(encounter)[0].hp = 0
    propose_checks(encounter, before)
    return encounter


async def test_r21_a_check_called_for_a_group_is_one_change_with_its_log_line(store: Store) -> None:
    """The group picked from the autocomplete (its holder) checks: each standing is saved with the log
    line, and the result names the group for the announcement."""
    await stored(store, fight())
    saved, checked = await store.change(
        CHANNEL,
        GM,
        lambda e: morale.check(
            e, Actor(user_id=GM), who=group_holder("Bandits"), by=BY, dice=ScriptedDice([9, 10, 15, 2])
        ),
    )
    assert checked.who == "Bandits"
    assert [(c.name, r.total) for c, r in checked.report.results] == [
        ("Bandit 1", 10),
        ("Bandit 2", 11),
        ("Bandit 3", 16),
        ("Bandit 4", 3),
    ]
    standings = [c.standing for c in bandits(await saved_fight(store))]
    assert standings == [
        MoraleStanding.ROUTED,
        MoraleStanding.STEADY,
        MoraleStanding.STEADY,
        MoraleStanding.ROUTED,
    ]
    assert [c.standing for c in bandits(saved)] == standings
    assert await morale_log(store) == [
        "Gamemaster: morale check for Bandits: Bandit 1 9 keep 9 +1 = 10 routed; "
        "Bandit 2 10 keep 10 +1 = 11 holds; Bandit 3 15 keep 15 +1 = 16 holds; "
        "Bandit 4 2 keep 2 +1 = 3 routed"
    ]


async def test_r21_one_combatant_checks_and_cannot_escape(store: Store) -> None:
    await stored(store, fight())
    _, checked = await store.change(
        CHANNEL,
        GM,
        lambda e: morale.check(
            e,
            Actor(user_id=GM),
            who="Ansel",
            by=BY,
            dice=ScriptedDice([7, 4]),
            advantage=Advantage.DISADVANTAGE,
            can_escape=False,
        ),
    )
    assert checked.who == "Ansel"
    assert (await saved_fight(store)).combatant("Ansel").standing is MoraleStanding.FRIGHTENED
    assert await morale_log(store) == [
        "Gamemaster: morale check for Ansel with disadvantage (cannot escape): "
        "Ansel 7/4 keep 4 +3 = 7 frightened"
    ]


async def test_only_the_gm_calls_a_check_or_rules_on_morale_and_a_refusal_saves_nothing(store: Store) -> None:
    before = await stored(store, fight())
    player = Actor(user_id=ANN)
    with pytest.raises(NotAllowed, match="call for a morale check"):
        await store.change(
            CHANNEL, ANN, lambda e: morale.check(e, player, who="Bandits", by="Ann", dice=NO_DICE)
        )
    with pytest.raises(NotAllowed, match="rule on morale"):
        await store.change(
            CHANNEL,
            ANN,
            lambda e: morale.rule_standing(
                e, player, who="Bandit 2", standing=MoraleStanding.ROUTED, by="Ann"
            ),
        )
    assert await saved_fight(store) == before
    assert await morale_log(store) == []


async def test_r23_a_rally_is_one_change_with_its_log_line(store: Store) -> None:
    encounter = dealt("2C", "3C", "KS", "4C")  # the Bandits' turn (no Joker)
    leader, routed, _, _ = bandits(encounter)
    leader.cha_mod = 1
    routed.standing = MoraleStanding.ROUTED
    await stored(store, encounter)
    # CHA 10 + 1 = 11 succeeds (the leader: one die); Bandit 2's morale re-roll 12 + 1 passes.
    _, report = await store.change(
        CHANNEL,
        GM,
        lambda e: morale.rally(e, Actor(user_id=GM), who="Bandit 1", by=BY, dice=ScriptedDice([10, 12])),
    )
    assert report.result.success
    assert [ally.name for ally in report.allies] == ["Bandit 2"]
    assert (await saved_fight(store)).combatant("Bandit 2").standing is MoraleStanding.STEADY
    assert await morale_log(store) == [
        "Gamemaster: Bandit 1 rallied (CHA 10 keep 10 +1 = 11) and succeeded; back: Bandit 2"
    ]


async def test_r21_the_gm_rules_a_standing_and_the_same_one_again_is_refused(store: Store) -> None:
    encounter = fight()
    bandits(encounter)[1].standing = MoraleStanding.ROUTED
    await stored(store, encounter)
    gm = Actor(user_id=GM)
    _, ruled = await store.change(
        CHANNEL,
        GM,
        lambda e: morale.rule_standing(e, gm, who="Bandit 2", standing=MoraleStanding.FRIGHTENED, by=BY),
    )
    assert (ruled.combatant.name, ruled.previous) == ("Bandit 2", MoraleStanding.ROUTED)
    assert ruled.combatant.standing is MoraleStanding.FRIGHTENED
    saved = await saved_fight(store)
    assert saved.combatant("Bandit 2").standing is MoraleStanding.FRIGHTENED
    with pytest.raises(RulesError, match="already frightened"):
        await store.change(
            CHANNEL,
            GM,
            lambda e: morale.rule_standing(e, gm, who="Bandit 2", standing=MoraleStanding.FRIGHTENED, by=BY),
        )
    assert await saved_fight(store) == saved
    assert await morale_log(store) == ["Gamemaster: Bandit 2 is now frightened (was routed)"]


async def test_r22_confirming_a_proposal_rolls_once_and_logs_the_check(store: Store) -> None:
    await stored(store, with_leader_down())
    gm = Actor(user_id=GM)
    _, rolled = await store.change(
        CHANNEL, GM, lambda e: morale.confirm(e, gm, proposal_id=1, by=BY, dice=ScriptedDice([4, 12, 13]))
    )
    assert rolled.proposal.id == 1
    assert rolled.report is not None
    saved = await saved_fight(store)
    assert saved.morale_proposals == []
    assert saved.combatant("Bandit 2").standing is MoraleStanding.ROUTED
    with pytest.raises(ProposalResolved):
        await store.change(CHANNEL, GM, lambda e: morale.confirm(e, gm, proposal_id=1, by=BY, dice=NO_DICE))
    assert await saved_fight(store) == saved
    assert await morale_log(store) == [
        "Gamemaster: morale check for Bandits: Bandit 2 4 keep 4 +1 = 5 routed; "
        "Bandit 3 12 keep 12 +1 = 13 holds; Bandit 4 13 keep 13 +1 = 14 holds"
    ]


async def test_r22_a_proposal_with_nobody_left_to_check_is_settled_with_its_log_line(store: Store) -> None:
    encounter = with_leader_down()
    for bandit in bandits(encounter):
        bandit.hp = 0
    await stored(store, encounter)
    _, rolled = await store.change(
        CHANNEL, GM, lambda e: morale.confirm(e, Actor(user_id=GM), proposal_id=1, by=BY, dice=NO_DICE)
    )
    assert rolled.report is None
    assert (await saved_fight(store)).morale_proposals == []
    assert await morale_log(store) == [
        "Gamemaster: morale proposal #1 for Bandits settled, nobody left to check"
    ]


async def test_r22_the_gm_dismisses_a_proposal_only_the_gm(store: Store) -> None:
    await stored(store, with_leader_down())
    with pytest.raises(NotAllowed, match="dismiss a proposed morale check"):
        await store.change(
            CHANNEL, ANN, lambda e: morale.dismiss(e, Actor(user_id=ANN), proposal_id=1, by="Ann")
        )
    _, dismissed = await store.change(
        CHANNEL, GM, lambda e: morale.dismiss(e, Actor(user_id=GM), proposal_id=1, by=BY)
    )
    assert (dismissed.id, dismissed.group) == (1, "Bandits")
    saved = await saved_fight(store)
    assert saved.morale_proposals == []
    assert [c.standing for c in bandits(saved)] == [MoraleStanding.STEADY] * 4  # nothing rolled
    assert await morale_log(store) == ["Gamemaster: no morale check for Bandits (proposal #1, leader lost)"]


# ----------------------------------------------------------------------------- recheck, Demoralized (R21)


def test_r21_the_routed_recheck_once_an_exploration_turn_and_a_pass_returns_them_to_normal() -> None:
    """Lords of Hack: "Routed characters/monsters may recheck morale every exploration turn once they
    have escaped the vicinity of their defeat to attempt to return to normal, but the GM may rule them
    to be Demoralized if the defeat was especially severe." A routed combatant could not check again
    at all (only a rally brought it back): the GM's /morale recheck rolls for the Routed of a group, a
    pass back to Steady, a fail still Routed, and not again before an exploration turn (100 rounds of
    6 s) has passed."""
    encounter = dealt("KS", "QS", "JS", "10S")
    first, second, third, _ = bandits(encounter)
    first.standing = second.standing = MoraleStanding.ROUTED
    third.standing = MoraleStanding.DEMORALIZED
    done = morale.recheck(encounter, Actor(user_id=GM), who="Bandits", by="gm", dice=ScriptedDice([10, 9]))
    report = done.result.report
    assert report.recheck
    assert [(c.name, r.total, c.standing) for c, r in report.results] == [
        ("Bandit 1", 11, MoraleStanding.STEADY),
        ("Bandit 2", 10, MoraleStanding.ROUTED),
    ]
    assert (first.standing, second.standing) == (MoraleStanding.STEADY, MoraleStanding.ROUTED)
    assert [(p.combatant.name, p.why) for p in report.passed_over] == [
        ("Bandit 3", "demoralized: no recheck brings it back (R21)"),
        ("Bandit 4", "steady, not routed"),
    ]
    assert done.log[0].startswith("gm: morale recheck for Bandits: ")
    refused(
        encounter,
        lambda: morale.recheck(encounter, Actor(user_id=GM), who=second.name, by="gm", dice=NO_DICE),
        "already rechecked this exploration turn",
    )
    encounter.initiative.round += 100
    morale.recheck(encounter, Actor(user_id=GM), who=second.name, by="gm", dice=ScriptedDice([15]))
    assert second.standing is MoraleStanding.STEADY


def test_r21_r23_the_demoralized_are_not_rallied_and_flee_like_the_routed() -> None:
    """The GM may rule the Routed "Demoralized if the defeat was especially severe": a rally, which
    returns "Routed or Frightened allies to normal", does not reach them; they count as fled (R22)."""
    encounter = dealt("KS", "QS", "JS", "10S")
    leader, demoralized = bandits(encounter)[:2]
    morale.rule_standing(
        encounter, Actor(user_id=GM), who=demoralized.name, standing=MoraleStanding.DEMORALIZED, by="gm"
    )
    assert member_status(demoralized) is MemberStatus.FLED
    encounter.initiative.turn_of = leader.holder
    refused(
        encounter,
        lambda: morale.rally(encounter, Actor(user_id=GM), who=leader.name, by="gm", dice=ScriptedDice([20])),
        "nobody routed or frightened to rally",
    )
