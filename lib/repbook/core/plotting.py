"""One house style for every figure of the book, applied by one call.

The same method keeps the same colour in every chapter: colours are looked up by role (`ours`,
`baseline`, `peer`, `reference`, ...) or by name, never picked ad hoc.
"""

from __future__ import annotations

import hashlib
import math

PALETTE = [
    "#0072B2",
    "#D55E00",
    "#009E73",
    "#CC79A7",
    "#E69F00",
    "#56B4E9",
    "#F0E442",
    "#7F7F7F",
]
"""Okabe–Ito, colour-blind safe."""

ROLES = {
    "ours": PALETTE[0],  # the paper's method as we implemented it
    "baseline": PALETTE[1],  # the method the paper improves on
    "peer": PALETTE[2],  # a peer package run side by side
    "alt": PALETTE[3],
    "alt2": PALETTE[4],
    "alt3": PALETTE[5],
    "reference": "#000000",  # closed forms and the paper's values, drawn as lines
    "muted": PALETTE[7],
}

STYLE_RC = {
    "figure.figsize": (6.4, 3.9),
    "figure.dpi": 100,
    "savefig.dpi": 150,
    "axes.titlesize": 12,
    "axes.titleweight": "bold",
    "axes.labelsize": 11,
    "legend.fontsize": 9,
    "legend.frameon": False,
    "lines.linewidth": 1.8,
    "figure.constrained_layout.use": True,
}

_named: dict[str, str] = {}


def use_style() -> None:
    """Apply the book's style: seaborn whitegrid, Okabe–Ito palette, fixed sizes and fonts."""
    import matplotlib
    import seaborn as sns

    sns.set_theme(
        context="notebook",
        style="whitegrid",
        palette=PALETTE,
        font="DejaVu Sans",
        rc=STYLE_RC,
    )
    matplotlib.rcParams["svg.hashsalt"] = "repbook"
    try:  # PNG only: nbval skips PNG outputs, but would compare SVG text
        from matplotlib_inline.backend_inline import set_matplotlib_formats

        set_matplotlib_formats("png")
    except ImportError:  # pragma: no cover - outside IPython
        pass


def color_for(name: str) -> str:
    """The colour of a role (see ROLES) or of a named method, the same in every chapter.

    Names not registered with `register_colors` get a colour from a stable hash of the name.
    """
    if name in ROLES:
        return ROLES[name]
    if name in _named:
        return _named[name]
    digest = int(hashlib.sha256(name.encode()).hexdigest(), 16)
    return PALETTE[digest % (len(PALETTE) - 1)]


def register_colors(mapping: dict[str, str]) -> None:
    """Give named methods a role's colour, e.g. {"MC plug-in": "ours", "SELE": "baseline"}."""
    for name, role in mapping.items():
        _named[name] = ROLES.get(role, role)


def reference_line(ax, y: float, label: str, *, horizontal: bool = True) -> None:
    """Draw a closed form or a paper's value as a dashed black reference line."""
    draw = ax.axhline if horizontal else ax.axvline
    draw(
        y,
        color=ROLES["reference"],
        linestyle="--",
        linewidth=1.2,
        label=label,
        zorder=1,
    )


def plain_number(v: float, _pos=None) -> str:
    """A tick label as a plain number: 1,000 rather than 10³ (and 0.05 below 1)."""
    return f"{v:,.0f}" if v >= 1 else f"{v:g}"


def log_ticks(ax, which: str = "xy", *, subs=(1.0, 2.0, 5.0), formatter=None) -> None:
    """Log-scale ticks at 1, 2, 5 × 10^k on the axes named in `which`, labelled as plain numbers
    (`formatter` overrides the labels), with no minor labels. The axis must be on a log scale."""
    from matplotlib import ticker

    if not which or set(which) - {"x", "y"}:
        raise ValueError(f"which must name axes among 'x' and 'y', got {which!r}")
    for name in sorted(set(which)):
        axis = ax.xaxis if name == "x" else ax.yaxis
        axis.set_major_locator(ticker.LogLocator(base=10, subs=tuple(subs)))
        axis.set_major_formatter(formatter or ticker.FuncFormatter(plain_number))
        axis.set_minor_formatter(ticker.NullFormatter())


def slope_guide(
    ax, x, y0: float, slope: float, *, label: str, x0: float | None = None, **style
) -> None:
    """A dashed reference line y0 · (x / x0)^slope through (x0, y0) (x0: the first x), drawn
    over `x`: the rate a claim predicts, for the eye to compare with the data."""
    import numpy as np

    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or x.size < 2 or np.any(x <= 0):
        raise ValueError("x must hold at least two positive values for a slope guide")
    x0 = float(x[0] if x0 is None else x0)
    kw = dict(color=ROLES["reference"], ls="--", lw=1.2, zorder=1)
    kw.update(style)
    ax.plot(x, y0 * (x / x0) ** slope, label=label, **kw)


def seed_band(
    ax, x, runs, *, color: str, label: str, band: str = "range", alpha=0.2, **line
) -> None:
    """The mean over seeds as a line and their spread as a band: `runs` is (seeds × len(x));
    `band` is "range" (min to max) or "se" (mean ± one standard error)."""
    import numpy as np

    r = np.asarray(runs, dtype=float)
    if r.ndim != 2 or r.shape[1] != len(x):
        raise ValueError(f"runs must be (seeds, {len(x)}), got shape {r.shape}")
    mean = r.mean(0)
    if band == "range":
        lo, hi = r.min(0), r.max(0)
    elif band == "se":
        se = r.std(0, ddof=1) / np.sqrt(r.shape[0]) if r.shape[0] > 1 else 0 * mean
        lo, hi = mean - se, mean + se
    else:
        raise ValueError(f"band must be 'range' or 'se', got {band!r}")
    ax.plot(x, mean, color=color, label=label, **line)
    ax.fill_between(x, lo, hi, color=color, alpha=alpha, lw=0)


def value_ticks(ax, values, *, axis: str = "x", **text) -> None:
    """Ticks exactly at `values`, labelled as written (`str(v)`), and no minor ticks on that
    axis: for a sweep over a few sizes on a log axis. `text` styles the labels (fontsize=8)."""
    from matplotlib import ticker

    if axis not in ("x", "y"):
        raise ValueError(f"axis must be 'x' or 'y', got {axis!r}")
    values = list(values)
    (ax.set_xticks if axis == "x" else ax.set_yticks)(
        values, [str(v) for v in values], **text
    )
    (ax.xaxis if axis == "x" else ax.yaxis).set_minor_locator(ticker.NullLocator())


def grouped_bars(ax, categories, series, *, colors, width: float = 0.8, **bar) -> None:
    """Bars of one or more series side by side over categories, the ticks labelled by the
    categories. `series` maps a legend label (None: no legend entry) to one value per category;
    `colors` holds each series' colour (a colour, or a list of one per category). The bars of
    series k of n sit at category + (k − (n − 1) / 2) · width; `bar` goes to `ax.bar`."""
    import numpy as np

    xs = np.arange(len(categories))
    if len(colors) != len(series):
        raise ValueError(
            f"colors must hold one entry per series ({len(series)}), got {len(colors)}"
        )
    for k, ((label, values), color) in enumerate(zip(series.items(), colors)):
        values = list(values)
        if len(values) != len(xs):
            raise ValueError(
                f"series {label!r} must hold one value per category ({len(xs)}), got "
                f"{len(values)}"
            )
        kw = dict(bar) if label is None else dict(bar, label=label)
        ax.bar(
            xs + (k - (len(series) - 1) / 2) * width,
            values,
            width=width,
            color=color,
            **kw,
        )
    ax.set(xticks=xs, xticklabels=list(categories))


def gain_points(
    ax,
    x,
    gains,
    *,
    x_mean: float,
    color: str,
    mean_marker: str = "o",
    capsize=3.0,
    **points,
):
    """Paired gains as points at `x` (one position, or one per gain) and their mean ± t·SE as an
    error bar at `x_mean` (`stats.paired_summary`, as `paired_gain(k="t")` reads them), both in
    `color`; `points` go to `ax.scatter`. Returns the summary."""
    import numpy as np

    from .stats import paired_summary

    g = np.asarray(gains, dtype=float).ravel()
    xs = np.broadcast_to(np.asarray(x, dtype=float), g.shape)
    ax.scatter(xs, g, color=color, **points)
    s = paired_summary(g)
    ax.errorbar(
        x_mean, s.mean, yerr=s.half, fmt=mean_marker, color=color, capsize=capsize
    )
    return s


def mesh_view(
    ax, vertices, triangles, values, *, cmap: str = "viridis", zoom: float = 1.0
):
    """A triangle mesh on a 3-D axes (`projection="3d"`), each face coloured by its value on
    `cmap` (from the values' min to their max), in a cube around `vertices` with equal aspect
    and no axes; `triangles` holds each face's corners (faces × 3 × 3). Returns the colour
    scale, for `fig.colorbar`."""
    import matplotlib.pyplot as plt
    import numpy as np
    from mpl_toolkits.mplot3d.art3d import Poly3DCollection

    v = np.asarray(vertices, dtype=float)
    tri = np.asarray(triangles, dtype=float)
    values = np.asarray(values, dtype=float)
    if tri.ndim != 3 or tri.shape[1:] != (3, 3) or len(values) != len(tri):
        raise ValueError(
            f"triangles must be (faces, 3, 3) with one value per face, got shape "
            f"{tri.shape} and {len(values)} values"
        )
    lo, hi = v.min(0), v.max(0)
    mid, half = (lo + hi) / 2, (hi - lo).max() / 2
    colors, norm = plt.get_cmap(cmap), plt.Normalize(values.min(), values.max())
    ax.add_collection3d(
        Poly3DCollection(tri, facecolors=colors(norm(values)), edgecolor="none")
    )
    ax.set(
        **{f"{a}lim": (m - half, m + half) for a, m in zip("xyz", mid)},
        xticks=[],
        yticks=[],
        zticks=[],
    )
    ax.set_box_aspect((1, 1, 1), zoom=zoom)
    ax.set_axis_off()
    return plt.cm.ScalarMappable(norm=norm, cmap=colors)


def margin_dot_plot(points, path, *, title: str = "Every checked claim, by its margin"):
    """The book at a glance: one dot per checked claim of the papers at its normalised margin
    (symmetric log axis), grouped by chapter, coloured by verdict (within noise: the interval
    straddles the bar, so its dot lies left of 0); the boundary at 0. Saves a PNG to `path`."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, NullLocator

    use_style()
    chapters = sorted({p["chapter"] for p in points})
    row = {c: i for i, c in enumerate(chapters)}
    fig, ax = plt.subplots(figsize=(9, 0.42 * max(len(chapters), 3) + 1.4))
    nth: dict[str, int] = {}
    offset = []  # spread a chapter's dots a little vertically, in a fixed order
    for p in points:
        k = nth.get(p["chapter"], 0)
        nth[p["chapter"]] = k + 1
        offset.append(0.09 * ((k % 5) - 2))
    for verdict, colour in [
        ("reproduced", "#009E73"),
        ("not reproduced", "#D55E00"),
        ("within noise", "#E69F00"),
    ]:
        idx = [i for i, p in enumerate(points) if p["verdict"] == verdict]
        if not idx:
            continue
        pts = [points[i] for i in idx]
        ys = [row[points[i]["chapter"]] + offset[i] for i in idx]
        label = verdict
        ax.scatter(
            [p["normalized"] for p in pts],
            ys,
            s=26,
            color=colour,
            label=label,
            edgecolor="white",
            linewidth=0.5,
            zorder=3,
        )
    ax.axvline(0, color="#000000", lw=1.0, ls="--", label="criterion's boundary")
    linthresh = 0.05
    ax.set_xscale("symlog", linthresh=linthresh)
    reach = max([abs(p["normalized"]) for p in points] + [1.0]) * 2
    ax.set_xlim(-reach, reach)
    # ticks at 0 and ±10^k outside the linear range only: inside it they crowd onto 0
    decades = [10.0**k for k in range(-1, math.ceil(math.log10(reach)) + 1)]
    ticks = [0.0] + [s * d for d in decades if linthresh < d <= reach for s in (-1, 1)]
    ax.xaxis.set_major_locator(FixedLocator(sorted(ticks)))
    ax.xaxis.set_minor_locator(NullLocator())
    ax.set_yticks(range(len(chapters)), chapters)
    ax.set_ylim(len(chapters) - 0.5, -0.5)  # first chapter on top
    ax.set_xlabel("normalised margin (margin / the criterion's scale; < 0: fails)")
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
