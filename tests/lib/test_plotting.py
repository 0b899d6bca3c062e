import matplotlib

from repbook.core import plotting


def test_style_and_colours_are_stable():
    plotting.use_style()
    assert matplotlib.rcParams["figure.dpi"] == 100
    assert plotting.color_for("ours") == plotting.PALETTE[0]
    assert plotting.color_for("some method") == plotting.color_for("some method")
    plotting.register_colors({"my method": "peer"})
    assert plotting.color_for("my method") == plotting.ROLES["peer"]
