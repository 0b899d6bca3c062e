"""Grammar-constrained decoding with fast offline preprocessing (Park, Zhou, D'Antoni, ICML 2025,
arXiv 2502.05111; tool GreatGramma).

Modules: `lexer` (terminal regexes → one byte-level longest-match DFA), `parser` (lark grammar →
terminals + LALR table), `vocab` (BPE vocabularies as byte strings), `engine` (token trie,
preprocessing tables, online masks, naive baseline and brute-force oracle), `samples` (random
valid texts for the test grammars). Pure: no printing, plotting or file writing.
"""
from .engine import (Decoder, State, Tables, TokenTrie, build_trie, oracle_mask, preprocess,
                     preprocess_naive)
from .lexer import LexerDFA, Terminal, build_dfa, utf8_sequences
from .parser import Grammar, load_grammar
from .samples import random_calc, random_json
from .vocab import Vocabulary, gpt2_tokenizer, train_bpe, vocabulary_from_tokenizer

__all__ = ["Decoder", "State", "Tables", "TokenTrie", "build_trie", "oracle_mask", "preprocess",
           "preprocess_naive", "LexerDFA", "Terminal", "build_dfa", "utf8_sequences", "Grammar",
           "load_grammar", "random_calc", "random_json", "Vocabulary", "gpt2_tokenizer",
           "train_bpe", "vocabulary_from_tokenizer"]
