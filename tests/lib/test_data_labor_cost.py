import csv
import math
from dataclasses import replace

import numpy as np
import pytest

from repbook.core import data_file
from repbook.papers import data_labor_cost

SLUG = "11_data_labor_cost"


@pytest.fixture(scope="module")
def facts():
    return data_labor_cost.read_llm_facts(data_file(SLUG, "llm_facts.csv"))


@pytest.fixture(scope="module")
def hardware():
    return data_labor_cost.read_hardware(data_file(SLUG, "hardware.csv"))


# --- hand-computed costs -----------------------------------------------------------------------
def test_data_cost_by_hand():
    # 1.2e6 tokens · 0.75 words = 900,000 words; at 30 words/min that is 500 hours; at $15/h, $7,500
    assert data_labor_cost.data_cost(
        1.2e6, words_per_token=0.75, words_per_minute=30, wage_usd_per_hour=15
    ) == pytest.approx(7500.0, rel=1e-12)
    assert data_labor_cost.writing_hours(
        1.2e6, words_per_token=0.75, words_per_minute=30
    ) == pytest.approx(500)
    # defaults are the paper's wage and speed and 0.75 words per token
    assert data_labor_cost.data_cost(1.2e6) == pytest.approx(7500.0, rel=1e-12)


def test_rental_cost_by_hand():
    # 3.6e18 FLOP at 1e14 FLOP/s · 0.5 = 7.2e4 s = 20 GPU-hours; at $2.5 per GPU-hour, $50
    assert data_labor_cost.gpu_hours(
        3.6e18, peak_flops_per_s=1e14, mfu=0.5
    ) == pytest.approx(20.0)
    assert data_labor_cost.rental_training_cost(
        3.6e18, peak_flops_per_s=1e14, mfu=0.5, usd_per_gpu_hour=2.5
    ) == pytest.approx(50.0, rel=1e-12)
    assert data_labor_cost.usd_per_flop(
        peak_flops_per_s=1e14, mfu=0.5, usd_per_gpu_hour=2.5
    ) == pytest.approx(50.0 / 3.6e18, rel=1e-12)


def test_amortized_rate_by_hand():
    # $8766 server written off at 0.1/ln10 OOM/year → $0.1 per hour; interconnect share 0.2 → 0.025;
    # energy: 1 kW · factor 2 · fraction 0.5 · PUE 1.0 · $0.1/kWh = $0.1 per hour
    rate = data_labor_cost.amortized_rate(
        purchase_usd_per_gpu=8766.0,
        tdp_watts=1000,
        server_power_factor=2,
        energy_usd_per_kwh=0.1,
        pue=1.0,
        tdp_fraction=0.5,
        interconnect_fraction=0.2,
        progress_ooms_per_year=0.1 / math.log(10),
        hours_per_year=8766.0,
    )
    assert rate.hardware == pytest.approx(0.1)
    assert rate.interconnect == pytest.approx(0.025)
    assert rate.energy == pytest.approx(0.1)
    assert rate.total == pytest.approx(0.225)
    cost = data_labor_cost.amortized_training_cost(
        3.6e18, peak_flops_per_s=1e14, mfu=0.5, rate=rate
    )
    assert cost == pytest.approx(20 * 0.225)


def test_break_even_wage_and_implied_mfu():
    # 500 writing hours against a $50 training run: $0.10 per hour
    assert data_labor_cost.break_even_wage(
        1.2e6, 50.0, words_per_token=0.75, words_per_minute=30
    ) == pytest.approx(0.1)
    assert data_labor_cost.implied_mfu(
        3.6e18, 20.0, peak_flops_per_s=1e14
    ) == pytest.approx(0.5)


# --- the closed form -----------------------------------------------------------------------------
def test_closed_form_equals_direct_ratio_under_6nd():
    rng = np.random.default_rng(0)
    N = 10 ** rng.uniform(8, 12, 200)
    D = 10 ** rng.uniform(10, 13.5, 200)
    peak, mfu, price = 3.12e14, 0.375, 4.1
    direct = data_labor_cost.data_cost(D) / data_labor_cost.rental_training_cost(
        data_labor_cost.training_flops_6nd(N, D),
        peak_flops_per_s=peak,
        mfu=mfu,
        usd_per_gpu_hour=price,
    )
    closed = data_labor_cost.closed_form_ratio(
        N,
        usd_per_flop=data_labor_cost.usd_per_flop(
            peak_flops_per_s=peak, mfu=mfu, usd_per_gpu_hour=price
        ),
    )
    np.testing.assert_allclose(direct, closed, rtol=1e-9)


def test_ratio_does_not_depend_on_tokens_and_falls_as_one_over_n():
    per_flop = data_labor_cost.usd_per_flop(
        peak_flops_per_s=1e14, mfu=0.4, usd_per_gpu_hour=3.0
    )
    for D in (1e9, 3e11, 2e13):
        ratio = data_labor_cost.data_cost(D) / (
            data_labor_cost.training_flops_6nd(7e9, D) * per_flop
        )
        assert ratio == pytest.approx(
            data_labor_cost.closed_form_ratio(7e9, usd_per_flop=per_flop), rel=1e-12
        )
    r = data_labor_cost.closed_form_ratio(
        np.array([1e9, 2e9, 4e9]), usd_per_flop=per_flop
    )
    np.testing.assert_allclose(r[:-1] / r[1:], [2.0, 2.0], rtol=1e-12)


def test_cost_table_matches_its_parts(facts, hardware):
    a = data_labor_cost.Assumptions()
    table = data_labor_cost.cost_table(facts, hardware, a)
    assert len(table) == len(facts) and table.index.is_unique
    six = table[table.flops_source == "6ND"]
    np.testing.assert_allclose(six.ratio, six.closed_form_ratio, rtol=1e-9)
    np.testing.assert_allclose(
        table.break_even_wage * table.ratio, a.wage_usd_per_hour, rtol=1e-9
    )
    np.testing.assert_allclose(
        table.data_cost / table.ratio, table.rental_cost, rtol=1e-12
    )
    # the amortised cost is cheaper than renting on every class here
    assert (table.amortized_cost < table.rental_cost).all()
    gpt3 = table.loc["GPT-3 175B"]
    assert gpt3.flops == 3.14e23 and gpt3.flops_source == "reported"
    assert gpt3.data_cost == pytest.approx(300e9 * 0.75 / 1800 * 15)


def test_bootstrap_median_is_seeded_and_brackets_the_median():
    x = 10 ** np.random.default_rng(0).uniform(
        1, 4, 19
    )  # 19 distinct values, like the set
    a = data_labor_cost.bootstrap_median(x, n_boot=500, rng=np.random.default_rng(1))
    b = data_labor_cost.bootstrap_median(x, n_boot=500, rng=np.random.default_rng(1))
    c = data_labor_cost.bootstrap_median(x, n_boot=500, rng=np.random.default_rng(2))
    assert a == b and a != c
    assert a[0] <= np.median(x) <= a[1]


# --- the shipped tables --------------------------------------------------------------------------
def test_shipped_tables(facts, hardware):
    assert 15 <= len(facts) <= 25
    assert set(hardware) == set(data_labor_cost.HARDWARE_CLASSES)
    assert all(f.source and f.checked_against for f in facts)
    assert any(f.frontier for f in facts) and not all(f.frontier for f in facts)
    epoch = data_labor_cost.read_epoch_costs(data_file(SLUG, "epoch_costs.csv"))
    assert set(epoch.index) <= {f.model for f in facts}


# --- bad inputs ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(tokens=-1.0), "tokens must be a finite number > 0, got -1.0"),
        (
            dict(tokens=1e9, words_per_minute=0),
            "words_per_minute must be a finite number > 0, got 0",
        ),
        (
            dict(tokens=1e9, wage_usd_per_hour=float("nan")),
            "wage_usd_per_hour .* got nan",
        ),
        (dict(tokens="many"), "tokens must be a finite number > 0, got 'many'"),
        (dict(tokens=True), "tokens must be a finite number > 0, got True"),
        (dict(tokens=[1e9, -2.0]), "tokens must hold finite numbers > 0, got -2.0"),
        (dict(tokens=[1e9, np.inf]), "tokens must be finite"),
        (dict(tokens=[]), "tokens must not be empty"),
    ],
)
def test_bad_data_cost_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        data_labor_cost.data_cost(**kwargs)


@pytest.mark.parametrize("mfu", [0, 1.5, -0.2, "half"])
def test_bad_mfu(mfu):
    with pytest.raises(ValueError, match="mfu"):
        data_labor_cost.gpu_hours(1e20, peak_flops_per_s=1e14, mfu=mfu)


def test_bad_other_arguments():
    with pytest.raises(ValueError, match="params"):
        data_labor_cost.training_flops_6nd(0, 1e9)
    with pytest.raises(ValueError, match="usd_per_flop"):
        data_labor_cost.closed_form_ratio(1e9, usd_per_flop=-1.0)
    with pytest.raises(ValueError, match="training_cost_usd"):
        data_labor_cost.break_even_wage(1e9, 0.0)
    with pytest.raises(ValueError, match="pue must be ≥ 1"):
        data_labor_cost.amortized_rate(
            purchase_usd_per_gpu=1e4,
            tdp_watts=400,
            server_power_factor=2,
            energy_usd_per_kwh=0.08,
            pue=0.9,
        )
    with pytest.raises(ValueError, match="interconnect_fraction"):
        data_labor_cost.amortized_rate(
            purchase_usd_per_gpu=1e4,
            tdp_watts=400,
            server_power_factor=2,
            energy_usd_per_kwh=0.08,
            interconnect_fraction=1.0,
        )
    with pytest.raises(ValueError, match="rate must be an AmortizedRate"):
        data_labor_cost.amortized_training_cost(
            1e20, peak_flops_per_s=1e14, mfu=0.4, rate=2.0
        )
    with pytest.raises(ValueError, match="n_boot must be a positive int, got 0"):
        data_labor_cost.bootstrap_median(
            [1.0, 2.0], n_boot=0, rng=np.random.default_rng(0)
        )
    with pytest.raises(
        TypeError, match="rng must be a numpy.random.Generator, got int"
    ):
        data_labor_cost.bootstrap_median([1.0, 2.0], n_boot=10, rng=0)
    with pytest.raises(ValueError, match="mfu"):
        data_labor_cost.Assumptions(mfu=2.0)
    with pytest.raises(ValueError, match="wage_usd_per_hour"):
        data_labor_cost.Assumptions(wage_usd_per_hour=0)
    with pytest.raises(ValueError, match="assumptions must be an Assumptions"):
        data_labor_cost.cost_table(
            data_labor_cost.read_llm_facts(data_file(SLUG, "llm_facts.csv")),
            {},
            {"mfu": 0.4},
        )


# --- CSV validation: each failure names the line, the model and the column ----------------------
def write_variant(tmp_path, edit):
    rows = list(
        csv.DictReader(open(data_file(SLUG, "llm_facts.csv"), encoding="utf-8"))
    )
    edit(rows)
    path = tmp_path / "llm_facts.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(data_labor_cost.LLM_COLUMNS))
        w.writeheader()
        w.writerows(rows)
    return path


@pytest.mark.parametrize(
    "column, value, match",
    [
        ("source", "", r"line 3 \(Gopher 280B\), column 'source': must not be empty"),
        (
            "params",
            "-7e9",
            r"line 3 \(Gopher 280B\), column 'params': must be a positive finite",
        ),
        (
            "tokens_seen",
            "lots",
            r"line 3 \(Gopher 280B\), column 'tokens_seen': must be a number",
        ),
        (
            "hardware_class",
            "TPUv3",
            r"line 3 \(Gopher 280B\), column 'hardware_class': must be one of",
        ),
        (
            "frontier",
            "maybe",
            r"line 3 \(Gopher 280B\), column 'frontier': must be yes or no",
        ),
        ("release_year", "2021.5", r"column 'release_year': must be a whole number"),
        (
            "tokens_unique",
            "9e11",
            r"column 'tokens_unique': must not exceed tokens_seen",
        ),
        (
            "train_flops_reported",
            "inf",
            r"column 'train_flops_reported': must be a positive finite",
        ),
    ],
)
def test_bad_llm_rows_name_line_model_and_column(tmp_path, column, value, match):
    def edit(rows):
        rows[1][column] = value  # the second data row (line 3): Gopher 280B

    with pytest.raises(data_labor_cost.CuratedDataError, match=match):
        data_labor_cost.read_llm_facts(write_variant(tmp_path, edit))


def test_duplicate_model_and_missing_column(tmp_path):
    def dup(rows):
        rows[3]["model"] = rows[0]["model"]

    with pytest.raises(data_labor_cost.CuratedDataError, match="listed twice"):
        data_labor_cost.read_llm_facts(write_variant(tmp_path, dup))
    path = tmp_path / "bad.csv"
    path.write_text("model,params\nX,1e9\n")
    with pytest.raises(data_labor_cost.CuratedDataError, match="missing column"):
        data_labor_cost.read_llm_facts(path)
    with pytest.raises(data_labor_cost.CuratedDataError, match="no such file"):
        data_labor_cost.read_llm_facts(tmp_path / "absent.csv")


def test_bad_hardware_table(tmp_path):
    rows = list(csv.DictReader(open(data_file(SLUG, "hardware.csv"), encoding="utf-8")))
    rows[1]["source_rental"] = ""
    path = tmp_path / "hardware.csv"
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(data_labor_cost.HARDWARE_COLUMNS))
        w.writeheader()
        w.writerows(rows)
    with pytest.raises(
        data_labor_cost.CuratedDataError,
        match=r"line 3 \(A100\), column 'source_rental'",
    ):
        data_labor_cost.read_hardware(path)
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=list(data_labor_cost.HARDWARE_COLUMNS))
        w.writeheader()
        w.writerows(rows[:1])
    with pytest.raises(
        data_labor_cost.CuratedDataError, match="no row for hardware class"
    ):
        data_labor_cost.read_hardware(path)


def test_bootstrap_medians_shape_and_range():
    x = np.array([3.0, 1.0, 2.0, 10.0, 5.0])
    m = data_labor_cost.bootstrap_medians(x, n_boot=300, rng=np.random.default_rng(0))
    assert m.shape == (300,) and m.min() >= x.min() and m.max() <= x.max()
    assert set(np.unique(m)) <= set(x)  # odd size: every median is one of the values


# --- the inverse of the closed form, fixed compute, the sensitivity sweep -----------------------
def test_params_at_ratio_inverts_the_closed_form():
    per_flop = data_labor_cost.usd_per_flop(
        peak_flops_per_s=3.12e14, mfu=0.375, usd_per_gpu_hour=4.1
    )
    for ratio in (10.0, 1000.0, 3.3e4):
        n = data_labor_cost.params_at_ratio(ratio, usd_per_flop=per_flop)
        assert data_labor_cost.closed_form_ratio(
            n, usd_per_flop=per_flop
        ) == pytest.approx(ratio, rel=1e-12)
    # by hand: $15/h · 0.75 / 1800 words per hour = $0.00625 per token; at $1e-18 per FLOP
    # and ratio 1000, N = 0.00625 / (6 · 1000 · 1e-18) = 1.0417e12
    assert data_labor_cost.params_at_ratio(1000, usd_per_flop=1e-18) == pytest.approx(
        0.00625 / 6e-15, rel=1e-12
    )
    # ten times the ratio: a model ten times smaller
    a, b = data_labor_cost.params_at_ratio(
        np.array([10.0, 100.0]), usd_per_flop=per_flop
    )
    assert a / b == pytest.approx(10.0, rel=1e-12)


def test_ratio_at_fixed_compute_grows_as_the_root_of_tokens_per_param():
    per_flop = 1e-18
    c = data_labor_cost.training_flops_6nd(7e9, 2e12)
    # the run that trained 7e9 parameters on 2e12 tokens has D/N = 2e12 / 7e9
    assert data_labor_cost.ratio_at_fixed_compute(
        c, 2e12 / 7e9, usd_per_flop=per_flop
    ) == pytest.approx(
        data_labor_cost.closed_form_ratio(7e9, usd_per_flop=per_flop), rel=1e-12
    )
    r = data_labor_cost.ratio_at_fixed_compute(
        c, np.array([20.0, 80.0, 320.0]), usd_per_flop=per_flop
    )
    np.testing.assert_allclose(r[1:] / r[:-1], [2.0, 2.0], rtol=1e-12)


def test_tokens_per_param_column(facts, hardware):
    table = data_labor_cost.cost_table(facts, hardware, data_labor_cost.Assumptions())
    np.testing.assert_allclose(
        table.tokens_per_param, table.tokens / table.params, rtol=1e-15
    )
    assert table.loc["Chinchilla 70B", "tokens_per_param"] == pytest.approx(20.0)


def test_median_ratio_grid_is_the_median_of_each_table(facts, hardware):
    a = data_labor_cost.Assumptions()
    wages, speeds = [2.0, 15.0], [10.0, 30.0, 60.0]
    grid = data_labor_cost.median_ratio_grid(
        facts, hardware, a, wages=wages, speeds=speeds
    )
    assert grid.shape == (2, 3)
    base = data_labor_cost.cost_table(facts, hardware, a).ratio.median()
    assert grid[1, 1] == pytest.approx(base, rel=1e-12)
    # the ratio is proportional to wage / speed, and so is its median
    np.testing.assert_allclose(
        grid,
        base * np.outer(np.array(wages) / 15.0, 30.0 / np.array(speeds)),
        rtol=1e-9,
    )
    am = data_labor_cost.median_ratio_grid(
        facts, hardware, a, wages=[15.0], speeds=[30.0], cost="amortized"
    )
    assert am[0, 0] == pytest.approx(
        data_labor_cost.cost_table(facts, hardware, a).ratio_amortized.median(),
        rel=1e-12,
    )


def test_bad_grid_and_inverse_arguments(facts, hardware):
    a = data_labor_cost.Assumptions()
    with pytest.raises(ValueError, match="cost must be"):
        data_labor_cost.median_ratio_grid(
            facts, hardware, a, wages=[1.0], speeds=[1.0], cost="x"
        )
    with pytest.raises(
        ValueError, match="wages must hold finite numbers > 0, got -1.0"
    ):
        data_labor_cost.median_ratio_grid(
            facts, hardware, a, wages=[-1.0], speeds=[1.0]
        )
    with pytest.raises(ValueError, match="assumptions must be"):
        data_labor_cost.median_ratio_grid(
            facts, hardware, None, wages=[1.0], speeds=[1.0]
        )
    with pytest.raises(ValueError, match="ratio must be a finite number > 0, got 0.0"):
        data_labor_cost.params_at_ratio(0.0, usd_per_flop=1e-18)
    with pytest.raises(
        ValueError, match="tokens_per_param must be a finite number > 0, got -2.0"
    ):
        data_labor_cost.ratio_at_fixed_compute(1e20, -2.0, usd_per_flop=1e-18)


def test_class_prices_match_the_cost_table(facts, hardware):
    a = data_labor_cost.Assumptions()
    table = data_labor_cost.cost_table(facts, hardware, a)
    rental = data_labor_cost.class_usd_per_gpu_hour(hardware, a, cost="rental")
    assert rental == {c: h.rental_usd_per_gpu_hour for c, h in hardware.items()}
    amortised = data_labor_cost.class_usd_per_flop(hardware, a, cost="amortized")
    six = table[table.flops_source == "6ND"]
    for name, row in six.iterrows():
        # the amortised ratio of a 6ND row lies on the closed form at the amortised $/FLOP
        closed = data_labor_cost.closed_form_ratio(
            row.params, usd_per_flop=amortised[row.hardware_class]
        )
        assert closed == pytest.approx(row.ratio_amortized, rel=1e-12), name
    per_flop = data_labor_cost.class_usd_per_flop(hardware, a, cost="rental")
    for cls, hw in hardware.items():
        assert per_flop[cls] == pytest.approx(
            hw.rental_usd_per_gpu_hour / (hw.peak_flops_per_s * a.mfu * 3600)
        )
    with pytest.raises(ValueError, match="cost must be"):
        data_labor_cost.class_usd_per_gpu_hour(hardware, a, cost="cloud")
    with pytest.raises(ValueError, match="Assumptions"):
        data_labor_cost.class_usd_per_flop(hardware, {"mfu": 0.4})
    with pytest.raises(ValueError, match="hardware"):
        data_labor_cost.class_usd_per_gpu_hour({}, a)


def test_band_miss_factor():
    assert data_labor_cost.band_miss_factor(5000.0, 10, 1000) == pytest.approx(5.0)
    assert data_labor_cost.band_miss_factor(2.0, 10, 1000) == pytest.approx(5.0)
    assert data_labor_cost.band_miss_factor(10.0, 10, 1000) == 1.0
    assert data_labor_cost.band_miss_factor(1000.0, 10, 1000) == 1.0
    with pytest.raises(ValueError, match="lo must not exceed hi"):
        data_labor_cost.band_miss_factor(5.0, 100, 10)
    with pytest.raises(ValueError, match="value"):
        data_labor_cost.band_miss_factor(-1.0, 10, 1000)
    with pytest.raises(ValueError, match="single numbers"):
        data_labor_cost.band_miss_factor([1.0, 2.0], 10, 1000)


def test_dividing_every_ratio_by_the_miss_factor_reaches_the_band(facts, hardware):
    # the ratio is proportional to the utilisation: at u / f the median sits on the band's end
    a = data_labor_cost.Assumptions()
    median = float(
        data_labor_cost.cost_table(facts, hardware, a).ratio_amortized.median()
    )
    f = data_labor_cost.band_miss_factor(median, 10, 1000)
    lower = data_labor_cost.cost_table(facts, hardware, replace(a, mfu=a.mfu / f))
    assert float(lower.ratio_amortized.median()) == pytest.approx(1000, rel=1e-9)
