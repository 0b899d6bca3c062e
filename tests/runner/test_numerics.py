"""Numerical environments: runs under other kernels and thread counts, and their record."""

import json
import math
import textwrap

import pytest

from repbook import layout
from minibook import HEADER

from repbook.core.ledger import Ledger
from repbook.core.criteria import at_least
from repbook.runner.cache import chapter_key, numeric_environment
from repbook.runner.chapters import resolve
from repbook.runner.cli import main
from repbook.runner.numerics import (
    ENVIRONMENTS,
    differences,
    env_tag,
    read_record,
    round_up,
    suggestion,
    value_difference,
)


@pytest.mark.parametrize(
    "x, want", [(0.0234, 0.03), (0.03, 0.03), (3e-7, 3e-7), (1.0, 1.0), (9.1, 10.0)]
)
def test_round_up(x, want):
    assert round_up(x) == pytest.approx(want)


def test_round_up_refuses_what_it_cannot_round():
    with pytest.raises(ValueError, match="positive finite"):
        round_up(0.0)


def test_value_difference_is_the_largest_over_environments_by_element():
    assert value_difference(1.0, [1.5, 0.8]) == pytest.approx(0.5)
    assert value_difference([1.0, 2.0], [[1.1, 2.0], [1.0, 1.7]]) == pytest.approx(
        [0.1, 0.3]
    )
    assert value_difference({"a": 1.0}, [{"a": 0.5}]) == {"a": 0.5}
    assert value_difference([1.0], [[1.0, 2.0]]) == [math.inf]  # the shape changed
    assert value_difference(None, [None]) == 0.0  # NaN in both
    assert value_difference(1.0, [None]) == math.inf


def ledger(x, n):
    led = Ledger("99_demo", "quick")
    led.check(
        "1", "s", paper="p", source="paper", measured={"x": x, "n": n},
        criterion=at_least("x", 0.0),
    )  # fmt: skip
    return led


def test_differences_and_the_suggested_tolerance():
    (entry,) = differences(
        ledger(0.5, 3), {"avx2": ledger(0.51, 3), "generic": ledger(0.47, 3)}
    )
    assert entry["verdicts"] == {"reference": "reproduced", "avx2": "reproduced",
                                 "generic": "reproduced"}  # fmt: skip
    assert entry["values"]["x"]["difference"] == pytest.approx(0.03)
    assert entry["values"]["n"]["difference"] == 0
    assert suggestion(entry) == {"x": pytest.approx(0.09)}  # 3 × 0.03; n did not move


def test_environment_variables_enter_the_cache_key(book_root, monkeypatch):
    tiny = resolve(book_root, ["01"])[0]
    from repbook.runner.cache import NUMERIC_ENV_VARS

    for var in NUMERIC_ENV_VARS:  # this test may itself run in a numerical environment
        monkeypatch.delenv(var, raising=False)
    plain = chapter_key(book_root, tiny, {})
    assert chapter_key(book_root, tiny, {}, {layout.THREADS_ENV: "1"}) != plain
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "default")
    assert numeric_environment() == {"ATEN_CPU_CAPABILITY": "default"}
    assert chapter_key(book_root, tiny, {}) != plain


THREADS = HEADER + textwrap.dedent("""\
    # %% tags=["parameters"]
    scale = "quick"
    seed = 0

    # %%
    import torch
    from repbook.core import Ledger, at_least, setup
    run = setup(scale=scale, seed=seed, sizes={"quick": {}, "full": {}})
    ledger = Ledger.for_run(run)
    ledger.check(1, "threads", paper="-", source="paper",
                 measured={"threads": torch.get_num_threads(), "one": 1},
                 criterion=at_least("threads", 1))

    # %% tags=["nbval-check-output"]
    ledger.show()
    """)


def test_the_numerics_command_runs_each_environment_and_records_it(
    book_root, monkeypatch, capsys
):
    (book_root / "notebooks" / "04_threads.py").write_text(THREADS)
    monkeypatch.setattr("repbook.runner.cli._root", lambda: book_root)
    monkeypatch.delenv(layout.THREADS_ENV, raising=False)
    assert main(["numerics", "04", "--envs", "one-thread", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "recorded in data/numerics/04_threads.json" in out
    assert "claim 1: moved; declare e.g. tolerance={'threads': tol(abs=3)}" in out
    record = read_record(book_root / "data" / "numerics" / "04_threads.json")
    assert record["environments"] == {"one-thread": ENVIRONMENTS["one-thread"]}
    assert record["runs"]["one-thread"]["status"] == "ok"
    (claim,) = record["claims"]
    assert claim["values"]["threads"] == {"reference": 2, "difference": 1}
    assert claim["values"]["one"]["difference"] == 0
    assert (
        book_root / "_build" / "runs" / "04_threads" / env_tag("one-thread")
    ).is_dir()
    json.dumps(record)


def test_unknown_environments_and_no_chapter_are_refused(capsys):
    assert main(["numerics", "04", "--envs", "arm"]) == 2
    assert "unknown numerical environment 'arm'" in capsys.readouterr().err
    assert main(["numerics"]) == 2
    assert "name the chapter(s)" in capsys.readouterr().err


def test_bad_thread_count_is_refused(monkeypatch):
    from repbook.core.run import quick_threads

    monkeypatch.setenv(layout.THREADS_ENV, "two")
    with pytest.raises(
        ValueError, match=rf"\${layout.THREADS_ENV} must be a whole number"
    ):
        quick_threads()
    monkeypatch.setenv(layout.THREADS_ENV, "3")
    assert quick_threads() == 3


def table_of(led: Ledger) -> str:
    return led.markdown(stability=None)


def test_observing_another_machines_table():
    from repbook.runner.numerics import observe_table

    def mine(x, seq, m):
        led = Ledger("99_demo", "quick")
        led.check(
            "1", "s | t", paper="p", source="paper",
            measured={"x": x, "seq": seq, "by width": m},
            criterion=at_least("x", 0.0),
        )  # fmt: skip
        led.check(
            "2", "exact", paper="p", source="paper", measured={"n": 7},
            criterion=at_least("n", 1),
        )  # fmt: skip
        return led

    ours = mine(
        0.5001, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0], {"W=32": 0.25, "W=64": 1e-16}
    )
    theirs = mine(
        0.47, [1.0, 2.0, 3.1, 4.0, 5.0, 6.0, 9.0], {"W=32": 0.3, "W=64": -2e-17}
    )
    found = observe_table(table_of(theirs), ours, "elsewhere")
    got = {(o["claim"], o["value"]): o["difference"] for o in found}
    # 0.5001 prints as 0.5 and 0.47 as 0.47; the 7th element is not shown (only the range)
    assert got == {
        ("1", "x"): pytest.approx(0.0301),
        ("1", "seq"): pytest.approx(0.1),
        ("1", "by width"): pytest.approx(0.05),
        ("1", "margin"): pytest.approx(0.0301),
    }
    assert all(o["source"] == "elsewhere" and o["criterion"] == "x ≥ 0" for o in found)
    assert (
        observe_table(table_of(ours), ours, "same") == []
    )  # what prints alike is alike


def test_observing_another_machines_run_at_full_precision():
    from repbook.runner.numerics import observe_run

    def mine(x, seq):
        led = Ledger("99_demo", "quick")
        led.check(
            "1", "s", paper="p", source="paper", measured={"x": x, "seq": seq},
            criterion=at_least("x", 0.0),
        )  # fmt: skip
        led.check(
            "2", "exact", paper="p", source="paper", measured={"n": 7},
            criterion=at_least("n", 1),
        )  # fmt: skip
        return led

    ours, theirs = mine(0.5001, [1.0, 2.0, 3.0]), mine(0.5, [1.0, 2.5, 3.0])
    found = observe_run(ours, theirs, "a run elsewhere")
    got = {(o["claim"], o["value"]): o["difference"] for o in found}
    # full precision: 0.5001 against 0.5 is seen although both print as 0.5
    assert got == {
        ("1", "x"): pytest.approx(1e-4),
        ("1", "seq"): pytest.approx(0.5),
        ("1", "margin"): pytest.approx(1e-4),
    }
    assert all(o["source"] == "a run elsewhere" for o in found)
    assert observe_run(ours, ours, "same") == []


def test_observe_needs_one_source(capsys):
    assert main(["observe", "04"]) == 2
    assert "--git REV or --run LEDGER" in capsys.readouterr().err


def test_observations_are_kept_while_they_describe_the_claims(book_root):
    from repbook.runner.numerics import (
        add_observations,
        kept_observations,
        record_path,
        write_record,
    )

    ch = resolve(book_root, ["01"])[0]
    ref = ledger(0.5, 3)
    with pytest.raises(ValueError, match="no numerics record to add to"):
        add_observations(book_root, ch, [])
    write_record(book_root, ch, ref, {"avx2": ledger(0.51, 3)}, {}, "abc")
    obs = {"claim": "1", "value": "x", "difference": 0.2, "criterion": "x ≥ 0",
           "source": "elsewhere"}  # fmt: skip
    assert add_observations(book_root, ch, [obs])[1] == 1
    assert add_observations(book_root, ch, [obs])[1] == 0  # not twice
    write_record(book_root, ch, ref, {"avx2": ledger(0.51, 3)}, {}, "abc")
    record = read_record(record_path(book_root, ch))
    assert record["observed elsewhere"] == [obs]
    stale = Ledger("99_demo", "quick")
    stale.check("1", "s", paper="p", source="paper", measured={"x": 1.0},
                criterion=at_least("x", 0.5))  # fmt: skip
    assert kept_observations(record_path(book_root, ch), stale) == []
