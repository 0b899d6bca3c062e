"""The chapter's experiment protocols in repbook.papers.mesh_tokenizers: the corpus, the merging
sweep, the per-mesh tokens per face, the peer BPE, the pair sweep, the formula's agreement and
the learnability runs."""

import math

import numpy as np
import pytest
import torch
from scipy import stats

from mesh_samples import VOCAB, small_bases

from repbook.papers import mesh_tokenizers


@pytest.fixture(scope="module")
def corpus():
    return mesh_tokenizers.build_corpus(
        small_bases(),
        rotations=2,
        test_bases={"cyl"},
        rng=np.random.default_rng(7),
    )


@pytest.fixture(scope="module")
def sweep(corpus):
    return mesh_tokenizers.merging_sweep(corpus, VOCAB)


# --- hold_out -------------------------------------------------------------------------------
def test_hold_out_draws_a_third_of_each_group_reproducibly():
    groups = {"real": list("abcdefg"), "prims": list("HIJKLMN")}
    out = mesh_tokenizers.hold_out(groups, rng=np.random.default_rng(3))
    assert out == mesh_tokenizers.hold_out(groups, rng=np.random.default_rng(3))
    assert len(out & set(groups["real"])) == 2 and len(out & set(groups["prims"])) == 2
    # the same draws as choosing from each group in turn
    rng = np.random.default_rng(3)
    expected = set(
        rng.choice(groups["real"], 2, replace=False).tolist()
        + rng.choice(groups["prims"], 2, replace=False).tolist()
    )
    assert out == expected
    assert (
        len(mesh_tokenizers.hold_out({"g": list("abc")}, rng=np.random.default_rng(0)))
        == 1
    )


@pytest.mark.parametrize(
    "groups, kwargs, err, match",
    [
        ({"g": ["a", "b"]}, {}, ValueError, "too few"),
        ({"g": list("abc")}, {"fraction": 1.0}, ValueError, "fraction"),
        ({"g": list("abc")}, {"rng": 3}, TypeError, "Generator"),
    ],
)
def test_hold_out_rejects_bad_input(groups, kwargs, err, match):
    kw = {"rng": np.random.default_rng(0), **kwargs}
    with pytest.raises(err, match=match):
        mesh_tokenizers.hold_out(groups, **kw)


# --- build_corpus ---------------------------------------------------------------------------
def test_corpus_splits_by_base_and_every_tokenisation_decodes(corpus):
    assert len(corpus.rows) == 8 and len(corpus.meshes) == 8
    test_names = {corpus.rows[i]["mesh"] for i in corpus.test}
    train_names = {corpus.rows[i]["mesh"] for i in corpus.train}
    assert test_names == {"cyl"} and not test_names & train_names
    assert corpus.test.size == 2 and corpus.train.size == 6
    for i, (row, q) in enumerate(zip(corpus.rows, corpus.meshes)):
        assert row["faces"] == q.n_faces
        for tk in mesh_tokenizers.TOKENIZERS:
            base = corpus.sequences[(tk, False)][i]
            rac = corpus.sequences[(tk, True)][i]
            assert np.array_equal(base, mesh_tokenizers.serialize(q, tk))
            assert np.array_equal(mesh_tokenizers.restore(rac, tk), base)
            assert row[f"CR_{tk}"] == pytest.approx(base.size / (9 * q.n_faces))
            assert row[f"time_{tk}"] >= 0
    assert corpus.faces("test").tolist() == [
        corpus.meshes[i].n_faces for i in corpus.test
    ]
    assert len(corpus.sequences_of("RAW", True, "train")) == 6


def test_corpus_is_reproducible_from_its_generator(corpus):
    again = mesh_tokenizers.build_corpus(
        small_bases(), rotations=2, test_bases={"cyl"}, rng=np.random.default_rng(7)
    )
    for key, seqs in corpus.sequences.items():
        assert all(np.array_equal(a, b) for a, b in zip(seqs, again.sequences[key]))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"rotations": 0}, "rotations"),
        ({"rotations": 1.5}, "rotations"),
        ({"test_bases": {"sphere"}}, "not bases"),
        ({"test_bases": {"ico", "box", "cyl", "cone"}}, "both splits"),
    ],
)
def test_build_corpus_rejects_bad_input(kwargs, match):
    kw = {"rotations": 1, "test_bases": {"cyl"}, "rng": np.random.default_rng(0)}
    with pytest.raises(ValueError, match=match):
        mesh_tokenizers.build_corpus(small_bases(), **{**kw, **kwargs})


def test_corpus_split_name_is_checked(corpus):
    with pytest.raises(ValueError, match="split"):
        corpus.faces("validation")


# --- merging_sweep --------------------------------------------------------------------------
def test_merging_sweep_rows_match_a_direct_computation(corpus, sweep):
    assert len(sweep.rows) == 3 * (1 + 2 * len(VOCAB))
    assert set(sweep.mergers) == {
        (tk, m, V)
        for tk in mesh_tokenizers.TOKENIZERS
        for m in ("MC", "RMC")
        for V in VOCAB
    }
    faces = corpus.faces("test")
    for tk in mesh_tokenizers.TOKENIZERS:
        direct = mesh_tokenizers.corpus_ptme(
            corpus.sequences_of(tk, False, "test"), faces
        )
        assert sweep.value(tk, "base", None) == pytest.approx(direct.ptme, rel=1e-12)
        assert sweep.vocab_size(tk, "base", None) == mesh_tokenizers.ALPHABET[tk]
        for method in ("MC", "RMC"):
            for V in VOCAB:
                enc = sweep.encode(corpus, tk, method, V, "test")
                raw = corpus.sequences_of(tk, method == "RMC", "test")
                mg = sweep.mergers[(tk, method, V)]
                assert all(np.array_equal(mg.decode(e), s) for e, s in zip(enc, raw))
                r = mesh_tokenizers.corpus_ptme(
                    enc, faces, piece_length=mg.piece_length
                )
                assert sweep.value(tk, method, V) == pytest.approx(r.ptme, rel=1e-12)
                assert sweep.value(tk, method, V, "tokens_per_face") == pytest.approx(
                    r.tokens_per_face
                )
                assert sweep.vocab_size(tk, method, V) == mg.vocab_size


def test_merging_sweep_rejects_bad_input(corpus, sweep):
    with pytest.raises(ValueError, match="increasing"):
        mesh_tokenizers.merging_sweep(corpus, [200, 160])
    with pytest.raises(ValueError, match="tokenizer"):
        mesh_tokenizers.merging_sweep(corpus, VOCAB, tokenizers=("XYZ",))
    with pytest.raises(ValueError, match="method"):
        sweep.encode(corpus, "RAW", "BPE", 160, "test")
    with pytest.raises(KeyError):
        sweep.encode(corpus, "RAW", "MC", 999, "test")
    with pytest.raises(KeyError):
        sweep.value("RAW", "MC", 999)


def test_tokens_per_face_by_base_pools_the_rotations(corpus, sweep):
    got = mesh_tokenizers.tokens_per_face_by_base(
        corpus, sweep, "EDR", "RMC", VOCAB[-1]
    )
    assert list(got) == ["cyl"]
    enc = sweep.encode(corpus, "EDR", "RMC", VOCAB[-1], "test")
    total = sum(e.size for e in enc) / corpus.faces("test").sum()
    assert got["cyl"] == pytest.approx(total)
    assert got["cyl"] == pytest.approx(
        sweep.value("EDR", "RMC", VOCAB[-1], "tokens_per_face")
    )
    base = mesh_tokenizers.tokens_per_face_by_base(corpus, sweep, "RAW", "base", None)
    assert base["cyl"] == pytest.approx(9.0)


def test_peer_merging_reports_both_implementations(corpus, sweep):
    rows = mesh_tokenizers.peer_merging(corpus, sweep, [VOCAB[-1]], tokenizers=("RAW",))
    assert len(rows) == 1
    r = rows[0]
    assert r["PTME sentencepiece"] == sweep.value("RAW", "RMC", VOCAB[-1])
    assert r["PTME tokenizers"] > 0 and r["tokens/face tokenizers"] < 9


# --- pair_sweep -----------------------------------------------------------------------------
def test_pair_sweep_exact_change_matches_merging_the_sequences(corpus):
    rows = mesh_tokenizers.pair_sweep(corpus, top=6, tokenizers=("RAW",))
    assert len(rows) == 12 and {r["order"] for r in rows} == {"as is", "RAC"}
    faces = int(corpus.faces("train").sum())
    for r in rows[:3] + rows[6:9]:
        seqs = corpus.sequences_of("RAW", r["order"] == "RAC", "train")
        before = mesh_tokenizers.corpus_ptme(seqs, faces, n_symbols=129)
        new = 128
        merged = [mesh_tokenizers.merge_pair(s, r["a"], r["b"], new) for s in seqs]
        lengths = np.ones(129)
        lengths[new] = 2
        after = mesh_tokenizers.corpus_ptme(merged, faces, piece_length=lengths)
        assert r["exact"] == pytest.approx(after.ptme - before.ptme, rel=1e-9)
        assert r["kind"] == ("self" if r["a"] == r["b"] else "distinct")
        assert np.sign(r["predicted"]) == -np.sign(r["pmi"] - 1)


# --- spearman and formula_agreement ---------------------------------------------------------
def test_spearman_matches_scipy_with_ties():
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 5, 40), rng.normal(size=40)
    assert mesh_tokenizers.spearman(x, y) == pytest.approx(
        stats.spearmanr(x, y)[0], rel=1e-12
    )
    assert math.isnan(mesh_tokenizers.spearman([1, 1, 1], [1, 2, 3]))
    assert math.isnan(mesh_tokenizers.spearman([1, 2], [1, 2]))
    with pytest.raises(ValueError, match="1-D"):
        mesh_tokenizers.spearman([1, 2, 3], [1, 2])


def test_formula_agreement_separates_two_lines():
    # two kinds of pairs, each perfectly ranked, on lines of different slope and offset
    pred = np.linspace(-1.0, -0.1, 10)
    exact = np.concatenate([pred * 1.0, pred * 3.0 - 0.5])
    kinds = np.array(["distinct"] * 10 + ["self"] * 10)
    pmi = np.full(20, 2.0)
    a = mesh_tokenizers.formula_agreement(
        exact, np.concatenate([pred, pred]), kinds, pmi
    )
    assert a.sign_agreement == 1.0 and a.n_pairs == 20
    assert a.spearman_by_kind == pytest.approx({"distinct": 1.0, "self": 1.0})
    assert a.spearman_pooled < 0.95
    assert a.pairs_by_kind == {"distinct": 10, "self": 10}
    assert a.closest_pmi_to_one == pytest.approx(1.0)


def test_formula_agreement_counts_signs_and_skips_small_kinds():
    exact = np.array([-1.0, -2.0, 1.0, 0.5, -0.2])
    pred = np.array([-1.1, -1.9, -0.1, 0.4, -0.3])
    kinds = np.array(["distinct"] * 4 + ["self"])
    a = mesh_tokenizers.formula_agreement(
        exact, pred, kinds, np.array([2, 3, 0.9, 0.5, 1.5])
    )
    assert a.sign_agreement == pytest.approx(0.8)
    assert "self" not in a.spearman_by_kind and a.pairs_by_kind["self"] == 1
    assert (
        "distinct"
        not in mesh_tokenizers.formula_agreement(
            exact, pred, kinds, np.ones(5), min_pairs=5
        ).spearman_by_kind
    )
    assert a.closest_pmi_to_one == pytest.approx(0.1)


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (([1.0], [1.0, 2.0], ["a"], [1.0]), {}, "one length"),
        (([], [], [], []), {}, "at least one"),
        (([1.0], [1.0], ["a"], [1.0]), {"min_pairs": 2}, "min_pairs"),
    ],
)
def test_formula_agreement_rejects_bad_input(args, kwargs, match):
    with pytest.raises(ValueError, match=match):
        mesh_tokenizers.formula_agreement(*args, **kwargs)


# --- learnability ---------------------------------------------------------------------------
def test_learnability_trigram_rows(corpus, sweep):
    V = VOCAB[-1]
    rows = mesh_tokenizers.learnability(corpus, sweep, V=V)
    assert [(r["tokenizer"], r["method"]) for r in rows] == [
        (tk, m) for tk in mesh_tokenizers.TOKENIZERS for m in mesh_tokenizers.METHODS
    ]
    faces = corpus.faces("test")
    for r in rows:
        tk, m = r["tokenizer"], r["method"]
        assert r["ptme"] == sweep.value(tk, m, V)
        direct = mesh_tokenizers.ngram_bits_per_face(
            sweep.encode(corpus, tk, m, V, "train"),
            sweep.encode(corpus, tk, m, V, "test"),
            faces,
            vocab=sweep.vocab_size(tk, m, V),
            order=3,
        )
        assert r["bits_per_face"] == pytest.approx(direct["bits_per_face"], rel=1e-12)


def test_learnability_transformer_uses_one_generator_per_tokenisation(corpus, sweep):
    lm = dict(d_model=16, n_layers=1, n_heads=2, context=16, steps=2, batch=2, lr=1e-3)
    asked = []

    def gen(i):
        asked.append(i)
        return torch.Generator().manual_seed(100 + i)

    kw = dict(V=VOCAB[-1], tokenizers=("EDR",), methods=("base", "RMC"), lm=lm)
    rows = mesh_tokenizers.learnability(corpus, sweep, generator=gen, **kw)
    assert asked == [0, 1] and len(rows) == 2
    again = mesh_tokenizers.learnability(corpus, sweep, generator=gen, **kw)
    assert [r["bits_per_face"] for r in rows] == [r["bits_per_face"] for r in again]
    assert all(np.isfinite(r["bits_per_face"]) and r["bits_per_face"] > 0 for r in rows)
    with pytest.raises(ValueError, match="generator"):
        mesh_tokenizers.learnability(corpus, sweep, **kw)


def test_learnability_reports_a_unigram_and_per_sequence_bits(corpus, sweep):
    V = VOCAB[-1]
    rows = mesh_tokenizers.learnability(corpus, sweep, V=V, tokenizers=("AMT",))
    faces = corpus.faces("test")
    for r in rows:
        m = r["method"]
        tr = sweep.encode(corpus, "AMT", m, V, "train")
        te = sweep.encode(corpus, "AMT", m, V, "test")
        uni = mesh_tokenizers.ngram_bits_per_face(
            tr, te, faces, vocab=sweep.vocab_size("AMT", m, V), order=1
        )
        assert r["unigram_bits_per_face"] == pytest.approx(uni["bits_per_face"])
        assert r["sequence_bits"].shape == corpus.test.shape
        assert r["sequence_bits"].sum() / faces.sum() == pytest.approx(
            r["bits_per_face"], rel=1e-12
        )


# --- the n-gram's per-sequence bits, the transformer's, the timing probe --------------------
def test_ngram_sequence_bits_score_each_sequence_alone():
    rng = np.random.default_rng(4)
    train = [rng.integers(0, 6, 40) for _ in range(5)]
    test = [rng.integers(0, 6, n) for n in (7, 0, 19)]
    out = mesh_tokenizers.ngram_bits_per_face(train, test, [1, 1, 1], vocab=6)
    assert out["sequence_bits"].shape == (3,) and out["sequence_bits"][1] == 0
    for q, b in zip(test, out["sequence_bits"]):
        if q.size:
            alone = mesh_tokenizers.ngram_bits_per_face(train, [q], 1, vocab=6)
            assert b == pytest.approx(alone["bits_per_face"], rel=1e-12)
    assert out["sequence_bits"].sum() / 3 == pytest.approx(out["bits_per_face"])


def test_unigram_is_the_discounted_training_frequency():
    train = [np.array([0, 0, 0, 1])]
    out = mesh_tokenizers.ngram_bits_per_face(
        train, [np.array([0, 2])], 1, vocab=3, order=1
    )
    d = 0.75  # P(w) = max(c_w − d, 0) / N + d · types / N · 1/3, N = 4, 2 types
    p0 = (3 - d) / 4 + d * 2 / 4 / 3
    p2 = d * 2 / 4 / 3
    assert out["bits_per_face"] == pytest.approx(-np.log2(p0) - np.log2(p2))


def test_lm_sequence_bits_add_up_and_the_probe_times_a_step():
    pattern = np.tile(np.arange(6), 20)
    kw = dict(d_model=16, n_layers=1, n_heads=2, context=16, batch=2, lr=1e-3)
    r = mesh_tokenizers.lm_bits_per_face(
        [pattern] * 3,
        [pattern[:40], pattern[:7]],
        [4, 1],
        vocab=6,
        generator=torch.Generator().manual_seed(0),
        steps=3,
        **kw,
    )
    assert r["sequence_bits"].shape == (2,)
    assert r["sequence_bits"].sum() / 5 == pytest.approx(r["bits_per_face"])
    sec = mesh_tokenizers.lm_step_seconds(
        vocab=6, generator=torch.Generator().manual_seed(0), steps=600, **kw
    )
    assert 0 < sec < 10
    with pytest.raises(ValueError, match="repeats"):
        mesh_tokenizers.lm_step_seconds(
            vocab=6, generator=torch.Generator(), repeats=0, **kw
        )
    with pytest.raises(TypeError, match="unexpected"):
        mesh_tokenizers.lm_step_seconds(
            vocab=6, generator=torch.Generator(), layers=2, **kw
        )


# --- bits per face by base, the contrasts of claim 6 ----------------------------------------
def test_bits_per_face_by_base_pools_rotations(corpus):
    faces = corpus.faces("test")
    bits = np.arange(1, corpus.test.size + 1, dtype=float)
    got = mesh_tokenizers.bits_per_face_by_base(corpus, bits)
    assert got == pytest.approx({"cyl": bits.sum() / faces.sum()})
    with pytest.raises(ValueError, match="one value per held-out mesh"):
        mesh_tokenizers.bits_per_face_by_base(corpus, bits[:-1])


def test_learnability_contrasts_orient_gains_by_ptme(corpus):
    n = corpus.test.size
    faces = corpus.faces("test").sum()

    def row(method, ptme, bits_each):
        return dict(
            tokenizer="RAW",
            method=method,
            ptme=ptme,
            sequence_bits=np.full(n, float(bits_each)),
        )

    rows = [row("base", 2.0, 100), row("MC", 2.5, 90), row("RMC", 1.0, 50)]
    out = mesh_tokenizers.learnability_contrasts(corpus, rows)
    assert [(r["tokenizer"], r["contrast"]) for r in out] == [
        ("RAW", "MC vs base"),
        ("RAW", "RMC vs MC"),
    ]
    mc, rmc = out
    # PTME calls MC harder (2.5 > 2.0); the model finds MC easier: disagreement, gain < 0
    assert mc["direction"] == -1.0
    assert mc["gains"]["cyl"] == pytest.approx(-(100 - 90) * n / faces)
    # PTME calls RMC easier, and the model agrees: gain > 0
    assert rmc["direction"] == 1.0
    assert rmc["gains"]["cyl"] == pytest.approx((90 - 50) * n / faces)
    with pytest.raises(ValueError, match="equal"):
        mesh_tokenizers.learnability_contrasts(
            corpus, [row("base", 2.0, 1), row("MC", 2.0, 1)]
        )
    with pytest.raises(ValueError, match="lack"):
        mesh_tokenizers.learnability_contrasts(corpus, rows[:2])


# --- leave_one_base_out ---------------------------------------------------------------------
def test_leave_one_base_out_trains_without_the_held_out_base(corpus):
    rows = mesh_tokenizers.leave_one_base_out(corpus, [VOCAB[0]], tokenizers=("EDR",))
    names = [r["mesh"] for r in corpus.rows]
    assert [r["mesh"] for r in rows] == list(dict.fromkeys(names))
    r = next(r for r in rows if r["mesh"] == "box")
    held = [i for i, m in enumerate(names) if m == "box"]
    rest = [i for i, m in enumerate(names) if m != "box"]
    faces = sum(corpus.meshes[i].n_faces for i in held)
    assert r["faces"] == faces
    for method, rac in (("MC", False), ("RMC", True)):
        seqs = corpus.sequences[("EDR", rac)]
        mg = mesh_tokenizers.train_merger(
            [seqs[i] for i in rest],
            alphabet_size=mesh_tokenizers.ALPHABET["EDR"],
            vocab_size=VOCAB[0],
            separators=mesh_tokenizers.SEPARATORS["EDR"],
        )
        assert r[method] == pytest.approx(
            sum(mg.encode(seqs[i]).size for i in held) / faces
        )
    base = sum(corpus.sequences[("EDR", False)][i].size for i in held) / faces
    assert r["base"] == pytest.approx(base)
    assert all(x["MC"] <= x["base"] and x["RMC"] <= x["base"] for x in rows)


@pytest.mark.parametrize(
    "vocab, tokenizers, match",
    [([200, 160], ("RAW",), "increasing"), ([160], ("XYZ",), "tokenizer")],
)
def test_leave_one_base_out_rejects_bad_input(corpus, vocab, tokenizers, match):
    with pytest.raises(ValueError, match=match):
        mesh_tokenizers.leave_one_base_out(corpus, vocab, tokenizers=tokenizers)


# --- helpful_merges -------------------------------------------------------------------------
def test_helpful_merges_counts_shares_per_corpus():
    def r(order, exact, predicted, p_ab):
        return dict(
            tokenizer="RAW", order=order, exact=exact, predicted=predicted, p_ab=p_ab
        )

    rows = [
        r("as is", 0.1, 0.2, 0.01),
        r("as is", -0.1, 0.1, 0.03),
        r("RAC", -0.1, -0.2, 0.05),
        r("RAC", -0.3, -0.2, 0.07),
    ]
    out = {x["order"]: x for x in mesh_tokenizers.helpful_merges(rows)}
    assert out["as is"]["pairs"] == 2
    assert out["as is"]["helpful_exact"] == 0.5
    assert out["as is"]["helpful_first_order"] == 0.0
    assert out["RAC"]["helpful_exact"] == out["RAC"]["helpful_first_order"] == 1.0
    assert out["as is"]["mean_p_ab"] == pytest.approx(0.02)
    with pytest.raises(ValueError, match="at least one"):
        mesh_tokenizers.helpful_merges([])


# --- threads do not change the vocabularies ---------------------------------------------------
def test_workers_do_not_change_the_sweep_or_leave_one_base_out(corpus, sweep):
    again = mesh_tokenizers.merging_sweep(corpus, VOCAB, workers=2)
    assert again.rows == sweep.rows
    assert list(again.mergers) == list(sweep.mergers)
    assert all(
        again.mergers[k].model_proto == sweep.mergers[k].model_proto
        for k in sweep.mergers
    )
    one = mesh_tokenizers.leave_one_base_out(corpus, [VOCAB[0]], tokenizers=("AMT",))
    two = mesh_tokenizers.leave_one_base_out(
        corpus, [VOCAB[0]], tokenizers=("AMT",), workers=2
    )
    assert one == two
    for bad in (0, 1.5, True):
        with pytest.raises(ValueError, match="workers"):
            mesh_tokenizers.merging_sweep(corpus, VOCAB, workers=bad)
        with pytest.raises(ValueError, match="workers"):
            mesh_tokenizers.leave_one_base_out(corpus, VOCAB, workers=bad)
