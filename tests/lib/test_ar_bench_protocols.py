"""The chapter's experiment protocols (`repbook.papers.ar_bench.protocols`)."""

import numpy as np
import pytest

from repbook.core import data_file
from repbook.papers.ar_bench import dc, gn, load_arbench, protocols


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
    res = protocols.adaptive_vs_fixed(secrets, ks, rngs(2, 10), rngs(2, 20))
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
        protocols.adaptive_vs_fixed([1, 2], [0, 2], rngs(2), rngs(2))
    with pytest.raises(ValueError, match="rngs_fixed"):
        protocols.adaptive_vs_fixed([1, 2], [1], rngs(2), rngs(3))
    with pytest.raises(
        TypeError, match=r"rngs_adaptive\[0\] must be a numpy.random.Generator, got int"
    ):
        protocols.adaptive_vs_fixed([1, 2], [1], [0], rngs(1))
    with pytest.raises(TypeError, match="rngs_adaptive must be a non-empty"):
        protocols.adaptive_vs_fixed([1, 2], [1], [], rngs(1))
    res = protocols.adaptive_vs_fixed([1, 2], [1], rngs(1), rngs(1))
    for read in (res.gap, res.unequal_gap, res.credits):
        with pytest.raises(ValueError, match=r"k must be one of \[1\], got 4"):
            read(4)


def test_adaptive_vs_fixed_readings_and_tables():
    secrets = np.arange(0, 5040, 90)
    ks = np.array([1, 2, 5])
    res = protocols.adaptive_vs_fixed(secrets, ks, rngs(3, 30), rngs(3, 40))
    assert np.array_equal(
        res.unequal_gap(5), res.adaptive_won[:, 2] - res.fixed_unique[:, 2]
    )
    a, f = res.credits(2)
    assert a == res.adaptive[:, 1].mean() and f == res.fixed[:, 1].mean()
    by_hand = [np.mean(st.turns) for st in res.adaptive_stats]
    assert np.array_equal(res.mean_guesses, by_hand)
    entropy = gn.solve_tree("entropy")
    table = protocols.credit_table(res, entropy.sizes)
    assert list(table.k) == [1, 2, 5] and list(table.columns) == [
        "k",
        "adaptive: consistent random",
        "adaptive: entropy",
        "fixed: k random clues",
    ]
    assert np.allclose(table["fixed: k random clues"], res.fixed.mean(0))
    # the entropy agent is credited by the same rule, on all 5,040 secrets
    assert np.allclose(
        table["adaptive: entropy"], gn.final_answer_credit(entropy.sizes, ks)
    )
    search = protocols.search_table(res, {"entropy": entropy})
    assert list(search.index) == ["consistent random", "entropy"]
    cr = search.loc["consistent random"]
    assert cr.mean_guesses == pytest.approx(np.mean(by_hand))
    assert cr.sd_over_seeds == pytest.approx(np.std(by_hand))
    assert cr.worst == max(st.turns.max() for st in res.adaptive_stats)
    ent = search.loc["entropy"]
    assert ent.sd_over_seeds == 0 and ent.solved == 1.0 and ent.worst == 8
    assert ent.mean_guesses == pytest.approx(entropy.turns.mean())


# --- sweeps -------------------------------------------------------------------------------------
def test_sweep_matches_the_agents_and_reads_steps():
    games = np.arange(0, 5040, 60)
    sw = protocols.sweep(games, "memory", [0, 2, 25], rngs(3, 5))
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
    sw = protocols.sweep(games, "misreading", [0.0, 0.5], rngs(2))
    assert sw.parameter == "misreading" and sw.accuracy[0] == 1.0
    with pytest.raises(ValueError, match="parameter"):
        protocols.sweep(games, "patience", [1, 2], rngs(2))
    with pytest.raises(ValueError, match="two settings"):
        protocols.sweep(games, "memory", [1], rngs(1))
    with pytest.raises(ValueError, match="rngs"):
        protocols.sweep(games, "memory", [1, 2], rngs(3))
    with pytest.raises(ValueError, match="direction"):
        sw.worst_wrong_step(0)


def test_binomial_z_known_answers_and_bad_inputs():
    # 10 of 100 won at p0 = 0.1 is at chance; 19 of 100 is 3 SE away (SE = 0.03)
    assert protocols.binomial_z(0.10, 0.1, 100) == pytest.approx(0.0)
    assert protocols.binomial_z(0.19, 0.1, 100) == pytest.approx(3.0)
    assert protocols.binomial_z(0.01, 0.1, 100) == pytest.approx(3.0)
    with pytest.raises(ValueError, match="p0 must be a number in \\[0, 1\\], got 2"):
        protocols.binomial_z(0.1, 2, 100)
    with pytest.raises(ValueError, match="n must be a positive int, got 0"):
        protocols.binomial_z(0.1, 0.1, 0)


def test_wasted_information_plays_the_three_agents_on_the_same_games():
    games = np.arange(0, 5040, 70)
    w = protocols.wasted_information(
        games,
        [0, 2, 25],
        [0.0, 0.5],
        keep=2,
        rng_ignore=np.random.default_rng(1),
        rngs_memory=rngs(3, 10),
        rngs_misreading=rngs(2, 20),
    )
    assert w.n_games == len(games)
    again = gn.ignore_feedback(games, np.random.default_rng(1))
    assert np.array_equal(w.ignore.turns, again.turns)
    assert np.array_equal(
        w.memory.solved,
        protocols.sweep(games, "memory", [0, 2, 25], rngs(3, 10)).solved,
    )
    assert w.chance_ignore == pytest.approx(26 / 5040)
    assert w.chance_no_memory == pytest.approx(1 - (1 - 1 / 5040) ** 26)
    assert w.ignore_accuracy == again.solved.mean()
    assert w.z_ignore == protocols.binomial_z(
        again.solved.mean(), 26 / 5040, len(games)
    )
    assert w.z_no_memory == protocols.binomial_z(
        w.memory.accuracy[0], w.chance_no_memory, len(games)
    )
    # full memory wins every game, so the drop is 1 − won with k = 2, per secret
    assert np.array_equal(w.memory_drop(2), 1 - w.memory.solved[1].astype(int))
    assert np.array_equal(w.misreading_drop(), w.misreading.drop(0, -1))
    with pytest.raises(ValueError, match="keep must be one of"):
        w.memory_drop(3)


@pytest.mark.parametrize(
    "memories, noises, keep",
    [([1, 2, 25], [0.0, 0.5], 2), ([0, 2, 25], [0.1, 0.5], 2), ([0, 1, 25], [0.0], 2)],
)
def test_wasted_information_bad_sweeps(memories, noises, keep):
    with pytest.raises(ValueError, match="the sweeps must start at k = 0 and p = 0"):
        protocols.wasted_information(
            [1, 2],
            memories,
            noises,
            keep=keep,
            rng_ignore=np.random.default_rng(0),
            rngs_memory=rngs(len(memories)),
            rngs_misreading=rngs(len(noises)),
        )
    with pytest.raises(TypeError, match="rng_ignore must be a numpy.random.Generator"):
        protocols.wasted_information(
            [1, 2], [0, 2], [0.0, 0.5], keep=2, rng_ignore=0,
            rngs_memory=rngs(2), rngs_misreading=rngs(2),
        )  # fmt: skip


# --- races --------------------------------------------------------------------------------------
def test_dc_race_pairs_the_questioners_on_equal_counts(cases):
    race = protocols.dc_race(
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
    one = protocols.dc_race(
        cases[:2],
        3,
        {"info_gain": np.random.default_rng(1), "random": np.random.default_rng(2)},
        equal_at=(3,),
    )
    assert one.values("random", "process_fixed")[0, 0] == pytest.approx(
        g.process_within(3, key, n)
    )
    # each count's share is kept, and equals the race run at that count alone
    assert np.array_equal(
        race.values("random", "process_q3"), one.values("random", "process_fixed")
    )
    assert np.array_equal(race.paired("process_q3"), one.paired("process_fixed"))
    assert np.allclose(
        np.mean([race.values("random", f"process_q{q}") for q in (1, 2, 3, 4)], 0),
        race.values("random", "process_fixed"),
    )


def test_dc_race_bad_inputs(cases):
    good = {"info_gain": np.random.default_rng(1), "random": np.random.default_rng(2)}
    with pytest.raises(ValueError, match="reps must be an int ≥ 2, got 1"):
        protocols.dc_race(cases, 1, good)
    with pytest.raises(ValueError, match="info_gain"):
        protocols.dc_race(cases, 2, {"random": np.random.default_rng(0)})
    with pytest.raises(ValueError, match="equal_at"):
        protocols.dc_race(cases, 2, good, equal_at=(0,))
    with pytest.raises(ValueError, match="equal_at"):
        protocols.dc_race(cases, 2, good, equal_at=())
    race = protocols.dc_race(cases[:1], 2, good)
    with pytest.raises(ValueError, match="agent"):
        race.values("oracle", "questions")


def test_sp_race(puzzles):
    race = protocols.sp_race(
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
        protocols.sp_race(puzzles, 2, {"random": np.random.default_rng(0)})


def test_race_summary(cases, puzzles):
    dc_race = protocols.dc_race(
        cases[:2],
        3,
        {"info_gain": np.random.default_rng(1), "random": np.random.default_rng(2)},
    )
    sp_race = protocols.sp_race(
        puzzles[:2],
        3,
        {"follow_up": np.random.default_rng(3), "random": np.random.default_rng(4)},
    )
    table = protocols.race_summary(dc_race, sp_race)
    assert list(table.columns) == list(protocols.SUMMARY_COLUMNS)
    assert list(table.index) == [
        ("DC", "info gain"),
        ("DC", "random"),
        ("SP", "follow-up"),
        ("SP", "random"),
    ]
    q = table["mean questions"]
    assert q["DC", "random"] == pytest.approx(
        np.mean(dc_race.values("random", "questions"))
    )
    assert q["SP", "follow-up"] == pytest.approx(
        np.mean(sp_race.values("follow-up", "questions"))
    )
    assert (
        table.loc[("SP", "random"), "process at q_info"]
        != table.loc[("SP", "random"), "process at q_info"]
    )  # NaN: the SP race has no equal-count columns
    assert len(dc_race.frame()) == len(dc_race.rows)
