"""repbook.core.stats: an exact Spearman ρ, so that a bar such as ρ ≤ −0.8 is not decided by a
floating-point residue (chapters 14 and 18)."""

import math

import numpy as np
import pytest

from repbook.core.stats import spearman_rho
from repbook.papers.butterfly import protocol as P


def test_spearman_rho_exact_on_one_swap_and_agrees_with_scipy():
    from scipy import stats

    # Four points, one adjacent swap of a falling series: exactly −0.8, not −0.7999…
    assert spearman_rho([0, 1, 2, 3], [4.0, 2.0, 3.0, 1.0]) == -0.8
    rng = np.random.default_rng(0)
    for n in (3, 5, 8):
        x, y = rng.normal(size=n), rng.normal(size=n)
        assert spearman_rho(x, y) == pytest.approx(stats.spearmanr(x, y).statistic)
    ties = [1.0, 1.0, 2.0, 3.0]
    assert spearman_rho(ties, [1, 2, 3, 4]) == pytest.approx(
        stats.spearmanr(ties, [1, 2, 3, 4]).statistic
    )
    assert math.isnan(spearman_rho([0, 1, 2], [1.0, 1.0, 1.0]))
    with pytest.raises(ValueError, match="one length"):
        spearman_rho([0, 1], [0, 1, 2])


def test_the_butterfly_protocol_still_offers_it():
    assert P.spearman_rho is spearman_rho


def test_five_points_on_the_bar_are_exact():
    # chapter 18's synthetic family: ρ = −0.8 on five sizes came out −0.7999999999999999
    assert spearman_rho(
        [32, 64, 128, 192, 256], [5.0, 4.0, 2.0, 3.0, 1.0]
    ) == pytest.approx(-0.9)
    assert spearman_rho([1, 2, 3, 4, 5], [5.0, 3.0, 4.0, 1.0, 2.0]) == -0.8


def test_paired_summary_matches_the_criterion_it_prints_for():
    import pytest

    from repbook.core.criteria import paired_gain
    from repbook.core.stats import gain_line, paired_summary, t_quantile

    d = [0.3, -0.1, 0.2, 0.4, 0.1]
    s = paired_summary(d)
    crit = paired_gain("g", k="t")
    mean, se, half, n = crit.interval({"g": d})
    assert (s.mean, s.se, s.half, s.n) == (mean, se, half, n) and s.positive == 4
    assert t_quantile(5) == pytest.approx(2.7764451, rel=1e-7)
    assert s.reading == "within the noise"
    assert paired_summary([1.0, 1.1, 0.9]).reading == "above 0"
    assert paired_summary([-1.0, -1.1, -0.9]).reading == "below 0"
    assert gain_line("gain", d, digits=2) == (
        "gain: +0.18 ± 0.24 (t·SE, 5 seeds; positive on 4 of 5)"
    )
    with pytest.raises(ValueError, match="at least 2 values"):
        paired_summary([1.0])
    with pytest.raises(ValueError, match="n must be an int ≥ 2"):
        t_quantile(1)
