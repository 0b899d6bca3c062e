"""Grammar-constrained decoding with fast offline preprocessing (Park, Zhou, D'Antoni,
ICML 2025, arXiv 2502.05111; tool GreatGramma).

Modules: `lexer` (terminal regexes → one byte-level longest-match DFA), `parser` (lark
grammar → terminals + LALR table; grammar sizes), `vocab` (BPE vocabularies as byte
strings), `offline` (token trie, preprocessing tables, naive baseline), `online` (the
decoder's online masks, brute-force oracle), `samples` (random valid texts and prefixes
for the test grammars), `sampling` (a bigram model and a sampler with or without the
mask), `profiling` (timing the offline variants, and the online phases through the
decoder's public methods), `peers` (llguidance and SynCode adapters, the mask comparison
over prefixes, the per-document mask latency of three tools), `protocol` (the chapter's
protocols and the lines it prints). Pure: no printing, plotting or file writing.
"""

from .offline import Tables, TokenTrie, build_trie, preprocess, preprocess_naive
from .online import Decoder, State, oracle_mask
from .lexer import LexerDFA, Terminal, build_dfa, utf8_sequences
from .parser import Grammar, grammar_size, load_grammar
from .peers import (
    SYNCODE_MODES,
    TOOLS,
    DocumentLatency,
    LatencyTrace,
    SynCodeMasker,
    Llguidance,
    PrefixComparison,
    compare_on_prefixes,
    compare_with_llguidance,
    document_latency,
    ignorable_tokens,
    leading_ignored_tokens,
    single_byte_tokens,
    strip_leading_ignored,
    syncode_grammar,
    syncode_mask_store,
    syncode_mask_store_seconds,
    syncode_store_work,
    trace_mask_latency,
)
from .profiling import (
    LEXER,
    OFFLINE,
    PHASES,
    median_seconds,
    step_statistics,
    time_masks,
    time_offline,
    time_phases,
)
from .protocol import (
    Agreement,
    OfflineStudy,
    OnlineSummary,
    SamplingStudy,
    build_vocabularies,
    grammar_size_lines,
    grammar_sizes,
    offline_study,
    online_summary,
    phase_lines,
    prefix_agreement,
    sampling_study,
    vocabulary_lines,
)
from .samples import lark_parses, random_calc, random_json, random_prefixes
from .sampling import ENDS, Sample, bigram_logprobs, draw_documents, sample
from .vocab import Vocabulary, gpt2_tokenizer, train_bpe, vocabulary_from_tokenizer

__all__ = [
    "Decoder",
    "State",
    "Tables",
    "TokenTrie",
    "build_trie",
    "oracle_mask",
    "preprocess",
    "preprocess_naive",
    "LexerDFA",
    "Terminal",
    "build_dfa",
    "utf8_sequences",
    "Grammar",
    "grammar_size",
    "load_grammar",
    "SYNCODE_MODES",
    "TOOLS",
    "DocumentLatency",
    "LatencyTrace",
    "SynCodeMasker",
    "Llguidance",
    "PrefixComparison",
    "compare_on_prefixes",
    "compare_with_llguidance",
    "document_latency",
    "ignorable_tokens",
    "leading_ignored_tokens",
    "single_byte_tokens",
    "strip_leading_ignored",
    "syncode_grammar",
    "syncode_mask_store",
    "syncode_mask_store_seconds",
    "syncode_store_work",
    "trace_mask_latency",
    "LEXER",
    "OFFLINE",
    "PHASES",
    "median_seconds",
    "step_statistics",
    "time_masks",
    "time_offline",
    "time_phases",
    "Agreement",
    "OfflineStudy",
    "OnlineSummary",
    "SamplingStudy",
    "build_vocabularies",
    "grammar_size_lines",
    "grammar_sizes",
    "offline_study",
    "online_summary",
    "phase_lines",
    "prefix_agreement",
    "sampling_study",
    "vocabulary_lines",
    "lark_parses",
    "random_calc",
    "random_json",
    "random_prefixes",
    "ENDS",
    "Sample",
    "bigram_logprobs",
    "draw_documents",
    "sample",
    "Vocabulary",
    "gpt2_tokenizer",
    "train_bpe",
    "vocabulary_from_tokenizer",
]
