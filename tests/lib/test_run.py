import numpy as np
import pytest

from repbook import layout
import torch

from repbook.core.params import ParameterError
from repbook.core.run import setup

SIZES = {"quick": {"n": 10}, "full": {"n": 1000}}


def test_setup_seeds_and_reports(capsys):
    a = setup(chapter="99_demo", scale="quick", seed=3, sizes=SIZES)
    x1, t1 = np.random.rand(), torch.rand(1).item()
    b = setup(chapter="99_demo", scale="quick", seed=3, sizes=SIZES)
    assert (np.random.rand(), torch.rand(1).item()) == (x1, t1)
    assert a["n"] == 10 and a.device in ("cpu", "cuda")
    assert a.rng.random() == b.rng.random()
    assert a.child_rng(1).random() == b.child_rng(1).random() != a.child_rng(2).random()
    assert torch.rand(1, generator=a.torch_generator(1)) == torch.rand(
        1, generator=b.torch_generator(1)
    )
    assert torch.are_deterministic_algorithms_enabled()
    out = capsys.readouterr().out
    assert "scale=quick" in out and "seed=3" in out and "sizes: n=10" in out


def test_setup_full_scale_uses_its_sizes():
    assert (
        setup(chapter="99_demo", scale="full", seed=0, sizes=SIZES, quiet=True)["n"]
        == 1000
    )


def test_bad_parameters_fail_at_once():
    with pytest.raises(ParameterError, match="'scale'"):
        setup(chapter="99_demo", scale="huge", seed=0, sizes=SIZES)
    with pytest.raises(ParameterError, match="'seed'"):
        setup(chapter="99_demo", scale="quick", seed=-2, sizes=SIZES)
    with pytest.raises(ParameterError, match="lacks scale"):
        setup(chapter="99_demo", scale="quick", seed=0, sizes={"quick": {}})


def test_unknown_size_names_what_exists():
    run = setup(chapter="99_demo", scale="quick", seed=0, sizes=SIZES, quiet=True)
    with pytest.raises(KeyError, match="it has: n"):
        run["m"]


def test_chapter_name_comes_from_the_runner_or_jupyter(monkeypatch):
    from repbook.core.run import chapter_name

    monkeypatch.delenv(layout.CHAPTER_ENV, raising=False)
    monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
    assert chapter_name() == "interactive"
    monkeypatch.setenv("JPY_SESSION_NAME", "/home/me/book/notebooks/04_aurc.py")
    assert chapter_name() == "04_aurc"
    monkeypatch.setenv(layout.CHAPTER_ENV, "17_online_conformal")
    assert chapter_name() == "17_online_conformal"
    assert (
        setup(scale="quick", seed=0, sizes=SIZES, quiet=True).chapter
        == "17_online_conformal"
    )
    assert chapter_name("explicit") == "explicit"


def test_deterministic_algorithms_are_strict():
    setup(chapter="99_demo", scale="quick", seed=0, sizes=SIZES, quiet=True)
    assert torch.are_deterministic_algorithms_enabled()
    assert not torch.is_deterministic_algorithms_warn_only_enabled()


def test_setup_opens_the_ledger_applies_the_style_and_times_the_run(tmp_path):
    import matplotlib

    from repbook.core.plotting import ROLES, color_for

    matplotlib.rcParams["figure.dpi"] = 50
    run = setup(
        chapter="99_demo",
        scale="quick",
        seed=0,
        sizes=SIZES,
        quiet=True,
        regime="a toy",
        colors={"my method": "baseline"},
    )
    assert run.ledger.chapter == "99_demo" and run.ledger.regime == "a toy"
    assert run.ledger.seed == 0 and run.ledger.claims == []
    assert matplotlib.rcParams["figure.dpi"] == 100  # the house style
    assert color_for("my method") == ROLES["baseline"]
    line = run.time_line()
    assert line.startswith("chapter run time: ") and "budget 90 s" in line
    full = setup(chapter="99_demo", scale="full", seed=0, sizes=SIZES, quiet=True)
    assert "budget" not in full.time_line()
