"""The rules core: pure Python (standard library and pydantic only), no Discord, no I/O, no asyncio.

Every public rule cites the ruling it implements (R1-R27), each explained in ``docs/RULES.md``.
Randomness always comes in as a :class:`bot.rules.dice.DiceSource`.
"""
