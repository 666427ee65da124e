"""The encounter: a channel's fight as one typed document, and every change to it.

``document`` is the fight itself, ``combatants`` one combatant as it keeps it, ``records`` what it
remembers between the moments of an exchange, ``permissions`` who may do what, ``errors`` the refusals
that are not a ruling's, ``fighters`` a combatant as the rules core sees it, ``done`` what every
operation returns and ``results`` the reports inside it. Then one module per command family owns that
family's changes: ``attacks`` (/attack and its buttons), ``maneuvers`` (/move, /range, /save, /pool),
``initiative`` (/init), ``morale`` (/morale), ``spirits`` (/spirit), ``odds`` (/odds), ``join``
(/join, /leave), ``npc`` (/npc), ``combatant`` (/combatant), ``lifecycle`` (/encounter: start, end,
reopen, options, GM). The plain-text lines of the fight's log are worded in :mod:`bot.wording`.

Nothing here knows Discord, the database or the event loop (``tests/encounter/test_purity.py``):
an operation takes the document, checks, changes it in place and returns a
:class:`~bot.encounter.done.Done`, or raises a :class:`~bot.rules.errors.RulesError` having changed
nothing. The store runs it in one transaction; the cog renders the result afterwards.
"""
