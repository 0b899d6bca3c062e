"""The chapter's readings of the cost table (`data_labor_cost.protocol`): known answers on the
shipped tables, invariants, and what each printed line says."""

from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from repbook.core import data_file
from repbook.papers import data_labor_cost

SLUG = "11_data_labor_cost"
BAND = (10, 1000)


@pytest.fixture(scope="module")
def tables():
    facts = data_labor_cost.read_llm_facts(data_file(SLUG, "llm_facts.csv"))
    hardware = data_labor_cost.read_hardware(data_file(SLUG, "hardware.csv"))
    epoch = data_labor_cost.read_epoch_costs(data_file(SLUG, "epoch_costs.csv"))
    a = data_labor_cost.Assumptions()
    return facts, hardware, epoch, a, data_labor_cost.cost_table(facts, hardware, a)


def test_where_reads_a_closed_band():
    assert data_labor_cost.where(10, BAND) == "inside"
    assert data_labor_cost.where(1000, BAND) == "inside"
    assert data_labor_cost.where(1001, BAND) == "outside"


def test_curated_and_table_lines_show_every_model(tables):
    facts, hardware, _, _, table = tables
    head, curated, title, classes = data_labor_cost.curated_lines(facts, hardware)
    n_frontier = sum(f.frontier for f in facts)
    assert head.startswith(
        f"Our curated set (not the paper's table): {len(facts)} models"
    )
    assert f"{n_frontier} frontier" in head
    assert all(f.model in curated for f in facts)
    assert title == "\nhardware classes:" and all(c in classes for c in hardware)
    lines = data_labor_cost.table_lines(table)
    assert all(f.model in lines[1] for f in facts)
    reported = table[table.flops_source == "reported"]
    assert len(lines) == 3 + len(reported)  # one line per row with a reported C
    assert lines[3].startswith(f"{reported.index[0]}: reported C, ratio ")


def test_closed_form_gap_is_zero_on_the_6nd_rows(tables):
    *_, table = tables
    assert data_labor_cost.closed_form_gap(table) < 1e-12
    bent = table.copy()
    row = bent.index[bent.flops_source == "6ND"][0]
    bent.loc[row, "closed_form_ratio"] *= 1.5
    assert data_labor_cost.closed_form_gap(bent) == pytest.approx(0.5)


def test_implied_mfus_by_hand(tables):
    facts, hardware, _, _, table = tables
    implied = data_labor_cost.implied_mfus(facts, table, hardware, 0.375)
    published = [f for f in facts if f.gpu_hours_reported is not None]
    assert list(implied.table.index) == [f.model for f in published]
    f = published[0]
    peak = hardware[f.hardware_class].peak_flops_per_s
    by_hand = table.loc[f.model, "flops"] / (f.gpu_hours_reported * 3600 * peak)
    assert implied.table.implied_mfu.iloc[0] == pytest.approx(by_hand, rel=1e-12)
    assert implied.lo <= implied.table.implied_mfu.median() <= implied.hi
    assert "lies inside the range" in implied.lines()[-1]
    outside = data_labor_cost.implied_mfus(facts, table, hardware, 0.9)
    assert "lies outside the range" in outside.lines()[-1]


def test_frontier_gap_inverts_the_closed_form(tables):
    facts, hardware, epoch, a, table = tables
    gap = data_labor_cost.frontier_gap(table, epoch, hardware, a, band=BAND)
    frontier = table[table.frontier]
    assert gap.lowest == frontier.ratio.idxmin()
    assert gap.factor == pytest.approx(frontier.ratio.min() / BAND[0])
    hw = hardware[table.loc[gap.lowest, "hardware_class"]]
    per_flop = data_labor_cost.usd_per_flop(
        peak_flops_per_s=hw.peak_flops_per_s,
        mfu=a.mfu,
        usd_per_gpu_hour=hw.rental_usd_per_gpu_hour,
    )
    at_low = data_labor_cost.closed_form_ratio(gap.n_at_low, usd_per_flop=per_flop)
    assert at_low == pytest.approx(BAND[0], rel=1e-12)
    # the lowest ratios of the set, up to the first non-frontier model, are frontier ones
    order = table.sort_values("ratio").frontier.to_numpy()
    assert order[: gap.lowest_run].all() and not order[gap.lowest_run]
    assert set(gap.epoch_frontier.index) <= set(frontier.index)
    lines = gap.lines()
    assert len(lines) == 6 and lines[0].startswith("lowest frontier ratio ")
    assert f"{gap.factor:.1f}× above the paper's lower end, 10×" in lines[0]


def test_median_summary_is_seeded_and_reads_the_table(tables):
    _, _, epoch, _, table = tables
    one = data_labor_cost.median_summary(
        table, epoch, band=BAND, n_boot=300, rng=np.random.default_rng(3)
    )
    two = data_labor_cost.median_summary(
        table, epoch, band=BAND, n_boot=300, rng=np.random.default_rng(3)
    )
    assert np.array_equal(one.resampled, two.resampled) and one.resampled.size == 300
    assert one.amortized == table.ratio_amortized.median()
    assert one.rental == table.ratio.median()
    inside = (one.resampled >= BAND[0]) & (one.resampled <= BAND[1])
    assert one.share_in_band == inside.mean()
    assert one.interval[0] <= one.interval[1]
    assert set(one.shared.index) == set(table.index) & set(epoch.index)
    lines = one.lines()
    assert lines[1].startswith("300 resampled sets (amortised): median in [10, 1000]")
    assert len(lines) == 7


def test_band_flips_reach_the_band_end(tables):
    facts, hardware, _, a, table = tables
    medians = {"amortised": float(table.ratio_amortized.median()), "rental": 500.0}
    flips = data_labor_cost.band_flips(
        facts, hardware, a, table, medians, band=BAND, mfu_range=(0.1, 0.5)
    )
    f = data_labor_cost.band_miss_factor(medians["amortised"], *BAND)
    assert flips.factor == {"amortised": f, "rental": 1.0}
    amortised, rental = flips.lines()
    assert rental == "rental: the median 500× lies in the band; nothing to flip"
    assert f"misses the band by a factor {f:.2f}" in amortised
    # the ratio is proportional to the utilisation: recomputed at u / f the median is 1000
    assert "recomputed there: median 1000×" in amortised
    lower = data_labor_cost.cost_table(facts, hardware, replace(a, mfu=a.mfu / f))
    assert lower.ratio_amortized.median() == pytest.approx(1000, rel=1e-9)


def test_size_lines_count_small_and_over_trained_models(tables):
    _, hardware, _, a, table = tables
    lines = data_labor_cost.size_lines(
        table, hardware, a, high=1000, tokens_per_param=20
    )
    assert len(lines) == 5
    above = int((table.ratio_amortized > 1000).sum())
    over = int((table.tokens_per_param > 20).sum())
    assert f"(above 1000×: {above};" in lines[1]
    assert lines[2].startswith(f"over-trained (D/N above 20): {over} of {len(table)}")
    big = table[table.ratio_amortized > 1000].tokens_per_param.idxmax()
    assert lines[3].startswith(f"the most over-trained model, {big} ")


def test_frontier_pricing_counts_the_runs_above_the_band():
    ratios = {
        "a": pd.Series([500.0, 2000.0, 3000.0], index=["x", "y", "z"]),
        "b": pd.Series([50.0, 900.0], index=["x", "y"]),
    }
    pricing = data_labor_cost.FrontierPricing(ratios, BAND)
    assert pricing.over == {"a": (2, 3), "b": (0, 2)}
    assert pricing.over_half == ["a"]
    a, b = pricing.lines()
    assert a.endswith(": y 2000×, z 3000×") and "median 2000×, outside" in a
    assert b.startswith(
        "frontier models above 1000× with b: 0 of 2 (median 475×, inside"
    )


def test_frontier_pricing_and_peer_table_on_the_shipped_tables(tables):
    _, _, epoch, _, table = tables
    shared = table.join(epoch, how="inner")
    pricing = data_labor_cost.frontier_pricing(table, shared, band=BAND)
    assert list(pricing.ratios) == [
        "our amortised cost",
        "our rental cost",
        "Epoch's hardware+energy estimate",
    ]
    assert len(pricing.ratios["our rental cost"]) == int(table.frontier.sum())
    peer = data_labor_cost.peer_table(shared)
    assert np.allclose(
        peer["rental ours/Epoch"], shared.rental_cost / shared.epoch_cloud_usd
    )
    lines = data_labor_cost.peer_lines(peer, table)
    assert lines[-1] == "the dearer training cost on every model: rental"
