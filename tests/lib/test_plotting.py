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
