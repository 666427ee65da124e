"""Attacks at the table: declared by the attacker, answered by the defender, judged by the rules.

An exchange is kept in the fight document from the moment the attacker rolls until nobody may change
it any more, so every step is one transaction and a restart loses nothing:

1. :func:`~.declare.declare_attack`: the attacker spends its dice and rolls (R7, R9-R12, R17, R25,
   R26), as :mod:`.planning` allows and plans it. The defense is then either decided at once (an NPC
   under a passive or active-with-all-dice policy, a defender with no dice left, a helpless target) or
   left **awaiting** the defender's choice.
2. :func:`~.defend.defend`: the defender (or the policy, when the timeout runs out: :mod:`.timeouts`)
   picks Passive or Active with k dice, with the shield or void (R13, R14); the exchange is judged,
   damage rolled and applied (:mod:`.blows`: R16, R17), reactions (R12, R14) and morale proposals (R22)
   recorded.
3. Follow-ups while the exchange is fresh (:mod:`.follow_ups`): :func:`~.follow_ups.choose_die` (R9,
   counting another die to force a Bind) and :func:`~.follow_ups.desperate_defense` (R15). Each takes
   back what the exchange did and applies the new result, so HP never count a blow twice.
4. :func:`~.follow_ups.will_save`: a Bash critical under the Knock-Out option (R16) leaves the defender
   a Will save against its threat; rolled from its button, a failure knocks the defender out.

:mod:`.answers` routes an exchange's buttons; :mod:`.against_ac` is the plain d20 against an Armor
Class (R24). Nothing here knows Discord; ``step`` numbers let buttons drawn for an earlier moment be
refused (:mod:`.exchanges`).
"""

from __future__ import annotations

from ..errors import OtherFight, OutOfDate
from ..results import AcAttack, ExchangeReport
from .against_ac import AGAINST_AC_CONFLICTS, ac_attack, attack_armor_class
from .answers import answer
from .blows import may_declare_bind, may_desperately_defend, owe, owe_bind_attacks
from .choices import PASSIVE, Declaration, DefenseChoice, ExchangeAction
from .declare import KEPT_EXCHANGES, attack, declare_attack, record_blow
from .defend import awaiting, defend, exchange_passive_defense, policy_choice, waiting_report
from .exchanges import require_this_fight
from .follow_ups import choose_die, declare_bind, desperate_defense, will_save
from .planning import PlannedAttack, attack_kind, default_attack_type, plan_attack, tramples
from .timeouts import expire, time_out

__all__ = [
    "AGAINST_AC_CONFLICTS",
    "KEPT_EXCHANGES",
    "PASSIVE",
    "AcAttack",
    "Declaration",
    "DefenseChoice",
    "ExchangeAction",
    "ExchangeReport",
    "OtherFight",
    "OutOfDate",
    "PlannedAttack",
    "ac_attack",
    "answer",
    "attack",
    "attack_armor_class",
    "attack_kind",
    "awaiting",
    "choose_die",
    "declare_attack",
    "declare_bind",
    "default_attack_type",
    "defend",
    "desperate_defense",
    "exchange_passive_defense",
    "expire",
    "may_declare_bind",
    "may_desperately_defend",
    "owe",
    "owe_bind_attacks",
    "plan_attack",
    "policy_choice",
    "record_blow",
    "require_this_fight",
    "time_out",
    "tramples",
    "waiting_report",
    "will_save",
]
