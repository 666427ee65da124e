"""What an interaction brings to a command or a button, and how it is answered, one concern a module:
who is behind it and which channel's fight it is about (:mod:`.actors`), its options parsed once at the
edge with their autocomplete (:mod:`.options`), its answer in time (:mod:`.answering`), the commands
and clicks in progress and their failures (:mod:`.in_flight`), and Pommel's buttons (:mod:`.buttons`).
What they need of the bot is :class:`.client.PommelClient`.
"""
