"""What ``/stats dice`` says: whose rolls were counted, and what the test makes of them, in words a player
understands. Honest statistics, not verdicts: a p-value says how often fair dice would look at least this
uneven, and a small sample says nothing at all. (No Discord here: the chart's alt text uses these too.)"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ..dice_stats import MIN_DICE, SIGNIFICANCE, Fairness, Verdict
from ..rules.errors import shown


@dataclass(frozen=True, slots=True)
class DiceQuestion:
    """Whose rolls ``/stats dice`` counted, as the reply names them.

    ``scope`` is ``"the server"``, ``"#channel"`` or ``"the fight in #channel"`` and the like; ``member``
    the member's name, when one was asked about; ``days`` the time span (None: all the log). ``private``
    says which private rolls were counted: ``"all"`` (a GM's private answer), ``"own"`` (the asker's own,
    in a private answer) or ``"none"`` (a public answer counts no private roll). ``fight``: a fight's
    rolls, its attacks, defenses and morale checks included.
    """

    scope: str
    member: str | None = None
    days: int | None = None
    private: str = "none"
    fight: bool = False

    @property
    def whose(self) -> str:
        """``Alice's rolls in #table over the last 30 days``, as typed (for the chart)."""
        return self._whose(lambda text: text)

    @property
    def whose_shown(self) -> str:
        """The same for a message: the names in it (the member's, the channel's) read as typed."""
        return self._whose(shown)

    def _whose(self, name: Callable[[str], str]) -> str:
        who = f"{name(self.member)}'s rolls" if self.member else "Rolls"
        span = f" over the last {_days(self.days)}" if self.days is not None else ""
        return f"{who} in {name(self.scope)}{span}"


def _days(days: int) -> str:
    return "day" if days == 1 else f"{days} days"


def thousands(number: int) -> str:
    return f"{number:,}"


def p_value_text(p_value: float) -> str:
    """``p = 0.42``, ``p = 0.0499``, ``p = 0.00012``, ``p < 0.0001``: below 0.1, three significant digits,
    so a p-value never rounds onto the other side of 0.05 or 0.001."""
    if p_value < 0.0001:
        return "p < 0.0001"
    if p_value < 0.1:
        return f"p = {p_value:.3g}"
    return f"p = {p_value:.2f}"


def dice_counted(result: Fairness) -> str:
    """``1,234 d20s from 800 rolls``."""
    rolls = "roll" if result.rolls == 1 else "rolls"
    dice = "d20" if result.dice == 1 else "d20s"
    return f"{thousands(result.dice)} {dice} from {thousands(result.rolls)} {rolls}"


def verdict_sentence(result: Fairness) -> str:
    """What the test says, for a player: never "the dice are fair" (no test can say that), never
    "the dice are loaded" (one server in twenty sees p < 0.05 on fair dice)."""
    if result.verdict is Verdict.TOO_FEW or result.p_value is None:
        return (
            f"That is too few to tell: the test needs at least {MIN_DICE} d20s (5 for each face), and even "
            "then only a big bias would show."
        )
    p = p_value_text(result.p_value)
    if result.verdict is Verdict.CONSISTENT:
        return (
            f"Nothing here suggests uneven dice: fair dice often roll like this ({p}). That does not prove "
            "them fair: a small bias needs many more rolls to show."
        )
    percent = max(result.p_value * 100, 0.01)
    how_rare = f"{percent:.1f}%" if percent >= 0.1 else "less than 0.1%"
    if result.verdict is Verdict.UNEVEN:
        return (
            f"These faces are uneven: fair dice are this uneven only {how_rare} of the time ({p}). On fair "
            f"dice that still happens to one count in {round(1 / SIGNIFICANCE)}: keep rolling and look again."
        )
    return (
        f"These faces are very uneven: fair dice are this uneven {how_rare} of the time ({p}). Worth a look "
        "at how these rolls were made."
    )


def band_sentence(result: Fairness) -> str:
    """Each face's expected band, and the faces outside it (about one in twenty on fair dice)."""
    low, high = result.band
    expected = f"about {result.expected:.1f}" if result.dice else "no"
    sentence = f"On fair dice each face comes up {expected} times, 95% of the time {low} to {high}."
    outside = result.outside
    if not result.dice:
        return "No d20 was rolled."
    if not outside:
        return f"{sentence} Every face is inside that band."
    listed = ", ".join(f"{face} ({result.counts[face - 1]})" for face in outside)
    chance = " (on fair dice about one face in twenty is, by chance)" if len(outside) <= 2 else ""
    return f"{sentence} Outside it: {listed}{chance}."


def hidden_note(hidden: int, private: str) -> str | None:
    """Why some rolls were not counted: private rolls this answer may not show."""
    if not hidden:
        return None
    rolls, are = ("roll", "is") if hidden == 1 else ("rolls", "are")
    if private == "own":
        return (
            f"{thousands(hidden)} private {rolls} of other members {are} not counted (only the GM sees them)."
        )
    return (
        f"{thousands(hidden)} private {rolls} {are} not counted in a public answer; "
        "`private:true` counts your own (and a GM's, everyone's)."
    )


def dice_reply(question: DiceQuestion, result: Fairness, hidden: int) -> str:
    """The text beside the chart: whose rolls, how many, what the test says, what was left out."""
    lines = [
        f"🎲 **{question.whose_shown}**: {dice_counted(result)}.",
        verdict_sentence(result),
        band_sentence(result),
    ]
    if question.private == "all":
        lines.append("-# Private rolls are counted: this answer is yours alone.")
    elif question.private == "own":
        lines.append("-# Your own private rolls are counted: this answer is yours alone.")
    note = hidden_note(hidden, question.private)
    if note:
        lines.append(f"-# {note}")
    counted = (
        "`/roll dice`, `/roll pool`, `/save`, and the fight's attacks, defenses, counterattacks, Will saves, "
        "morale checks and spiritual attacks (undone ones too: their dice were rolled)"
        if question.fight
        else "`/roll dice`, `/roll pool`, `/save` (a fight's attack, defense and morale dice: `of:fight`)"
    )
    lines.append(
        "-# The test: Pearson's chi-square against a fair d20 (19 degrees of freedom); the band: the "
        f"central 95% of a fair face's count. Counted: {counted}."
    )
    return "\n".join(lines)
