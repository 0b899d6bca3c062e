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
