import matplotlib

from repbook.core import plotting


def test_style_and_colours_are_stable():
    plotting.use_style()
    assert matplotlib.rcParams["figure.dpi"] == 100
    assert plotting.color_for("ours") == plotting.PALETTE[0]
    # an unregistered name: the same colour in every process (a hash of the name, not id())
    import subprocess
    import sys

    here = plotting.color_for("some method")
    there = subprocess.run(
        [
            sys.executable,
            "-c",
            "from repbook.core import plotting; "
            "print(plotting.color_for('some method'))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert here == there and here in plotting.PALETTE
    plotting.register_colors({"my method": "peer"})
    assert plotting.color_for("my method") == plotting.ROLES["peer"]


def test_helpers_draw_what_they_say():
    import matplotlib.pyplot as plt
    import numpy as np
    import pytest

    fig, ax = plt.subplots()
    x = np.array([10.0, 100.0, 1000.0])
    plotting.slope_guide(ax, x, 2.0, -0.5, label="∝ n^-1/2")
    line = ax.lines[-1]
    assert np.allclose(line.get_ydata(), [2.0, 2.0 / 10**0.5, 0.2])
    assert line.get_label() == "∝ n^-1/2" and line.get_linestyle() == "--"
    runs = np.array([[1.0, 2.0, 3.0], [3.0, 4.0, 5.0]])
    plotting.seed_band(ax, x, runs, color="#000000", label="mean")
    assert np.allclose(ax.lines[-1].get_ydata(), [2.0, 3.0, 4.0])
    assert len(ax.collections) == 1
    with pytest.raises(ValueError, match=r"runs must be \(seeds, 3\)"):
        plotting.seed_band(ax, x, runs[:, :2], color="k", label="x")
    with pytest.raises(ValueError, match="band must be"):
        plotting.seed_band(ax, x, runs, color="k", label="x", band="iqr")
    ax.set_xscale("log")
    plotting.log_ticks(ax, "x")
    assert (
        plotting.plain_number(1000.0) == "1,000"
        and plotting.plain_number(0.05) == "0.05"
    )
    with pytest.raises(ValueError, match="which must name axes"):
        plotting.log_ticks(ax, "z")
    plt.close(fig)


def test_value_ticks_grouped_bars_and_gain_points():
    import matplotlib.pyplot as plt
    import numpy as np
    import pytest
    from scipy import stats

    fig, ax = plt.subplots()
    ax.set_xscale("log")
    plotting.value_ticks(ax, [256, 512, 4096], fontsize=8)
    assert list(ax.get_xticks()) == [256, 512, 4096]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["256", "512", "4096"]
    assert ax.get_xticklabels()[0].get_fontsize() == 8
    assert list(ax.xaxis.get_minorticklocs()) == []
    with pytest.raises(ValueError, match="axis must be 'x' or 'y', got 'z'"):
        plotting.value_ticks(ax, [1], axis="z")
    plt.close(fig)

    fig, ax = plt.subplots()
    plotting.grouped_bars(
        ax, ["a", "b", "c"], {"one": [1, 2, 3], "two": [4, 5, 6]},
        colors=["#000000", "#ffffff"], width=0.4,
    )  # fmt: skip
    xs = sorted(p.get_x() + p.get_width() / 2 for p in ax.patches)
    assert xs == pytest.approx([-0.2, 0.2, 0.8, 1.2, 1.8, 2.2])
    assert [p.get_height() for p in ax.patches] == [1, 2, 3, 4, 5, 6]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    assert [h.get_label() for h in ax.get_legend_handles_labels()[0]] == ["one", "two"]
    fig2, bx = plt.subplots()  # one series, one colour per bar, no legend entry
    plotting.grouped_bars(
        bx, ["a", "b"], {None: [1, 2]}, colors=[["#000000", "#ff0000"]]
    )
    assert [p.get_x() + p.get_width() / 2 for p in bx.patches] == [0.0, 1.0]
    assert bx.get_legend_handles_labels() == ([], [])
    with pytest.raises(
        ValueError, match=r"colors must hold one entry per series \(2\)"
    ):
        plotting.grouped_bars(ax, ["a"], {"x": [1], "y": [2]}, colors=["k"])
    with pytest.raises(
        ValueError, match=r"series 'x' must hold one value per category"
    ):
        plotting.grouped_bars(ax, ["a", "b"], {"x": [1]}, colors=["k"])
    plt.close(fig)
    plt.close(fig2)

    fig, ax = plt.subplots()
    s = plotting.gain_points(
        ax, [0, 1, 2], [1.0, 2.0, 3.0], x_mean=3.5, color="#000000"
    )
    assert (s.mean, s.n) == (2.0, 3)
    assert s.half == pytest.approx(stats.t.ppf(0.975, 2) / np.sqrt(3))
    points = ax.collections[0].get_offsets()
    assert np.allclose(points, [[0, 1], [1, 2], [2, 3]])
    (bar,) = ax.containers  # the error bar: mean ± t·SE at x_mean
    assert np.allclose(bar.lines[0].get_xydata(), [[3.5, 2.0]])
    plotting.gain_points(ax, 5, [1.0, 3.0], x_mean=5.25, color="k", mean_marker="_")
    assert np.allclose(ax.collections[-2].get_offsets(), [[5, 1], [5, 3]])
    plt.close(fig)


def test_mesh_view_colours_faces_in_a_cube():
    import matplotlib.pyplot as plt
    import numpy as np
    import pytest

    vertices = np.array([[0, 0, 0], [4, 0, 0], [0, 2, 0], [0, 0, 1]])
    faces = np.array([[0, 1, 2], [0, 1, 3]])
    fig = plt.figure()
    ax = fig.add_subplot(projection="3d")
    scale = plotting.mesh_view(ax, vertices, vertices[faces], [1.0, 3.0], zoom=1.2)
    (poly,) = ax.collections
    assert (scale.norm.vmin, scale.norm.vmax) == (1.0, 3.0)
    assert np.allclose(poly.get_facecolor(), scale.to_rgba(np.array([1.0, 3.0])))
    fig.canvas.draw()
    assert len(poly.get_paths()) == 2  # one polygon per face
    # a cube of side 4 (the longest extent) around the box's centre (2, 1, 0.5)
    assert ax.get_xlim() == pytest.approx((0, 4)) and ax.get_ylim() == pytest.approx(
        (-1, 3)
    )
    assert ax.get_zlim() == pytest.approx((-1.5, 2.5))
    assert not ax.axison
    with pytest.raises(ValueError, match=r"triangles must be \(faces, 3, 3\)"):
        plotting.mesh_view(ax, vertices, vertices[faces], [1.0])
    plt.close(fig)
