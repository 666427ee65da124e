"""What Pommel says, in words shared by the fight's log and its replies.

A log line is written inside the operation's transaction (:mod:`bot.encounter`) and kept with the
encounter's log: plain text on one line, every number a GM needs when reading it back later (the log
escapes Markdown when it shows it). The replies in :mod:`bot.ui` use the same wording for the same
things (dice counts, signed bonuses, a move and its cost, the initiative's announcements).

One module per subject: ``phrases`` (the small words all share), ``attacks``, ``maneuvers``,
``initiative``, ``morale``, ``spirits``, ``roster``. Nothing here knows Discord, the database or the
event loop (``tests/encounter/test_purity.py``): it reads the fight's documents and results, and
returns text.
"""
