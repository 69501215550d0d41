"""The lab's plots, drawn for a designer reading a report at page width.

Every figure is the same width (:data:`WIDTH` inches at :data:`DPI`, about 800
pixels, shown at its natural size), so text is never shrunk; legends sit
outside the data; long category names run down the side (horizontal bars)
instead of crowding an x axis; counts have whole-number ticks; value axes
start where the data are, not at 0, when the differences are what matters;
and every figure names its game count in its title.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

WIDTH = 7.2
DPI = 110
COLORS = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#eeca3b", "#9d755d")
Interval = tuple[float, float, float]
"""value, low, high"""


def pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update({"font.size": 10, "axes.titlesize": 10, "axes.titlelocation": "left"})
    return plt


def figure(height: float, cols: int = 1) -> tuple[Figure, list[Axes]]:
    fig, axes = pyplot().subplots(1, cols, figsize=(WIDTH, height), layout="constrained", squeeze=False)
    return fig, list(axes[0])


def png(fig: Figure) -> str:
    """The figure as a ``data:`` URI (inline base64 PNG); closes the figure."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=DPI)
    pyplot().close(fig)
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def percent_axis(ax: Axes, axis: str = "y") -> None:
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(lambda v, _p: f"{v:.0f}%")


def legend_above(fig: Figure, ax: Axes, count: int) -> None:
    """``ax``'s legend in a row above the plot, never over the data."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="outside upper center", ncols=min(max(count, 1), 5), frameon=False,
                   fontsize="small")  # fmt: skip


def rows_down(ax: Axes, rows: Sequence[str], xlabel: str, title: str) -> None:
    """Name the rows down the side, the first on top; label the value axis; title the chart."""
    ax.set_yticks(range(len(rows)), rows)
    ax.invert_yaxis()
    ax.set_xlabel(xlabel)
    ax.set_title(title)


def columns_across(
    ax: Axes, positions: Sequence[int], labels: Sequence[str], ylabel: str, title: str
) -> None:
    """Name the columns at ``positions`` along the bottom; label the value axis; title the chart."""
    ax.set_xticks(positions, labels)
    ax.set_ylabel(ylabel)
    ax.set_title(title)


def vbars(
    groups: Sequence[str],
    series: Mapping[str, Sequence[float]],
    ylabel: str,
    title: str,
    errors: Mapping[str, Sequence[tuple[float, float]]] | None = None,
    ref: float | None = None,
    ref_label: str = "",
    percent: bool = True,
) -> str:
    """Grouped vertical bars for a few short categories (bots, seats); values in
    percent when ``percent``, with optional 95 % ranges and a reference line."""
    fig, (ax,) = figure(3.3)
    n = max(1, len(series))
    width = 0.8 / n
    for i, (name, values) in enumerate(series.items()):
        xs = [g + (i - (n - 1) / 2) * width for g in range(len(groups))]
        yerr = None
        if errors is not None and name in errors:
            yerr = [[v - e[0] for v, e in zip(values, errors[name], strict=True)],
                    [e[1] - v for v, e in zip(values, errors[name], strict=True)]]  # fmt: skip
        ax.bar(xs, values, width=width * 0.95, label=name if n > 1 else None, yerr=yerr, capsize=3,
               color=COLORS[i % len(COLORS)])  # fmt: skip
    if ref is not None:
        ax.axhline(ref, ls="--", color="#444", lw=1, label=ref_label)
    columns_across(ax, range(len(groups)), groups, ylabel, title)
    if percent:
        percent_axis(ax)
    ax.set_ylim(bottom=0)
    legend_above(fig, ax, n + (ref is not None))
    return png(fig)


def hbars(
    categories: Sequence[str],
    series: Mapping[str, Sequence[float]],
    xlabel: str,
    title: str,
    percent: bool = True,
) -> str:
    """Grouped horizontal bars: long category names (rulings with their meaning,
    cards) read down the side; the value is printed at the end of each bar."""
    n = max(1, len(series))
    fig, (ax,) = figure(0.6 + 0.22 * len(categories) * n + 0.25 * len(categories))
    height = 0.8 / n
    top = max((v for values in series.values() for v in values), default=0.0)
    for i, (name, values) in enumerate(series.items()):
        ys = [c + (i - (n - 1) / 2) * height for c in range(len(categories))]
        bars = ax.barh(ys, values, height=height * 0.95, label=name if n > 1 else None,
                       color=COLORS[i % len(COLORS)])  # fmt: skip
        ax.bar_label(bars, [f"{v:.1f}%" if percent else f"{v:+.1f}" for v in values], padding=2,
                     fontsize="x-small")  # fmt: skip
    rows_down(ax, categories, xlabel, title)
    if percent:
        percent_axis(ax, "x")
        ax.set_xlim(0, max(5.0, top * 1.15))
    else:
        ax.axvline(0, color="#000", lw=0.8)
        ax.margins(x=0.15)
    legend_above(fig, ax, n)
    return png(fig)


def forest(
    rows: Sequence[str],
    series: Mapping[str, Sequence[Interval]],
    xlabel: str,
    title: str,
    first_color: int = 0,
) -> str:
    """Differences with their 95 % intervals, one row per measure, a zero line:
    an interval crossing it is no measurable difference (drawn hollow).
    ``first_color``: the colour index of the first series (variants keep their
    colours across a report; the baseline's is 0)."""
    n = max(1, len(series))
    fig, (ax,) = figure(0.8 + 0.3 * len(rows) * max(1, n * 0.6))
    step = 0.7 / n
    for i, (name, values) in enumerate(series.items()):
        color = COLORS[(i + first_color) % len(COLORS)]
        for r, (value, low, high) in enumerate(values):
            y = r + (i - (n - 1) / 2) * step
            settled = not low <= 0 <= high
            ax.errorbar([value], [y], xerr=[[value - low], [high - value]], fmt="o", color=color,
                        mfc=color if settled else "white", capsize=3, ms=5,
                        label=name if r == 0 else None)  # fmt: skip
    ax.axvline(0, color="#000", lw=0.8)
    rows_down(ax, rows, xlabel, title)
    ax.margins(x=0.1)
    legend_above(fig, ax, n)
    return png(fig)


def boxes(labels: Sequence[str], data: Sequence[Sequence[float]], ylabel: str, title: str) -> str:
    fig, (ax,) = figure(3.2)
    ax.boxplot([list(d) or [0.0] for d in data])
    columns_across(ax, range(1, len(labels) + 1), labels, ylabel, title)
    return png(fig)


def counts(panels: Sequence[tuple[str, Mapping[str, Sequence[float]]]], ylabel: str, title: str) -> str:
    """How many games had each length, one panel per measure: bars per value for
    a few whole values (rounds), outlined histograms otherwise (decisions);
    whole-number ticks on both axes; the legend above."""
    from matplotlib.ticker import MaxNLocator

    fig, axes = figure(3.0, len(panels))
    names: list[str] = []
    for ax, (xlabel, series) in zip(axes, panels, strict=True):
        names = list(series)
        values = sorted({v for vs in series.values() for v in vs})
        n = max(1, len(series))
        if len(values) <= 15:
            width = 0.8 / n
            for i, (name, vs) in enumerate(series.items()):
                xs = [v + (i - (n - 1) / 2) * width for v in values]
                ax.bar(xs, [sum(1 for x in vs if x == v) for v in values], width=width * 0.95,
                       color=COLORS[i % len(COLORS)], label=name if n > 1 else None)  # fmt: skip
            ax.set_xticks(values, [f"{v:.0f}" for v in values])
            if values and values[-1] - values[0] < 4:  # one or two values: bars, not a wall
                ax.set_xlim(values[0] - 2, values[-1] + 2)
        else:
            bins = min(25, len(values))
            for i, (name, vs) in enumerate(series.items()):
                ax.hist(list(vs), bins=bins, histtype="step" if n > 1 else "stepfilled", lw=1.6,
                        color=COLORS[i % len(COLORS)], label=name if n > 1 else None)  # fmt: skip
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.yaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
    axes[0].set_title(title)
    legend_above(fig, axes[0], len(names))
    return png(fig)


def lines(series: Mapping[str, Sequence[Mapping[str, Any]]], xlabel: str, ylabel: str, title: str) -> str:
    from matplotlib.ticker import MaxNLocator

    fig, (ax,) = figure(3.3)
    for i, (name, points) in enumerate(series.items()):
        color = COLORS[i % len(COLORS)]
        xs = [p["round"] for p in points]
        marker = "os^vDP*X"[i % 8]
        ax.plot(xs, [p["mean"] for p in points], marker=marker, ms=4, label=name, color=color)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    legend_above(fig, ax, len(series))
    return png(fig)


def dots(labels: Sequence[str], values: Sequence[Interval], xlabel: str, title: str,
         ref: float | None = None) -> str:  # fmt: skip
    """Points with ranges on an axis fitted to the data (TrueSkill ratings)."""
    fig, (ax,) = figure(0.9 + 0.35 * len(labels))
    for r, (value, low, high) in enumerate(values):
        ax.errorbar([value], [r], xerr=[[value - low], [high - value]], fmt="o", color=COLORS[0], capsize=4)
        ax.annotate(f"{value:.1f}", (value, r), textcoords="offset points", xytext=(0, 6), ha="center",
                    fontsize="x-small")  # fmt: skip
    if ref is not None:
        ax.axvline(ref, ls="--", color="#888", lw=1)
    rows_down(ax, labels, xlabel, title)
    ax.margins(x=0.08, y=0.25)
    return png(fig)


def sensitivity(
    panels: Sequence[tuple[str, Sequence[str], Sequence[Interval], tuple[float | None, float | None], float]],
    title: str,
    marked: str,
) -> str:
    """One small panel per (option, measure): the measure with its 95 % range at
    each value of the option (the others fixed), the goal's band shaded, the
    candidate's own value marked. Panel: (measure label, option values,
    intervals, (goal min, goal max), index of the candidate's value)."""
    cols = min(2, len(panels))
    rows = -(-len(panels) // cols)
    plt = pyplot()
    fig, grid = plt.subplots(rows, cols, figsize=(WIDTH, 2.3 * rows + 0.4), layout="constrained",
                             squeeze=False)  # fmt: skip
    for k, ax in enumerate(grid.flat):
        if k >= len(panels):
            ax.axis("off")
            continue
        label, xs, values, (low_goal, high_goal), mark = panels[k]
        pos = list(range(len(xs)))
        ys = [v[0] for v in values]
        numeric = all(x.lstrip("-").isdigit() for x in xs)  # a line only where the values are ordered
        ax.errorbar(pos, ys, yerr=[[v[0] - v[1] for v in values], [v[2] - v[0] for v in values]],
                    fmt="-o" if numeric else "o", ms=4, capsize=3, color=COLORS[0])  # fmt: skip
        if 0 <= mark < len(pos):
            ax.plot([pos[int(mark)]], [ys[int(mark)]], "o", ms=9, mfc="none", mec=COLORS[3], mew=2)
        lo = low_goal if low_goal is not None else -1e9
        hi = high_goal if high_goal is not None else 1e9
        if low_goal is not None or high_goal is not None:
            ax.axhspan(lo, hi, color=COLORS[2], alpha=0.12, lw=0)
        bottom = min(v[1] for v in values)
        top = max(v[2] for v in values)
        pad = max(0.5, (top - bottom) * 0.15)
        ax.set_ylim(bottom - pad, top + pad)
        ax.set_xticks(pos, xs, fontsize="small")
        ax.set_title(label, fontsize="small")
    fig.suptitle(f"{title}: {marked}", x=0.01, ha="left", fontsize=10)
    return png(fig)


def goal_check(
    panels: Sequence[tuple[str, tuple[float | None, float | None], Sequence[Interval]]],
    rows: Sequence[str],
    title: str,
) -> str:
    """One panel per goal: each candidate's value with its 95 % range (one row
    each, the printed rules first) against the goal's band (shaded)."""
    cols = 1
    grid_rows = len(panels)
    plt = pyplot()
    fig, grid = plt.subplots(grid_rows, cols, figsize=(WIDTH, (0.75 + 0.26 * len(rows)) * grid_rows + 0.4),
                             layout="constrained", squeeze=False)  # fmt: skip
    for k, ax in enumerate(grid.flat):
        if k >= len(panels):
            ax.axis("off")
            continue
        label, (low, high), values = panels[k]
        for r, (value, lo, hi) in enumerate(values):
            ok = (low is None or value >= low) and (high is None or value <= high)
            ax.errorbar([value], [r], xerr=[[value - lo], [hi - value]], fmt="o", capsize=3, ms=5,
                        color=COLORS[2] if ok else COLORS[3])  # fmt: skip
        left = min([v[1] for v in values] + [x for x in (low, high) if x is not None])
        right = max([v[2] for v in values] + [x for x in (low, high) if x is not None])
        pad = max(0.5, (right - left) * 0.12)
        ax.set_xlim(left - pad, right + pad)
        ax.axvspan(low if low is not None else left - pad, high if high is not None else right + pad,
                   color=COLORS[2], alpha=0.12, lw=0)  # fmt: skip
        ax.set_yticks(range(len(rows)), rows if k % cols == 0 else [""] * len(rows), fontsize="small")
        ax.set_ylim(len(rows) - 0.5, -0.5)
        ax.set_title(label, fontsize="small")
    fig.suptitle(title, x=0.01, ha="left", fontsize=10)
    return png(fig)


def history(misses: Sequence[float], xlabel: str, ylabel: str, best_label: str, title: str) -> str:
    """The search's trials: each one's total miss of the goals, and the best so far."""
    fig, (ax,) = figure(3.0)
    xs = list(range(1, len(misses) + 1))
    ax.plot(xs, misses, "o", ms=3, color=COLORS[0], alpha=0.6)
    best: list[float] = []
    for m in misses:
        best.append(min(m, best[-1]) if best else m)
    ax.step(xs, best, where="post", color=COLORS[3], lw=1.8, label=best_label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_ylim(bottom=0)
    ax.set_title(title)
    legend_above(fig, ax, 1)
    return png(fig)
