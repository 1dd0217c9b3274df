"""Matplotlib pictures for the report, returned as base64 PNG so every renderer can inline them.

Rows are receiving positions and columns are sources, as in the chapter. Pictures only draw what
the Report says.
"""

from __future__ import annotations

import base64
import functools
import io
from collections.abc import Sequence

# Figures drawn on their own Agg canvas: no display needed, identical output everywhere, and the
# process's pyplot backend (a notebook's inline one) is left alone.
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.colors import LinearSegmentedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from grader.report.models import Heatmap
from grader.report.view import Matrix, is_missing, leaked_cells

DPI = 80  # modest: a report holds several pictures and must stay small
# Only "Software" is written by default; dropping it keeps the bytes identical across matplotlib versions.
_PNG_METADATA = {"Software": None}
_CMAP = LinearSegmentedColormap.from_list("weights", ["#ffffff", "#2b6cb0"])
_NAN_FACE = "#b0b0b0"
_LEAK = "#d62728"
_FORBIDDEN_EDGE = "#444444"
# Above this many positions, the numbers no longer fit inside the cells.
_MAX_ANNOTATED = 8
# The same numbers draw the same picture, and a picture costs more CPU than grading a file (matplotlib's
# text layout): a class shares the correct side of every heatmap and the pictures of its common bugs.
_KEPT = 256

def _png_base64(fig: Figure) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata=_PNG_METADATA)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def row_sums(weights: Matrix) -> list[str]:
    """Each row's sum as drawn beside the student's weights: a row of shares should sum to one."""
    return ["NaN" if any(is_missing(w) for w in row) else f"{sum(float(w) for w in row):.3f}" for row in weights]


def _draw_weights(ax, weights: Matrix, title: str, *, mark_leaks: bool) -> None:
    rows = len(weights)
    # A wrong submission can return any shape: draw it as it is, padding ragged rows with NaN.
    t = max((len(row) for row in weights), default=0)
    ax.set_title(title, fontsize=10)
    if rows == 0 or t == 0:
        ax.set_axis_off()
        ax.text(0.5, 0.5, "empty weights", ha="center", va="center", transform=ax.transAxes)
        return
    grid = [[float("nan") if is_missing(w) else float(w) for w in row] + [float("nan")] * (t - len(row))
            for row in weights]
    ax.imshow(grid, cmap=_CMAP, vmin=0.0, vmax=1.0, interpolation="nearest")
    ax.set_xlabel("source position j")
    ax.set_ylabel("receiving position i")
    ax.set_xticks(range(t))
    ax.set_yticks(range(rows))
    annotate = max(rows, t) <= _MAX_ANNOTATED
    leaks = set(leaked_cells(weights)) if mark_leaks else set()
    for i, row in enumerate(weights):
        for j, w in enumerate(row):
            if is_missing(w):
                # Grey and hatched: NaN/inf must never look like a weight of zero.
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor=_NAN_FACE, hatch="///",
                                       edgecolor="#707070", linewidth=0))
                if annotate:
                    ax.text(j, i, "NaN", ha="center", va="center", fontsize=7, color="black")
                continue
            if j > i:
                # Forbidden cell: the mask must hide source j from receiver i.
                ax.add_patch(Rectangle((j - 0.45, i - 0.45), 0.9, 0.9, fill=False,
                                       edgecolor=_FORBIDDEN_EDGE, linestyle=(0, (2, 2)), linewidth=1))
            if (i, j) in leaks:
                ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor=_LEAK, linewidth=2.5))
            if annotate:
                color = "white" if w > 0.6 else "black"
                ax.text(j, i, f"{w:.3f}", ha="center", va="center", fontsize=8 if t <= 4 else 6,
                        color=_LEAK if (i, j) in leaks else color,
                        fontweight="bold" if (i, j) in leaks else "normal")
    if mark_leaks and rows <= 3 * _MAX_ANNOTATED:  # the student's side: the row sums, in a column of their own
        ax.text(t - 0.5 + 0.15, -0.5, "row sum", ha="left", va="bottom", fontsize=7, color="#333333")
        for i, total in enumerate(row_sums(weights)):
            ax.text(t - 0.5 + 0.15, i, total, ha="left", va="center", fontsize=7,
                    color=_LEAK if total not in ("1.000",) else "#333333")
    ax.set_xlim(-0.5, t - 0.5)
    ax.set_ylim(rows - 0.5, -0.5)


def heatmap_png(heatmap: Heatmap) -> str:
    """The student's weights next to the correct weights, as base64 PNG."""
    return _heatmap_png(heatmap.model_dump_json())


@functools.lru_cache(maxsize=_KEPT)
def _heatmap_png(heatmap_json: str) -> str:
    heatmap = Heatmap.model_validate_json(heatmap_json)
    fig = Figure(figsize=(8.0, 4.2))
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2)
    if heatmap.student is None:
        left.set_axis_off()
        left.text(0.5, 0.5, "no weights returned", ha="center", va="center", fontsize=11,
                  transform=left.transAxes)
    else:
        _draw_weights(left, heatmap.student, "your weights", mark_leaks=True)
    _draw_weights(right, heatmap.expected, "correct weights", mark_leaks=False)
    fig.suptitle(heatmap.title, fontsize=11)
    fig.text(0.5, 0.01,
             "dashed: forbidden (source after receiver)   red: leaked (non-zero weight on a forbidden cell)"
             "   grey hatched: NaN/inf",
             ha="center", fontsize=7.5, color="#333333")
    fig.subplots_adjust(left=0.08, right=0.98, top=0.85, bottom=0.16, wspace=0.35)
    return _png_base64(fig)


def row_change_png(leak: Sequence[float | None], control: Sequence[float] | None,
                   intervention: str = "Change only future keys and values") -> str:
    """Max change of each earlier output row under one intervention (the report names it), as base64 PNG."""
    return _row_change_png(tuple(leak), None if control is None else tuple(control), intervention)


@functools.lru_cache(maxsize=_KEPT)
def _row_change_png(leak: tuple[float | None, ...], control: tuple[float, ...] | None, intervention: str) -> str:
    n = len(leak)
    fig = Figure(figsize=(6.0, 3.5))
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    width = 0.4 if control is not None else 0.6
    offset = width / 2 if control is not None else 0.0
    xs = list(range(n))
    heights = [0.0 if is_missing(v) else float(v) for v in leak]
    ax.bar([x - offset for x in xs], heights, width, color=_LEAK, label="your attention")
    for x, v in zip(xs, leak, strict=True):
        if is_missing(v):
            ax.text(x - offset, 0.0, "NaN", ha="center", va="bottom", fontsize=8, color="#555555")
        elif v == 0.0:
            # A zero bar is invisible; say it, because "did not move" is the result we hope for.
            ax.text(x - offset, 0.0, "0", ha="center", va="bottom", fontsize=8, color=_LEAK)
    if control is not None:
        ax.bar([x + offset for x in range(len(control))], list(control), width, color="#999999",
               label="attention without that protection (negative control)")
    ax.set_xticks(range(max(n, len(control or []))))
    ax.set_xlabel("earlier receiving position")
    ax.set_ylabel("max |change| of output row")
    ax.set_title(f"{intervention}: how much did each earlier row move?", fontsize=10)
    ax.axhline(0.0, color="black", linewidth=0.8)
    # Below the axes: inside, it would hide the tallest bars.
    fig.legend(fontsize=8, loc="lower center", ncols=2, frameon=False)
    fig.subplots_adjust(left=0.13, right=0.97, top=0.88, bottom=0.25)
    return _png_base64(fig)
