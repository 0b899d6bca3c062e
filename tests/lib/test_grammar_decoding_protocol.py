"""The chapter's protocols (`grammar_decoding.protocol`): the vocabularies, claim 1's
comparison on prefixes, the grammar sizes, the offline study and its reading, the reading
of a latency trace, and claim 4's sampling, on small inputs."""

import numpy as np
import pandas as pd
import pytest

from repbook.papers import grammar_decoding
from repbook.papers.grammar_decoding import protocol


@pytest.fixture(scope="module")
def bpe():
    tok = grammar_decoding.train_bpe(300, grammar_decoding.vocab.stdlib_files(3))
    return tok, grammar_decoding.vocabulary_from_tokenizer(tok, name="BPE 300")


@pytest.fixture(scope="module")
def calc():
    return grammar_decoding.load_grammar(grammar_decoding.syncode_grammar("calc"))


@pytest.fixture(scope="module")
def json_grammar():
    return grammar_decoding.load_grammar(grammar_decoding.syncode_grammar("json"))


def test_vocabulary_lines_count_sizes_and_leading_spaces(bpe):
    _, v = bpe
    (line,) = grammar_decoding.vocabulary_lines({"BPE 300": v})
    spaced = sum(t.startswith(b" ") for t in v.tokens)
    assert line.startswith(f"   BPE 300: {len(v):6d} tokens, mean ")
    assert line.endswith(f"bytes, {spaced} with a leading space")


def test_prefix_agreement_finds_no_oracle_difference(calc, bpe):
    tok, v = bpe
    calls = []

    def rng_for(k):
        calls.append(k)
        return np.random.default_rng([0, k])

    grammars = {"calc": (calc, grammar_decoding.random_calc)}
    a = grammar_decoding.prefix_agreement(
        grammars,
        {"small": v, "big": v},
        tok,
        n_prefixes=6,
        rng_for=rng_for,
        small="small",
        big="big",
    )
    assert calls == [10]  # grammar k draws its prefixes from stream 10 + k
    assert len(a.rows) == 6 and set(a.rows.grammar) == {"calc"}
    assert set(a.decoders) == {("calc", "small"), ("calc", "big")}
    assert a.per_grammar("oracle_diff") == {"calc": 0}
    assert a.per_grammar("oracle_diff", "size") == {"calc": 6}
    table = a.table()
    assert table.loc["calc", "prefixes"] == 6
    assert table.loc["calc", "oracle diffs (1a)"] == 0
    assert len(a.accepted) == 6 - int(a.rows.peer_rejects.sum())


def test_grammar_sizes_and_their_reading():
    sizes = grammar_decoding.grammar_sizes(["json", "java", "go"])
    assert set(sizes) == {"json", "java", "go"}
    table, line = grammar_decoding.grammar_size_lines(sizes)
    assert "lexer states" in table and "java" in table
    ratio = sizes["java"]["lexer states"] / sizes["json"]["lexer states"]
    assert f"Java has {ratio:.1f}×" in line
    assert "the JSON lexer we time is far smaller" in line


def study_by_hand():
    """An offline study with hand-made times: ours 1 s, flat 2 s, naive 4 s, lexer 1 s
    (slowest repeat 3 s), SynCode 60 s at 16k only."""
    rows = []
    for name, V in [("BPE 1k", 1000), ("BPE 16k", 16000)]:
        r = dict(grammar="JSON", vocab=name, V=V, lexer_states=39)
        r.update({protocol.LEXER: 1.0, protocol.OURS: 1.0, protocol.FLAT: 2.0})
        r.update({protocol.NAIVE: 4.0, protocol.BOTH: 2.0, "ours, slowest repeat": 3.0})
        r[protocol.SYNCODE] = 60.0 if V == 16000 else np.nan
        rows.append(r)
    t = pd.DataFrame(rows)
    t["SynCode / ours (median)"] = t[protocol.SYNCODE] / t[protocol.BOTH]
    t["SynCode / ours (slowest)"] = t[protocol.SYNCODE] / t["ours, slowest repeat"]
    t["flat / ours (medians)"] = t[protocol.FLAT] / t[protocol.OURS]
    t["naive / ours (medians)"] = t[protocol.NAIVE] / t[protocol.OURS]
    gain = {n: np.log(np.array([2.0, 2.0, 2.0])) for n in ["BPE 1k", "BPE 16k"]}
    work = {"JSON × BPE 16k": {"fsm states": 62, "tokens": 16000, "pairs": 992000}}
    return grammar_decoding.OfflineStudy(t, gain, work)


def test_offline_study_reading_by_hand(bpe):
    study = study_by_hand()
    syn, big = study.regime(16000)
    assert list(syn.index) == ["JSON × BPE 16k"] and list(big.index) == ["BPE 16k"]
    lines = study.lines(16000)
    assert lines[0].startswith("SynCode's mask store over ours at JSON × BPE 16k: 20× ")
    assert "(our slowest repeat; 30× our median)" in lines[0]
    assert lines[1].startswith("SynCode's longest build here took 60 s, not the")
    assert lines[2] == (
        "trie pass against the flat pass at BPE 16k: 2.00× (medians); log ratio per "
        "repeat [0.69, 0.69, 0.69], k = t(0.975, 2) = 4.30"
    )
    assert (
        lines[3]
        == "our lexer DFA build (warm), share of our time: BPE 1k 50%, BPE 16k 50%"
    )
    assert len(lines) == 4  # no Java rows
    header, times, ratios = study.tables()
    assert header.startswith("seconds;") and "SynCode / ours (slowest)" in ratios
    vocabs = {"BPE 16k": bpe[1]}
    first, last = study.structure_lines(vocabs, 16000)
    assert first.startswith("JSON × BPE 16k: SynCode simulates 62 per-terminal")
    assert "SynCode over our flat pass: 30×." in first
    assert last.startswith("Prefix sharing alone (flat / ours) gives 2.00× at")


def test_offline_study_times_every_vocabulary(calc):
    v = grammar_decoding.Vocabulary(
        tuple(bytes([b]) for b in range(256)) + (b"12", b"+1", b""), eos=258
    )
    study, store = grammar_decoding.offline_study(
        [("JSON", calc)],
        {"tiny": v},
        {},
        repeats=2,
        syncode_at={"JSON": []},
        mode="grammar_mask",
        keep="tiny",
    )
    assert store is None and study.work == {}
    row = study.table.iloc[0]
    assert row.V == len(v) and row.lexer_states == calc.dfa.n_states
    assert np.isnan(row[protocol.SYNCODE])
    assert row["flat / ours (medians)"] == row[protocol.FLAT] / row[protocol.OURS]
    assert study.gain["tiny"].shape == (2,)


def latency_by_hand(decoder, tokens):
    """A DocumentLatency of one document with hand-made step times (µs)."""
    states, st = [], decoder.initial()
    for t in tokens:
        states.append(st)
        st = decoder.feed_token(st, t) if t != decoder.vocab.eos else st
    n = len(tokens)
    ours = np.full((2, n), 10.0)
    syn = np.full((2, n), 40.0)
    llg = np.full((2, n), 5.0)
    return grammar_decoding.DocumentLatency(
        steps={"ours": ours, "SynCode": syn, "llguidance": llg},
        doc={
            "ours": np.array([10.0, 10.0]),
            "SynCode": np.array([40.0, 20.0]),
            "llguidance": np.array([5.0, 5.0]),
        },
        doc_total={
            "ours": np.array([10.0 * n, 10.0]),
            "SynCode": np.array([40.0 * n, 5.0]),
            "llguidance": np.array([5.0 * n, 5.0]),
        },
        doc_id=np.zeros(n, dtype=int),
        syncode_missed=np.array([False] * (n - 1) + [True]),
        syncode_allowed=np.full(n, 3),
        tokens=np.array(tokens),
        states=tuple(states),
    )


def test_online_summary_and_phases(json_grammar, bpe):
    tok, v = bpe
    dec = grammar_decoding.Decoder(
        json_grammar, v, grammar_decoding.preprocess(json_grammar, v)
    )
    tokens = tok.encode('{"a": [1, 2]}').ids + [v.eos]
    online = grammar_decoding.online_summary(dec, latency_by_hand(dec, tokens))
    assert online.gain == pytest.approx(np.log([4.0, 2.0]))
    assert online.gain_total == pytest.approx(np.log([4.0, 0.5]))
    assert online.cold.shape == online.warm.shape == (len(tokens),)
    p50 = online.percentiles["p50, pooled over all steps"]
    assert p50["SynCode, fresh per document"] == 40.0
    assert online.missed.loc["EOS", "SynCode leaves it out"] == 1  # the EOS step
    assert online.missed["SynCode allows it"].sum() == len(tokens) - 1
    lines = online.lines("BPE 300", "grammar_mask")
    assert lines[0] == f"BPE 300: 2 documents, {len(tokens)} steps (µs per step)"
    assert lines[-1].startswith(
        f"SynCode's mask (grammar_mask, an over-approximation by its docstring) leaves "
        f"out the document's own token at 1 of {len(tokens)} steps"
    )
    table, counts, pooled = grammar_decoding.phase_lines(dec, online)
    assert "bitset union" in table and counts.startswith("per step, median (max): ")
    assert "SynCode's: 40 µs." in pooled


def test_sampling_study_parses_every_stopped_constrained_sample(json_grammar, bpe):
    tok, v = bpe
    dec = grammar_decoding.Decoder(
        json_grammar, v, grammar_decoding.preprocess(json_grammar, v)
    )
    kw = dict(n_documents=30, n_samples=8, max_tokens=200)
    one = grammar_decoding.sampling_study(
        dec,
        tok,
        **kw,
        rng_documents=np.random.default_rng(1),
        rng_samples=np.random.default_rng(2),
    )
    two = grammar_decoding.sampling_study(
        dec,
        tok,
        **kw,
        rng_documents=np.random.default_rng(1),
        rng_samples=np.random.default_rng(2),
    )
    pd.testing.assert_frame_equal(one.runs, two.runs)  # seeded
    assert len(one.documents) == 30 and max(len(d) for d in one.documents) <= 200
    c = one.arm("constrained")
    assert len(c) == 8 and len(one.arm("unconstrained")) == 8
    assert c[c.stopped].parses.all()  # the guarantee
    assert one.cut == int((c.end == "budget").sum()) and one.in_string <= one.cut
    assert list(one.ends.columns) == list(grammar_decoding.ENDS)
    table, docs, cut = one.lines()
    assert "ended: budget" in table and docs.startswith("training documents: median")
    assert cut.startswith(f"constrained samples cut at the budget: {one.cut}; ")
