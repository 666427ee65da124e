"""``/init deal | next | hold | act`` and the tracker's buttons: one press on the card initiative.

The GM deals (R2, R5); the player whose turn it is (or the GM) moves on with Next or holds (R4); a
held card or a Joker claims the next turn with Act (R3, R4). A button carries the fight's step it
was drawn for (:attr:`bot.rules.turns.TurnFlow.step`), so a click on a button drawn for an earlier
moment is refused instead of advancing the fight a second time.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from ..rules.dice import DiceSource
from ..rules.errors import RulesError
from ..wording.initiative import initiative_log_line
from .combatants import Combatant, Lasting
from .document import Encounter, player_holder
from .done import Done
from .errors import NotAllowed, OtherFight, OutOfDate
from .morale import propose_mount_checks
from .permissions import Actor, is_gm, require_gm, require_plays_holder
from .reminders import note_wait
from .results import RanOut, TurnAction, TurnMove


def press(
    encounter: Encounter,
    action: TurnAction,
    actor: Actor,
    dice: DiceSource,
    *,
    step: int | None = None,
    holder: str | None = None,
    now: datetime | None = None,
    fight: str | None = None,
) -> Done[TurnMove]:
    """One initiative action by ``actor``, checked first (nothing changes if refused): a button's
    ``step`` must still be the fight's, and the actor must be allowed to do it. ``holder`` is the card
    Act is for (by holder or name; none: the actor's own, or the GM's only NPC claimant). ``now`` is
    when it happens (the caller's clock; a reminder counts from it). ``fight`` is the tag a button
    carried: a button of another fight in this channel (an ended one's tracker) moves nothing."""
    if fight is not None and fight != encounter.tag:
        raise OtherFight()
    if step is not None and step != encounter.flow.step:
        raise OutOfDate(OutOfDate.TURNS)
    move = apply(encounter, action, actor, dice, holder)
    note_wait(encounter, now or datetime.now(UTC))  # a reminder counts from here (bot.encounter.reminders)
    return Done(
        move,
        log=[initiative_log_line(encounter, move)],
        kind="initiative",
        repost=encounter.table.repost_tracker,
    )


def apply(
    encounter: Encounter, action: TurnAction, actor: Actor, dice: DiceSource, holder: str | None = None
) -> TurnMove:
    """The action itself, after its permission check."""
    state = encounter.initiative
    if action is TurnAction.DEAL:
        require_gm(encounter, actor, "deal the cards")
        dealt, advance = encounter.deal(dice)
        ran_out = _round_counted(encounter)
        return TurnMove(action, advance, actor.user_id, dealt, ran_out, propose_mount_checks(encounter))
    if action is TurnAction.NEXT:
        _require_may_move_on(encounter, actor)
        advance = encounter.next_turn()
    elif action is TurnAction.HOLD:
        if state.turn_of is None:
            raise RulesError("No turn is in progress, so there is nothing to hold.")
        require_plays_holder(encounter, actor, state.turn_of, "hold")
        advance = encounter.hold()
    else:
        return TurnMove(action, encounter.act(_claimant(encounter, actor, holder)), actor.user_id)
    ended = advance.ended.holder if advance.ended is not None else None
    return TurnMove(action, advance, actor.user_id, ran_out=_turn_ended(encounter, ended))


def _round_counted(encounter: Encounter) -> list[RanOut]:
    """At a deal, every condition lasting some rounds has one fewer; those at 0 run out."""
    return _run_out(encounter.combatants, _counts_a_round)


def _turn_ended(encounter: Encounter, holder: str | None) -> list[RanOut]:
    """When ``holder``'s turn ends, its combatants' conditions lasting to the end of their next turn
    run out (but for those put on during this very turn, which last to the end of the next one)."""
    if holder is None:
        return []
    return _run_out([c for c in encounter.combatants if c.holder == holder], _counts_a_turn_end)


def _run_out(combatants: list[Combatant], lasts: Callable[[Lasting], bool]) -> list[RanOut]:
    """Take off the conditions that ``lasts`` (counting their time) says no longer last."""
    ran_out: list[RanOut] = []
    for combatant in combatants:
        for condition in list(combatant.conditions):
            lasting = combatant.lasting.get(condition.casefold())
            if lasting is None or lasts(lasting):
                continue
            combatant.remove_condition(condition)
            ran_out.append(RanOut(combatant.name, condition))
    return ran_out


def _counts_a_round(lasting: Lasting) -> bool:
    """A deal: one round fewer; whether it still lasts."""
    if lasting.rounds_left is None:
        return True
    lasting.rounds_left -= 1
    return lasting.rounds_left > 0


def _counts_a_turn_end(lasting: Lasting) -> bool:
    """Its holder's turn ended: whether it still lasts (put on during that turn, it lasts one more)."""
    if not lasting.until_turn_end:
        return True
    if lasting.skip_turn_end:
        lasting.skip_turn_end = False
        return True
    return False


def _require_may_move_on(encounter: Encounter, actor: Actor) -> None:
    """Next: the player whose turn it is, or the GM; between turns, also a player offered the turn
    (declining it). Nobody else moves the fight on."""
    if is_gm(encounter, actor):
        return
    state = encounter.initiative
    if state.turn_of is not None:
        require_plays_holder(encounter, actor, state.turn_of, "end the turn of")
        return
    offered = [holder for holder in encounter.flow.offered if encounter.holder_owner(holder) == actor.user_id]
    if not offered:
        raise NotAllowed(f"Only the GM (<@{encounter.gm_id}>) can start the next turn now.")


def _claimant(encounter: Encounter, actor: Actor, wanted: str | None) -> str:
    """Whose card Act is for: the one named, else the user's own, else the GM's only NPC claimant."""
    state = encounter.initiative
    claimants = [holder for holder in state.may_claim if holder != state.turn_of]
    if wanted is not None:
        holder = _find_holder(encounter, wanted)
        require_plays_holder(encounter, actor, holder, "act on")
        return holder
    own = player_holder(actor.user_id)
    if own in state.cards or own in state.acted:
        return own
    if is_gm(encounter, actor):
        npc = [holder for holder in claimants if encounter.is_npc_holder(holder)]
        if len(npc) == 1:
            return npc[0]
        if npc:
            names = ", ".join(encounter.holder_name(holder) for holder in npc)
            raise RulesError(f"Several NPC cards may act: {names}. Name one with `/init act card:`.")
        raise RulesError("No NPC group holds a card or a Joker that could claim the next turn.")
    raise RulesError("You have no card in this round; you will be dealt one at the next deal.")


def _find_holder(encounter: Encounter, wanted: str) -> str:
    """A card in play by its holder (as autocomplete gives it) or by its holder's name, any case."""
    holders = set(encounter.initiative.cards) | set(encounter.initiative.acted)
    if wanted in holders:
        return wanted
    folded = wanted.strip().casefold()
    for holder in holders:
        if encounter.holder_name(holder).casefold() == folded:
            return holder
    names = ", ".join(encounter.holder_name(holder) for holder in encounter.initiative.may_claim) or "nobody"
    raise RulesError(f"No card called '{wanted}' is in play. Cards that may act now: {names}.")
