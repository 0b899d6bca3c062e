"""What the chapter reads from the protocols (`repbook.papers.kofn_queries.summaries`)."""

import math

import numpy as np
import pytest

from repbook.papers import kofn_queries


def streams(base=0):
    return lambda s: np.random.default_rng(base + s)


# --- the best of the suite on a family, and its fits ----------------------------------------------
def synthetic_suite():
    """q* = n/k for best of blocks and 2n for greedy on a 3 x 3 grid; the nested algorithm's
    hits on 4 seeds put its equal-seed q* (first 2 seeds) at 3 n/k."""
    suite, hits = {}, {}
    for n in (100, 400, 1600):
        for k in (2, 4, 8):
            suite[n, k] = {"best of blocks": n / k, "greedy": 2.0 * n}
            hits[n, k] = {"best of blocks": [n / k, 3 * n / k, 0.5 * n / k, n / k]}
    return suite, hits


def test_fit_family_known_slopes():
    suite, hits = synthetic_suite()
    fit = kofn_queries.fit_family(suite, hits, 2, polylog=2)
    assert fit.best == {nk: nk[0] / nk[1] for nk in suite}
    assert set(fit.winner.values()) == {"best of blocks"}
    assert fit.b == pytest.approx(1.0) and fit.c == pytest.approx(-1.0)
    assert (fit.b_polylog, fit.c_polylog) == kofn_queries.fit_slopes(
        fit.best, polylog=2
    )
    # on the first two seeds the nested q* is the upper half of (n/k, 3 n/k): n/k
    assert fit.equal == kofn_queries.equal_seed_best(suite, hits, 2)
    assert fit.differ == 0
    assert (fit.b_equal, fit.c_equal) == kofn_queries.fit_slopes(fit.equal, polylog=2)
    with pytest.raises(ValueError, match="suite must hold at least one cell"):
        kofn_queries.fit_family({}, {}, 2, polylog=2)


def test_fit_family_counts_the_cells_where_equal_seeds_differ():
    suite, hits = synthetic_suite()
    hits[100, 2]["best of blocks"] = [300.0, 300.0, 1.0, 1.0]  # above greedy's 200
    fit = kofn_queries.fit_family(suite, hits, 2, polylog=0)
    assert fit.equal[100, 2] == 200.0 and fit.differ == 1


def test_tables_as_printed():
    suite = {(500, 5): {"best of blocks": 47.0, "greedy": math.inf}}
    assert kofn_queries.suite_table(suite) == (
        "     n   k    best of blocks            greedy\n"
        "   500   5                47               inf"
    )
    assert kofn_queries.estimator_table({(1000, 5): 355.0}) == (
        "     n   k     n/k       q*  q*/(n/k)\n  1000   5   200.0      355      1.77"
    )
    with pytest.raises(ValueError, match="suite must hold at least one cell"):
        kofn_queries.suite_table({})


# --- protocols on one instance ------------------------------------------------------------------
def test_estimator_success_by_kind_uses_one_stream_block_per_kind():
    budgets = [5, 20, 80]
    got = kofn_queries.estimator_success_by_kind(
        200, 4, budgets, seeds=3, child_rng=streams(), stream=1000
    )
    assert list(got) == list(kofn_queries.ADDITIVE_KINDS)
    for a, kind in enumerate(kofn_queries.ADDITIVE_KINDS):
        share, ratios = kofn_queries.estimator_success(
            kind,
            200,
            4,
            budgets,
            seeds=3,
            child_rng=streams(),
            stream=1000 + 100_000 * a,
        )
        assert np.array_equal(got[kind][0], share)
        assert np.array_equal(got[kind][1], ratios)


def test_natural_curves_against_greedy():
    fn = kofn_queries.coverage_instance(60, 40, np.random.default_rng(3))
    nat = kofn_queries.natural_curves(fn, 4, child_rng=streams(7), seeds=2, stream=10)
    ref = kofn_queries.greedy(fn, 4).value
    curves, points = kofn_queries.ratio_curves(
        lambda g: fn,
        lambda f: ref,
        fn.n,
        4,
        child_rng=streams(7),
        seeds=2,
        stream=10,
        per_octave=1,
        q_max=2 * fn.n,
    )
    assert set(nat.curves) == set(curves) and set(nat.points) == set(points)
    for alg, (qs, r) in curves.items():
        assert np.array_equal(nat.curves[alg][0], qs)
        assert np.array_equal(nat.curves[alg][1], r)
    assert "random k" not in nat.reach
    for alg, reach in nat.reach.items():
        qs, r = curves[alg]
        hit = qs[r >= 0.9]
        assert reach == (hit[0] / fn.n if hit.size else math.inf)
    with pytest.raises(ValueError, match="level must be a finite number > 0, got 0"):
        kofn_queries.natural_curves(
            fn, 4, child_rng=streams(), seeds=2, stream=0, level=0
        )


def test_peer_greedy_agrees_with_ours():
    X = np.random.default_rng(0).random((40, 3))
    sim = kofn_queries.rbf_similarity(X)
    ours = kofn_queries.greedy(kofn_queries.FacilityLocation(sim), 5)
    peers = kofn_queries.peer_greedy(sim, 5)
    assert set(peers) == {"apricot", "submodlib"}
    for chosen, seconds in peers.values():
        assert sorted(chosen) == sorted(ours.indices.tolist()) and seconds >= 0
    with pytest.raises(ValueError, match="similarity must be square"):
        kofn_queries.peer_greedy(sim[:30], 5)
    with pytest.raises(ValueError, match=r"k must be an int in \[1, 40\], got 41"):
        kofn_queries.peer_greedy(sim, 41)


# --- the sentences under the tables -------------------------------------------------------------
def test_family_readings_known_text():
    suite, hits = synthetic_suite()
    for v in suite.values():
        v["top singletons"] = v["stochastic greedy"] = v["subsample greedy"] = 1e9
    suite[1600, 8]["top singletons"] = 800.0  # the least element-wise q*: 0.5 n
    fit = kofn_queries.fit_family(suite, hits, 2, polylog=0)
    assert kofn_queries.hidden_cell_reading(suite, fit, 400, 4) == (
        "At n = 400, k = 4: best of blocks reaches ratio 1/2 in half the seeds at "
        "q = 100 (n/k = 100), top singletons at 1,000,000,000, greedy only at its full "
        "cost 1,594.\nThe best algorithm's q* grows like n^1.00 k^-1.00."
    )
    assert kofn_queries.hidden_family_reading(suite, fit, 0.25, 0.25) == (
        "Best of blocks, the one algorithm that queries arbitrary k-sets, is the best on "
        "9 of 9 cells; its q* lies between 1.00 and 1.00 times n/k, and the best "
        "algorithm's q* falls with k (slope -1.00 on log k). The element-by-element "
        "algorithms need at least 0.50 n queries on every cell. The null instance's "
        "estimate after one query is 0.250 against its OPT 0.250."
    )
    curves = {"best of blocks": (np.array([1, 2]), np.array([0.2, 0.31]))}
    assert kofn_queries.planted_cell_reading(suite, fit, curves, 100, 2) == (
        "At n = 100, k = 2 the best algorithm (best of blocks) needs q* = 50 = 0.50 n; "
        "best of blocks reaches ratio 1/2 in half the seeds at q = 50 (mean ratio at its "
        "largest budget 0.31)."
    )
    suite[100, 2]["best of blocks"] = math.inf
    fit = kofn_queries.fit_family(suite, hits, 2, polylog=0)
    assert "does not reach ratio 1/2 in half the seeds within its ⌈n/k⌉ blocks" in (
        kofn_queries.planted_cell_reading(suite, fit, curves, 100, 2)
    )
    text = kofn_queries.planted_family_reading(suite, fit, met=False)
    assert text.startswith("On this family the best algorithm of ours needs between ")
    assert "reaches ratio 1/2 on 8 of 9 cells. Criterion not met on our family" in text


def test_estimator_and_natural_readings():
    est_q = {(100, 5): 40.0, (200, 5): 100.0}
    q90 = {"uniform": 2.0, "pareto": 60.0, "planted": 40.0, "rare heavy": 150.0}
    assert kofn_queries.estimator_reading(est_q, q90, 200, 5, 1.32) == (
        "On the planted family our estimator's q* grows like (n/k)^1.32, at 2.00–2.50 "
        "times n/k. At n = 200, k = 5: uniform weights need 0.05 n/k, Pareto weights "
        "0.3 n and the rare heavy ones 0.75 n."
    )
    qs = np.array([1, 2, 4])
    nat = kofn_queries.NaturalCurves(
        {
            "random k": (np.array([1]), np.array([0.5])),
            "greedy-ish": (qs, [0.2, 0.8, 0.95]),
        },
        {},
        {"greedy-ish": 0.04, "slow": math.inf},
    )
    assert kofn_queries.natural_reach_line("toy", 100, nat) == (
        "toy (n = 100): random k gets 0.50 of greedy's value; least budget / n at which "
        "the mean reaches 90 % of greedy:\n  greedy-ish 0.040, slow never (q ≤ 2n)"
    )
    assert kofn_queries.natural_summary_lines({"toy": nat, "again": nat}) == [
        "toy: random k 0.50 of greedy; first to 90 %: greedy-ish at 0.040 n; never "
        "(q ≤ 2n): slow; largest rise per doubling 0.60",
        "again: random k 0.50 of greedy; first to 90 %: greedy-ish at 0.040 n; never "
        "(q ≤ 2n): slow; largest rise per doubling 0.60",
        "The same algorithm is first on both instances.",
    ]
