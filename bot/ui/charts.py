"""Pictures for the table: how often each d20 face came up (``/stats dice``) and the odds of an attack with
1 to 4 dice (``/odds``). No Discord here: a chart is PNG bytes of a stated size with its alt text, and the
cog attaches it.

Drawn with matplotlib's Agg backend (no display, no pyplot state: each chart is a Figure of its own), on
one thread of their own (:func:`drawn`), so a chart never holds up the event loop, nor two charts each
other's fonts. Every chart is an opaque card (Discord's dark grey, light text), so it reads the same in
Discord's dark and light themes; the colours are the Okabe-Ito palette (told apart with colour-blindness
too), and the bars outside their band are hatched as well as coloured.
"""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from ..dice_stats import FACES, Fairness
from ..rules.odds import AttackOdds
from .stats_views import dice_counted, p_value_text, thousands

WIDTH, HEIGHT = 1200, 675
"""Every chart's size in pixels (16:9, what Discord previews whole)."""
DPI = 100
ALT_TEXT_LIMIT = 1024
"""Discord's limit on an attachment's description."""

CARD = "#2b2d31"
TEXT = "#f2f3f5"
MUTED = "#b5bac1"
GRID = "#4e5058"
SKY = "#56B4E9"
ORANGE = "#E69F00"
GREEN = "#009E73"
YELLOW = "#F0E442"
VERMILLION = "#D55E00"
GREY = "#8d96a0"


@dataclass(frozen=True, slots=True)
class Chart:
    """A PNG picture, its size in pixels and what it shows in words (for screen readers, and for members
    who turned images off)."""

    png: bytes
    width: int
    height: int
    alt_text: str
    filename: str


_DRAWING = ThreadPoolExecutor(max_workers=1, thread_name_prefix="pommel-charts")


async def drawn(draw: Callable[[], Chart]) -> Chart:
    """Draw a chart on the charts' thread, so the event loop goes on answering other commands."""
    return await asyncio.get_running_loop().run_in_executor(_DRAWING, draw)


def _figure() -> Figure:
    """A card of the charts' size. Its margins are fixed (each chart sets them for its own labels): a
    layout engine would measure every label first, and double the time to draw."""
    return Figure(figsize=(WIDTH / DPI, HEIGHT / DPI), dpi=DPI, facecolor=CARD)


def _style(axes: Axes) -> None:
    axes.set_facecolor(CARD)
    for side in ("top", "right"):
        axes.spines[side].set_visible(False)
    for side in ("left", "bottom"):
        axes.spines[side].set_color(GRID)
    axes.tick_params(colors=MUTED, labelsize=12)


def _png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, facecolor=CARD, metadata={"Software": None})
    return buffer.getvalue()


def _drawn_text(text: str, limit: int = 100) -> str:
    """Text from the fight (names, weapons) as matplotlib draws it literally: ``$`` would start math."""
    clipped = text if len(text) <= limit else f"{text[: limit - 1]}…"
    return clipped.replace("$", r"\$")


def _clipped(text: str) -> str:
    return text if len(text) <= ALT_TEXT_LIMIT else f"{text[: ALT_TEXT_LIMIT - 1]}…"


# ----------------------------------------------------------------------------- /stats dice


def dice_alt_text(result: Fairness, whose: str) -> str:
    """The dice chart in words: what is counted, the band, every face's count, what the test says."""
    low, high = result.band
    faces = ", ".join(f"{face}: {count}" for face, count in zip(FACES, result.counts, strict=True))
    parts = [
        f"Bar chart of how often each face of the d20 came up. {whose}: {dice_counted(result)}.",
        f"On fair dice each face would come up about {result.expected:.1f} times, 95% of the time "
        f"between {low} and {high} (the shaded band).",
        f"Face by face: {faces}.",
    ]
    if result.outside:
        parts.append(f"Outside the band: {', '.join(str(face) for face in result.outside)}.")
    if result.p_value is None:
        parts.append("Too few dice for the test.")
    else:
        parts.append(f"Chi-square test against fair dice: {p_value_text(result.p_value)}.")
    return _clipped(" ".join(parts))


def axis_floor(result: Fairness) -> int:
    """Where the count axis starts: 0, unless every count and the band are so far above it (many dice)
    that bars from 0 would all look alike; then a little below the lowest, and the chart says so."""
    lowest = min(min(result.counts), result.band[0])
    top = max(max(result.counts), result.band[1])
    if lowest <= top * 3 / 4:
        return 0
    step: int = 10 ** max(0, len(str(top - lowest)) - 1)
    return max(0, (lowest - (top - lowest) // 2) // step * step)


def dice_chart(result: Fairness, whose: str) -> Chart:
    """Each face's count as a bar, the band fair dice stay in 95% of the time shaded behind, the
    expected count dashed; faces outside the band orange and hatched."""
    figure = _figure()
    figure.subplots_adjust(left=0.075, right=0.985, top=0.86, bottom=0.1)
    axes = figure.add_subplot()
    _style(axes)
    low, high = result.band
    outside = set(result.outside)
    axes.axhspan(low, high, color=MUTED, alpha=0.18, linewidth=0, zorder=0)
    axes.axhline(result.expected, color=MUTED, linestyle="--", linewidth=1.4, zorder=1)
    colours = [ORANGE if face in outside else SKY for face in FACES]
    bars = axes.bar(list(FACES), result.counts, color=colours, width=0.72, zorder=2)
    for face, bar in zip(FACES, bars, strict=True):
        if face in outside:
            bar.set_hatch("//")
            bar.set_edgecolor(CARD)
    top = max([*result.counts, high, 1])
    floor = axis_floor(result)
    span = top - floor
    for face, count in zip(FACES, result.counts, strict=True):
        axes.text(
            face, count + span * 0.012, thousands(count), ha="center", va="bottom", color=TEXT, fontsize=10
        )
    axes.set_xticks(list(FACES))
    axes.set_xlim(0.4, 20.6)
    axes.set_ylim(floor, top + span * 0.2)
    axes.set_xlabel("face of the d20", color=MUTED, fontsize=13)
    axes.set_ylabel("times rolled", color=MUTED, fontsize=13)
    axes.grid(axis="y", color=GRID, linewidth=0.6, alpha=0.6, zorder=0)
    test = "too few dice to tell" if result.p_value is None else f"chi-square {p_value_text(result.p_value)}"
    starts = f" · the axis starts at {thousands(floor)}" if floor else ""
    figure.suptitle(
        _drawn_text(f"{whose}: {dice_counted(result)}"),
        color=TEXT,
        fontsize=17,
        x=0.01,
        ha="left",
        fontweight="bold",
    )
    axes.set_title(
        f"{test} · fair dice: about {result.expected:.1f} per face, 95% of the time {low} to {high}{starts}",
        color=MUTED,
        fontsize=13,
        loc="left",
    )
    legend = [
        Patch(color=SKY, label="inside the 95% band"),
        Patch(facecolor=ORANGE, hatch="//", edgecolor=CARD, label="outside it"),
        Patch(color=MUTED, alpha=0.35, label="the band fair dice stay in"),
    ]
    axes.legend(handles=legend, loc="upper right", ncols=3, frameon=False, labelcolor=TEXT, fontsize=11)
    return Chart(_png(figure), WIDTH, HEIGHT, dice_alt_text(result, whose), "d20-faces.png")


# ----------------------------------------------------------------------------- /odds


@dataclass(frozen=True, slots=True)
class PlannedDefense:
    """One way the target may defend, and the odds against it with each number of attack dice.

    ``label`` is plain text (``against passive defense 14``); ``active`` brings the counterattack."""

    label: str
    active: bool
    odds: tuple[tuple[int, AttackOdds], ...]


SEGMENTS = (
    ("critical hit", GREEN, "critical"),
    ("other hit", SKY, "plain_hit"),
    ("Bind", YELLOW, "bind"),
    ("other miss", GREY, "plain_miss"),
    ("fumble", VERMILLION, "fumble"),
)
"""The bar's parts left to right (they add up to 100%): what the attacker hopes for first."""


def _share(odds: AttackOdds, part: str) -> float:
    if part == "plain_hit":
        return float(odds.hit - odds.critical)
    if part == "plain_miss":
        return float(odds.miss - odds.fumble)
    return float(getattr(odds, part))


def _dice(count: int) -> str:
    return "1 die" if count == 1 else f"{count} dice"


def _pct(value: float) -> str:
    return f"{value * 100:.1f}%"


def odds_alt_text(title: str, defenses: Sequence[PlannedDefense], asked: int) -> str:
    parts = [f"Stacked bar chart of the odds of an attack with 1 to 4 dice: {title}."]
    for defense in defenses:
        rows = []
        for dice, odds in defense.odds:
            row = (
                f"{_dice(dice)}{' (asked)' if dice == asked else ''} hit {_pct(float(odds.hit))} "
                f"({_pct(float(odds.critical))} critical), Bind {_pct(float(odds.bind))}, miss "
                f"{_pct(float(odds.miss))} ({_pct(float(odds.fumble))} fumble)"
            )
            if defense.active:
                row += f", counterattack {_pct(float(odds.counterattack))}"
            rows.append(row)
        parts.append(f"{defense.label[:1].upper()}{defense.label[1:]}: {'; '.join(rows)}.")
    return _clipped(" ".join(parts))


def odds_chart(title: str, defenses: Sequence[PlannedDefense], *, asked: int) -> Chart:
    """One panel per defense, one bar per number of dice (the asked one marked ▶): critical, hit,
    Bind, miss, fumble adding up to 100%, and beside each bar the hit chance (with what the last die
    added) and, against an active defense, the chance of a counterattack."""
    figure = _figure()
    figure.subplots_adjust(left=0.085, right=0.84, top=0.87, bottom=0.15, hspace=0.45)
    panels = figure.subplots(len(defenses), 1, squeeze=False)[:, 0]
    for axes, defense in zip(panels, defenses, strict=True):
        _style(axes)
        rows = list(defense.odds)
        positions = list(range(len(rows)))[::-1]
        for position, (_, odds) in zip(positions, rows, strict=True):
            left = 0.0
            for _, colour, part in SEGMENTS:
                share = _share(odds, part)
                axes.barh(position, share, left=left, color=colour, height=0.68, edgecolor=CARD, linewidth=1)
                if share >= 0.06:
                    ink = CARD if colour in (SKY, YELLOW, GREY) else TEXT
                    axes.text(
                        left + share / 2, position, f"{share * 100:.0f}%", ha="center", va="center",
                        color=ink, fontsize=11,
                    )  # fmt: skip
                left += share
        previous: float | None = None
        for position, (_, odds) in zip(positions, rows, strict=True):
            hit = float(odds.hit)
            gain = f" ({(hit - previous) * 100:+.1f})" if previous is not None else ""
            beside = f"hit {hit * 100:.1f}%{gain}"
            if defense.active:
                beside += f"\ncounterattack {float(odds.counterattack) * 100:.1f}%"
            axes.text(1.01, position, beside, ha="left", va="center", color=TEXT, fontsize=11)
            previous = hit
        labels = [f"▶ {_dice(dice)}" if dice == asked else _dice(dice) for dice, _ in rows]
        axes.set_yticks(positions, labels)
        for tick, (dice, _) in zip(axes.get_yticklabels(), rows, strict=True):
            if dice == asked:
                tick.set_color(TEXT)
                tick.set_fontweight("bold")
        axes.set_xlim(0, 1)
        axes.set_xticks([0, 0.25, 0.5, 0.75, 1], ["0%", "25%", "50%", "75%", "100%"])
        axes.set_title(_drawn_text(defense.label, 120), color=TEXT, fontsize=13, loc="left")
        axes.spines["left"].set_visible(False)
        axes.tick_params(axis="y", length=0)
    figure.suptitle(_drawn_text(title), color=TEXT, fontsize=16, x=0.01, ha="left", fontweight="bold")
    legend = [Patch(color=colour, label=label) for label, colour, _ in SEGMENTS]
    figure.legend(
        handles=legend, loc="lower center", ncols=len(SEGMENTS), frameon=False, labelcolor=TEXT,
        fontsize=12,
    )  # fmt: skip
    return Chart(_png(figure), WIDTH, HEIGHT, odds_alt_text(title, defenses, asked), "odds-plan.png")
