import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from repbook.papers import online_conformal as O


# --- brute-force references, written as plainly as possible ------------------------------------
def brute_lqt(s, alpha, p, etas, bias, theta0):
    theta = np.array(theta0, dtype=float)
    q = np.zeros(len(s))
    for t in range(len(s)):
        if t < p:
            continue
        phi = np.array(list(s[t - p : t]) + [bias])
        q[t] = theta @ phi
        theta = theta + etas[t] * (float(s[t] > q[t]) - alpha) * phi
    return q, theta


def brute_aci(s, alpha, gamma, q0=0.0):
    a, q = alpha, []
    for t in range(len(s)):
        past = sorted(s[:t])
        n = len(past)
        if n == 0:
            qt = q0
        else:
            r = math.ceil((1 - a) * (n + 1))
            qt = past[min(max(r, 1), n) - 1]
        q.append(qt)
        a += gamma * (alpha - float(s[t] > qt))
    return np.array(q)


def brute_pi(s, alpha, lr, c_sat, k_i, window=20, q0=0.0):
    P, E, q = q0, 0.0, []
    for t in range(len(s)):
        if t == 0:
            qt = P
        else:
            arg = E * math.log(t + 1) / (c_sat * (t + 1))
            if arg >= math.pi / 2:
                qt = max(s[:t])
            elif arg <= -math.pi / 2:
                qt = min(s[:t])
            else:
                qt = P + k_i * math.tan(arg)
        q.append(qt)
        err = float(s[t] > qt) - alpha
        recent = s[max(0, t - window + 1) : t + 1]
        P += lr * (max(recent) - min(recent)) * err
        E += err
    return np.array(q)


# --- LQT / SQT ------------------------------------------------------------------------------------
def test_sqt_known_small_example():
    # q1 = 1; s=2 misses: q2 = 1 + 0.5·0.9 = 1.45; s=0 covers: q3 = 1.45 − 0.05 = 1.40
    run = O.sqt([2.0, 0.0, 5.0], alpha=0.1, lr=0.5)
    np.testing.assert_allclose(run.q, [1.0, 1.45, 1.40])
    np.testing.assert_allclose(run.theta, [1.40 + 0.45])


def test_lqt_known_small_example():
    # p = 1, b = 2, θ1 = [1, 1]: q1 = 0 (no lag yet), q2 = 1·s1 + 1·2 = 3; s2 = 4 misses:
    # θ3 = [1, 1] + 0.1·0.9·[1, 2] = [1.09, 1.18]; q3 = 1.09·4 + 1.18·2 = 6.72
    run = O.lqt([1.0, 4.0, 0.0], alpha=0.1, p=1, lr=0.1, bias=2.0, return_path=True)
    np.testing.assert_allclose(run.q, [0.0, 3.0, 6.72])
    np.testing.assert_allclose(run.path[2], [1.09, 1.18])
    # s3 = 0 ≤ 6.72 covers: θ4 = θ3 − 0.1·0.1·[4, 2]
    np.testing.assert_allclose(run.theta, [1.09 - 0.04, 1.18 - 0.02])


def test_default_theta0_matches_conformalopt_convention():
    np.testing.assert_allclose(O.default_theta0(0), [1.0])
    np.testing.assert_allclose(O.default_theta0(2), [0.5, 0.5, 0.5])


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(-5, 5, allow_nan=False), min_size=1, max_size=60),
    st.integers(0, 3),
    st.sampled_from(["fixed", "decaying"]),
    st.floats(1e-3, 2.0),
    st.floats(0.1, 10.0),
)
def test_lqt_equals_brute_force(s, p, schedule, lr, bias):
    etas = O.step_sizes(lr, len(s), schedule)
    theta0 = O.default_theta0(p)
    q_ref, th_ref = brute_lqt(s, 0.1, p, etas, bias, theta0)
    run = O.lqt(s, alpha=0.1, p=p, lr=lr, bias=bias, schedule=schedule)
    np.testing.assert_allclose(run.q, q_ref, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(run.theta, th_ref, rtol=1e-10, atol=1e-10)


def test_numpy_and_python_engines_agree():
    rng = np.random.default_rng(3)
    S = rng.standard_normal((9, 500))
    lrs = np.logspace(-3, 0, 9)
    biases = np.linspace(0.5, 4, 9)
    for p in (0, 1, 3):
        many = O.lqt(
            S,
            alpha=0.2,
            p=p,
            lr=lrs,
            bias=biases,
            schedule="decaying",
            return_path=True,
        )
        assert many.q.shape == (9, 500) and many.path.shape == (9, 500, p + 1)
        for k in range(9):
            one = O.lqt(
                S[k],
                alpha=0.2,
                p=p,
                lr=lrs[k],
                bias=biases[k],
                schedule="decaying",
                return_path=True,
            )
            np.testing.assert_allclose(many.q[k], one.q, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(many.path[k], one.path, rtol=1e-12, atol=1e-12)
        shared = O.lqt(
            S[0], alpha=0.2, p=p, lr=lrs, bias=2.0
        )  # one stream, K learning rates
        for k in (0, 8):
            np.testing.assert_allclose(
                shared.q[k],
                O.lqt(S[0], alpha=0.2, p=p, lr=lrs[k], bias=2.0).q,
                rtol=1e-12,
                atol=1e-12,
            )
    few = O.lqt(S[:3], alpha=0.2, p=2, lr=0.1)  # few streams: Python per stream
    np.testing.assert_allclose(few.q[1], O.lqt(S[1], alpha=0.2, p=2, lr=0.1).q)


def test_bias_coordinate_counts_the_coverage_error():
    # Fixed steps: θ^b_{T+1} − θ^b_1 = η·b·Σ_t (err_t − α) over the rounds with features (t > p).
    rng = np.random.default_rng(5)
    s = rng.random(3000)
    for p in (0, 1, 2):
        run = O.lqt(s, alpha=0.1, p=p, lr=0.05, bias=3.0)
        err = (s > run.q)[p:]
        lhs = run.theta[-1] - O.default_theta0(p)[-1]
        assert lhs == pytest.approx(0.05 * 3.0 * np.sum(err - 0.1), abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.floats(0, 1), min_size=1, max_size=300),
    st.floats(0.01, 1.0),
    st.floats(0.05, 0.5),
)
def test_sqt_coverage_bound_on_bounded_streams(s, lr, alpha):
    # With scores in [0, B] and q1 in [0, B], q stays in [−αη, B + (1−α)η], so
    # |Σ(err − α)| ≤ (B + η)/η at every T.
    run = O.sqt(s, alpha=alpha, lr=lr, q0=0.5)
    total = np.cumsum((np.array(s) > run.q) - alpha)
    assert np.all(np.abs(total) <= (1.0 + lr) / lr + 1e-9)
    assert np.all(run.q >= -alpha * lr - 1e-12) and np.all(
        run.q <= 1 + (1 - alpha) * lr + 1e-12
    )


def test_lqt_against_equals_lqt_on_the_chosen_scores():
    scores, run = O.lqt_against(
        O.miss_when_possible(1.0), 2000, alpha=0.1, p=2, lr=0.05
    )
    assert set(np.unique(scores)) <= {0.0, 1.0}
    again = O.lqt(scores, alpha=0.1, p=2, lr=0.05)
    np.testing.assert_allclose(run.q, again.q)
    np.testing.assert_allclose(run.theta, again.theta)


def test_step_sizes():
    np.testing.assert_allclose(O.step_sizes(0.5, 3, "fixed"), [0.5, 0.5, 0.5])
    np.testing.assert_allclose(
        O.step_sizes(2.0, 3, "decaying"), 2.0 * np.array([1, 2, 3]) ** -0.6
    )


def test_matches_conformalopt_package():
    y = O.ar_series([0.3, -0.3], 3000, np.random.default_rng(0))
    for schedule, lr, p in [
        ("fixed", 0.01, 2),
        ("decaying", 1.0, 1),
        ("fixed", 0.1, 0),
    ]:
        theirs = O.conformalopt_thresholds(
            y, alpha=0.1, p=p, lr=lr, schedule=schedule, scalar=p == 0
        )
        ours = O.lqt(y, alpha=0.1, p=p, lr=lr, schedule=schedule)
        np.testing.assert_allclose(theirs, ours.q, atol=1e-10, rtol=0)
    with pytest.raises(ValueError, match="schedule"):
        O.conformalopt_thresholds(y, alpha=0.1, p=1, lr=0.1, schedule="cosine")


def test_tuned_comparison_follows_the_protocol():
    rng = np.random.default_rng(5)
    Y = np.stack([O.ar_series([0.8], 4000, rng), O.ar_series([0.0], 4000, rng)])
    val, test = Y[:, :1000], Y[:, 1000:]
    cmp = O.tuned_comparison(
        val,
        test,
        alpha=0.1,
        lrs=[1e-3, 1e-2, 1e-1],
        biases=[1.0],
        ps=[0, 2],
        baselines=["SQT"],
    )
    assert set(cmp.q) == {"LQT", "SQT"} and cmp.q["LQT"].shape == test.shape
    direct = O.tune_lqt(val, alpha=0.1, lrs=[1e-3, 1e-2, 1e-1], biases=[1.0], ps=[0, 2])
    assert cmp.settings["LQT"] == direct.params
    np.testing.assert_array_equal(
        cmp.q["SQT"], O.tune_sqt(test, alpha=0.1, lrs=[1e-3, 1e-2, 1e-1]).q
    )
    with pytest.raises(ValueError, match="same streams"):
        O.tuned_comparison(val[:1], test, alpha=0.1)
    with pytest.raises(ValueError, match="unknown baseline"):
        O.tuned_comparison(val, test, alpha=0.1, baselines=["ARIMA"])


# --- baselines -------------------------------------------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(-3, 3, allow_nan=False), min_size=1, max_size=80),
    st.sampled_from([0.001, 0.05, 0.3, 1.0]),
)
def test_aci_equals_brute_force(s, gamma):
    np.testing.assert_allclose(
        O.aci(s, alpha=0.1, gamma=gamma), brute_aci(s, 0.1, gamma)
    )


def test_aci_grid_equals_single_runs_and_covers_iid_scores():
    s = np.random.default_rng(1).standard_normal(4000)
    gammas = np.array([0.001, 0.01, 0.1])
    grid = O.aci(s, alpha=0.1, gamma=gammas)
    for k, g in enumerate(gammas):
        np.testing.assert_allclose(grid[k], O.aci(s, alpha=0.1, gamma=g))
    assert abs(O.coverage(s, grid[1]) - 0.9) < 0.02


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.floats(0, 10, allow_nan=False), min_size=1, max_size=80),
    st.sampled_from([0.01, 0.5]),
    st.sampled_from([0.1, 5.0]),
    st.sampled_from([1.0, 100.0]),
)
def test_conformal_pi_equals_brute_force(s, lr, c_sat, k_i):
    np.testing.assert_allclose(
        O.conformal_pi(s, alpha=0.1, lr=lr, c_sat=c_sat, k_i=k_i),
        brute_pi(s, 0.1, lr, c_sat, k_i),
        rtol=1e-9,
        atol=1e-9,
    )


def test_conformal_pi_grid_and_per_row_streams():
    S = np.abs(np.random.default_rng(2).standard_normal((3, 400)))
    lr, cs, ki = (
        np.array([0.1, 1.0, 5.0]),
        np.array([1.0, 5.0, 20.0]),
        np.array([10.0, 1.0, 100.0]),
    )
    rows = O.conformal_pi(S, alpha=0.1, lr=lr, c_sat=cs, k_i=ki)
    for k in range(3):
        one = O.conformal_pi(S[k], alpha=0.1, lr=lr[k], c_sat=cs[k], k_i=ki[k])
        np.testing.assert_allclose(rows[k], one, rtol=1e-12)
    shared = O.conformal_pi(S[0], alpha=0.1, lr=lr, c_sat=5.0, k_i=10.0)
    assert shared.shape == (3, 400)


def test_rolling_range():
    np.testing.assert_allclose(
        O.rolling_range([1.0, 3.0, 2.0, 7.0], 2), [0.0, 2.0, 1.0, 5.0]
    )
    np.testing.assert_allclose(
        O.rolling_range([[1.0, 3.0], [0.0, -1.0]], 5), [[0, 2], [0, 1]]
    )
    with pytest.raises(ValueError, match="window must be a positive int, got 0"):
        O.rolling_range([1.0, 2.0], 0)


# --- metrics, tuning and the test ----------------------------------------------------------------
def test_pinball_coverage_and_miscoverage_path():
    s, q = np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.0, 1.0])
    np.testing.assert_allclose(O.pinball_loss(s, q, 0.1), [0.1, 0.0, 1.8])
    assert O.coverage(s, q) == pytest.approx(2 / 3)
    np.testing.assert_allclose(O.miscoverage_path(s, q), [0.0, 0.0, 1 / 3])
    np.testing.assert_allclose(O.coverage(s, np.stack([q, q + 5])), [2 / 3, 1.0])


def test_select_config_prefers_covered_then_lowest_loss():
    s = np.linspace(0, 1, 101)
    q = np.stack(
        [
            np.full(101, 0.2),  # low loss region? no: covers 21 %
            np.full(101, 0.9),  # covers 91 %: within 0.01 of 0.9
            np.full(101, np.inf),  # infinite: never chosen
            np.full(101, 0.95),
        ]
    )  # covers 96 %
    assert O.select_config(s, q, 0.1) == 1
    assert (
        O.select_config(s, q[[0, 3]], 0.1) == 1
    )  # none within tol: lowest loss overall


def test_newey_west_reduces_to_iid_test_and_matches_statsmodels():
    d = np.random.default_rng(4).standard_normal(500) + 0.1
    res = O.newey_west_test(d, lags=0)
    assert res.se == pytest.approx(d.std() / np.sqrt(d.size))
    assert res.p_greater == pytest.approx(stats.norm.sf(d.mean() / res.se))
    import statsmodels.api as sm

    x = np.cumsum(d) * 0.01 + d  # a dependent series
    res = O.newey_west_test(x, lags=7)
    fit = sm.OLS(x, np.ones_like(x)).fit(
        cov_type="HAC", cov_kwds={"maxlags": 7, "use_correction": False}
    )
    assert res.se == pytest.approx(float(fit.bse[0]), rel=1e-9)


# --- data -----------------------------------------------------------------------------------------
def test_ar_series_variance_and_exact_conditional_coverage():
    rng = np.random.default_rng(0)
    y = O.ar_series([0.6], 200_000, rng)
    assert y.var() == pytest.approx(1 / (1 - 0.36), rel=0.03)
    z = stats.norm.ppf(0.9)
    mu = O.ar_conditional_mean(y, [0.6])
    cc = O.ar_conditional_coverage(y, mu + z, [0.6])
    assert np.isnan(cc[0]) and np.allclose(cc[1:], 0.9)
    y2 = O.ar_series([0.3, -0.3], 10, rng)
    np.testing.assert_allclose(
        O.ar_conditional_mean(y2, [0.3, -0.3])[2:], 0.3 * y2[1:-1] - 0.3 * y2[:-2]
    )


def test_ar1_reduction_known_values():
    np.testing.assert_allclose(
        O.ar1_set_size_reduction([0.0, 0.6, 0.8]), [0.0, 0.2, 0.4]
    )


def test_streams_are_bounded_and_reproducible():
    a = O.regime_switch_stream(20_000, np.random.default_rng(7))
    b = O.regime_switch_stream(20_000, np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    assert a.min() >= 0 and a.max() <= 1
    saw = O.sawtooth_stream(5, period=4)
    np.testing.assert_allclose(saw, [0, 0.25, 0.5, 0.75, 0])


def test_delayed_moving_average_and_autocorrelation():
    y = np.arange(10.0)
    # forecast for t = 4..9 is the mean of y[t-4], y[t-3]
    np.testing.assert_allclose(
        O.delayed_moving_average(y, delay=4, window=2), np.arange(6) + 0.5
    )
    assert O.lag1_autocorrelation(
        O.ar_series([0.8], 50_000, np.random.default_rng(1))
    ) == pytest.approx(0.8, abs=0.02)


# --- bad inputs ----------------------------------------------------------------------------------
@pytest.mark.parametrize("alpha", [0, 1, 1.5, -0.1, float("nan"), True, "0.1"])
def test_bad_alpha(alpha):
    msg = rf"alpha must be a number in \(0, 1\), got {re.escape(repr(alpha))}"
    with pytest.raises(ValueError, match=msg):
        O.lqt([1.0, 2.0], alpha=alpha, p=1, lr=0.1)
    with pytest.raises(ValueError, match=msg):
        O.aci([1.0, 2.0], alpha=alpha, gamma=0.1)


@pytest.mark.parametrize(
    "scores, msg",
    [
        ([], "empty"),
        ([1.0, float("nan")], "finite"),
        ([1.0, float("inf")], "finite"),
        (np.zeros((2, 2, 2)), "1-D"),
    ],
)
def test_bad_scores(scores, msg):
    with pytest.raises(ValueError, match=msg):
        O.lqt(scores, alpha=0.1, p=1, lr=0.1)
    with pytest.raises(ValueError, match=msg):
        O.conformal_pi(scores, alpha=0.1, lr=0.1, c_sat=1.0, k_i=1.0)


def test_bad_hyperparameters():
    with pytest.raises(ValueError, match="p must be an int ≥ 0, got -1"):
        O.lqt([1.0], alpha=0.1, p=-1, lr=0.1)
    with pytest.raises(ValueError, match="p must be an int ≥ 0, got 1.5"):
        O.lqt([1.0], alpha=0.1, p=1.5, lr=0.1)
    with pytest.raises(ValueError, match="lr must be positive"):
        O.lqt([1.0], alpha=0.1, p=1, lr=0.0)
    with pytest.raises(ValueError, match="bias must be positive"):
        O.lqt([1.0], alpha=0.1, p=1, lr=0.1, bias=-1.0)
    with pytest.raises(ValueError, match="schedule must be one of"):
        O.lqt([1.0], alpha=0.1, p=1, lr=0.1, schedule="cosine")
    with pytest.raises(ValueError, match="theta0"):
        O.lqt([1.0], alpha=0.1, p=1, lr=0.1, theta0=[1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="common length"):
        O.lqt(np.ones((3, 5)), alpha=0.1, p=1, lr=[0.1, 0.2])
    with pytest.raises(ValueError, match="gamma must be positive"):
        O.aci([1.0], alpha=0.1, gamma=0.0)
    with pytest.raises(ValueError, match="c_sat must be positive"):
        O.conformal_pi([1.0], alpha=0.1, lr=0.1, c_sat=-1.0, k_i=1.0)
    with pytest.raises(ValueError, match="non-stationary"):
        O.ar_series([1.0], 10, np.random.default_rng(0))
    with pytest.raises(
        TypeError, match="rng must be a numpy.random.Generator, got int"
    ):
        O.ar_series([0.5], 10, 0)
    with pytest.raises(ValueError, match=r"\|phi\| must be < 1"):
        O.ar1_set_size_reduction(1.0)
    with pytest.raises(ValueError, match="window"):
        O.delayed_moving_average([1.0, 2.0, 3.0], delay=1, window=2)
    with pytest.raises(ValueError, match="non-finite score"):
        O.lqt_against(lambda t, q: float("nan"), 3, alpha=0.1, p=0, lr=0.1)
    with pytest.raises(ValueError, match=r"lags must be an int in \[0, 2\], got 5"):
        O.newey_west_test([1.0, 2.0, 3.0], lags=5)


# --- grid searches --------------------------------------------------------------------------------
def brute_choice(s, qs, alpha=0.1):
    return O.select_config(s, np.stack(qs), alpha)


def test_tune_lqt_picks_what_a_plain_loop_picks():
    rng = np.random.default_rng(8)
    S = np.stack([O.ar_series([0.7], 1500, rng), np.abs(rng.standard_normal(1500))])
    lrs, biases, ps = [0.001, 0.01, 0.1, 1.0], [0.1, 1.0, 10.0], [0, 1, 2]
    for schedule in ("fixed", "decaying"):
        tuned = O.tune_lqt(
            S, alpha=0.1, lrs=lrs, biases=biases, ps=ps, schedule=schedule
        )
        for i, s in enumerate(S):
            cfgs = [dict(p=p, lr=lr, bias=b) for p in ps for lr in lrs for b in biases]
            qs = [O.lqt(s, alpha=0.1, schedule=schedule, **c).q for c in cfgs]
            k = brute_choice(s, qs)
            assert tuned.params[i] == cfgs[k]
            np.testing.assert_allclose(tuned.q[i], qs[k], rtol=1e-12, atol=1e-12)


def test_tune_sqt_aci_pi_pick_what_a_plain_loop_picks():
    rng = np.random.default_rng(9)
    S = np.abs(np.stack([O.ar_series([0.5], 800, rng), O.ar_series([-0.2], 800, rng)]))
    lrs = [0.001, 0.05, 1.0]
    t_sqt = O.tune_sqt(S, alpha=0.1, lrs=lrs)
    t_aci = O.tune_aci(S, alpha=0.1, gammas=[0.001, 0.01, 0.1])
    c_sats, k_is = [0.5, 5.0], np.array([[1.0, 10.0], [2.0, 20.0]])
    t_pi = O.tune_pi(S, alpha=0.1, lrs=lrs, c_sats=c_sats, k_is=k_is)
    for i, s in enumerate(S):
        qs = [O.sqt(s, alpha=0.1, lr=lr).q for lr in lrs]
        assert t_sqt.params[i]["lr"] == lrs[brute_choice(s, qs)]
        np.testing.assert_allclose(t_sqt.q[i], qs[brute_choice(s, qs)])
        qs = [O.aci(s, alpha=0.1, gamma=g) for g in [0.001, 0.01, 0.1]]
        np.testing.assert_allclose(t_aci.q[i], qs[brute_choice(s, qs)])
        cfgs = [
            dict(lr=lr, c_sat=c, k_i=k) for lr in lrs for c in c_sats for k in k_is[i]
        ]
        qs = [O.conformal_pi(s, alpha=0.1, **c) for c in cfgs]
        k = brute_choice(s, qs)
        assert t_pi.params[i] == cfgs[k]
        np.testing.assert_allclose(t_pi.q[i], qs[k], rtol=1e-12, atol=1e-12)


def test_path_at_records_the_same_parameters_as_the_full_path():
    S = np.random.default_rng(11).standard_normal((8, 300))
    marks = np.array([0, 5, 100, 299])
    for scores, lr in ((S[0], 0.1), (S, 0.1), (S[:2], np.array([0.1, 0.2]))):
        full = O.lqt(scores, alpha=0.1, p=2, lr=lr, return_path=True)
        some = O.lqt(scores, alpha=0.1, p=2, lr=lr, path_at=marks)
        np.testing.assert_allclose(
            some.path, full.path[..., marks, :], rtol=1e-12, atol=1e-12
        )
    with pytest.raises(ValueError, match="path_at"):
        O.lqt(S[0], alpha=0.1, p=2, lr=0.1, path_at=[5, 3])


# --- the chapter's protocols ---------------------------------------------------------------------
def test_coverage_trace_counts_the_error_and_bounds_it():
    rng = np.random.default_rng(11)
    s = rng.random(3000)
    r = O.lqt(s, alpha=0.1, p=1, lr=0.05)
    tr = O.coverage_trace(s, r.q, alpha=0.1, lr=0.05)
    np.testing.assert_allclose(tr.E, np.cumsum((s > r.q) - 0.1))
    assert np.all(np.diff(tr.C) >= 0)
    t = np.arange(1, s.size + 1)
    # |miscoverage_t − α| ≤ C_t/(η t) at every t, with equality where the maximum is reached
    dev = np.abs(O.miscoverage_path(s, r.q) - 0.1)
    assert np.all(dev <= tr.C / (0.05 * t) + 1e-12)
    assert tr.miscoverage(1000) == pytest.approx(0.1 + tr.E[999] / 1000)
    assert tr.growth(100, 3000) == pytest.approx(tr.C[-1] / tr.C[99])
    with pytest.raises(ValueError, match=r"round must be an int in \[1, 3000\], got 0"):
        tr.miscoverage(0)
    with pytest.raises(ValueError, match=r"round must be .*, got 3001"):
        tr.growth(1, 3001)
    with pytest.raises(ValueError, match="shape"):
        O.coverage_trace(s, r.q[:-1], alpha=0.1, lr=0.05)
    with pytest.raises(ValueError, match="lr"):
        O.coverage_trace(s, r.q, alpha=0.1, lr=0.0)


def test_bounded_stream_runs_match_single_runs():
    T, lr = 5000, 0.05
    out = O.bounded_stream_runs(T, np.random.default_rng(3), alpha=0.1, lr=lr)
    assert set(out) == {(n, p) for n in O.BOUNDED_STREAMS for p in (0, 1, 2)}
    sw = O.regime_switch_stream(T, np.random.default_rng(3))
    for p in (0, 1, 2):
        np.testing.assert_array_equal(out["regime switches", p].scores, sw)
        np.testing.assert_array_equal(
            out["regime switches", p].q, O.lqt(sw, alpha=0.1, p=p, lr=lr).q
        )
        saw = out["sawtooth", p]
        np.testing.assert_array_equal(saw.scores, O.sawtooth_stream(T))
        adv = out["adversary", p]
        assert set(np.unique(adv.scores)) <= {0.0, 1.0}
        np.testing.assert_array_equal(adv.q, O.lqt(adv.scores, alpha=0.1, p=p, lr=lr).q)
    # SQT's closed-form bound C ≤ B + η holds on every stream
    assert max(out[n, 0].C[-1] for n in O.BOUNDED_STREAMS) <= 1.0 + lr
    one = O.bounded_stream_runs(
        T,
        np.random.default_rng(3),
        alpha=0.1,
        lr=lr,
        ps=[2],
        streams=["regime switches"],
    )
    assert set(one) == {("regime switches", 2)}
    np.testing.assert_array_equal(
        one["regime switches", 2].C, out["regime switches", 2].C
    )
    with pytest.raises(ValueError, match="streams"):
        O.bounded_stream_runs(
            T, np.random.default_rng(3), alpha=0.1, lr=lr, streams=["x"]
        )
    with pytest.raises(
        TypeError, match="rng must be a numpy.random.Generator, got int"
    ):
        O.bounded_stream_runs(T, 3, alpha=0.1, lr=lr)


def test_ar1_dependence_sweep_pairs_seeds_and_follows_the_protocol():
    phis, T, kw = [0.0, 0.8], 4000, dict(lrs=[1e-2, 1e-1], biases=[1.0], ps=[0, 1])
    sw = O.ar1_dependence_sweep(
        phis,
        T=T,
        rngs=[np.random.default_rng(k) for k in (1, 2, 3)],
        alpha=0.1,
        baselines=["SQT"],
        **kw,
    )
    assert sw.set_size["LQT"].shape == (3, 2) and sw.oracle_constant.shape == (3, 2)
    # seed 2's series are ar_series from a fresh copy of its generator, for every φ
    Y = np.stack([O.ar_series([phi], T, np.random.default_rng(2)) for phi in phis])
    cmp = O.tuned_comparison(
        Y[:, :1000], Y[:, 1000:], alpha=0.1, baselines=["SQT"], **kw
    )
    for name in ("LQT", "SQT"):
        np.testing.assert_allclose(sw.set_size[name][1], cmp.q[name].mean(axis=1))
        assert sw.settings[name][1] == cmp.settings[name]
    np.testing.assert_allclose(
        sw.oracle_constant[1], np.quantile(Y[:, 1000:], 0.9, axis=1)
    )
    np.testing.assert_allclose(
        sw.reduction("SQT"), 1 - sw.set_size["LQT"] / sw.set_size["SQT"]
    )
    np.testing.assert_allclose(
        sw.reduction("SQT", "pinball"), 1 - sw.pinball["LQT"] / sw.pinball["SQT"]
    )
    np.testing.assert_allclose(
        sw.reduction("oracle constant"), 1 - sw.set_size["LQT"] / sw.oracle_constant
    )
    # with strong dependence the lagged tracker learns the conditional quantile
    assert np.all(sw.reduction("oracle constant")[:, 1] > 0.2)
    with pytest.raises(ValueError, match="unknown baseline"):
        sw.reduction("ACI")
    with pytest.raises(ValueError, match="set size only"):
        sw.reduction("oracle constant", "pinball")
    with pytest.raises(ValueError, match="metric"):
        sw.reduction("SQT", "width")
    rng = [np.random.default_rng(0)]
    with pytest.raises(ValueError, match="phis"):
        O.ar1_dependence_sweep([0.5], T=T, rngs=rng, alpha=0.1)
    with pytest.raises(ValueError, match="phis"):
        O.ar1_dependence_sweep([0.0, 1.0], T=T, rngs=rng, alpha=0.1)
    with pytest.raises(ValueError, match="rngs"):
        O.ar1_dependence_sweep(phis, T=T, rngs=[], alpha=0.1)
    with pytest.raises(
        ValueError, match=r"val_frac must be a number in \(0, 1\), got 1.0"
    ):
        O.ar1_dependence_sweep(phis, T=T, rngs=rng, alpha=0.1, val_frac=1.0)
    with pytest.raises(ValueError, match="T must be an int ≥ 8, got 4"):
        O.ar1_dependence_sweep(phis, T=4, rngs=rng, alpha=0.1)


def test_paired_steps():
    np.testing.assert_allclose(
        O.paired_steps([[0.0, 0.1, 0.3], [0.0, 0.2, 0.1]]), [[0.1, 0.2], [0.2, -0.1]]
    )
    with pytest.raises(ValueError, match="steps"):
        O.paired_steps([0.0, 0.1])


def test_unrolled_small_p_engine_equals_the_general_loop():
    # brute_lqt is the plain reference; the unrolled engine (p ≤ 2) must give the same floats,
    # including the recorded path
    rng = np.random.default_rng(11)
    for p in (0, 1, 2):
        for schedule in O.SCHEDULES:
            s = rng.standard_normal(400)
            etas = O.step_sizes(0.3, 400, schedule)
            q_ref, th_ref = brute_lqt(s, 0.1, p, etas, 2.0, O.default_theta0(p) + 0.1)
            r = O.lqt(
                s,
                alpha=0.1,
                p=p,
                lr=0.3,
                bias=2.0,
                schedule=schedule,
                theta0=O.default_theta0(p) + 0.1,
                path_at=np.array([0, 1, 2, 50, 399]),
            )
            np.testing.assert_allclose(r.q, q_ref, rtol=0, atol=1e-12)
            np.testing.assert_allclose(r.theta, th_ref, rtol=0, atol=1e-12)
            full = O.lqt(
                s,
                alpha=0.1,
                p=p,
                lr=0.3,
                bias=2.0,
                schedule=schedule,
                theta0=O.default_theta0(p) + 0.1,
                return_path=True,
            )
            np.testing.assert_array_equal(r.path, full.path[[0, 1, 2, 50, 399]])


def test_lqt_against_records_the_path():
    marks = np.array([0, 5, 99])
    s, r = O.lqt_against(
        O.miss_when_possible(), 100, alpha=0.1, p=2, lr=0.05, path_at=marks
    )
    ref = O.lqt(s, alpha=0.1, p=2, lr=0.05, return_path=True)
    np.testing.assert_array_equal(r.path, ref.path[marks])
    with pytest.raises(ValueError, match="path_at"):
        O.lqt_against(
            O.miss_when_possible(), 10, alpha=0.1, p=0, lr=0.1, path_at=[3, 2]
        )


def test_split_conformal_threshold_known_values():
    cal = np.arange(1.0, 10.0)  # 9 scores: rank ⌈0.9·10⌉ = 9 → the largest
    assert O.split_conformal_threshold(cal, 0.1) == 9.0
    assert O.split_conformal_threshold(np.arange(1.0, 20.0), 0.1) == 18.0  # ⌈0.9·20⌉
    assert O.split_conformal_threshold([3.0], 0.5) == 3.0  # rank beyond n → the largest
    # exchangeable scores: coverage of a fresh score is at least 1 − α on average
    rng = np.random.default_rng(0)
    cov = [
        rng.random() <= O.split_conformal_threshold(rng.random(49), 0.1)
        for _ in range(4000)
    ]
    assert abs(np.mean(cov) - 0.9) < 0.02
    with pytest.raises(ValueError, match="alpha"):
        O.split_conformal_threshold(cal, 1.5)


def test_best_constant_gap_equals_a_brute_force_search():
    rng = np.random.default_rng(3)
    for s in (rng.random(50), np.round(rng.random(200), 1), np.r_[np.zeros(5), 1.0]):
        grid = np.r_[s.min() - 1.0, np.unique(s)]  # below every score, then each value
        brute = min(abs(np.mean(s > q) - 0.1) for q in grid)
        assert O.best_constant_gap(s, 0.1) == pytest.approx(brute)
    # a two-point law with mass 1/4 on the top: a constant misses 1/4 of rounds or none
    s = np.r_[np.zeros(30), np.ones(10)]
    assert O.best_constant_gap(s, 0.1) == pytest.approx(0.1)
    gap = O.best_constant_gap(np.arange(10.0), 0.1)  # q = 8 misses 1 of 10
    assert gap == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="alpha"):
        O.best_constant_gap(s, 0.0)
    with pytest.raises(ValueError, match="empty"):
        O.best_constant_gap([], 0.1)


def test_minmax_normalise():
    s = np.array([2.0, 4.0, 3.0, 10.0, 0.0])
    np.testing.assert_allclose(O.minmax_normalise(s, 3), [0.0, 1.0, 0.5, 4.0, -1.0])
    with pytest.raises(ValueError, match="n_val"):
        O.minmax_normalise(s, 1)
    with pytest.raises(ValueError, match="constant"):
        O.minmax_normalise(np.array([1.0, 1.0, 2.0]), 2)


def test_bounded_stream_runs_comparator_and_marks():
    T, lr, n_cal = 4000, 0.05, 1000
    marks = np.array([0, 10, 3999])
    out = O.bounded_stream_runs(
        T, np.random.default_rng(3), alpha=0.1, lr=lr, n_cal=n_cal, path_at=marks
    )
    sw = O.regime_switch_stream(T, np.random.default_rng(3))
    qf = O.split_conformal_threshold(sw[:n_cal], 0.1)
    sp = out["regime switches", "split"]
    np.testing.assert_array_equal(sp.scores, sw[n_cal:])
    assert np.all(sp.q == qf) and sp.E.size == T - n_cal
    assert sp.miscoverage(T - n_cal) == pytest.approx(np.mean(sw[n_cal:] > qf))
    # against the adversary: calibrated on its answers to 0 (all B), then never missed
    adv = out["adversary", "split"]
    assert np.all(adv.q == 1.0) and adv.miscoverage(T - n_cal) == 0.0
    # the sawtooth over whole periods: the fixed threshold is nearly exact
    assert abs(out["sawtooth", "split"].miscoverage(T - n_cal) - 0.1) <= 0.002
    tr = out["regime switches", 2]
    ref = O.lqt(sw, alpha=0.1, p=2, lr=lr, return_path=True)
    np.testing.assert_array_equal(tr.marks, marks)
    np.testing.assert_array_equal(tr.theta, ref.path[marks])
    with pytest.raises(ValueError, match="n_cal"):
        O.bounded_stream_runs(T, np.random.default_rng(3), alpha=0.1, lr=lr, n_cal=T)


def test_series_comparison_follows_the_protocol():
    rng = np.random.default_rng(5)
    y = O.ar_series([0.8], 3000, rng)
    s = 50.0 + 20.0 * np.abs(y)  # far from order one: normalisation brings it back
    kw = dict(lrs=[1e-2, 1e-1], biases=[1.0], ps=[0, 1], baselines=["SQT", "ACI"])
    r = O.series_comparison(s, val_frac=0.25, alpha=0.1, **kw)
    n_v = 750
    sn = O.minmax_normalise(s, n_v)
    np.testing.assert_allclose(r.test, sn[n_v:])
    cmp = O.tuned_comparison(sn[None, :n_v], sn[None, n_v:], alpha=0.1, **kw)
    for m in ("LQT", "SQT", "ACI"):
        np.testing.assert_array_equal(r.q[m], cmp.q[m][0])
        assert r.settings[m] == cmp.settings[m][0]
        loss = O.pinball_loss(r.test, r.q[m], 0.1)
        assert r.loss[m] == pytest.approx(loss.mean())
    d = O.pinball_loss(r.test, r.q["SQT"], 0.1) - O.pinball_loss(
        r.test, r.q["LQT"], 0.1
    )
    assert r.hac["SQT"].mean == pytest.approx(d.mean())
    assert r.best_baseline in ("SQT", "ACI")
    assert r.gain("SQT") == pytest.approx(1 - r.loss["LQT"] / r.loss["SQT"])
    assert r.scale == (float(s[:n_v].min()), float(s[:n_v].max() - s[:n_v].min()))
    raw = O.series_comparison(s, val_frac=0.25, alpha=0.1, normalise=False, **kw)
    np.testing.assert_array_equal(raw.test, s[n_v:])
    with pytest.raises(ValueError, match="baseline"):
        r.gain("PI")
    with pytest.raises(ValueError, match="val_frac"):
        O.series_comparison(s, val_frac=1.0, alpha=0.1)
    # the HAC lags reach the test: the mean is the same, the lag count is the one asked for
    r48 = O.series_comparison(s, val_frac=0.25, alpha=0.1, hac_lags=48, **kw)
    assert r48.hac["SQT"].lags == 48 and r.hac["SQT"].lags != 48
    assert r48.hac["SQT"].mean == pytest.approx(r.hac["SQT"].mean)
    ref = O.newey_west_test(d, lags=48)
    assert r48.hac["SQT"].se == pytest.approx(ref.se)
    with pytest.raises(ValueError, match="lags must be an int in .*, got -1"):
        O.series_comparison(s, val_frac=0.25, alpha=0.1, hac_lags=-1, **kw)
