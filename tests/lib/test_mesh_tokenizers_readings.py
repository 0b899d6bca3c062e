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


def test_mesh_kinds_split_real_meshes_from_primitives():
    kinds = mesh_tokenizers.mesh_kinds(
        ["bunny (pymeshlab)", "box", "ant (pyvista)", "ico"]
    )
    assert kinds == {
        "real": ["bunny (pymeshlab)", "ant (pyvista)"],
        "primitives": ["box", "ico"],
    }
    assert list(kinds) == ["real", "primitives"]  # hold_out draws in this order


def test_stage_times_record_each_block():
    times = readings.StageTimes()
    with times.timing("a"):
        pass
    with times.timing("b"):
        sum(range(1000))
    assert list(times) == ["a", "b"] and all(v >= 0 for v in times.values())
    meshes = pd.DataFrame(
        {"faces": [1], **{f"time_{tk}": [0.001] for tk in mesh_tokenizers.TOKENIZERS}}
    )
    assert readings.stage_line(times, meshes).startswith("stages (s): a 0.0, b 0.0")


def test_reports_print_the_tables(corpus, sweep):
    res = pd.DataFrame(list(sweep.rows))
    report = readings.sweep_report(sweep, res, 1.25)
    assert report.startswith(
        f"{len(sweep.mergers)} BPE vocabularies trained and applied in 1.2 s\n"
        "held-out PTME (bits per raw coordinate):\n"
    )
    assert report.endswith(readings.ptme_table(res).round(3).to_string())
    mc = readings.merging_table(res)
    assert list(mc.columns) == [
        "tokenizer", "V", "base", "MC", "RMC", "MC / base", "RMC / base"
    ]  # fmt: skip
    peer = pd.DataFrame(
        {"V": [512], "PTME sentencepiece": [2.0], "PTME tokenizers": [2.1]}
    )
    lines = readings.peer_report(peer, 3.0).splitlines()
    assert lines[0] == "RMC with two BPE implementations (3.0 s); held-out values:"
    assert lines[-1] == "largest relative PTME difference: 5.0%"
    lobo = pd.DataFrame(
        dict(mesh=["a", "b"], tokenizer="RAW", V=256, MC=[10.0, 8.0], RMC=[9.0, 8.0])
    )
    readings.lobo_gains(lobo)
    table = readings.lobo_table(lobo)
    assert list(table.index) == ["a", "b"] and list(table.columns) == [("RAW", 256)]
    assert readings.lobo_report(lobo, 2.0).startswith(
        "leave-one-base-out: 4 vocabularies trained and applied in 2.0 s; "
    )


def test_pieces_carry_their_mesh(corpus, sweep):
    meshes = pd.DataFrame(list(corpus.rows))
    p = readings.pieces(corpus, sweep, meshes, VOCAB[-1])
    assert p.mesh is corpus.meshes[p.index]
    line = readings.pieces_line(p, meshes)
    assert f"{p.mesh.n_faces} faces: {p.n_tokens} tokens" in line


def test_pair_readings_record_and_report(corpus):
    pairs = pd.DataFrame(mesh_tokenizers.pair_sweep(corpus, top=8))
    s = readings.pair_study(pairs, min_pairs=3)
    signs = readings.sign_agreements(s)
    assert signs == {
        f"{tk} {o}": a.sign_agreement for (tk, o), a in s.agreement.items()
    }
    share = readings.helpful_shares(s)
    measured = readings.share_measured(share)
    rise = measured["rise in the share (rearranged − as is)"]
    for tk in mesh_tokenizers.TOKENIZERS:
        assert rise[tk] == share["RAC"][tk] - share["as is"][tk]
    assert measured["share of helpful merges, as is"] == share["as is"]
    lines = readings.pair_report(s, pairs, 8).splitlines()
    assert lines[:3] == readings.pair_lines(s, 8)
    assert lines[3] == "RAW + RAC, by kind of pair:"


def test_learnability_study_reads_rows_and_contrasts():
    rows = [
        dict(tokenizer=tk, method=m, bits_per_face=b, unigram_bits_per_face=u,
             ptme=p, tokens_per_face=t)
        for tk, m, b, u, p, t in [("RAW", "base", 30.0, 40.0, 4.0, 9.0),
                                  ("RAW", "MC", 28.0, 41.0, 4.1, 8.0),
                                  ("AMT", "base", 20.0, 19.0, 2.0, 4.5)]
    ]  # fmt: skip
    contrasts = [
        dict(tokenizer="RAW", contrast="MC vs base", direction=-1, ptme_a=4.1,
             ptme_b=4.0, gains={"a": 1.0, "b": 3.0, "c": 2.0}),
    ]  # fmt: skip
    s = readings.learnability_study(rows, contrasts, lm=None)
    assert s.model == "trigram" and s.n_learn == 2 and not s.gate_met
    assert s.n_meshes == 3
    assert s.rho == pytest.approx(stats.spearmanr([4.0, 4.1, 2.0], [30, 28, 20])[0])
    assert s.rho_len == pytest.approx(1.0)
    assert list(s.gains) == ["RAW MC vs base: gain in PTME's direction"]
    assert s.table["mean gain (bits/face)"][0] == 2.0
    assert readings.learnability_study(rows[:2], contrasts, lm={}).gate_met
    assert readings.learnability_study(rows, contrasts, lm={}).model == "transformer"
    lines = readings.learnability_report(s, 4.0).splitlines()
    assert lines[0] == "next-token model: trigram (4.0 s)"
    assert readings.spearman_line(s) in lines
    assert lines[-3] == (
        "per held-out base mesh, the gain in PTME's direction (> 0: the model agrees):"
    )
    assert lines[-2:] == s.table.round(3).to_string(index=False).splitlines()


def test_learnability_study_records_and_reads():
    rows = [
        dict(tokenizer="RAW", method="base", bits_per_face=30.0,
             unigram_bits_per_face=40.0, ptme=4.0, tokens_per_face=9.0),
        dict(tokenizer="RAW", method="MC", bits_per_face=28.0,
             unigram_bits_per_face=27.0, ptme=4.1, tokens_per_face=8.0),
    ]  # fmt: skip
    contrasts = [
        dict(tokenizer="RAW", contrast="MC vs base", direction=-1, ptme_a=4.1,
             ptme_b=4.0, gains={"a": 1.0, "b": 3.0, "c": 2.0}),
    ]  # fmt: skip
    s = readings.learnability_study(rows, contrasts, lm=None)
    assert s.gaps == {"RAW base": -10.0, "RAW MC": 1.0}
    assert s.bits == {"RAW base": 30.0, "RAW MC": 28.0}
    assert s.mean_gains == {"RAW MC vs base": 2.0}
    assert readings.note_6(s, scale="quick") == (
        "trigram at quick scale; gains paired over the 3 held-out base meshes; the "
        "full-scale transformer would check it"
    )
    t = readings.learnability_study(rows, contrasts, lm={})
    assert readings.note_6(t, scale="full").endswith("3 held-out base meshes")
    assert readings.learnability_reading(
        s, "not checked"
    ) == readings.learnability_lines(
        s.lm, s.table, model="trigram", verdict="not checked", gate_met=False
    )


def test_corpus_report_and_the_full_scale_estimate_default(corpus):
    meshes = pd.DataFrame(list(corpus.rows))
    lines = readings.corpus_report(
        corpus, meshes, {"cyl"}, rotations=2, seconds=1.0
    ).splitlines()
    assert lines[0] == readings.corpus_line(corpus, 4, 2, 1.0)
    assert lines[1] == "held-out base meshes: cyl"
    assert (
        lines[2:] == readings.corpus_summary(meshes).round(3).to_string().splitlines()
    )
    sizes = {
        "quick": dict(rotations=6, max_faces=2000),
        "full": dict(rotations=12, max_faces=4000, vocab=[1, 2], lobo_vocab=[1],
                     lm=dict(steps=600)),
    }  # fmt: skip
    kw = dict(sizes=sizes, stage_s={"a": 60.0}, device="cpu")
    assert readings.full_scale_estimate(1.0, **kw) == readings.full_scale_estimate(
        1.0, n_tok=9, **kw
    )
