"""A chart attached with its alt text, which screen readers read."""

from __future__ import annotations

from bot.ui.attachments import chart_file
from bot.ui.charts import Chart


def test_a_chart_is_attached_as_its_png_with_its_alt_text() -> None:
    chart = Chart(
        png=b"\x89PNG...", width=800, height=450, alt_text="A bar chart of 20 faces", filename="dice.png"
    )
    attached = chart_file(chart)
    assert attached.filename == "dice.png"
    assert attached.description == "A bar chart of 20 faces"
    assert attached.fp.read() == b"\x89PNG..."
