"""The refusals that belong to the encounter rather than to one ruling: no fight here, not yours to do,
a button drawn for another moment or another fight. Each is a :class:`~bot.rules.errors.RulesError`,
so it reaches the user as written, privately, and nothing is changed."""

from __future__ import annotations

from ..rules.errors import RulesError


class NoFight(RulesError):
    """The channel has no fight running."""

    def __init__(self) -> None:
        super().__init__("There is no fight in this channel. The GM starts one with /encounter start.")


class NotAllowed(RulesError):
    """The user may not do that in this fight; the message says who may."""


class OutOfDate(RulesError):
    """A click on a button drawn for an earlier moment: of an attack (:attr:`ATTACK`) or of the
    turns (:attr:`TURNS`). A double click acts once; the second click is refused with this."""

    ATTACK = (
        "That button is from an earlier moment of this attack: it was already answered. "
        "Nothing was changed; the latest message about it shows where things stand."
    )
    TURNS = (
        "That button is from an earlier moment of the fight: someone already moved it on. "
        "Nothing was changed; the tracker shows where things stand now."
    )


class OtherFight(RulesError):
    """A click on a button left from an earlier fight in the channel."""

    def __init__(self) -> None:
        super().__init__(
            "That button belongs to an earlier fight in this channel, which has ended. Nothing was changed."
        )


class ProposalResolved(RulesError):
    """A click on a morale proposal's button after the check was rolled or dismissed (R22)."""

    def __init__(self, proposal_id: int) -> None:
        super().__init__(
            f"Morale proposal #{proposal_id} was already settled (rolled or dismissed); nothing was "
            "rolled again. The fight log has the result."
        )
