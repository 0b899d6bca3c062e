"""Coordinate merging: a SentencePiece BPE (`train_merger`) and a second implementation,
Hugging Face `tokenizers` (`train_merger_hf`)."""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np

from .meshes import CHAR_BASE
from .serializers import _as_tokens


# ---------------------------------------------------------------------------------------------
# coordinate merging (SentencePiece BPE)
def to_text(tokens) -> str:
    return "".join(chr(CHAR_BASE + int(x)) for x in tokens)


def from_text(text: str) -> np.ndarray:
    return np.fromiter(
        (ord(ch) - CHAR_BASE for ch in text), dtype=np.int64, count=len(text)
    )


@dataclass
class Merger:
    """A trained coordinate-merging vocabulary (SentencePiece BPE over the token alphabet).

    `piece_length[i]` is the number of base tokens in piece i (1 for the unknown piece and the
    separators).
    """

    model_proto: bytes
    alphabet_size: int
    separators: tuple[int, ...]
    vocab_size: int = 0
    piece_length: np.ndarray = field(default=None, repr=False)

    def __post_init__(self):
        import sentencepiece as spm

        self._sp = spm.SentencePieceProcessor(model_proto=self.model_proto)
        self.vocab_size = self._sp.get_piece_size()
        lengths = []
        for i in range(self.vocab_size):
            if self._sp.is_unknown(i) or self._sp.is_control(i):
                lengths.append(1)
            else:
                lengths.append(len(self._sp.id_to_piece(i)))
        self.piece_length = np.asarray(lengths, dtype=np.int64)

    def encode(self, tokens) -> np.ndarray:
        t = _as_tokens(tokens, "tokens")
        if t.size and (t.min() < 0 or t.max() >= self.alphabet_size):
            raise ValueError(
                f"tokens must lie in 0..{self.alphabet_size - 1}, got "
                f"[{t.min()}, {t.max()}]"
            )
        return np.asarray(self._sp.encode(to_text(t)), dtype=np.int64)

    def decode(self, ids) -> np.ndarray:
        return from_text(self._sp.decode([int(i) for i in ids]))

    def piece_tokens(self, piece_id: int) -> np.ndarray:
        """The base tokens of one piece."""
        return from_text(self._sp.id_to_piece(int(piece_id)))


def train_merger(
    sequences,
    *,
    alphabet_size: int,
    vocab_size: int,
    separators=(),
    max_piece_length: int = 16,
) -> Merger:
    """Train a SentencePiece BPE (the paper's coordinate merging) on token sequences.

    A first line holding every base token makes sure all of them are in the vocabulary; separators
    are user-defined symbols, so no merged piece contains one. Normalisation, dummy prefix and
    script/number/whitespace splitting are off; runs single-threaded and is deterministic.
    """
    import sentencepiece as spm

    seqs = [_as_tokens(s, "sequence") for s in sequences]
    if not seqs or all(s.size == 0 for s in seqs):
        raise ValueError("sequences must hold at least one non-empty sequence")
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, (int, np.integer)):
        raise ValueError(f"vocab_size must be an int, got {vocab_size!r}")
    if vocab_size <= alphabet_size + 1:
        raise ValueError(
            f"vocab_size must exceed the alphabet ({alphabet_size}) + 1 unknown piece, "
            f"got {vocab_size}"
        )
    for s in seqs:
        if s.size and (s.min() < 0 or s.max() >= alphabet_size):
            raise ValueError(
                f"sequence tokens must lie in 0..{alphabet_size - 1}, got "
                f"[{s.min()}, {s.max()}]"
            )
    lines = [to_text(range(alphabet_size))] + [to_text(s) for s in seqs if s.size]
    max_bytes = max(len(line.encode("utf-8")) for line in lines) + 16
    buf = io.BytesIO()
    spm.SentencePieceTrainer.train(
        sentence_iterator=iter(lines),
        model_writer=buf,
        model_type="bpe",
        vocab_size=int(vocab_size),
        character_coverage=1.0,
        user_defined_symbols=[chr(CHAR_BASE + s) for s in separators],
        max_sentence_length=max_bytes,
        max_sentencepiece_length=int(max_piece_length),
        split_by_unicode_script=False,
        split_by_number=False,
        split_by_whitespace=False,
        split_digits=False,
        add_dummy_prefix=False,
        remove_extra_whitespaces=False,
        normalization_rule_name="identity",
        unk_id=0,
        bos_id=-1,
        eos_id=-1,
        pad_id=-1,
        num_threads=1,
        minloglevel=2,
        hard_vocab_limit=False,
        input_sentence_size=0,
        shuffle_input_sentence=False,
    )
    return Merger(buf.getvalue(), alphabet_size, tuple(int(s) for s in separators))


# ---------------------------------------------------------------------------------------------
# a second BPE implementation (Hugging Face `tokenizers`), run side by side with SentencePiece
class HFMerger:
    """Coordinate merging with the Hugging Face `tokenizers` BPE; same interface as Merger."""

    def __init__(self, tokenizer, alphabet_size: int, separators: tuple[int, ...]):
        self._tok = tokenizer
        self.alphabet_size = alphabet_size
        self.separators = separators
        self.vocab_size = tokenizer.get_vocab_size()
        self.piece_length = np.asarray(
            [
                1
                if tokenizer.id_to_token(i) == "[UNK]"
                else len(tokenizer.id_to_token(i))
                for i in range(self.vocab_size)
            ],
            dtype=np.int64,
        )

    def encode(self, tokens) -> np.ndarray:
        t = _as_tokens(tokens, "tokens")
        if t.size and (t.min() < 0 or t.max() >= self.alphabet_size):
            raise ValueError(
                f"tokens must lie in 0..{self.alphabet_size - 1}, got "
                f"[{t.min()}, {t.max()}]"
            )
        return np.asarray(self._tok.encode(to_text(t)).ids, dtype=np.int64)

    def decode(self, ids) -> np.ndarray:
        return from_text("".join(self._tok.id_to_token(int(i)) for i in ids))


def train_merger_hf(
    sequences,
    *,
    alphabet_size: int,
    vocab_size: int,
    separators=(),
    max_piece_length: int = 16,
) -> HFMerger:
    """Train a Hugging Face `tokenizers` BPE on token sequences; separators are split off before
    merging, so no piece contains one. Deterministic for a given corpus."""
    from tokenizers import Regex, Tokenizer, models, pre_tokenizers, trainers

    seqs = [_as_tokens(s, "sequence") for s in sequences]
    if not seqs or all(s.size == 0 for s in seqs):
        raise ValueError("sequences must hold at least one non-empty sequence")
    if (
        isinstance(vocab_size, bool)
        or not isinstance(vocab_size, (int, np.integer))
        or vocab_size <= alphabet_size + 1
    ):
        raise ValueError(
            f"vocab_size must be an int above the alphabet ({alphabet_size}) + 1, "
            f"got {vocab_size!r}"
        )
    for s in seqs:
        if s.size and (s.min() < 0 or s.max() >= alphabet_size):
            raise ValueError(
                f"sequence tokens must lie in 0..{alphabet_size - 1}, got "
                f"[{s.min()}, {s.max()}]"
            )
    tok = Tokenizer(models.BPE(unk_token="[UNK]"))
    if separators:
        pattern = "[" + "".join(chr(CHAR_BASE + s) for s in separators) + "]"
        tok.pre_tokenizer = pre_tokenizers.Split(Regex(pattern), behavior="isolated")
    trainer = trainers.BpeTrainer(
        vocab_size=int(vocab_size),
        special_tokens=["[UNK]"],
        initial_alphabet=[chr(CHAR_BASE + i) for i in range(alphabet_size)],
        limit_alphabet=alphabet_size,
        max_token_length=int(max_piece_length),
        show_progress=False,
    )
    tok.train_from_iterator([to_text(s) for s in seqs if s.size], trainer=trainer)
    return HFMerger(tok, alphabet_size, tuple(int(s) for s in separators))
