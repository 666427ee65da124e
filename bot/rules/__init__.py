"""The rules core: pure Python (standard library and pydantic only), no Discord, no I/O, no asyncio.

Every public rule cites the ruling of ``shared/RULINGS.md`` it implements (R1-R27). Randomness
always comes in as a :class:`bot.rules.dice.DiceSource`.
"""
