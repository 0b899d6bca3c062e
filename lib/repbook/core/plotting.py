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
