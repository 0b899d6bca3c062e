"""The chapter's protocols (`strategic_reveal.protocol`): the learners run, one run as a
record, the sweeps and the summaries the chapter reads its claims from."""

import numpy as np
import pandas as pd
import pytest

from repbook.papers import strategic_reveal


def all_learners(inst):
    return [
        strategic_reveal.halving_naive(),
        strategic_reveal.halving(),
        strategic_reveal.aby_threshold(inst),
        strategic_reveal.kin_threshold(inst),
        strategic_reveal.positive_on_vs(),
        strategic_reveal.proper(),
    ]


def for_model(learner, model):
    if model == "weighted" and learner.rule not in ("naive", "or"):
        return strategic_reveal.conservative(learner)
    return learner


# --- the chapter's protocols ---------------------------------------------------------
def test_learner_set_matches_the_six_rules_and_holds_them_when_hidden():
    inst = strategic_reveal.star_instance(4)
    for model in ("std", "arb", "weighted"):
        got = strategic_reveal.learner_set(inst, model)
        want = [for_model(L, model) for L in all_learners(inst)]
        if model == "weighted":
            want.append(
                strategic_reveal.accept_once()
            )  # the seventh, last: uses the memory
        assert got == want
    assert [L.conservative for L in strategic_reveal.learner_set(inst, "weighted")] == [
        False,
        True,
        True,
        True,
        False,
        True,
        False,
    ]
    with pytest.raises(ValueError, match="model"):
        strategic_reveal.learner_set(inst, "hidden")


@pytest.mark.parametrize("K", [4, 8, 16])
@pytest.mark.parametrize("gamma", [0.5, 0.9, 0.99])
def test_accept_once_uses_the_memory_and_beats_the_star(K, gamma):
    # Round 1 accepts every leaf (one false positive); from round 2 the leaves' memory
    # beats the hub's, so the target's agent stays on its leaf, is rejected and shows
    # the target: two mistakes for every K, where every other learner pays K − 1.
    inst = strategic_reveal.star_instance(K)
    L = strategic_reveal.accept_once()
    tr = strategic_reveal.simulate(
        inst, L, model="weighted", gamma=gamma, horizon=400,
        rng=np.random.default_rng(K),
    )  # fmt: skip
    assert tr.stopped_early and tr.mistakes <= 2
    assert tr.kind[0] == 1 and tr.dm_version_space.sum() == 1
    # γ = 0: agents follow h_{t−1} only, the all-reject round lets them slip once more
    tr0 = strategic_reveal.simulate(
        inst, L, model="weighted", gamma=0.0, horizon=400,
        rng=np.random.default_rng(K),
    )  # fmt: skip
    assert tr0.stopped_early and tr0.mistakes == 3
    # revealed, it is halving after its first round
    arb = strategic_reveal.simulate(
        inst, L, model="arb", horizon=400, rng=np.random.default_rng(K)
    )
    assert arb.mistakes >= K - 1
    assert strategic_reveal.mistake_bound(inst, L, "weighted", gamma) is None
    assert L.rule == "once" and not L.conservative


def test_play_records_the_run_and_its_bound():
    inst = strategic_reveal.star_instance(4)
    tr, rec = strategic_reveal.play(
        inst,
        strategic_reveal.proper(),
        "arb",
        horizon=200,
        rng=np.random.default_rng(0),
        tag="1",
    )
    assert rec["mistakes"] == tr.mistakes == 3
    assert rec["bound"] == strategic_reveal.mistake_bound(
        inst, strategic_reveal.proper(), "arb"
    )
    assert rec["claim"] == "1" and rec["gamma"] is None and not rec["capped"]
    assert rec["updates"] == tr.changes.size and rec["rounds"] == tr.rounds
    _, stuck = strategic_reveal.play(
        inst,
        strategic_reveal.halving(),
        "arb",
        horizon=30,
        rng=np.random.default_rng(0),
    )
    assert stuck["capped"] and stuck["bound"] is None


def test_star_sweep_uses_the_chapter_streams_and_hidden_horizons():
    calls = []

    def rng_for(k):
        calls.append(k)
        return np.random.default_rng([0, k])

    recs = strategic_reveal.star_sweep(
        [2, 4], [("std", None), ("weighted", 0.9)], horizon=50, rng_for=rng_for
    )
    assert len(recs) == 2 * (6 + 7)  # six learners revealed, seven hidden
    assert calls[:6] == [0, 10, 20, 30, 40, 50]  # K index 0, setting 0, learners 0..5
    assert calls[6:13] == [1, 11, 21, 31, 41, 51, 61]  # setting 1, learners 0..6
    assert calls[13] == 1000  # next size
    hidden = [r for r in recs if r["model"] == "weighted"]
    assert {r["rounds"] for r in hidden if r["capped"]} <= {
        strategic_reveal.star_horizon(2, "weighted", 0.9, 50),
        strategic_reveal.star_horizon(4, "weighted", 0.9, 50),
    }
    assert strategic_reveal.star_horizon(4, "weighted", 0.9, 50) == 2 * 5 * (
        strategic_reveal.r_star(0.9) + 3
    )
    assert strategic_reveal.star_horizon(4, "std", None, 50) == 50
    # the k_in branch with hidden agents: positive on VS still pays K − 1 at K = 4,
    # accepting once (and using the agents' memory) pays 2
    at4 = {r["learner"]: r["mistakes"] for r in hidden if r["K"] == 4}
    assert at4[strategic_reveal.positive_on_vs().name] == 3
    assert at4[strategic_reveal.accept_once().name] == 2
    with pytest.raises(ValueError, match="settings"):
        strategic_reveal.star_sweep([2], [("hidden", 0.5)], horizon=10, rng_for=rng_for)
    with pytest.raises(ValueError, match="gamma"):
        strategic_reveal.star_sweep([2], [("std", 0.5)], horizon=10, rng_for=rng_for)
    with pytest.raises(TypeError, match="rng_for"):
        strategic_reveal.star_sweep([2], [("std", None)], horizon=10, rng_for=3)


def test_switch_sweep_pays_r_star_per_update_and_reveals_cheaply():
    recs, std = strategic_reveal.switch_sweep(
        2, [0.5, 0.9], wait=300, rng_for=lambda k: np.random.default_rng([0, k])
    )
    assert [r["label"] for r in recs] == list(strategic_reveal.SWITCH_LEARNERS) * 2
    for r in recs[::2]:  # conservative: units · (1 + r*) by the gadget's design
        assert r["mistakes"] == 2 * (1 + r["r_star"])
    assert std["model"] == "std" and std["mistakes"] == 2
    assert all(r["mistakes"] == 4 for r in recs[1::2])  # the reduction: 2 per unit


def test_dag_sweep_runs_every_setting_and_learner():
    recs = strategic_reveal.dag_sweep(
        12,
        [2, 3],
        1,
        10,
        0.2,
        [0.0, 0.5],
        horizon=100,
        rng_for=lambda k: np.random.default_rng([1, k]),
    )
    assert len(recs) == 2 * (2 * 6 + 2 * 7)  # six learners revealed, seven hidden
    assert {r["k_in"] for r in recs} == {2, 3}
    assert {(r["model"], r["gamma"]) for r in recs} == {
        ("std", None),
        ("arb", None),
        ("weighted", 0.0),
        ("weighted", 0.5),
    }
    assert all(r["mistakes"] <= r["bound"] for r in recs if r["bound"] is not None)
    with pytest.raises(ValueError, match="per_kin"):
        strategic_reveal.dag_sweep(
            12, [2], 0, 10, 0.2, [0.5], horizon=10, rng_for=np.random.default_rng
        )


# --- the summaries the chapter reads -------------------------------------------------
def rng_for(k):
    return np.random.default_rng([0, k])


def test_summarise_star_reads_k_minus_one_under_arb():
    Ks = [2, 4, 8]
    recs = strategic_reveal.star_sweep(
        Ks, [("std", None), ("arb", None)], horizon=100, rng_for=rng_for
    )
    s = strategic_reveal.summarise_star(recs, Ks)
    assert s.arb_best.tolist() == [1, 3, 7]  # K − 1, by our argument and bound
    assert s.std_halving.tolist() == [1, 1, 1]
    assert s.log2K.tolist() == [1, 2, 3]
    assert s.slope == pytest.approx(1.0)
    assert s.arb_halving.tolist() == [100, 100, 100]  # stuck at the horizon
    assert s.mistakes.shape == (12, 3) and list(s.mistakes.columns) == Ks


def test_stale_sweep_equals_r_star_after_a_long_history():
    s = strategic_reveal.stale_sweep([0.5, 0.9, 0.99], 5000, short=10)
    assert s.stale.tolist() == s.r_star.tolist() == [1, 7, 69]
    assert s.worst == 0
    assert s.stale_short.tolist() == [1, 5, 10]  # a short history: a shorter lag
    assert list(s.table.columns)[-1] == "stale after only 10 rounds"
    assert s.table["ln 2 / (1 − γ)"].iloc[0] == pytest.approx(2 * np.log(2))


def test_summarise_switch_pays_r_star_per_update():
    rows, std = strategic_reveal.switch_sweep(
        2, [0.5, 0.8, 0.9], wait=300, rng_for=rng_for
    )
    s = strategic_reveal.summarise_switch(rows, std)
    assert s.cons.mistakes.tolist() == [2 * (1 + r) for r in (1, 4, 7)]
    assert s.stale_gap.max() == 0 and s.revealed == 2
    assert s.best_hidden.tolist() == [4, 4, 4]  # the reduction: 2 per unit
    assert s.hide_ratio.tolist() == [2.0, 2.0, 2.0]
    assert s.cross == pytest.approx(5.0)  # first γ where the reduction is cheaper
    assert s.mem_len == pytest.approx([2, 5, 10])
    assert 0.7 < s.slope < 1.0


def test_summarise_hidden_star_judges_long_memories_only():
    Ks, gammas = [2, 4], [0.0, 0.9]
    arb = strategic_reveal.summarise_star(
        strategic_reveal.star_sweep(
            Ks, [("std", None), ("arb", None)], horizon=60, rng_for=rng_for
        ),
        Ks,
    ).arb_best
    recs = strategic_reveal.star_sweep(
        Ks, [("weighted", g) for g in gammas], horizon=60, rng_for=rng_for
    )
    s = strategic_reveal.summarise_hidden_star(recs, Ks, gammas, arb)
    # (1 − γ)⁻¹ ≥ K + 1: none at γ = 0, both K at γ = 0.9
    assert s.judged.tolist() == [[False, False], [True, True]]
    assert list(s.minus) == ["γ=0.9, K=2", "γ=0.9, K=4"]
    assert s.minus["γ=0.9, K=4"] == s.best.loc[0.9, 4] - 3
    assert s.g_top == 0.9
    assert s.vs_arb.shape == (2, 2)
    assert s.vs_arb[1, 1] == s.best.loc[0.9, 4] / arb[1]
    once = strategic_reveal.accept_once().name
    assert s.once.loc[(0.9, 4)] == 2  # accept once uses the memory
    assert s.cheapest.loc[(0.9, 4)] == once


def dag_records(gammas=(0.0, 0.5)):
    return strategic_reveal.dag_sweep(
        12, [2, 3], 2, 10, 0.2, list(gammas), horizon=100, rng_for=rng_for
    )


def test_summarise_dag_pairs_each_instance_with_its_revealed_runs():
    recs = dag_records()
    s = strategic_reveal.summarise_dag(recs, [0.0, 0.5])
    assert s.n_instances == 4 and len(s.hidden) == 8
    runs = pd.DataFrame(recs)
    for (kin, rep), g in [((2, 0), 0.5), ((3, 1), 0.0)]:
        one = runs[(runs.k_in == kin) & (runs.rep == rep)]
        hidden = one[(one.model == "weighted") & (one.gamma == g)].mistakes.min()
        std = one[one.model == "std"].mistakes.min()
        row = s.hidden[(s.hidden.k_in == kin) & (s.hidden.rep == rep)]
        row = row[row.gamma == g].iloc[0]
        assert row.mistakes == hidden and row["std"] == std
        assert row.gain == hidden - std
        assert row.ratio == hidden / max(std, 1)
    assert [len(v) for v in s.gains.values()] == [4, 4]
    assert s.memory_gain.tolist() == (s.gains[0.5] - s.gains[0.0]).tolist()
    assert s.judged == [0.5] and s.top == 0.5
    assert s.C == pytest.approx(s.hidden.C.max())
    assert s.winners.sum() == 8 and set(s.once_best) == {0.0, 0.5}
    with pytest.raises(ValueError, match="gammas must hold 0"):
        strategic_reveal.summarise_dag(recs, [0.5])


def test_summarise_bounds_counts_violations_and_tight_runs():
    recs = [
        dict(mistakes=3, bound=3.0, capped=False),
        dict(mistakes=1, bound=4.0, capped=True),
        dict(mistakes=0, bound=0.0, capped=False),
        dict(mistakes=9, bound=None, capped=True),
    ]
    s = strategic_reveal.summarise_bounds(recs)
    assert (s.n_runs, len(s.bounded), s.violations, s.cut) == (4, 3, 0, 1)
    assert s.bounded.ratio.tolist() == [1.0, 0.25, 0.0]  # the bound floored at 1
    assert len(s.tight) == 2
    s = strategic_reveal.summarise_bounds(
        recs + [dict(mistakes=5, bound=4.0, capped=0)]
    )
    assert s.violations == 1
