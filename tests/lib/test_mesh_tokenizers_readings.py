"""What chapter 03 reads from its runs (repbook.papers.mesh_tokenizers.readings): the tables,
the recorded values and the generated sentences, on known answers and a small corpus."""

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from mesh_samples import VOCAB, small_bases

from repbook.papers import mesh_tokenizers
from repbook.papers.mesh_tokenizers import readings


@pytest.fixture(scope="module")
def corpus():
    return mesh_tokenizers.build_corpus(
        small_bases(), rotations=2, test_bases={"cyl"}, rng=np.random.default_rng(7)
    )


@pytest.fixture(scope="module")
def sweep(corpus):
    return mesh_tokenizers.merging_sweep(corpus, VOCAB)


def test_toy_strings_agree_with_the_repository():
    ours = [mesh_tokenizers.ptme_of_string(t, v) for t, v, _ in readings.TOY_STRINGS]
    line = readings.toy_line(ours, readings.TOY_PTME)
    assert line.startswith("all four agree")
    assert "MC raises" in line and "RAC alone leaves" in line and "RMC lowers" in line
    assert readings.toy_line([1.0, 0.5, 1.2, 2.0], readings.TOY_PTME).startswith(
        "they differ"
    )


def test_piece_strip_lays_pieces_out_row_by_row():
    cells, n = readings.piece_strip([2, 3, 1, 4, 5], width=3, rows=2)
    assert cells == [(0, 0, 0), (0, 1, 0), (1, 2, 0), (1, 0, 1), (1, 1, 1), (2, 2, 1)]
    assert n == 3
    cells, n = readings.piece_strip([4] * 10, width=5, rows=3)  # last piece cut off
    assert len(cells) == 15 and len({(c, r) for _, c, r in cells}) == 15
    assert n == 4


def test_merging_tables_match_a_direct_reading(sweep):
    res = pd.DataFrame(list(sweep.rows))
    mc = readings.merging_table(res)
    base = res[res.method == "base"].set_index("tokenizer").ptme
    for _, r in mc.iterrows():
        direct = res[(res.tokenizer == r.tokenizer) & (res.V == r.V)]
        ptme = direct.set_index("method").ptme
        assert r.base == base[r.tokenizer]
        assert r["MC / base"] == pytest.approx(
            ptme["MC"] / base[r.tokenizer], rel=1e-12
        )
        assert r["RMC / base"] == pytest.approx(
            ptme["RMC"] / base[r.tokenizer], rel=1e-12
        )
    assert sorted(mc.V.unique()) == VOCAB
    cells = readings.by_cell(mc, "MC / base")
    assert set(cells) == {
        f"{tk} V={v}" for tk in mesh_tokenizers.TOKENIZERS for v in VOCAB
    }
    checks = readings.rmc_checks(mc)
    for tk in mesh_tokenizers.TOKENIZERS:
        d = mc[mc.tokenizer == tk].sort_values("V")
        assert checks.loc[tk, "below_base"] == bool((d.RMC < d.base).all())
        assert checks.loc[tk, "reduction"] == pytest.approx(
            1 - d.RMC.values[-1] / d.base.values[-1]
        )
    v3 = readings.rmc_measured(mc, checks, VOCAB[-1])
    assert list(v3["PTME(RMC) by V, RAW"]) == list(
        mc[mc.tokenizer == "RAW"].sort_values("V").RMC
    )
    first, second = readings.merging_lines(mc, checks, VOCAB[-1])
    assert f"the reduction at V = {VOCAB[-1]}" in first
    assert second.startswith("Claim 2 reads: MC lowers PTME on")


def test_compression_weights_tokens_per_face_by_faces(corpus, sweep):
    meshes = pd.DataFrame(list(corpus.rows))
    res = pd.DataFrame(list(sweep.rows))
    c = readings.compression(meshes, res, real=["ico", "box"])
    real = meshes[meshes.mesh.isin(["ico", "box"])]
    for tk in ("AMT", "EDR"):
        tokens = (9 * real[f"CR_{tk}"] * real.faces).sum()
        assert c.real_tokens_per_face[tk] == pytest.approx(tokens / real.faces.sum())
        assert c.cr_range[tk] == (meshes[f"CR_{tk}"].min(), meshes[f"CR_{tk}"].max())
    assert c.ratio == pytest.approx(
        c.base_ptme["RAW"] / max(c.base_ptme["AMT"], c.base_ptme["EDR"])
    )
    lines = readings.compression_lines(c)
    assert len(lines) == 4 and lines[2].startswith("AMT: ")


def test_pieces_cost_one_token_per_piece(corpus, sweep):
    meshes = pd.DataFrame(list(corpus.rows))
    p = readings.pieces(corpus, sweep, meshes, VOCAB[-1])
    assert p.index in set(corpus.test)
    assert p.face_cost.sum() == pytest.approx(p.n_tokens)  # each piece costs one token
    assert p.lengths.sum() == 9 * corpus.meshes[p.index].n_faces


def test_pair_study_reads_the_pair_sweep(corpus):
    pairs = pd.DataFrame(mesh_tokenizers.pair_sweep(corpus, top=8))
    s = readings.pair_study(pairs, min_pairs=3)
    share = readings.helpful_shares(s)
    for (tk, order), d in pairs.groupby(["tokenizer", "order"]):
        assert share[order][tk] == pytest.approx(float((d.exact < 0).mean()))
        assert (
            s.table.loc[(tk, order), "sign agreement"]
            == s.agreement[(tk, order)].sign_agreement
        )
    assert all(": " in k for k in readings.within_kind(s))
    lines = readings.pair_lines(s, 8)
    assert lines[0].startswith("Claim 4 reads") and lines[1].startswith("4s:")
    kinds = readings.by_kind(pairs, "RAW", "RAC")
    assert kinds.pairs.sum() == len(
        pairs[(pairs.tokenizer == "RAW") & (pairs.order == "RAC")]
    )


def test_paired_gains_are_mean_and_t_half_width():
    gains = {"x, RAW V=256": {"a": 1.0, "b": 2.0, "c": 3.0}}
    ((name, mean, half, n),) = readings.gain_cells(gains)
    assert (name, mean, n) == ("x, RAW V=256", 2.0, 3)
    assert half == pytest.approx(stats.t.ppf(0.975, 2) * 1 / math.sqrt(3))
    assert readings.means(gains) == {"RAW V=256": 2.0}


def test_lobo_gains_add_the_shortening():
    lobo = pd.DataFrame(
        dict(mesh=["a", "b"], tokenizer="RAW", V=256, MC=[10.0, 8.0], RMC=[9.0, 8.0])
    )
    gains = readings.lobo_gains(lobo)
    assert gains == {"RMC shortening vs MC, RAW V=256": {"a": 1 - 9 / 10, "b": 0.0}}
    assert list(lobo.gain) == [pytest.approx(0.1), 0.0]


def test_contrast_table_orients_and_summarises():
    contrasts = [
        dict(tokenizer="RAW", contrast="MC vs base", direction=-1, ptme_a=2.0,
             ptme_b=1.5, gains={"a": 1.0, "b": 3.0, "c": 2.0}),
    ]  # fmt: skip
    gains = readings.contrast_gains(contrasts)
    assert list(gains) == ["RAW MC vs base: gain in PTME's direction"]
    t = readings.contrast_table(contrasts)
    assert t["PTME says"][0] == "MC harder"
    assert t["mean gain (bits/face)"][0] == 2.0 and t["meshes"][0] == 3
    assert t["± t·SE"][0] == pytest.approx(stats.t.ppf(0.975, 2) / math.sqrt(3))
    assert t["ΔPTME (A − B)"][0] == 0.5


def test_learnability_readings_name_the_gate_and_weak_spots():
    lm = readings.learnability_table(
        [dict(tokenizer="RAW", method="base", bits_per_face=10.0,
              unigram_bits_per_face=11.0, ptme=1.0, tokens=[1], sequence_bits=[2]),
         dict(tokenizer="AMT", method="MC", bits_per_face=5.0,
              unigram_bits_per_face=4.0, ptme=0.5)]
    )  # fmt: skip
    assert list(lm["model − unigram"]) == [-1.0, 1.0]
    assert list(lm["model − 9·PTME"]) == [1.0, 0.5]
    assert "tokens" not in lm
    assert "weak test" in readings.note_6b(lm, model="trigram", scale="quick")
    table = pd.DataFrame(
        [dict(tokenizer="RAW", contrast="MC vs base", **{"PTME says": "MC harder"},
              **{"mean gain (bits/face)": 1.0, "± t·SE": 0.5})]
    )  # fmt: skip
    first, second, third = readings.learnability_lines(
        lm, table, model="trigram", verdict="not checked", gate_met=False
    )
    assert "on 1 of 2 tokenisations; it does not on AMT MC (+1.00" in first
    assert second.startswith("Read anyway (not judged)") and "in 1 of 1" in second
    assert third.endswith("on 0 of 2 tokenisations.")
    ok = lm.assign(**{"model − 9·PTME": -1.0})
    assert readings.note_6b(ok, model="trigram", scale="quick") == (
        "trigram at quick scale, 9 tokenisations"
    )


def test_time_lines():
    assert readings.record_time_line(None) == ""
    sizes = {
        "quick": dict(rotations=6, max_faces=2000),
        "full": dict(rotations=12, max_faces=4000, vocab=[1, 2], lobo_vocab=[1],
                     lm=dict(steps=600)),
    }  # fmt: skip
    line = readings.full_scale_estimate(
        1.0, sizes=sizes, stage_s={"a": 60.0, "next-token models": 5.0}, n_tok=9,
        device="cpu",
    )  # fmt: skip
    assert "take about 90 min" in line and "at least 2 min more" in line
    assert line.endswith("a GPU or a long CPU run.")
