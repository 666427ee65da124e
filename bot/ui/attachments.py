"""A chart as Discord takes it: a PNG file with its alt text (the attachment's description, which screen
readers read and members who turned images off see)."""

from __future__ import annotations

import io

import discord

from .charts import Chart


def chart_file(chart: Chart) -> discord.File:
    return discord.File(io.BytesIO(chart.png), filename=chart.filename, description=chart.alt_text)
