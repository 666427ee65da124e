"""The one error base of the rules core; its message is written for a player."""


class RulesError(Exception):
    """A request the rules refuse. ``str(error)`` says what was wrong and what would work."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotEnoughDice(RulesError):
    """R7: a spend larger than what is left in the Martial Pool."""

    def __init__(self, wanted: int, left: int, purpose: str) -> None:
        dice = "die" if left == 1 else "dice"
        super().__init__(
            f"You asked for {wanted} {'die' if wanted == 1 else 'dice'} for {purpose}, "
            f"but only {left} {dice} remain in your Martial Pool this round. Nothing was spent."
        )
        self.wanted = wanted
        self.left = left


class IllegalAction(RulesError):
    """An action the rules do not allow in the present state (wrong range, wrong turn, ...)."""
