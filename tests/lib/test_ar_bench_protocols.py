"""The chapter's experiment protocols (`repbook.papers.ar_bench.protocols`)."""

import numpy as np
import pytest

from repbook.core import data_file
from repbook.papers.ar_bench import dc, gn, load_arbench, protocols as P


def rngs(n, base=0):
    return [np.random.default_rng(base + i) for i in range(n)]


@pytest.fixture(scope="module")
def cases():
    return load_arbench(data_file("01_ar_bench", "dc_mini.json"))


@pytest.fixture(scope="module")
def puzzles():
    return load_arbench(data_file("01_ar_bench", "sp_mini.json"))


# --- adaptive against fixed ---------------------------------------------------------------------
def test_adaptive_vs_fixed_agrees_with_the_agents_run_by_hand():
    secrets = np.arange(0, 5040, 40)
    ks = np.array([1, 3, 5])
    res = P.adaptive_vs_fixed(secrets, ks, rngs(2, 10), rngs(2, 20))
    assert res.adaptive.shape == res.fixed.shape == (2, 3)
    st = gn.consistent_random(secrets, np.random.default_rng(11))
    sz = gn.passive_sizes(secrets, 5, np.random.default_rng(21))
    assert np.allclose(res.adaptive[1], gn.final_answer_credit(st.sizes, ks))
    assert np.allclose(res.fixed[1], gn.final_answer_credit(sz, ks))
    assert np.allclose(res.fixed_unique[1], (sz[:, ks] == 1).mean(0))
    assert np.allclose(res.adaptive_won[1], gn.solved_by(st.turns, ks + 1))
    assert np.allclose(res.gap(5), res.adaptive[:, 2] - res.fixed[:, 2])
    # one final answer is credited at least as often as "exactly one left"
    assert np.all(res.fixed >= res.fixed_unique - 1e-12)


def test_adaptive_vs_fixed_bad_inputs():
    with pytest.raises(ValueError, match="ks"):
        P.adaptive_vs_fixed([1, 2], [0, 2], rngs(2), rngs(2))
    with pytest.raises(ValueError, match="rngs_fixed"):
        P.adaptive_vs_fixed([1, 2], [1], rngs(2), rngs(3))
    with pytest.raises(TypeError, match="Generators"):
        P.adaptive_vs_fixed([1, 2], [1], [0], rngs(1))
    res = P.adaptive_vs_fixed([1, 2], [1], rngs(1), rngs(1))
    with pytest.raises(ValueError, match="k must be one of"):
        res.gap(4)


# --- sweeps -------------------------------------------------------------------------------------
def test_sweep_matches_the_agents_and_reads_steps():
    games = np.arange(0, 5040, 60)
    sw = P.sweep(games, "memory", [0, 2, 25], rngs(3, 5))
    again = gn.forgetful(games, np.random.default_rng(6), k=2)
    assert np.array_equal(sw.solved[1], again.solved)
    assert sw.accuracy[-1] == 1.0 and sw.accuracy[0] < 0.1
    assert sw.worst_wrong_step(+1) < 0  # every step rises
    assert sw.worst_wrong_step(-1) > 2
    d = sw.drop(-1, 0)
    assert set(np.unique(d)) <= {-1, 0, 1} and d.mean() == pytest.approx(
        sw.accuracy[-1] - sw.accuracy[0]
    )
    assert np.all(sw.se > 0)


def test_sweep_misreading_and_bad_inputs():
    games = np.arange(0, 5040, 120)
    sw = P.sweep(games, "misreading", [0.0, 0.5], rngs(2))
    assert sw.parameter == "misreading" and sw.accuracy[0] == 1.0
    with pytest.raises(ValueError, match="parameter"):
        P.sweep(games, "patience", [1, 2], rngs(2))
    with pytest.raises(ValueError, match="two settings"):
        P.sweep(games, "memory", [1], rngs(1))
    with pytest.raises(ValueError, match="rngs"):
        P.sweep(games, "memory", [1, 2], rngs(3))
    with pytest.raises(ValueError, match="direction"):
        sw.worst_wrong_step(0)


# --- races --------------------------------------------------------------------------------------
def test_dc_race_pairs_the_questioners_on_equal_counts(cases):
    race = P.dc_race(
        cases[:2],
        3,
        {"info_gain": np.random.default_rng(1), "random": np.random.default_rng(2)},
    )
    assert len(race.rows) == 2 * 3 * 2
    q_info = race.values("info gain", "questions")
    assert q_info.shape == (3, 2) and np.all(q_info >= 1) and np.all(q_info <= 15)
    # the information-gain agent's own process score is its process at equal counts
    assert np.allclose(
        race.values("info gain", "process"), race.values("info gain", "process_equal")
    )
    assert np.all(race.values("random", "correct") == 1)
    # the paired difference is the per-repetition mean over records
    d = race.values("random", "questions") - q_info
    assert np.allclose(race.paired("questions", lower_is_better=True), d.mean(1))
    # replayed by hand: the first game of the random agent
    g = dc.play_case(
        cases[0], "random", np.random.default_rng(2), stop_when_certain=False
    )
    assert race.values("random", "questions")[0, 0] == g.certain_at
    # random's process at equal counts is taken at the information-gain agent's q (the rule),
    # not at its own stopping point, and its process at fixed counts at q = 1..4
    key, n = cases[0].key_pairs, cases[0].n_key_questions
    q_info0 = int(q_info[0, 0])
    assert race.values("random", "process_equal")[0, 0] == pytest.approx(
        g.process_within(q_info0, key, n)
    )
    assert race.values("random", "process")[0, 0] == pytest.approx(
        g.process_within(g.certain_at, key, n)
    )
    assert race.values("random", "process_fixed")[0, 0] == pytest.approx(
        np.mean([g.process_within(q, key, n) for q in (1, 2, 3, 4)])
    )
    gi = dc.play_case(
        cases[0], "info_gain", np.random.default_rng(1), stop_when_certain=False
    )
    assert q_info0 == gi.certain_at
    one = P.dc_race(
        cases[:2],
        3,
        {"info_gain": np.random.default_rng(1), "random": np.random.default_rng(2)},
        equal_at=(3,),
    )
    assert one.values("random", "process_fixed")[0, 0] == pytest.approx(
        g.process_within(3, key, n)
    )


def test_dc_race_bad_inputs(cases):
    good = {"info_gain": np.random.default_rng(1), "random": np.random.default_rng(2)}
    with pytest.raises(ValueError, match="reps"):
        P.dc_race(cases, 1, good)
    with pytest.raises(ValueError, match="info_gain"):
        P.dc_race(cases, 2, {"random": np.random.default_rng(0)})
    with pytest.raises(ValueError, match="equal_at"):
        P.dc_race(cases, 2, good, equal_at=(0,))
    with pytest.raises(ValueError, match="equal_at"):
        P.dc_race(cases, 2, good, equal_at=())
    race = P.dc_race(cases[:1], 2, good)
    with pytest.raises(ValueError, match="agent"):
        race.values("oracle", "questions")


def test_sp_race(puzzles):
    race = P.sp_race(
        puzzles[:2],
        4,
        {"follow_up": np.random.default_rng(3), "random": np.random.default_rng(4)},
    )
    assert len(race.rows) == 2 * 2 * 4
    assert np.all(race.values("follow-up", "correct") == 1)
    assert set(race.curves) == {"follow-up", "random"}
    for c in race.curves.values():
        assert c.shape == (26,) and c[0] == 0 and c[-1] == pytest.approx(1.0)
        assert np.all(np.diff(c) >= -1e-12)
    with pytest.raises(ValueError, match="follow_up"):
        P.sp_race(puzzles, 2, {"random": np.random.default_rng(0)})
