import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import chi2

from repbook.papers import inverse_games


def game(m=4, n=4, d=6, seed=0, eta=1.0):
    phi, theta = inverse_games.random_matrix_game(m, n, d, np.random.default_rng(seed))
    return phi, theta, inverse_games.qre(phi, theta, eta)


# --- the forward problem -------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("eta", [0.3, 1.0, 4.0])
def test_qre_satisfies_both_equations(seed, eta):
    phi, theta, _ = game(seed=seed)
    Q = inverse_games.payoff(phi, theta)
    eq = inverse_games.solve_qre(Q, eta)
    np.testing.assert_allclose(
        eq.mu, inverse_games.softmax(eta * Q @ eq.nu), rtol=0, atol=1e-10
    )
    np.testing.assert_allclose(
        eq.nu, inverse_games.softmax(-eta * Q.T @ eq.mu), rtol=0, atol=1e-10
    )
    assert eq.residual <= 1e-10


def test_qre_of_matching_pennies_is_uniform():
    Q = np.array([[1.0, -1.0], [-1.0, 1.0]])
    eq = inverse_games.solve_qre(Q, 2.0)
    np.testing.assert_allclose(eq.mu, [0.5, 0.5], atol=1e-12)
    np.testing.assert_allclose(eq.nu, [0.5, 0.5], atol=1e-12)


def test_qre_is_a_saddle_point_of_the_regularised_payoff():
    phi, theta, eq = game(seed=3)
    Q, eta = inverse_games.payoff(phi, theta), 1.0
    v = inverse_games.soft_value(Q, eq.mu, eq.nu, eta)
    rng = np.random.default_rng(0)
    for _ in range(50):
        mu2, nu2 = rng.dirichlet(np.ones(4)), rng.dirichlet(np.ones(4))
        assert (
            inverse_games.soft_value(Q, mu2, eq.nu, eta) <= v + 1e-12
        )  # player 1 cannot gain
        assert (
            inverse_games.soft_value(Q, eq.mu, nu2, eta) >= v - 1e-12
        )  # player 2 cannot lose less


def test_qre_large_eta_tends_to_nash_value():
    # Rock-paper-scissors: the unique Nash equilibrium is uniform at every η.
    Q = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
    eq = inverse_games.solve_qre(Q, 50.0)
    np.testing.assert_allclose(eq.mu, np.full(3, 1 / 3), atol=1e-10)


def test_qre_warm_start_gives_the_same_answer():
    phi, theta, eq = game(seed=1)
    Q = inverse_games.payoff(phi, theta)
    z0 = np.concatenate([np.log(eq.mu), np.log(eq.nu)]) + 0.05
    eq2 = inverse_games.solve_qre(Q, 1.0, z0=z0)
    np.testing.assert_allclose(eq2.mu, eq.mu, atol=1e-12)


def test_qre_jacobian_matches_finite_differences():
    phi, theta, _ = game(seed=2)
    fun = inverse_games.equilibrium._qre_system(inverse_games.payoff(phi, theta), 1.3)
    z = np.random.default_rng(0).normal(size=8)
    _, jac = fun(z)
    num = np.array(
        [(fun(z + 1e-6 * e)[0] - fun(z - 1e-6 * e)[0]) / 2e-6 for e in np.eye(8)]
    ).T
    np.testing.assert_allclose(jac, num, atol=1e-8)


# --- the inverse system --------------------------------------------------------------------------
@pytest.mark.parametrize("seed", range(5))
def test_exact_recovery_from_the_true_equilibrium(seed):
    phi, theta, eq = game(seed=seed)
    A, c = inverse_games.inverse_system(phi, eq.mu, eq.nu, 1.0)
    assert A.shape == (6, 6) and np.linalg.matrix_rank(A) == 6
    np.testing.assert_allclose(A @ theta, c, atol=1e-12)
    np.testing.assert_allclose(np.linalg.solve(A, c), theta, atol=1e-12)


def test_inverse_system_brute_force_rows():
    phi, theta, eq = game(m=3, n=4, d=2, seed=4, eta=0.7)
    A, c = inverse_games.inverse_system(phi, eq.mu, eq.nu, 0.7)
    rows, rhs = [], []
    for a in range(1, 3):
        rows.append(sum(0.7 * eq.nu[b] * (phi[a, b] - phi[0, b]) for b in range(4)))
        rhs.append(np.log(eq.mu[a] / eq.mu[0]))
    for b in range(1, 4):
        rows.append(sum(-0.7 * eq.mu[a] * (phi[a, b] - phi[a, 0]) for a in range(3)))
        rhs.append(np.log(eq.nu[b] / eq.nu[0]))
    np.testing.assert_allclose(A, np.array(rows), atol=1e-14)
    np.testing.assert_allclose(c, np.array(rhs), atol=1e-14)


def test_null_space_directions_give_the_same_equilibrium():
    phi, theta, eq = game(d=8, seed=5)
    A, _ = inverse_games.inverse_system(phi, eq.mu, eq.nu, 1.0)
    basis = inverse_games.null_space(A)
    assert basis.shape == (8, 2)
    for v in basis.T:
        for t in (-3.0, 1.0, 5.0):
            eq2 = inverse_games.qre(phi, theta + t * v, 1.0)
            assert np.abs(eq2.mu - eq.mu).max() < 1e-10
            assert np.abs(eq2.nu - eq.nu).max() < 1e-10
    # a direction in the row space does move it
    row = np.linalg.pinv(A) @ A @ np.ones(8)
    assert np.abs(inverse_games.qre(phi, theta + row, 1.0).mu - eq.mu).max() > 1e-3


def test_least_squares_on_exact_counts_recovers_theta():
    phi, theta, eq = game(seed=6)
    big = 10**12
    est = inverse_games.ls_estimate(
        phi, np.round(eq.mu * big), np.round(eq.nu * big), 1.0, smoothing=0.0
    )
    np.testing.assert_allclose(est, theta, atol=1e-6)


def test_ls_estimate_batches_agree_with_single():
    phi, theta, eq = game(seed=7)
    cm, cn = inverse_games.sample_play_counts(
        eq.mu, eq.nu, 500, np.random.default_rng(0), size=4
    )
    batch = inverse_games.ls_estimate(phi, cm, cn, 1.0)
    for i in range(4):
        np.testing.assert_allclose(
            batch[i], inverse_games.ls_estimate(phi, cm[i], cn[i], 1.0), atol=1e-12
        )


def test_mle_equals_raw_least_squares_when_just_identified():
    # d = m + n − 2: the QRE map is onto, so the MLE reproduces the raw frequencies exactly.
    phi, theta, eq = game(seed=8)
    cm, cn = inverse_games.sample_play_counts(
        eq.mu, eq.nu, 2000, np.random.default_rng(1)
    )
    mle = inverse_games.mle_estimate(phi, cm, cn, 1.0)
    assert mle.converged
    np.testing.assert_allclose(
        mle.theta, inverse_games.ls_estimate(phi, cm, cn, 1.0, smoothing=0.0), atol=1e-6
    )


def test_mle_rejects_a_trial_whose_equilibrium_cannot_be_solved(monkeypatch):
    # At N = 100 on 10×10 games BFGS's line search once tried max |Q| ≈ 1.7e7, where the QRE
    # residual stalls above tol: such a trial is rejected, not a crash of the whole sweep.
    phi, theta, eq = game(d=3, seed=9)
    cm, cn = inverse_games.sample_play_counts(
        eq.mu, eq.nu, 3000, np.random.default_rng(2)
    )
    free = inverse_games.mle_estimate(phi, cm, cn, 1.0)
    cap = 0.5 * np.abs(phi @ free.theta).max()  # the optimum lies beyond the cap
    real, refused = inverse_games.solve_qre, []

    def fragile(Q, eta, **kw):
        if np.abs(Q).max() > cap:
            refused.append(np.abs(Q).max())
            raise RuntimeError("the QRE solve did not converge")
        return real(Q, eta, **kw)

    monkeypatch.setattr(inverse_games.inverse, "solve_qre", fragile)
    fit = inverse_games.mle_estimate(
        phi, cm, cn, 1.0, theta0=np.zeros(3)
    )  # starts inside the cap
    assert refused and np.isfinite(fit.log_likelihood) and not fit.converged
    assert np.abs(phi @ fit.theta).max() <= cap
    assert fit.log_likelihood < free.log_likelihood
    # a start the solver refuses: no likelihood, not converged, and no exception
    start = inverse_games.mle_estimate(phi, cm, cn, 1.0, theta0=3 * free.theta)
    assert start.log_likelihood == -np.inf and not start.converged


def test_mle_gradient_matches_finite_differences_and_improves_likelihood():
    phi, theta, eq = game(d=3, seed=9)
    cm, cn = inverse_games.sample_play_counts(
        eq.mu, eq.nu, 3000, np.random.default_rng(2)
    )
    mle = inverse_games.mle_estimate(phi, cm, cn, 1.0)

    def loglik(t):
        e = inverse_games.qre(phi, t, 1.0)
        return cm @ np.log(e.mu) + cn @ np.log(e.nu)

    assert mle.log_likelihood == pytest.approx(loglik(mle.theta), abs=1e-8)
    assert (
        loglik(mle.theta) >= loglik(inverse_games.ls_estimate(phi, cm, cn, 1.0)) - 1e-9
    )
    grad = [
        (loglik(mle.theta + 1e-5 * e) - loglik(mle.theta - 1e-5 * e)) / 2e-5
        for e in np.eye(3)
    ]
    np.testing.assert_allclose(grad, 0.0, atol=1e-3)


def test_indifference_inverse_recovers_direction_only_at_a_nash_point():
    # A game whose QRE is interior, seen at η = 1: the indifference system has no non-zero root.
    phi, theta, eq = game(seed=10)
    v = inverse_games.indifference_inverse(phi, eq.mu, eq.nu)
    assert np.linalg.norm(v) == pytest.approx(1.0)
    assert abs(v @ theta) / np.linalg.norm(theta) < 0.99


# --- confidence sets -----------------------------------------------------------------------------
@pytest.mark.parametrize("k", [1, 2, 3, 6, 18])
def test_generalized_chi2_equals_chi2_for_equal_weights(k):
    xs = np.linspace(0.05, 4 * k, 9)
    np.testing.assert_allclose(
        inverse_games.generalized_chi2_sf(xs, np.full(k, 2.5)),
        chi2.sf(xs / 2.5, k),
        atol=1e-6 if k == 2 else 1e-8,
    )
    assert inverse_games.generalized_chi2_quantile(0.9, np.ones(k)) == pytest.approx(
        chi2.ppf(0.9, k), rel=1e-5
    )


def test_generalized_chi2_agrees_with_monte_carlo():
    w = np.array([2.0, 0.7, 0.3, 0.05])
    z = np.random.default_rng(0).normal(size=(400_000, 4))
    s = (z**2 * w).sum(1)
    for x in (0.5, 2.0, 6.0):
        p = np.mean(s > x)
        tol = 4 * np.sqrt(p * (1 - p) / s.size)
        assert inverse_games.generalized_chi2_sf(x, w) == pytest.approx(p, abs=tol)
    assert inverse_games.generalized_chi2_sf(
        inverse_games.generalized_chi2_quantile(0.9, w), w
    ) == pytest.approx(0.1, abs=1e-9)


def test_residual_covariance_matches_simulation():
    phi, theta, eq = game(seed=11)
    n_plays = 20_000
    cm, cn = inverse_games.sample_play_counts(
        eq.mu, eq.nu, n_plays, np.random.default_rng(3), size=4000
    )
    A, c = inverse_games.inverse_system(
        phi, inverse_games.frequencies(cm), inverse_games.frequencies(cn), 1.0
    )
    r = np.einsum("rkd,d->rk", A, theta) - c
    cov = inverse_games.residual_covariance(phi, eq.mu, eq.nu, theta, 1.0, n_plays)
    np.testing.assert_allclose(np.cov(r.T), cov, atol=0.08 * np.abs(cov).max())


def test_confidence_set_membership_and_pvalue_agree():
    phi, theta, eq = game(seed=12)
    rng = np.random.default_rng(4)
    for _ in range(10):
        cm, cn = inverse_games.sample_play_counts(eq.mu, eq.nu, 800, rng)
        cs = inverse_games.confidence_set(phi, cm, cn, 1.0, 0.1)
        p = inverse_games.coverage_pvalue(phi, cm, cn, 1.0, theta)
        assert bool(cs.contains(theta)) == (p >= 0.1)
        assert cs.contains(cs.theta_hat)
        assert np.isfinite(cs.diameter()) and cs.diameter() > 0


def test_confidence_set_is_a_slab_when_not_identified():
    phi, theta, eq = game(d=8, seed=13)
    cm, cn = inverse_games.sample_play_counts(
        eq.mu, eq.nu, 1000, np.random.default_rng(5)
    )
    cs = inverse_games.confidence_set(phi, cm, cn, 1.0, 0.1)
    assert cs.rank == 6 and cs.diameter() == float("inf")
    v = inverse_games.null_space(cs.A)[:, 0]
    assert cs.contains(cs.theta_hat + 1e6 * v)


def test_boundary_2d_lies_on_the_level_set():
    phi, theta, eq = game(m=3, n=3, d=2, seed=14)
    cm, cn = inverse_games.sample_play_counts(
        eq.mu, eq.nu, 1000, np.random.default_rng(6)
    )
    cs = inverse_games.confidence_set(phi, cm, cn, 1.0, 0.1)
    np.testing.assert_allclose(cs.loss(cs.boundary_2d(50)), cs.kappa, rtol=1e-9)


def test_line_interval_endpoints_lie_on_the_level_set_and_bracket_members():
    phi, theta, eq = game(m=3, n=3, d=2, seed=14)
    cm, cn = inverse_games.sample_play_counts(
        eq.mu, eq.nu, 1000, np.random.default_rng(6)
    )
    cs = inverse_games.confidence_set(phi, cm, cn, 1.0, 0.1)
    u = np.array([0.6, 0.8])
    lo, hi = cs.line_interval(cs.theta_hat, u)
    assert lo < 0 < hi  # the centre is a member
    for t in (lo, hi):
        assert cs.loss(cs.theta_hat + t * u) == pytest.approx(cs.kappa, rel=1e-9)
    ts = np.linspace(lo - 1, hi + 1, 401)
    inside = cs.contains(cs.theta_hat + ts[:, None] * u)
    np.testing.assert_array_equal(inside, (ts >= lo) & (ts <= hi))
    far = cs.theta_hat + 100.0 * np.array([-0.8, 0.6])  # a line that misses the set
    assert cs.line_interval(far, u) is None


def test_line_interval_along_the_null_space_is_the_whole_line_or_nothing():
    rng = np.random.default_rng(40)
    f1 = rng.normal(size=(3, 3))
    phi, theta = np.stack([f1, f1 + 1.0], axis=-1), np.array([0.6, -0.8])
    eq = inverse_games.qre(phi, theta, 1.0)
    cm, cn = inverse_games.sample_play_counts(eq.mu, eq.nu, 1000, rng)
    cs = inverse_games.confidence_set(phi, cm, cn, 1.0, 0.1)
    v_null = np.array([1.0, -1.0])
    assert cs.line_interval(cs.theta_hat, v_null) == (-np.inf, np.inf)
    row = np.array([1.0, 1.0]) / np.sqrt(2)
    lo, hi = cs.line_interval(cs.theta_hat, row)
    assert cs.line_interval(cs.theta_hat + 10 * (hi - lo) * row, v_null) is None
    with pytest.raises(ValueError, match="zero vector"):
        cs.line_interval(cs.theta_hat, np.zeros(2))
    with pytest.raises(ValueError, match="direction"):
        cs.line_interval(cs.theta_hat, np.ones(3))


def test_bootstrap_slope_se_matches_a_hand_loop_and_scales_with_noise():
    sizes = np.array([1_000, 10_000, 100_000])
    rng = np.random.default_rng(7)
    base = sizes[:, None] ** -0.5
    errors = base * rng.lognormal(0.0, 0.3, size=(3, 400))
    se = inverse_games.bootstrap_slope_se(
        errors, sizes, np.random.default_rng(8), n_boot=300
    )
    r = np.random.default_rng(8)
    idx = r.integers(0, 400, size=(300, 3, 400))
    by_hand = [
        inverse_games.loglog_slope(
            sizes, [np.median(errors[j, idx[b, j]]) for j in range(3)]
        )
        for b in range(300)
    ]
    assert se == pytest.approx(np.std(by_hand, ddof=1), rel=1e-12)
    # the median of 400 lognormal(0, 0.3) draws has log-SE about 0.3·1.25/20 ≈ 0.019;
    # with three sizes a decade apart the slope's SE is that times √(1/2)/ln 10
    assert 0.004 < se < 0.012
    noisier = base * rng.lognormal(0.0, 0.9, size=(3, 400))
    assert (
        inverse_games.bootstrap_slope_se(noisier, sizes, np.random.default_rng(8))
        > 2 * se
    )
    exact = np.repeat(base, 5, axis=1)
    assert (
        inverse_games.bootstrap_slope_se(exact, sizes, np.random.default_rng(8)) < 1e-12
    )


def test_bootstrap_slope_se_bad_inputs():
    sizes, rng = np.array([10, 100]), np.random.default_rng(0)
    with pytest.raises(ValueError, match="errors must have shape"):
        inverse_games.bootstrap_slope_se(np.ones((3, 5)), sizes, rng)
    with pytest.raises(ValueError, match="n_plays"):
        inverse_games.bootstrap_slope_se(np.ones((2, 5)), np.array([100, 10]), rng)
    with pytest.raises(TypeError, match="rng"):
        inverse_games.bootstrap_slope_se(np.ones((2, 5)), sizes, 0)
    with pytest.raises(ValueError, match="n_boot"):
        inverse_games.bootstrap_slope_se(np.ones((2, 5)), sizes, rng, n_boot=1)


# --- Markov games ------------------------------------------------------------------------------
def test_markov_exact_data_recovers_every_step():
    mg = inverse_games.random_markov_game(3, 3, 3, 3, 6, 1.0, np.random.default_rng(0))
    sol = inverse_games.solve_markov_qre(mg)
    big = 10**12
    counts = np.round(np.einsum("hsa,hsb->hsab", sol.mu, sol.nu) * big)
    data = inverse_games.MarkovData(
        counts, np.round(counts[..., None] * mg.P * big) + 0.0
    )
    est = inverse_games.markov_inverse(mg.phi, data, 1.0, smoothing=0.0)
    np.testing.assert_allclose(est.theta, mg.theta, atol=1e-6)
    np.testing.assert_allclose(est.V, sol.V, atol=1e-6)


def test_markov_qre_is_a_stage_qre_everywhere():
    mg = inverse_games.random_markov_game(2, 3, 2, 2, 3, 0.8, np.random.default_rng(1))
    sol = inverse_games.solve_markov_qre(mg)
    for h in range(2):
        for s in range(2):
            assert (
                inverse_games.qre_residual(sol.Q[h, s], sol.mu[h, s], sol.nu[h, s], 0.8)
                < 1e-10
            )
    np.testing.assert_allclose(sol.Q[1], mg.rewards()[1])  # last step: no future


def test_markov_sampling_counts_add_up():
    mg = inverse_games.random_markov_game(3, 2, 2, 2, 2, 1.0, np.random.default_rng(2))
    data = inverse_games.sample_markov_data(
        mg, inverse_games.solve_markov_qre(mg), 50, np.random.default_rng(3)
    )
    assert np.all(data.counts.sum(axis=(2, 3)) == 50)
    np.testing.assert_array_equal(data.next_counts.sum(-1), data.counts)


# --- helpers ------------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(st.floats(-2, 2), st.floats(0.1, 10))
def test_loglog_slope_of_a_power_law(slope, scale):
    x = np.array([1e2, 1e3, 1e4, 1e5])
    assert inverse_games.loglog_slope(x, scale * x**slope) == pytest.approx(
        slope, abs=1e-10
    )


# --- bad inputs --------------------------------------------------------------------------------
@pytest.mark.parametrize("eta", [0, -1.0, float("nan"), float("inf"), "1", True])
def test_bad_eta(eta):
    with pytest.raises(ValueError, match="eta must be a finite number > 0, got "):
        inverse_games.solve_qre(np.eye(2), eta)


def test_policies_off_the_simplex():
    phi, _, eq = game()
    with pytest.raises(ValueError, match="mu must sum to 1"):
        inverse_games.inverse_system(phi, eq.mu * 1.1, eq.nu, 1.0)
    with pytest.raises(ValueError, match="nu must be a strictly positive policy"):
        inverse_games.inverse_system(phi, eq.mu, np.array([1.0, 0.0, 0.0, 0.0]), 1.0)
    with pytest.raises(ValueError, match="mu must have 4 entries"):
        inverse_games.inverse_system(phi, eq.mu[:3] / eq.mu[:3].sum(), eq.nu, 1.0)


def test_feature_shapes_that_do_not_fit():
    phi, theta, _ = game()
    with pytest.raises(ValueError, match=r"phi must have shape \(m, n, d\)"):
        inverse_games.payoff(phi[..., 0], theta)
    with pytest.raises(ValueError, match=r"theta must have shape \(6,\)"):
        inverse_games.payoff(phi, theta[:5])
    with pytest.raises(ValueError, match="counts_nu must have 4 entries"):
        inverse_games.ls_estimate(phi, np.ones(4), np.ones(3), 1.0)


def test_constant_feature_is_rejected():
    phi, theta, _ = game()
    phi = phi.copy()
    phi[..., 2] = 3.0
    with pytest.raises(ValueError, match=r"constant feature\(s\) \[2\]"):
        inverse_games.payoff(phi, theta)


def test_other_bad_inputs():
    phi, theta, eq = game()
    with pytest.raises(ValueError, match=r"delta must be a number in \(0, 1\), got "):
        inverse_games.confidence_set(phi, np.ones(4, int), np.ones(4, int), 1.0, 1.5)
    with pytest.raises(ValueError, match="count the same plays"):
        inverse_games.confidence_set(
            phi, np.ones(4, int), 2 * np.ones(4, int), 1.0, 0.1
        )
    with pytest.raises(ValueError, match="non-negative integer counts"):
        inverse_games.ls_estimate(phi, np.array([1.5, 1, 1, 1]), np.ones(4), 1.0)
    with pytest.raises(ValueError, match="n_plays must be a positive int"):
        inverse_games.sample_play_counts(eq.mu, eq.nu, 0, np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        inverse_games.sample_play_counts(eq.mu, eq.nu, 10, 0)
    with pytest.raises(ValueError, match=r"q must be a number in \(0, 1\), got "):
        inverse_games.generalized_chi2_quantile(1.0, [1.0])
    with pytest.raises(ValueError, match="weights must be non-negative"):
        inverse_games.generalized_chi2_sf(1.0, [-1.0, 2.0])
    with pytest.raises(ValueError, match="x and y must be positive"):
        inverse_games.loglog_slope([1, 2], [0, 1])
    with pytest.raises(ValueError, match="Q must be an"):
        inverse_games.solve_qre(np.ones(3), 1.0)


def test_bad_markov_games():
    rng = np.random.default_rng(0)
    mg = inverse_games.random_markov_game(2, 2, 2, 2, 2, 1.0, rng)
    with pytest.raises(ValueError, match="P must have shape"):
        inverse_games.MarkovGame(mg.phi, mg.P[:, :, :, :, :1], mg.theta, 1.0)
    with pytest.raises(ValueError, match="P must hold probability distributions"):
        inverse_games.MarkovGame(mg.phi, mg.P * 2, mg.theta, 1.0)
    with pytest.raises(ValueError, match="theta must have shape"):
        inverse_games.MarkovGame(mg.phi, mg.P, mg.theta[:, :1], 1.0)
    with pytest.raises(ValueError, match="eta must be a finite number > 0, got "):
        inverse_games.MarkovGame(mg.phi, mg.P, mg.theta, -1.0)
    with pytest.raises(ValueError, match="data must have counts"):
        inverse_games.markov_inverse(
            mg.phi,
            inverse_games.MarkovData(np.ones((2, 2, 2)), np.ones((2, 2, 2, 2))),
            1.0,
        )


# --- peers ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("eta", [0.5, 1.0, 5.0])
def test_qre_agrees_with_pygambit(eta):
    phi, theta, _ = game(seed=15)
    Q = inverse_games.payoff(phi, theta)
    ours = inverse_games.solve_qre(Q, eta)
    mu, nu = inverse_games.gambit_qre(Q, eta)
    assert np.abs(ours.mu - mu).max() < 1e-8 and np.abs(ours.nu - nu).max() < 1e-8


def test_qre_approaches_the_nash_equilibrium_of_nashpy():
    phi, theta, _ = game(seed=16)
    Q = inverse_games.payoff(phi, theta)
    mu_n, nu_n = inverse_games.nash_equilibrium(Q)
    gaps = [
        np.abs(inverse_games.solve_qre(Q, e).mu - mu_n).sum()
        for e in (1.0, 10.0, 100.0)
    ]
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 0.05


def test_markov_oracle_continuation_removes_carried_error():
    mg = inverse_games.random_markov_game(3, 3, 3, 3, 4, 1.0, np.random.default_rng(4))
    sol = inverse_games.solve_markov_qre(mg)
    data = inverse_games.sample_markov_data(mg, sol, 300, np.random.default_rng(5))
    est = inverse_games.markov_inverse(mg.phi, data, 1.0)
    oracle = inverse_games.markov_inverse(mg.phi, data, 1.0, P=mg.P, V=sol.V)
    np.testing.assert_allclose(
        oracle.theta[-1], est.theta[-1]
    )  # last step: no continuation
    assert not np.allclose(oracle.theta[0], est.theta[0])
    with pytest.raises(ValueError, match="V must have shape"):
        inverse_games.markov_inverse(mg.phi, data, 1.0, V=sol.V[:2])


# --- experiment protocols ------------------------------------------------------------------------
def rngs(seeds):
    return [np.random.default_rng(s) for s in seeds]


def test_play_sweep_matches_a_hand_loop():
    phi, theta, eq = game(seed=20)
    sizes = [50, 500, 5_000]
    sw = inverse_games.play_sweep(
        phi, eq.mu, eq.nu, 1.0, sizes, rngs([1, 2, 3]), reps=12, delta=0.1,
        diameter_reps=3,
    )  # fmt: skip
    assert sw.estimates.shape == (3, 12, 6) and sw.diameter.shape == (3,)
    assert sw.mle is None and sw.mle_converged is None
    for j, (N, r) in enumerate(zip(sizes, rngs([1, 2, 3]))):
        cm, cn = inverse_games.sample_play_counts(eq.mu, eq.nu, N, r, size=12)
        np.testing.assert_allclose(
            sw.estimates[j], inverse_games.ls_estimate(phi, cm, cn, 1.0)
        )
        diam = [
            inverse_games.confidence_set(phi, cm[i], cn[i], 1.0, 0.1).diameter()
            for i in range(3)
        ]
        assert sw.diameter[j] == pytest.approx(np.median(diam), rel=1e-12)
    err = np.linalg.norm(sw.estimates - theta, axis=-1)
    np.testing.assert_allclose(sw.errors(theta), err)
    np.testing.assert_allclose(sw.median_error(theta), np.median(err, axis=1))
    assert sw.median_error(theta)[-1] < sw.median_error(theta)[0]


def test_play_sweep_without_diameters_and_with_the_mle():
    phi, theta, eq = game(m=3, n=3, d=2, seed=21)
    sw = inverse_games.play_sweep(
        phi, eq.mu, eq.nu, 1.0, [200, 2_000], rngs([4, 5]), reps=3, mle=True
    )
    assert np.isnan(sw.diameter).all()
    assert sw.mle.shape == (2, 3, 2) and sw.mle_converged.dtype == bool
    cm, cn = inverse_games.sample_play_counts(
        eq.mu, eq.nu, 200, np.random.default_rng(4), size=3
    )
    fit = inverse_games.mle_estimate(phi, cm[1], cn[1], 1.0)
    np.testing.assert_allclose(sw.mle[0, 1], fit.theta)
    assert sw.mle_converged[0, 1] == fit.converged
    np.testing.assert_allclose(
        sw.errors(theta, estimator="mle"), np.linalg.norm(sw.mle - theta, axis=-1)
    )


def test_play_sweep_bad_inputs():
    phi, theta, eq = game()
    with pytest.raises(ValueError, match="increasing sequence of positive integers"):
        inverse_games.play_sweep(
            phi, eq.mu, eq.nu, 1.0, [100, 100], rngs([0, 1]), reps=2
        )
    with pytest.raises(ValueError, match="increasing sequence of positive integers"):
        inverse_games.play_sweep(phi, eq.mu, eq.nu, 1.0, [10.5], rngs([0]), reps=2)
    with pytest.raises(ValueError, match="one generator per number of plays"):
        inverse_games.play_sweep(phi, eq.mu, eq.nu, 1.0, [10, 20], rngs([0]), reps=2)
    with pytest.raises(TypeError, match="numpy.random.Generator"):
        inverse_games.play_sweep(phi, eq.mu, eq.nu, 1.0, [10], [0], reps=2)
    with pytest.raises(ValueError, match="delta is needed"):
        inverse_games.play_sweep(
            phi, eq.mu, eq.nu, 1.0, [10], rngs([0]), reps=2, diameter_reps=1
        )
    with pytest.raises(
        ValueError, match=r"diameter_reps must be an int in \[0, 2\], got 3"
    ):
        inverse_games.play_sweep(
            phi, eq.mu, eq.nu, 1.0, [10], rngs([0]), reps=2, delta=0.1, diameter_reps=3
        )
    sw = inverse_games.play_sweep(phi, eq.mu, eq.nu, 1.0, [10], rngs([0]), reps=2)
    with pytest.raises(ValueError, match="fitted no MLE"):
        sw.errors(theta, estimator="mle")
    with pytest.raises(ValueError, match="estimator must be 'ls' or 'mle'"):
        sw.errors(theta, estimator="ml")
    with pytest.raises(ValueError, match="reference must have shape"):
        sw.errors(theta[:3])


def test_null_shift_changes_separate_null_from_random_directions():
    phi, theta = inverse_games.random_matrix_game(4, 4, 8, np.random.default_rng(22))
    along, rand = inverse_games.null_shift_changes(
        phi, theta, 1.0, [0.5, 2.0], np.random.default_rng(0)
    )
    assert along.shape == rand.shape == (2,)
    assert along.max() < 1e-8 and rand.min() > 1e-3
    phi6, theta6, _ = game(seed=23)
    with pytest.raises(ValueError, match="null\\(A\\) is empty"):
        inverse_games.null_shift_changes(
            phi6, theta6, 1.0, [1.0], np.random.default_rng(0)
        )
    with pytest.raises(ValueError, match="steps must be"):
        inverse_games.null_shift_changes(
            phi, theta, 1.0, [0.0], np.random.default_rng(0)
        )


def test_coverage_sweep_matches_a_hand_loop_and_is_near_nominal():
    sizes = [100, 1_000]
    covered = inverse_games.coverage_sweep(3, 3, 2, 1.0, sizes, 0.1, rngs(range(3)))
    assert covered.shape == (3, 2) and covered.dtype == bool
    for i, r in enumerate(rngs(range(3))):
        phi, theta = inverse_games.random_matrix_game(3, 3, 2, r)
        eq = inverse_games.qre(phi, theta, 1.0)
        for j, N in enumerate(sizes):
            cm, cn = inverse_games.sample_play_counts(eq.mu, eq.nu, N, r)
            p = inverse_games.coverage_pvalue(phi, cm, cn, 1.0, theta)
            assert covered[i, j] == (p >= 0.1)
    many = inverse_games.coverage_sweep(
        3, 3, 2, 1.0, [5_000], 0.1, rngs(range(100, 300))
    )
    assert abs(many.mean() - 0.9) < 0.07  # 200 seeds: binomial SE 0.021
    with pytest.raises(ValueError, match="at least one generator"):
        inverse_games.coverage_sweep(3, 3, 2, 1.0, sizes, 0.1, [])
    with pytest.raises(ValueError, match=r"delta must be a number in \(0, 1\), got "):
        inverse_games.coverage_sweep(3, 3, 2, 1.0, sizes, 0.0, rngs([0]))


def test_markov_sweep_matches_a_hand_loop():
    mg = inverse_games.random_markov_game(2, 2, 2, 2, 3, 1.0, np.random.default_rng(24))
    sw = inverse_games.markov_sweep(mg, [100, 1_000], rngs([7, 8]), reps=4)
    assert sw.errors.shape == (2, 4, 2) and sw.oracle.shape == (4, 2)
    sol, r_true = inverse_games.solve_markov_qre(mg), mg.rewards()
    r = np.random.default_rng(8)
    for i in range(4):
        data = inverse_games.sample_markov_data(mg, sol, 1_000, r)
        for est, want in (
            (inverse_games.markov_inverse(mg.phi, data, 1.0), sw.errors[1, i]),
            (
                inverse_games.markov_inverse(mg.phi, data, 1.0, P=mg.P, V=sol.V),
                sw.oracle[i],
            ),
        ):
            rms = np.sqrt(
                np.mean((mg.rewards(est.theta) - r_true) ** 2, axis=(1, 2, 3))
            )
            np.testing.assert_allclose(rms, want)
    np.testing.assert_allclose(sw.median_error(), np.median(sw.errors, axis=1).T)
    np.testing.assert_allclose(sw.median_oracle(), np.median(sw.oracle, axis=0))
    # the last step has no continuation: the oracle changes nothing there
    np.testing.assert_allclose(sw.oracle[:, -1], sw.errors[-1, :, -1])
    with pytest.raises(TypeError, match="game must be a MarkovGame"):
        inverse_games.markov_sweep(mg.phi, [10], rngs([0]), reps=1)
    with pytest.raises(ValueError, match="one generator per number of plays"):
        inverse_games.markov_sweep(mg, [10, 20], rngs([0]), reps=1)
