"""Tests of repbook.papers.grammar_decoding: lexer DFA, LR parser, vocabularies, tables,
masks, the public profiling surface, the sampler and the peer adapters."""

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from repbook.papers import grammar_decoding
from repbook.papers.grammar_decoding.offline import step_tables
from repbook.papers.grammar_decoding.lexer import Terminal, build_dfa, utf8_sequences


TINY_JSON = r"""
?start: value
?value: "[" [value ("," value)*] "]" -> array
      | STRING | NUMBER | "true" -> t
STRING: /"[^"]*"/
NUMBER: /-?[0-9]+/
%ignore " "
"""


@pytest.fixture(scope="module")
def tiny():
    return grammar_decoding.load_grammar(TINY_JSON)


@pytest.fixture(scope="module")
def json_grammar():
    return grammar_decoding.load_grammar(grammar_decoding.syncode_grammar("json"))


def small_vocab():
    toks = [bytes([b]) for b in range(256)] + [
        b"tr",
        b"true",
        b"ue",
        b"[1",
        b"1,",
        b", ",
        b'"a',
        b'a"',
        b'",',
        b"],[",
        b"]]",
        b" [",
        b"\xc3",
        b"\xa9",
        b"\xc3\xa9",
        b"12",
        b'""',
        b'"]',
        b"",
    ]
    return grammar_decoding.Vocabulary(tuple(toks), eos=len(toks) - 1, name="small")


# --------------------------------------------------------------------------------------
# lexer
@settings(max_examples=200, deadline=None)
@given(st.integers(0, 0x10FFFF))
def test_utf8_sequences_match_python_encoding(cp):
    if 0xD800 <= cp <= 0xDFFF:
        return
    lo, hi = max(0, cp - 300), min(0x10FFFF, cp + 300)
    enc = chr(cp).encode()
    hits = [
        s
        for s in utf8_sequences(lo, hi)
        if len(s) == len(enc) and all(a <= b <= c for (a, c), b in zip(s, enc))
    ]
    assert len(hits) == 1


def test_utf8_sequences_exclude_surrogates():
    for seq in utf8_sequences(0xD000, 0xE100):
        assert not (seq[0] == (0xED, 0xED) and seq[1][1] > 0x9F)


PATTERNS = [
    r"[0-9]+",
    r"-?(0|[1-9][0-9]*)(\.[0-9]+)?",
    r'"[^"]*"',
    r"(ab|a)*c",
    r"x{2,4}y?",
    r"(?i:select)",
    r"[^a-c]+",
    r"\d\w\s",
    r"é+|ü",
]


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(PATTERNS),
    st.text(alphabet='abcxy0129-."é ü\tSELECTselect_', max_size=8),
)
def test_single_terminal_dfa_agrees_with_re_fullmatch(pattern, text):
    dfa = build_dfa([Terminal("T", pattern)])
    state = 0
    for b in text.encode():
        state = dfa.trans[state, b]
        if state < 0:
            break
    ours = state >= 0 and dfa.label[state] == 0
    theirs = re.fullmatch(pattern, text, flags=re.ASCII) is not None
    assert ours == theirs


def test_longest_match_priority_and_keywords():
    terms = [
        Terminal("IF", "if", is_string=True),
        Terminal("NAME", "[a-z]+"),
        Terminal("WS", " +", ignore=True),
    ]
    dfa = build_dfa(terms)
    assert dfa.tokenize("if iff x") == ["IF", "NAME", "NAME"]
    hi = build_dfa(
        [Terminal("A", "[a-z]+", priority=2), Terminal("IF", "if", is_string=True)]
    )
    assert hi.tokenize("if") == ["A"]


def test_lexer_rejects_and_bad_patterns():
    dfa = build_dfa([Terminal("N", "[0-9]+")])
    with pytest.raises(ValueError, match="cannot be lexed"):
        dfa.tokenize("12a")
    with pytest.raises(ValueError, match="empty string"):
        build_dfa([Terminal("E", "a*")])
    with pytest.raises(ValueError, match="look-arounds"):
        build_dfa([Terminal("L", "a(?=b)")])
    with pytest.raises(ValueError, match="not a valid regular expression"):
        build_dfa([Terminal("B", "a(")])
    with pytest.raises(ValueError, match="terminals is empty"):
        build_dfa([])


# --------------------------------------------------------------------------------------
# grammar and parser
def test_parser_agrees_with_lark_on_valid_and_invalid(json_grammar):
    import lark

    lk = lark.Lark(grammar_decoding.syncode_grammar("json"), parser="lalr")
    cases = [
        '{"a": [1, -2.5e3, true, null, "x y"]}',
        "[]",
        "{}",
        ' [ "é" ,false ]',
        '{"a" 1}',
        "[1,]",
        '""',
        '[""]',
        "[01]",
        "[1.]",
        "[.5E+2]",
        "[tru]",
        '{"k": {}}',
        "[1 2]",
        '["a"b"]',
        "[+1]",
        "[--1]",
    ]
    for s in cases:
        try:
            lk.parse(s)
            expected = True
        except lark.exceptions.LarkError:
            expected = False
        assert json_grammar.accepts(s) == expected, s


def test_random_samples_parse(json_grammar):
    calc = grammar_decoding.load_grammar(grammar_decoding.syncode_grammar("calc"))
    rng = np.random.default_rng(1)
    assert all(
        json_grammar.accepts(grammar_decoding.random_json(rng)) for _ in range(50)
    )
    assert all(calc.accepts(grammar_decoding.random_calc(rng)) for _ in range(50))


def test_bad_grammars_have_clear_errors():
    with pytest.raises(ValueError, match="non-empty str"):
        grammar_decoding.load_grammar("")
    with pytest.raises(ValueError, match="lark rejected"):
        grammar_decoding.load_grammar("start: UNDEFINED_X\n")
    with pytest.raises(ValueError, match="lark rejected"):
        grammar_decoding.load_grammar('start: a | b\na: "x"\nb: "x"\n')


def test_strip_priorities():
    text = 'start: a\na.2: "x"\n'
    g = grammar_decoding.load_grammar(text, strip_priorities=True)
    assert g.accepts("x")


# --------------------------------------------------------------------------------------
# vocabularies
def test_token_bytes_and_bad_vocabularies():
    from repbook.papers.grammar_decoding.vocab import byte_to_unicode, token_bytes

    table = byte_to_unicode()
    assert len(set(table.values())) == 256 and table[32] == "Ġ"
    assert token_bytes("Ġ{") == b" {"
    with pytest.raises(ValueError, match="not a byte-level"):
        token_bytes("€")
    with pytest.raises(ValueError, match="eos must be"):
        grammar_decoding.Vocabulary((b"a",), eos=3)
    with pytest.raises(TypeError, match="must be bytes"):
        grammar_decoding.Vocabulary(("a", b"b"), eos=1)
    with pytest.raises(ValueError, match="tokens is empty"):
        grammar_decoding.Vocabulary((), eos=0)
    with pytest.raises(ValueError, match="vocab_size"):
        grammar_decoding.train_bpe(100, [])


def test_gpt2_vocabulary():
    v = grammar_decoding.vocabulary_from_tokenizer(grammar_decoding.gpt2_tokenizer())
    assert len(v) == 50257 and v.eos == 50256 and v.tokens[v.eos] == b""
    assert b" the" in v.tokens and len(set(v.tokens)) == len(v)


def test_trained_bpe_is_deterministic():
    files = grammar_decoding.vocab.stdlib_files(20)
    a = grammar_decoding.vocabulary_from_tokenizer(
        grammar_decoding.train_bpe(400, files)
    )
    b = grammar_decoding.vocabulary_from_tokenizer(
        grammar_decoding.train_bpe(400, files)
    )
    assert a.tokens == b.tokens and len(a) == 400


# --------------------------------------------------------------------------------------
# tables and masks
def test_trie_shares_prefixes_and_tables_match_naive(tiny):
    v = small_vocab()
    trie = grammar_decoding.build_trie(v.tokens)
    flat = grammar_decoding.build_trie(v.tokens, share=False)
    assert trie.n_nodes < flat.n_nodes == 1 + sum(map(len, v.tokens))
    a, b = (
        grammar_decoding.preprocess(tiny, v),
        grammar_decoding.preprocess_naive(tiny, v),
    )
    c = grammar_decoding.preprocess(tiny, v, share=False)
    for t in (b, c):
        assert (a.end == t.end).all()
        assert all(a.seqs[x] == t.seqs[y] for x, y in zip(a.seq.ravel(), t.seq.ravel()))


def test_step_tables_agree_with_dfa_run(tiny):
    nxt, emit = step_tables(tiny)
    for text in [b'[1, "a"]', b"[true,12", b'["x', b"[1 2"]:
        q, out = 0, []
        for byte in text:
            if emit[q, byte] >= 0:
                out.append(int(emit[q, byte]))
            q = int(nxt[q, byte])
        ref = tiny.dfa.run(text)
        if ref is None:
            assert q == tiny.dfa.n_states
        else:
            assert q == ref[0] and out == [t for t in ref[1] if t not in tiny.ignored]


def _names(v, mask):
    return {v.tokens[i] for i in np.flatnonzero(mask)}


def test_hand_checked_masks(tiny):
    v = small_vocab()
    dec = grammar_decoding.Decoder(tiny, v, grammar_decoding.preprocess(tiny, v))
    st0 = dec.initial()
    m = dec.mask(st0)
    assert b"[" in _names(v, m) and b"true" in _names(v, m) and b"tr" in _names(v, m)
    assert b"]" not in _names(v, m) and b"ue" not in _names(v, m) and not m[v.eos]
    st = dec.feed_bytes(st0, b"[1")
    names = _names(v, dec.mask(st))
    assert {b"2", b"12", b",", b"]", b" ", b"1,"} <= names
    assert not {b"]]", b"],[", b"[", b"a"} & names
    st = dec.feed_bytes(st0, b"tr")
    assert _names(v, dec.mask(st)) == {b"u", b"ue"}
    st = dec.feed_bytes(st0, b"12")
    m = dec.mask(st)
    assert m[v.eos] and b" " in _names(v, m) and b"]" not in _names(v, m)
    st = dec.feed_bytes(st0, b'["')
    names = _names(v, dec.mask(st))
    assert {b"\xc3", b"\xc3\xa9", b'a"', b'"]', b'",'} <= names and b"\xa9" not in names
    assert dec.feed_bytes(st0, b"]") is None


@pytest.mark.parametrize(
    "text", [b'[1, "a", [true]]', b'["\xc3\xa9", 12, []]', b"  [ ]", b"-7"]
)
def test_decoder_matches_oracle_on_every_prefix(tiny, text):
    v = small_vocab()
    dec = grammar_decoding.Decoder(tiny, v, grammar_decoding.preprocess(tiny, v))
    for k in range(len(text) + 1):
        st = dec.feed_bytes(dec.initial(), text[:k])
        assert st is not None
        assert (
            dec.mask(st) == grammar_decoding.oracle_mask(tiny, v, text[:k])
        ).all(), text[:k]


def test_feed_token_and_sampling_parse(json_grammar):
    v = small_vocab()
    dec = grammar_decoding.Decoder(
        json_grammar, v, grammar_decoding.preprocess(json_grammar, v)
    )
    rng = np.random.default_rng(0)
    for _ in range(20):
        st, out = dec.initial(), []
        for _ in range(60):
            m = dec.mask(st)
            tok = int(rng.choice(np.flatnonzero(m)))
            if tok == v.eos:
                break
            out.append(tok)
            st = dec.feed_token(st, tok)
            assert st is not None
        assert dec.feed_bytes(dec.initial(), v.decode(out)) is not None
        if tok == v.eos:
            assert json_grammar.accepts(v.decode(out))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["json", "calc"]))
def test_masks_match_oracle_on_random_prefixes_of_syncode_grammars(seed, name):
    g = _syncode(name)
    v = small_vocab()
    dec = _decoder(name)
    rng = np.random.default_rng(seed)
    text = (
        grammar_decoding.random_json if name == "json" else grammar_decoding.random_calc
    )(rng).encode()
    prefix = text[: int(rng.integers(0, len(text) + 1))]
    state = dec.feed_bytes(dec.initial(), prefix)
    if state is None:  # a cut inside a multi-byte character is still a viable prefix
        pytest.fail(f"valid prefix {prefix!r} rejected")
    assert (dec.mask(state) == grammar_decoding.oracle_mask(g, v, prefix)).all()


_CACHE = {}


def _syncode(name):
    if name not in _CACHE:
        _CACHE[name] = grammar_decoding.load_grammar(
            grammar_decoding.syncode_grammar(name)
        )
    return _CACHE[name]


def _decoder(name):
    key = ("dec", name)
    if key not in _CACHE:
        g, v = _syncode(name), small_vocab()
        _CACHE[key] = grammar_decoding.Decoder(g, v, grammar_decoding.preprocess(g, v))
    return _CACHE[key]


def test_eos_and_viability(json_grammar):
    dec = _decoder("json")
    st0 = dec.initial()
    assert not dec.can_end(st0)
    assert dec.can_end(dec.feed_bytes(st0, b'{"a": 1} '))
    assert not dec.can_end(dec.feed_bytes(st0, b'{"a": 1'))
    assert dec.feed_bytes(st0, b'{"a": tr') is not None
    assert dec.feed_bytes(st0, b'{"a": tx') is None
    assert dec.feed_bytes(st0, b'{"a" "') is None  # a string where ':' is needed
    assert dec.feed_bytes(st0, b'{"a": 1}}') is None


def _reference_mask(dec, state):
    """The mask without the parser-step memo: every sequence fed with the plain LR
    parser."""
    t = dec.tables
    q, stack = state.q, state.stack
    out = np.zeros(len(dec.vocab), dtype=bool)
    for tok in range(len(dec.vocab)):
        g = int(t.gid[q][tok])
        if g == 0:
            continue
        st = dec._feed(stack, t.seqs[int(t.seq[q, tok])])
        if st is None:
            continue
        c = dec.cls[int(t.end[q, tok])]
        out[tok] = bool(dec.free[c] or (dec.R[c] & dec._acceptable(st)).any())
    out[dec.vocab.eos] = dec._can_end_direct(state)
    return out


@pytest.mark.parametrize("name", ["json", "calc"])
def test_mask_bits_unpacks_to_mask_and_memo_is_exact(name):
    g, v = _syncode(name), small_vocab()
    dec = grammar_decoding.Decoder(g, v, grammar_decoding.preprocess(g, v))
    rng = np.random.default_rng(3)
    n_words = -(-len(v) // 32)
    for _ in range(30):
        text = (
            grammar_decoding.random_json
            if name == "json"
            else grammar_decoding.random_calc
        )(rng).encode()
        for cut in sorted(set(rng.integers(0, len(text) + 1, 4).tolist())):
            st = dec.feed_bytes(dec.initial(), text[:cut])
            bits = dec.mask_bits(st)
            assert bits.dtype == np.uint32 and bits.shape == (n_words,)
            unpacked = np.unpackbits(bits.view(np.uint8), bitorder="little")
            assert not unpacked[len(v) :].any()  # padding bits are zero
            m = dec.mask(st)
            assert (unpacked[: len(v)].astype(bool) == m).all()
            assert (m == _reference_mask(dec, st)).all()  # warm memo == no memo
            assert dec.can_end(st) == dec._can_end_direct(st)
            assert dec.is_memoised(st)
            dec.clear_memo()
            assert (dec.mask(st) == m).all()  # cold == warm


# --------------------------------------------------------------------------------------
# the public profiling surface
@pytest.mark.parametrize("name", ["json", "calc"])
def test_public_phases_compose_to_mask_bits(name):
    dec = _decoder(name)
    rng = np.random.default_rng(7)
    gen = (
        grammar_decoding.random_json if name == "json" else grammar_decoding.random_calc
    )
    states = []
    for _ in range(10):
        text = gen(rng).encode()
        cut = int(rng.integers(len(text) + 1))
        states.append(dec.feed_bytes(dec.initial(), text[:cut]))
    dec.clear_memo()
    for state in states:
        code, eos = dec.parser_step(state)
        assert dec.is_memoised(state)
        words = dec.union_bits(state.q, dec.group_verdicts(state.q, code))
        assert words.dtype == np.uint64 and words.shape == (dec.n_words,)
        e = dec.vocab.eos
        if eos:
            words[e >> 6] |= np.uint64(1 << (e & 63))
        bits = dec.mask_bits(state)
        assert (words.view(np.uint32)[: bits.size] == bits).all()


def test_is_memoised_before_and_after():
    g, v = _syncode("json"), small_vocab()
    dec = grammar_decoding.Decoder(g, v, grammar_decoding.preprocess(g, v))
    st = dec.feed_bytes(dec.initial(), b'{"a": [1, ')
    assert not dec.is_memoised(st)
    dec.mask_bits(st)
    assert dec.is_memoised(st)
    dec.clear_memo()
    assert not dec.is_memoised(st)


def test_phase_methods_reject_bad_arguments():
    dec = _decoder("json")
    code, _ = dec.parser_step(dec.initial())
    with pytest.raises(
        ValueError, match=rf"q must be an int in \[0, {dec.n - 1}\], got {dec.n}"
    ):
        dec.group_verdicts(dec.n, code)
    with pytest.raises(ValueError, match="one bool per group"):
        dec.union_bits(0, np.ones(10_000, dtype=bool))


def test_prepare_builds_every_state_and_keeps_masks():
    g, v = _syncode("calc"), small_vocab()
    a = grammar_decoding.Decoder(g, v, grammar_decoding.preprocess(g, v))
    b = grammar_decoding.Decoder(g, v, a.tables)
    b.prepare()
    for text in [b"", b"1+", b"(2*3", b"4.5 /"]:
        assert (
            a.mask(a.feed_bytes(a.initial(), text))
            == b.mask(b.feed_bytes(b.initial(), text))
        ).all()


def test_profiling_helpers():
    dec = _decoder("json")
    states = [
        dec.feed_bytes(dec.initial(), t) for t in [b"[", b'{"a"', b"[1, 2", b"[]"]
    ]
    masks = [dec.mask(st) for st in states]
    for kw in [dict(), dict(cold=True), dict(packed=False)]:
        t = grammar_decoding.time_masks(dec, states, **kw)
        assert t.shape == (4,) and (t > 0).all()
    # clearing the memos changes no mask
    assert all((dec.mask(st) == m).all() for st, m in zip(states, masks))
    phases = grammar_decoding.time_phases(dec, states)
    assert tuple(phases) == grammar_decoding.PHASES and all(
        x.shape == (4,) for x in phases.values()
    )
    stats = grammar_decoding.step_statistics(dec, states)
    assert (stats["allowed groups"] <= stats["groups"]).all()
    assert (stats["sequences"] >= 1).all()
    assert grammar_decoding.median_seconds(lambda: None, 3) >= 0
    with pytest.raises(ValueError, match="repeats must be a positive int, got 0"):
        grammar_decoding.median_seconds(lambda: None, 0)
    with pytest.raises(ValueError, match="States"):
        grammar_decoding.time_masks(dec, [])


# --------------------------------------------------------------------------------------
# stopping where the grammar allows nothing more, and the sampler
def test_must_end():
    dec = _decoder("json")
    st0 = dec.initial()
    for text, expected in [
        (b'{"a": 1}', True),
        (b'{"a": 1} \n', True),
        (b"[]", True),
        (b'{"a": 1', False),
        (b"[1, ", False),
        (b"", False),
    ]:
        assert dec.must_end(dec.feed_bytes(st0, text)) == expected, text
    calc = _decoder("calc")
    st = calc.feed_bytes(calc.initial(), b"1+2")
    assert calc.can_end(st) and not calc.must_end(st)  # "1+23" or "1+2*4" may follow


def test_bigram_logprobs_known_answer_and_errors():
    lp = grammar_decoding.bigram_logprobs(
        [[1, 2], [1]], 3, boundary=0, pseudo_count=0.5
    )
    counts = np.full((3, 3), 0.5)
    for a, b in [(0, 1), (1, 2), (2, 0), (0, 1), (1, 0)]:
        counts[a, b] += 1
    assert np.allclose(np.exp(lp), counts / counts.sum(1, keepdims=True))
    with pytest.raises(ValueError, match="outside"):
        grammar_decoding.bigram_logprobs([[5]], 3, boundary=0)
    with pytest.raises(ValueError, match="boundary"):
        grammar_decoding.bigram_logprobs([[1]], 3, boundary=3)
    with pytest.raises(
        ValueError, match="pseudo_count must be a finite number > 0, got 0"
    ):
        grammar_decoding.bigram_logprobs([[1]], 3, boundary=0, pseudo_count=0)


def test_constrained_samples_parse_when_they_stop():
    g, v = _syncode("json"), small_vocab()
    dec = _decoder("json")
    rng = np.random.default_rng(0)
    docs = grammar_decoding.draw_documents(
        grammar_decoding.random_json,
        lambda s: list(s.encode()),
        30,
        rng,
        max_tokens=120,
    )
    assert all(len(d) <= 120 for d in docs)
    logp = grammar_decoding.bigram_logprobs(docs, len(v), boundary=v.eos)
    parses = grammar_decoding.lark_parses(g.text)
    ends = []
    for _ in range(15):
        s = grammar_decoding.sample(logp, rng, eos=v.eos, max_tokens=60, decoder=dec)
        ends.append(s.end)
        assert s.end in grammar_decoding.ENDS and len(s.tokens) <= 60
        assert dec.feed_bytes(dec.initial(), v.decode(s.tokens)) is not None
        if s.stopped:
            assert parses(v.decode(s.tokens)) and s.end == "complete"
    assert "complete" in ends
    a = grammar_decoding.sample(
        logp, np.random.default_rng(5), eos=v.eos, max_tokens=40
    )
    b = grammar_decoding.sample(
        logp, np.random.default_rng(5), eos=v.eos, max_tokens=40
    )
    assert a == b and a.end in ("eos", "budget")


def test_sampler_and_documents_reject_bad_arguments():
    v = small_vocab()
    logp = np.zeros((len(v), len(v)))
    with pytest.raises(ValueError, match="square"):
        grammar_decoding.sample(
            np.zeros((3, 4)), np.random.default_rng(0), eos=0, max_tokens=5
        )
    with pytest.raises(ValueError, match="max_tokens must be a positive int, got 0"):
        grammar_decoding.sample(logp, np.random.default_rng(0), eos=v.eos, max_tokens=0)
    with pytest.raises(ValueError, match="decoder's vocabulary"):
        grammar_decoding.sample(
            np.zeros((3, 3)),
            np.random.default_rng(0),
            eos=0,
            max_tokens=5,
            decoder=_decoder("json"),
        )
    with pytest.raises(ValueError, match="fit max_tokens"):
        grammar_decoding.draw_documents(
            lambda r: "abcdef", list, 2, np.random.default_rng(0), max_tokens=3
        )


def test_random_prefixes_and_lark_parses():
    g = _syncode("calc")
    ps = grammar_decoding.random_prefixes(
        g, grammar_decoding.random_calc, 20, np.random.default_rng(2)
    )
    assert len(ps) == 20
    dec = _decoder("calc")
    assert all(dec.feed_bytes(dec.initial(), p.encode()) is not None for p in ps)
    with pytest.raises(ValueError, match="does not parse with lark"):
        grammar_decoding.random_prefixes(
            g, lambda r: "1 +", 3, np.random.default_rng(0)
        )
    parses = grammar_decoding.lark_parses(g.text)
    assert parses(b"1 + 2") and not parses(b"1 +") and not parses(b"\xff")


# --------------------------------------------------------------------------------------
# peers
def test_token_classes_and_stripping(json_grammar):
    v = small_vocab()
    ig = grammar_decoding.ignorable_tokens(json_grammar, v)
    lead = grammar_decoding.leading_ignored_tokens(json_grammar, v)
    assert ig[v.tokens.index(b" ")] and not ig[v.tokens.index(b" [")]
    assert lead[v.tokens.index(b" [")] and lead[v.tokens.index(b"\n")]
    assert not lead[v.tokens.index(b"[1")] and not lead[v.eos]
    assert (
        grammar_decoding.strip_leading_ignored(json_grammar, ' \n\t{"a": 1} ')
        == '{"a": 1} '
    )
    assert grammar_decoding.strip_leading_ignored(json_grammar, "  ") == ""
    assert grammar_decoding.strip_leading_ignored(json_grammar, '["  x"]') == '["  x"]'
    ids = grammar_decoding.single_byte_tokens(v)
    assert all(v.tokens[i] == bytes([b]) for b, i in enumerate(ids))
    with pytest.raises(ValueError, match="single-byte"):
        grammar_decoding.single_byte_tokens(
            grammar_decoding.Vocabulary((b"ab", b""), eos=1, name="two")
        )


@pytest.fixture(scope="module")
def gpt2_json():
    tok = grammar_decoding.gpt2_tokenizer()
    v = grammar_decoding.vocabulary_from_tokenizer(tok)
    g = grammar_decoding.load_grammar(grammar_decoding.syncode_grammar("json"))
    dec = grammar_decoding.Decoder(g, v, grammar_decoding.preprocess(g, v))
    return tok, v, g, dec, grammar_decoding.Llguidance(tok, v.eos, g.text)


def test_compare_with_llguidance_assigns_each_policy(gpt2_json):
    tok, v, g, dec, peer = gpt2_json
    classes = dict(
        single_byte=grammar_decoding.single_byte_tokens(v),
        ignorable=grammar_decoding.ignorable_tokens(g, v),
        leading=grammar_decoding.leading_ignored_tokens(g, v),
    )

    def cmp(prefix):
        return grammar_decoding.compare_with_llguidance(dec, peer, prefix, **classes)

    c = cmp('{"a": [1, 2')  # an ordinary prefix: identical masks
    assert (c.forced, c.trailing, c.other, c.ours_size) == (0, 0, 0, c.peer_size)
    c = cmp('{"a": [1, t')  # forced bytes "rue": policy (i)
    assert c.forced > 0 and c.other == 0 and c.peer_size < c.ours_size
    c = cmp('{"a": 1}')  # complete: policy (ii)
    assert c.trailing > 0 and c.other == 0
    c = cmp("")  # empty output: policy (iii)
    assert c.other == c.leading > 0 and c.residue_ours == c.residue_peer == 0
    c = cmp('  {"a": ')  # rejected, compared without the spaces
    assert c.peer_rejects and c.stripped and not c.rejected_unexplained
    assert c.peer_size == -1 and c.residue_ours == c.residue_peer == 0
    m = peer.mask('{"a": [1, 2')
    assert m.dtype == bool and m.shape == (len(v),) and peer.mask("  [") is None
    with pytest.raises(ValueError, match="not a viable prefix"):
        cmp("]")


def test_trace_mask_latency(gpt2_json):
    tok, v, g, dec, peer = gpt2_json
    docs = [tok.encode('{"a": [1, true]}').ids, tok.encode("[]").ids]
    tr = grammar_decoding.trace_mask_latency(dec, peer, docs)
    n = sum(len(d) + 1 for d in docs)
    assert len(tr.states) == len(tr.tokens) == n == tr.ours_us.size == tr.peer_us.size
    assert tr.tokens[-1] == v.eos and tr.memo_hit.dtype == bool
    with pytest.raises(ValueError, match="not allowed by llguidance"):
        grammar_decoding.trace_mask_latency(
            dec, peer, [tok.encode(" []").ids]
        )  # leading space


def test_syncode_adapters():
    assert "%ignore" in grammar_decoding.syncode_grammar("json")
    with pytest.raises(ValueError, match="no grammar"):
        grammar_decoding.syncode_grammar("no_such_grammar")
    tok = grammar_decoding.train_bpe(300, grammar_decoding.vocab.stdlib_files(3))
    assert grammar_decoding.syncode_mask_store_seconds(tok, "json") > 0
    assert (
        grammar_decoding.SYNCODE_MODES[0] == "grammar_mask"
    )  # SynCode's default, sound
    with pytest.raises(ValueError, match="mode must be one of"):
        grammar_decoding.syncode_mask_store(tok, "json", mode="strict")


@pytest.fixture(scope="module")
def bpe300():
    tok = grammar_decoding.train_bpe(300, grammar_decoding.vocab.stdlib_files(3))
    return tok, grammar_decoding.vocabulary_from_tokenizer(tok)


def test_compare_on_prefixes(gpt2_json, bpe300):
    tok, v, g, dec, peer = gpt2_json
    small = grammar_decoding.Decoder(
        g, bpe300[1], grammar_decoding.preprocess(g, bpe300[1])
    )
    rows = grammar_decoding.compare_on_prefixes(
        ['{"a": [1, 2', "", '{"a": 1}'], small, dec, peer
    )
    assert [r["prefix"] for r in rows] == ['{"a": [1, 2', "", '{"a": 1}']
    assert all(r["oracle_diff"] == 0 for r in rows)
    assert rows[0]["other"] == 0 and rows[1]["leading"] > 0 and rows[2]["trailing"] > 0
    other = grammar_decoding.load_grammar(TINY_JSON)
    with pytest.raises(ValueError, match="same grammar"):
        grammar_decoding.compare_on_prefixes(
            ["["],
            grammar_decoding.Decoder(
                other, small.vocab, grammar_decoding.preprocess(other, small.vocab)
            ),
            dec,
            peer,
        )
    with pytest.raises(ValueError, match="not a viable prefix"):
        grammar_decoding.compare_on_prefixes(["]"], small, dec, peer)


def test_time_offline_pairs_the_variants(tiny):
    v = small_vocab()
    t = grammar_decoding.time_offline(tiny, v, 2)
    assert list(t) == [grammar_decoding.LEXER, *grammar_decoding.OFFLINE]
    assert all(x.shape == (2,) and (x > 0).all() for x in t.values())
    no_naive = grammar_decoding.time_offline(tiny, v, 1, naive=False, lexer=False)
    assert list(no_naive) == list(grammar_decoding.OFFLINE[:2])
    # a grammar whose DFA was built with other limits than build_dfa's default
    odd = grammar_decoding.Grammar(
        **{**vars(tiny), "dfa": grammar_decoding.build_dfa(tiny.terminals[:1])}
    )
    with pytest.raises(ValueError, match="rebuilt lexer"):
        grammar_decoding.time_offline(odd, v, 1)
    with pytest.raises(ValueError, match="repeats must be a positive int, got 0"):
        grammar_decoding.time_offline(tiny, v, 0)


def test_grammar_size():
    s = grammar_decoding.grammar_size(grammar_decoding.syncode_grammar("json"))
    g = grammar_decoding.load_grammar(grammar_decoding.syncode_grammar("json"))
    assert s == {
        "terminals": len(g.terminals),
        "lexer states": g.dfa.n_states,
        "rules": s["rules"],
    }
    assert s["rules"] > 0
    go = grammar_decoding.grammar_size(
        grammar_decoding.syncode_grammar("go")
    )  # lark's LALR rejects Go
    assert go["lexer states"] > s["lexer states"]
    with pytest.raises(ValueError, match="lark rejected"):
        grammar_decoding.grammar_size("start: UNDEFINED_TERMINAL")


def test_syncode_masker_and_document_latency(bpe300):
    tok, v = bpe300
    g = grammar_decoding.load_grammar(grammar_decoding.syncode_grammar("json"))
    sec, store = grammar_decoding.syncode_mask_store(tok, "json")
    assert sec > 0
    work = grammar_decoding.syncode_store_work(store)
    assert work["tokens"] == len(v) and work["fsm states"] > len(g.terminals)
    assert work["pairs"] == work["fsm states"] * work["tokens"]
    syn = grammar_decoding.SynCodeMasker(store)
    syn.reset()
    m = syn.mask('{"a": ')
    assert str(m.dtype) == "torch.bool" and m.shape[0] == len(v)
    assert bool(m[tok.token_to_id('"')]) and not bool(m[tok.token_to_id("}")])
    dec = grammar_decoding.Decoder(g, v, grammar_decoding.preprocess(g, v))
    peer = grammar_decoding.Llguidance(tok, v.eos, g.text)
    docs = [tok.encode('{"a": [1, true]}').ids, tok.encode("[]").ids]
    lat = grammar_decoding.document_latency(dec, syn, peer, docs, repeats=2)
    n = sum(len(d) + 1 for d in docs)
    assert set(lat.steps) == set(grammar_decoding.TOOLS)
    assert all(x.shape == (2, n) for x in lat.steps.values())
    assert all(x.shape == (2,) and (x > 0).all() for x in lat.doc.values())
    first = lat.doc_id == 0
    for k, x in lat.doc_total.items():  # per document: the sum over its steps
        assert x.shape == (2,)
        assert x[0] == pytest.approx(np.median(lat.steps[k][:, first].sum(axis=1)))
    assert lat.doc_id.tolist() == [0] * (len(docs[0]) + 1) + [1] * (len(docs[1]) + 1)
    assert len(lat.states) == n and lat.states[0] == dec.initial()
    assert lat.syncode_missed.shape == (n,) and lat.syncode_misses == 0
    assert lat.syncode_allowed.shape == (n,) and (lat.syncode_allowed > 0).all()
    assert lat.tokens.tolist() == docs[0] + [v.eos] + docs[1] + [v.eos]
    with pytest.raises(ValueError, match="repeats must be a positive int, got 0"):
        grammar_decoding.document_latency(dec, syn, peer, docs, repeats=0)
    with pytest.raises(ValueError, match="non-empty"):
        grammar_decoding.document_latency(dec, syn, peer, [[]])
    with pytest.raises(ValueError, match="not allowed by llguidance"):
        grammar_decoding.document_latency(dec, syn, peer, [tok.encode(" []").ids])
