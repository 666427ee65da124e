"""How an attack reads in the channel, and its buttons.

Every message about an exchange names both sides, the weapon and the range, so it can be read on its
own hours later (play-by-post). The buttons carry the fight's tag, the exchange's id and its step
(``pommel:x:5f3a9c1e:12:0:active:2``): they work after a restart, a second click on an answered
button is refused instead of acting twice, and a button left from an ended fight does nothing in the
channel's next one.

One module per message: ``request`` (the defense asked), ``result`` (an exchange resolved, an attack
against AC), ``follow_ups`` (what may follow, and the notice to others); ``lines`` are the lines they
share, ``custom_ids`` what their buttons carry.
"""
