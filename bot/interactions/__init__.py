"""What an interaction brings to a command or a button, and how it is answered, one concern a module:
who is behind it and which channel's fight it is about (:mod:`.actors`), its options parsed once at the
edge with their autocomplete (:mod:`.options`), its answer in time (:mod:`.answering`), the commands
and clicks in progress (:mod:`.in_flight`) and a failure's answer (:mod:`.failures`), Pommel's buttons
(:mod:`.buttons`) and which cog answers each kind (:mod:`.routes`).
What they need of the bot is :class:`.client.PommelClient`.
"""
