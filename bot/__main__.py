"""``python -m bot`` / ``pommel``: read the settings, then run the bot until stopped."""

from __future__ import annotations

import logging
import sys

from pydantic import ValidationError

from .catalog import CatalogError
from .config import Settings

EXIT_CONFIG = 2


def _settings_problem(error: ValidationError) -> str:
    """One line for a GM, naming the setting at fault."""
    problems = {str(e["loc"][0]) if e["loc"] else "": e["msg"] for e in error.errors()}
    if "discord_token" in problems:
        return (
            "DISCORD_TOKEN is not set: put DISCORD_TOKEN=<your bot token> in .env (see .env.example) "
            "or in the environment."
        )
    name, message = next(iter(problems.items()))
    return f"The setting {name.upper()} is invalid: {message}. See .env.example."


def main() -> int:
    try:
        settings = Settings()  # the token comes from the environment or .env
    except ValidationError as error:
        print(_settings_problem(error), file=sys.stderr)
        return EXIT_CONFIG
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    from .app import Pommel

    try:
        bot = Pommel(settings)
    except CatalogError as error:
        print(f"The equipment data is invalid: {error}", file=sys.stderr)
        return EXIT_CONFIG
    bot.run(settings.discord_token.get_secret_value(), log_handler=None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
