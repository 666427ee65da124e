"""End-to-end tests: the real bot and discord.py against a fake Discord on 127.0.0.1."""
