"""The chapter's studies (`inverse_games.studies`, `inverse_games.extensions`) on small games:
the streams they draw from, the invariants of what they return, and their printed lines."""

import numpy as np
import pytest

from repbook.papers import inverse_games


def recorder():
    calls = []

    def rng_for(k):
        calls.append(k)
        return np.random.default_rng([0, k])

    return calls, rng_for


def small_games(G=2, m=3, n=3, d=4, eta=1.0):
    games = [
        inverse_games.random_matrix_game(m, n, d, np.random.default_rng(g))
        for g in range(G)
    ]
    return games, [inverse_games.qre(phi, th, eta) for phi, th in games]


def test_peer_check_agrees_with_pygambit_and_tends_to_nash():
    games, eqs = small_games()
    peers = inverse_games.peer_check(games, eqs, [1, 10, 100])
    assert peers.gambit_gap < 1e-6
    assert peers.nash_tv.shape == (2, 3)
    assert np.all(np.diff(np.median(peers.nash_tv, 0)) < 0)  # closer to Nash as η grows
    assert all(0 <= c <= 1 + 1e-12 for c in peers.naive_cos)
    lines = peers.lines()
    assert len(lines) == 5 and lines[0].startswith("largest |ours - pygambit| over 2 ")
    assert "median distance to Nash play falls steadily" in lines[-1]


def test_identifiability_study_uses_the_chapter_streams():
    games, eqs = small_games()
    calls, rng_for = recorder()
    Ns = np.array([100, 1_000, 10_000])
    ident = inverse_games.identifiability_study(
        games, eqs, m=3, n=3, d_over=5, eta=1.0, n_plays=Ns, reps=20, rng_for=rng_for
    )
    assert calls == [20, 21, 30, 200, 201, 202, 31, 210, 211, 212]
    assert ident.ranks == [4, 4] and ident.ranks_over == [4, 4]  # rank ≤ m + n − 2
    assert max(ident.exact_err) < 1e-8
    assert max(ident.shift_null) < 1e-8 < 1e-3 < min(ident.shift_rand)
    assert ident.proj_err.shape == ident.full_err.shape == (2, 3)
    assert np.all(ident.full_err[:, -1] >= np.array(ident.stall) * 0.5)
    assert len(ident.slopes) == 2 and len(ident.slopes_late) == 2
    lines = ident.lines()
    assert lines[0].startswith("d = 4: rank A = [4, 4]; largest error")
    assert lines[-1].startswith("reading: from N = 100 to 10,000 the median error")


def test_slab_never_closes_along_the_null_space():
    slab = inverse_games.slab_study(1.0, 0.1, np.random.default_rng(4))
    assert [cs.rank for cs in slab.sets.values()] == [1, 1, 1]
    widths = list(slab.width.values())
    assert widths[0] > widths[-1] > 0  # narrows with N, never empty here
    assert slab.null_push < 1e-12
    assert slab.lines()[0] == "rank of A for the toy: N=100: 1, N=1000: 1, N=10000: 1"


def test_rate_study_slopes_and_margins():
    games, eqs = small_games(G=1)
    calls, rng_for = recorder()
    Ns = np.array([1_000, 10_000, 100_000])
    rate = inverse_games.rate_study(
        games,
        eqs,
        eta=1.0,
        delta=0.1,
        n_plays=Ns,
        n_from=1_000,
        reps=30,
        diameter_reps=3,
        rng_for=rng_for,
    )
    assert calls == [1000, 1001, 1002, 3000]
    assert rate.errors.shape == (1, 3, 30) and rate.diameter.shape == (1, 3)
    assert -0.8 < rate.slopes[0] < -0.2 and -0.8 < rate.slopes_diameter[0] < -0.2
    lo, hi = inverse_games.WINDOW
    assert rate.margin[0] == pytest.approx(
        min(rate.slopes[0] - lo, hi - rate.slopes[0])
    )
    assert rate.binding == 0 and rate.asymptotic.all()
    assert rate.drift(100_000) == pytest.approx(rate.drift())  # the largest N is 10⁵
    assert np.allclose(rate.root_error, rate.median * np.sqrt(Ns))
    lines = rate.lines()
    assert lines[0] == "N: 1,000, 10,000, 100,000" and len(lines) == 9


def test_coverage_study_counts_seeds_and_draws_the_ellipses():
    calls, rng_for = recorder()
    cover = inverse_games.coverage_study(
        m=3,
        n=3,
        d=4,
        eta=1.0,
        delta=0.1,
        n_plays=[100, 1_000],
        seeds=12,
        rng_for=rng_for,
    )
    assert calls == [*range(10_000, 10_012), 50, 53, 54]  # 51 + log10 N
    assert cover.covered.shape == (12, 2) and list(cover.coverage) == [
        "N=100",
        "N=1,000",
    ]
    assert cover.se == pytest.approx(np.sqrt(0.1 * 0.9 / 12))
    assert list(cover.ellipses) == [100, 1000] and cover.theta.shape == (2,)
    assert cover.lines()[0].endswith("(target 0.9)")


def test_markov_study_shapes_and_ratios():
    calls, rng_for = recorder()
    shape = dict(S=2, A=2, B=2, H=2, d=2)
    mk = inverse_games.markov_study(
        shape, games=2, eta=1.0, n_plays=[100, 1_000, 10_000], reps=4, rng_for=rng_for
    )
    assert calls == [600, 700, 701, 702, 601, 710, 711, 712]
    assert mk.errors.shape == (2, 2, 3) and mk.oracle.shape == (2, 2)
    assert list(mk.slopes) == ["step 1", "step 2"] and len(mk.slopes_late) == 4
    assert mk.ratio_1H == pytest.approx(np.exp(np.mean(mk.log_1H)))
    assert mk.log_carried == pytest.approx(
        np.log(mk.errors[:, 0, -1] / mk.oracle[:, 0])
    )
    lines = mk.lines()
    assert lines[0].startswith("step 1: slopes ") and lines[-1].startswith("reading:")


def test_mle_study_fits_both_estimators():
    calls, rng_for = recorder()
    mle = inverse_games.mle_study(
        m=3,
        n=3,
        d=2,
        games=1,
        eta=1.0,
        n_plays=[100, 1_000, 10_000],
        reps=3,
        rng_for=rng_for,
    )
    assert calls == [500, 510, 511, 512]
    assert mle.mle.shape == mle.ls.shape == mle.not_converged.shape == (1, 3)
    assert mle.ratio == pytest.approx(mle.mle[0, -1] / mle.ls[0, -1])
    assert len(mle.slopes) == 1
    assert mle.lines()[-1].startswith("MLE fits not reported converged: ")
