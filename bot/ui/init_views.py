"""What ``/init`` and the tracker's buttons tell the table when the initiative moves: a deal, a turn
starting, a hold, a claim, an offer.

An announcement names who is pinged: the owner of the card whose turn starts, the players offered a
turn, the GM when a round is over or an NPC group is up; never the user who pressed. The words are
:mod:`bot.wording.initiative`' (the log keeps them as plain text); this module dresses them for
Discord: names in bold and escaped, the buttons' names in bold, mentions.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..encounter.document import Encounter
from ..encounter.results import TurnMove
from ..wording.initiative import turn_move_lines
from .announcements import Announcement
from .tracker import holder_line, name


@dataclass(slots=True)
class _Markdown:
    """The table's voice (a :class:`bot.wording.initiative.Voice`): names in bold, mentions that
    ping everyone named but the user who pressed."""

    announcement: Announcement
    actor_id: int

    def holder(self, encounter: Encounter, holder: str) -> str:
        return holder_line(encounter, holder)

    def strong(self, text: str) -> str:
        return f"**{text}**"

    def name(self, text: str) -> str:
        return name(text)

    def mention(self, user_id: int) -> str:
        return f" {self.announcement.notify(user_id, self.actor_id)}"


def turn_announcement(encounter: Encounter, move: TurnMove) -> Announcement:
    """What a Deal, Next, Hold or Act did (:func:`bot.encounter.initiative.press`), as the table reads
    it; ``encounter`` is the fight as saved after it."""
    announcement = Announcement()
    announcement.lines = turn_move_lines(encounter, move, _Markdown(announcement, move.actor_id))
    return announcement
