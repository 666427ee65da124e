"""What ``/situation`` says, and how the tracker names where a combatant stands (R25)."""

from __future__ import annotations

from ..encounter.combatants import Combatant
from ..encounter.document import Encounter
from ..encounter.positions import Repositioned, opening_label
from ..rules.errors import shown


def situation_reply(changed: Repositioned) -> str:
    """The changes, one a line, and what they cost; or that nothing changed."""
    who = shown(changed.combatant.name)
    if not changed.changes:
        return f"📍 **{who}**: those were already so; nothing changed."
    listed = "\n".join(
        f"- {shown(label)}: {shown(str(old))} → **{shown(str(new))}**" for label, old, new in changed.changes
    )
    notes = "".join(f"\n📌 {note}" for note in changed.notes)
    return f"📍 **{who}**'s situation (R25):\n{listed}{notes}"


def position_labels(encounter: Encounter, combatant: Combatant) -> list[str]:
    """Where a combatant stands, as the tracker lists it: "on Bucephalus", "shield wall", "50% cover"."""
    position = combatant.position
    labels: list[str] = []
    if combatant.steed is not None:
        labels.append(combatant.steed.value)
    if (mount := _in_fight(encounter, position.mount)) is not None:
        labels.append(f"on {shown(mount.name)}")
    if position.shield_wall:
        labels.append("shield wall")
    if position.scaling:
        labels.append("scaling")
    if position.unseen:
        labels.append("unseen")
    if position.cover:
        labels.append(f"{position.cover * 25}% cover")
    if position.opening is not None:
        labels.append(opening_label(position.opening))
    if (beside := _in_fight(encounter, position.beside)) is not None:
        labels.append(f"beside {shown(beside.name)}")
    return labels


def _in_fight(encounter: Encounter, combatant_id: str | None) -> Combatant | None:
    """The combatant of that id, if still in the fight; looked for only when a position names one (the
    tracker asks for everyone's labels at every drawing)."""
    if combatant_id is None:
        return None
    return next((c for c in encounter.combatants if c.id == combatant_id), None)
