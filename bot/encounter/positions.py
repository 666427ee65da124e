"""``/situation``: where combatants stand in the fight, as the Lords of Hack situations read it (R25).

A combatant's :class:`~bot.encounter.combatants.Position` (shield wall, scaling, unseen, cover, an ally
beside it, the horse it rides), its prone or incapacitated condition, and the distance between a
pair for missiles. The attacks read them (:func:`~bot.encounter.fighters.attack_state`); the tracker
shows them. Mounting and dismounting cost what the text says (a full round, a move, or a quick action
with a Riding or Acrobatics check the player rolls).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum

from ..catalog import Catalog
from ..rules import movement
from ..rules.armor_class import Opening
from ..rules.engagement import Distance, Range
from ..rules.errors import IllegalAction, RulesError, shown
from ..rules.pool import Spend
from ..wording.phrases import Change
from ..wording.roster import position_log_line
from .combatants import Combatant
from .document import Encounter
from .done import Done
from .fighters import ally_beside, mount_of, require_actions_left
from .permissions import Actor, require_control, require_turn

MAX_COVER = 100
"""Cover is given in percent, in steps of 25 (R14, R25)."""


class OpeningChoice(StrEnum):
    """What the combatant shoots from, if anything (R25: a minimum AC against missiles)."""

    NONE = "none"
    WINDOW = "window"
    ARROW_SLIT = "arrow slit"

    @property
    def opening(self) -> Opening | None:
        return {OpeningChoice.WINDOW: Opening.WINDOW, OpeningChoice.ARROW_SLIT: Opening.ARROW_SLIT}.get(self)


def opening_label(opening: Opening | None) -> str:
    """The opening as the reply and the tracker name it."""
    if opening is None:
        return "none"
    return {Opening.WINDOW: "behind a window (AC 17+)", Opening.ARROW_SLIT: "behind an arrow slit (AC 21+)"}[
        opening
    ]


class QuickCheck(StrEnum):
    """A quick action (R25): the check the player rolled (Riding or Acrobatics to mount or dismount,
    Acrobatics or Athletics to get up from prone)."""

    PASSED = "passed"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class PositionChange:
    """What ``/situation set`` asked for; None leaves a thing as it is. ``beside`` names an ally, or
    ``"none"`` for none."""

    shield_wall: bool | None = None
    scaling: bool | None = None
    unseen: bool | None = None
    cover: int | None = None
    opening: OpeningChoice | None = None
    prone: bool | None = None
    incapacitated: bool | None = None
    beside: str | None = None
    get_up_check: QuickCheck | None = None
    """R25: getting up from prone as a quick action, with the Acrobatics or Athletics check rolled."""

    @property
    def empty(self) -> bool:
        return all(getattr(self, f.name) is None for f in fields(self))


@dataclass(frozen=True, slots=True)
class Repositioned:
    """What a ``/situation`` command changed: whose, and each change (label, old, new)."""

    combatant: Combatant
    changes: list[Change]
    notes: list[str]


def _yes(value: bool) -> str:
    return "yes" if value else "no"


def set_position(
    encounter: Encounter, catalog: Catalog, actor: Actor, by: str, who: str, change: PositionChange
) -> Done[Repositioned]:
    """Change where ``who`` stands (its player or the GM). Checked before anything changes: a shield
    wall needs a shield; a mount or a rider cannot scale (horses cannot); cover is 0 to 100% in steps
    of 25; the ally beside must be on the same side; getting up from prone in a round is the
    combatant's own action, and costs what R25 says (:func:`_getting_up`)."""
    if change.empty:
        raise RulesError(
            "Say what to change: shield_wall, scaling, unseen, cover, opening, prone, incapacitated "
            "or beside."
        )
    combatant = encounter.combatant(who)
    require_control(encounter, actor, combatant, "change where they stand")
    position = combatant.position
    name = shown(combatant.name)
    if change.shield_wall and combatant.shield is None:
        raise IllegalAction(f"{name} has no shield: a shield wall is footmen with round shields (R25).")
    if change.shield_wall and position.mount is not None:
        raise IllegalAction(f"{name} is mounted: a shield wall is made by footmen (R25).")
    if change.scaling and (combatant.steed is not None or position.mount is not None):
        raise IllegalAction("Horses cannot scale walls, fences, ramparts, towers or buildings (R25).")
    if change.cover is not None and (change.cover % 25 or not 0 <= change.cover <= MAX_COVER):
        raise RulesError(
            "Cover is 0, 25, 50, 75 or 100 (percent): each 25% is a free die against missiles (R14)."
        )
    beside: Combatant | None = None
    if change.beside is not None and change.beside.strip().casefold() != "none":
        beside = encounter.combatant(change.beside)
        if beside.id == combatant.id:
            raise IllegalAction(f"{name} cannot stand beside themselves; name an ally.")
        if beside.side is not combatant.side:
            raise IllegalAction(
                f"{shown(beside.name)} is not {name}'s ally; side by side is with an ally (R25)."
            )
    getting_up = _getting_up(encounter, catalog, combatant, change)
    forming = change.shield_wall is True and not position.shield_wall and encounter.initiative.round > 0
    if forming:
        _require_wall_move(encounter, combatant)
    changes: list[Change] = []

    def put(label: str, field: str, value: object, shown_old: object, shown_new: object) -> None:
        if getattr(position, field) != value:
            changes.append((label, shown_old, shown_new))
            setattr(position, field, value)

    if change.shield_wall is not None:
        put(
            "shield wall",
            "shield_wall",
            change.shield_wall,
            _yes(position.shield_wall),
            _yes(change.shield_wall),
        )
    if change.scaling is not None:
        put("scaling", "scaling", change.scaling, _yes(position.scaling), _yes(change.scaling))
    if change.unseen is not None:
        put("unseen", "unseen", change.unseen, _yes(position.unseen), _yes(change.unseen))
    if change.cover is not None:
        quarters = change.cover // 25
        put("cover", "cover", quarters, f"{position.cover * 25}%", f"{change.cover}%")
    if change.opening is not None:
        wanted = change.opening.opening
        put("opening", "opening", wanted, opening_label(position.opening), opening_label(wanted))
    if change.beside is not None:
        old = ally_beside(encounter, combatant)
        put(
            "beside",
            "beside",
            beside.id if beside is not None else None,
            old.name if old is not None else "nobody",
            beside.name if beside is not None else "nobody",
        )
        if old is not None and old is not beside and old.position.beside == combatant.id:
            old.position.beside = None  # side by side goes both ways: the old partner stands alone
            changes.append((f"{old.name} beside", combatant.name, "nobody"))
    for condition, asked in (("prone", change.prone), ("incapacitated", change.incapacitated)):
        if asked is None or (condition == "prone" and getting_up is GettingUp.FAILED):
            continue
        has = combatant.condition_named(condition) is not None
        if asked and not has:
            combatant.add_condition(condition)
        elif has and not asked:
            combatant.remove_condition(condition)
        if asked != has:
            changes.append((condition, _yes(has), _yes(asked)))
    if beside is not None and beside.position.beside is None:
        beside.position.beside = combatant.id  # side by side goes both ways
        changes.append((f"{beside.name} beside", "nobody", combatant.name))
    notes: list[str] = []
    if forming:
        notes.append(_formed_wall(combatant))
    elif change.shield_wall and any(label == "shield wall" for label, _, _ in changes):
        notes.append(
            "Keeping a shield wall takes half of one's move (R25): one move of every round, from the next "
            "deal on."
        )
    if getting_up is GettingUp.FAILED:
        changes.append(("getting up", "prone", "check failed, still prone"))
    if getting_up is not None:
        notes.append(_got_up(encounter, combatant, getting_up))
    return Done(
        Repositioned(combatant, changes, notes),
        log=[position_log_line(by, combatant, changes)] if changes else [],
    )


def _require_wall_move(encounter: Encounter, combatant: Combatant) -> None:
    """R25, R19: forming a shield wall in a round takes a move of it, on the combatant's own turn."""
    name = shown(combatant.name)
    require_turn(encounter, combatant, "form a shield wall")
    require_actions_left(encounter, combatant, "form a shield wall")
    if combatant.moves >= movement.MAX_WALKING_MOVES:
        raise IllegalAction(
            f"{name} has made every move of the round (R19), and forming a shield wall takes half of one's "
            "move (R25): form it on its next turn."
        )
    if combatant.moves >= movement.FREE_MOVES and combatant.pool.remaining < 1:
        raise IllegalAction(
            f"{name} has made its free move and has no Martial Pool die left for another (R19), and forming "
            "a shield wall takes half of one's move (R25): form it on its next turn."
        )


def _formed_wall(combatant: Combatant) -> str:
    """R25: "It takes half of one's move allowance to form or maintain a shield wall": forming it takes a
    move of the round (free as the first, else a die, R19); keeping it, one move of every round after."""
    done = movement.move(combatant.pool, combatant.moves)
    combatant.moves = done.moves_this_round
    cost = "free" if not done.cost else f"1 die, {done.dice_left} left"
    return (
        f"Forming a shield wall takes half of {shown(combatant.name)}'s move (R25): move "
        f"{done.moves_this_round} of the round, {cost} (R19); keeping it takes one move of every round."
    )


class GettingUp(StrEnum):
    """R25: how a prone combatant gets up in a round, and so what it costs."""

    ARMED = "armed"
    """Carrying combat arms: "takes an entire round's actions"."""
    EMPTY_HANDED = "empty-handed"
    """Holding nothing (or only natural weapons): "it only takes an Active action"."""
    PASSED = "quick, passed"
    FAILED = "quick, failed"


def carries_arms(catalog: Catalog, combatant: Combatant) -> bool:
    """R25: whether ``combatant`` holds combat arms: a weapon that is not its bare hands or a natural one
    (bite, hooves), a second weapon, or a shield."""
    weapon = catalog.weapons.get(combatant.weapon)
    armed = weapon is None or weapon.kind != "unarmed"
    return armed or combatant.off_hand is not None or combatant.shield is not None


def _getting_up(
    encounter: Encounter, catalog: Catalog, combatant: Combatant, change: PositionChange
) -> GettingUp | None:
    """R25: whether ``change`` gets a prone combatant up during a round, and how; checked before anything
    changes. "Getting up from a prone position, while carrying combat arms, takes an entire round's
    actions. If one leaves one's weapons/shield on the ground, or was not holding anything in their
    hands to begin with, it only takes an Active action. One can attempt to leap to one's feet fully
    armed as a quick action, but must make an Acrobatics or Athletics check." It is the combatant's own
    action, on its turn; before the first deal standing up costs nothing."""
    rising = change.prone is False and combatant.condition_named("prone") is not None
    if not rising or not encounter.initiative.round:
        if change.get_up_check is not None:
            raise IllegalAction(
                "`get_up_check:` is the Acrobatics or Athletics check for leaping up from prone as a quick "
                "action (R25): give it with `prone: False`, for a prone combatant, once the fight is dealt."
            )
        return None
    name = shown(combatant.name)
    if encounter.initiative.turn_of != combatant.holder:
        raise IllegalAction(
            f"Getting up is {name}'s own action, on its turn (R25). To correct the record instead, "
            "remove the condition with `/combatant condition`."
        )
    require_actions_left(encounter, combatant, "get up")
    if change.get_up_check is not None:
        return GettingUp.PASSED if change.get_up_check is QuickCheck.PASSED else GettingUp.FAILED
    if not carries_arms(catalog, combatant):
        if any(blow.by == combatant.id for blow in encounter.blows):
            raise IllegalAction(
                f"Getting up takes {name}'s active action (R25), and it has already attacked this round."
            )
        return GettingUp.EMPTY_HANDED
    _require_whole_round(
        encounter,
        combatant,
        f"Getting up while carrying combat arms takes a whole round (R25), and {name} has already moved "
        "or attacked this round: get up on its next turn, leap up as a quick action with the Acrobatics "
        "or Athletics check rolled (`get_up_check:`), or leave its arms on the ground first (the GM: "
        "`/combatant edit weapon:unarmed shield:none`).",
    )
    return GettingUp.ARMED


def _got_up(encounter: Encounter, combatant: Combatant, how: GettingUp) -> str:
    """What getting up cost (R25), put on the combatant."""
    name = shown(combatant.name)
    round_ = encounter.initiative.round
    if how is GettingUp.PASSED:
        return f"{name} leaps up as a quick action: the Acrobatics or Athletics check passed (R25)."
    if how is GettingUp.FAILED:
        return f"The Acrobatics or Athletics check failed: {name} stays prone (R25)."
    if how is GettingUp.EMPTY_HANDED:
        combatant.attack_forfeit_round = round_
        return (
            f"Getting up with empty hands takes {name}'s active action (R25): no attack this round; it may "
            "still move."
        )
    combatant.forfeit_round = round_
    combatant.moves = max(combatant.moves, movement.MAX_WALKING_MOVES)
    return (
        f"Getting up while carrying combat arms takes {name}'s whole round (R25): no move and no attack "
        "left this round."
    )


def set_distance(
    encounter: Encounter, actor: Actor, by: str, who: str, other: str, distance: Distance
) -> Done[Repositioned]:
    """R25: how far apart two combatants are for missiles (the player of either, or the GM). A pair
    at Melee or Grapple is near by definition."""
    first, second = encounter.combatant(who), encounter.combatant(other)
    if first.id == second.id:
        raise IllegalAction("A distance is between two combatants; name another one.")
    require_control(encounter, actor, first, "set distances")
    engagement = encounter.engagement(first, second)
    if distance is not Distance.NEAR and engagement.range is not Range.ONSET:
        raise IllegalAction(
            f"{shown(first.name)} and {shown(second.name)} are at {engagement.range.label} range, "
            "so they are near each other: leave combat range first (/range)."
        )
    changes: list[Change] = []
    if engagement.distance is not distance:
        changes.append((f"distance to {second.name}", engagement.distance.label, distance.label))
        engagement.distance = distance
    return Done(
        Repositioned(first, changes, []), log=[position_log_line(by, first, changes)] if changes else []
    )


def mount(
    encounter: Encounter, actor: Actor, by: str, who: str, horse: str, quick: QuickCheck | None
) -> Done[Repositioned]:
    """R25: mounting takes a full round (no quick, move or active action left), or a quick action with
    a Riding or Acrobatics check; a failed check leaves the rider prone and its round forfeit."""
    rider, steed = encounter.combatant(who), encounter.combatant(horse)
    require_control(encounter, actor, rider, "mount")
    rider.require_able("mount")
    name = shown(rider.name)
    if steed.steed is None:
        raise IllegalAction(
            f"{shown(steed.name)} is not a mount: the GM makes it one with `/combatant edit steed:`, or adds "
            "a horse with `/npc add template:warhorse`."
        )
    if rider.steed is not None:
        raise IllegalAction(f"{name} is a mount and cannot ride.")
    if mount_of(encounter, rider) is not None:
        raise IllegalAction(f"{name} is already mounted; dismount first.")
    other = next((c for c in encounter.combatants if c.position.mount == steed.id), None)
    if other is not None:
        raise IllegalAction(f"{shown(other.name)} already rides {shown(steed.name)}.")
    if rider.position.scaling or rider.position.shield_wall:
        raise IllegalAction(f"{name} is scaling or in a shield wall; leave it first (/situation set).")
    _require_own_action(encounter, rider, "mount")
    if quick is None:
        _require_whole_round(
            encounter,
            rider,
            f"Mounting takes a whole round (R25), and {name} has already moved or attacked this round: "
            "mount on its next turn, or as a quick action with the Riding or Acrobatics check rolled "
            "(`quick_check:`).",
        )
    notes = [_forfeits(encounter, rider, quick, "Mounting")]
    changes: list[Change] = []
    if quick is not QuickCheck.FAILED:
        rider.position.mount = steed.id
        changes.append(("mounted", "no", steed.name))
    else:
        _fall_prone(rider, changes)
    return Done(Repositioned(rider, changes, notes), log=[position_log_line(by, rider, changes, notes)])


def dismount(
    encounter: Encounter, actor: Actor, by: str, who: str, quick: QuickCheck | None
) -> Done[Repositioned]:
    """R25: dismounting takes a move action, or a quick action with a Riding or Acrobatics check; a
    failed check leaves the rider prone (on the ground, off the horse) and its round forfeit."""
    rider = encounter.combatant(who)
    require_control(encounter, actor, rider, "dismount")
    steed = mount_of(encounter, rider)
    if steed is None:
        raise IllegalAction(f"{shown(rider.name)} is not mounted.")
    _require_own_action(encounter, rider, "dismount")
    if quick is None:
        notes = [_dismounting_move(encounter, rider)]
    else:
        notes = [_forfeits(encounter, rider, quick, "Dismounting")]
    rider.position.mount = None
    changes: list[Change] = [("mounted", steed.name, "no")]
    if quick is QuickCheck.FAILED:
        _fall_prone(rider, changes)
    return Done(Repositioned(rider, changes, notes), log=[position_log_line(by, rider, changes, notes)])


def _require_own_action(encounter: Encounter, rider: Combatant, doing: str) -> None:
    """R25: mounting and dismounting are the rider's own actions (a full round, a move, or a quick
    action): on its turn, in a round it has not forfeited. Before the first deal they are free."""
    if not encounter.initiative.round:
        return
    if rider.holder in encounter.initiative.acted and encounter.initiative.turn_of != rider.holder:
        raise IllegalAction(
            f"{shown(rider.name)} has already acted this round: it can {doing} on its turn next round "
            "(mounting takes a whole round, dismounting a move, R25)."
        )
    require_turn(encounter, rider, doing)
    require_actions_left(encounter, rider, doing)


_OWN_ACTIONS = (Spend.ATTACK, Spend.MOVEMENT, Spend.RANGE_CHANGE, Spend.OTHER)


def _require_whole_round(encounter: Encounter, combatant: Combatant, refusal: str) -> None:
    """R25: what takes "a full round" (mounting, getting up armed) needs one: a combatant that already
    moved, attacked or changed range this round has none left, and is refused with ``refusal``."""
    if not encounter.initiative.round:
        return
    acted = combatant.moves > 0 or any(combatant.pool.spent.get(purpose) for purpose in _OWN_ACTIONS)
    if acted or any(blow.by == combatant.id for blow in encounter.blows):
        raise IllegalAction(refusal)


def _dismounting_move(encounter: Encounter, rider: Combatant) -> str:
    """R25, R19: "Dismounting from a horse takes a Move Action": one move of the round, free when it
    is the first, a die after that (refused when no move or die is left)."""
    name = shown(rider.name)
    if not encounter.initiative.round:
        return f"Dismounting takes {name}'s move action (R25); before the first deal it costs nothing."
    if rider.moves >= movement.MAX_WALKING_MOVES:
        raise IllegalAction(f"{name} has made every move of the round (R19): no move left to dismount.")
    done = movement.move(rider.pool, rider.moves)
    rider.moves = done.moves_this_round
    cost = "free" if not done.cost else f"1 die, {done.dice_left} left"
    return (
        f"Dismounting takes {name}'s move action (R25): move {done.moves_this_round} of the round, "
        f"{cost} (R19)."
    )


def _forfeits(encounter: Encounter, rider: Combatant, quick: QuickCheck | None, doing: str) -> str:
    """What mounting or a quick mount or dismount costs (R25), put on the rider: a forfeit round
    leaves no move and no attack of its own this round."""
    name = shown(rider.name)
    if quick is QuickCheck.PASSED:
        return f"{doing} as a quick action: the Riding or Acrobatics check passed (R25)."
    if not encounter.initiative.round and quick is None:  # no round yet: the field is set up for free
        return f"{doing} takes a whole round (R25); before the first deal it costs {name} nothing."
    rider.moves = max(rider.moves, 3)
    rider.forfeit_round = encounter.initiative.round
    encounter.initiative.use_turn(rider.holder)
    if quick is QuickCheck.FAILED:
        return (
            f"The Riding or Acrobatics check failed: {name} falls prone and forfeits the rest of the "
            "round (R25)."
        )
    return f"{doing} takes {name}'s whole round: no quick, move or active action left this round (R25)."


def _fall_prone(rider: Combatant, changes: list[Change]) -> None:
    if rider.condition_named("prone") is None:
        rider.add_condition("prone")
        changes.append(("prone", "no", "yes"))
