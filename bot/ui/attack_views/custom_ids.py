"""What an attack's buttons carry: the fight's tag, the exchange and its step, the action and its dice
(``pommel:x:5f3a9c1e:12:0:active:2``), so a button works after a restart and never acts twice."""

from __future__ import annotations

import re

from ...encounter.attacks import ExchangeAction
from ...encounter.document import Encounter
from ...encounter.records import Exchange, Reaction

EXCHANGE_BUTTON = re.compile(
    r"pommel:x:(?P<fight>[0-9a-f]+):(?P<exchange>\d+):(?P<step>\d+):(?P<action>[a-z]+)(?::(?P<dice>[1-4]))?"
)


def exchange_custom_id(exchange: Exchange, action: ExchangeAction, dice: int | None = None) -> str:
    suffix = f":{dice}" if dice is not None else ""
    return f"pommel:x:{exchange.fight}:{exchange.id}:{exchange.step}:{action.value}{suffix}"


KNOCKOUT_BUTTON = re.compile(
    r"pommel:ko:(?P<fight>[0-9a-f]+):(?P<exchange>\d+):(?P<step>\d+):(?P<dice>[0-4])"
)
"""R16, R20: the defender's Will save against an exchange's Knock-Out threat, with ``dice`` pool dice
joining the free die, for the exchange at ``step``."""


def knockout_custom_id(exchange: Exchange, dice: int) -> str:
    return f"pommel:ko:{exchange.fight}:{exchange.id}:{exchange.step}:{dice}"


REACTION_BUTTON = re.compile(
    r"pommel:react:(?P<fight>[0-9a-f]+):(?P<by>c\d+):(?P<against>c\d+):(?P<dice>[1-4])"
)
"""A counterattack or opportunity attack owed (R12, R14): ``by`` strikes ``against`` with ``dice``."""


def reaction_custom_id(encounter: Encounter, reaction: Reaction, dice: int) -> str:
    return f"pommel:react:{encounter.tag}:{reaction.by}:{reaction.against}:{dice}"
