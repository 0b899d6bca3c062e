"""Random valid texts for the chapter's grammars, written independently of the decoder.

`random_json` follows SynCode's json.lark: the top level is an object or an array,
strings are `"…"` with at least one character and no `"` (no escapes), numbers are
SIGNED_NUMBER (optional sign, integer / decimal / exponent forms). `random_calc` follows
SynCode's calc.lark: + − * / and parentheses over lark's common NUMBER. Whitespace is
inserted where %ignore allows it.
"""

from __future__ import annotations

import numpy as np

from repbook.core import checks

_CHARS = list(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-.:,{}[]'\\/"
)
_CHARS += ["é", "ü", "中", "€", "😀", "\n", "\t"]
_WS = [" ", "  ", "\n", "\n  ", "\t"]


def _ws(rng: np.random.Generator, p: float = 0.3) -> str:
    return _WS[rng.integers(len(_WS))] if rng.random() < p else ""


def _number(rng: np.random.Generator) -> str:
    sign = ["", "", "-", "+"][rng.integers(4)]
    digits = "".join(str(d) for d in rng.integers(0, 10, rng.integers(1, 5)))
    frac = "".join(str(d) for d in rng.integers(0, 10, rng.integers(1, 4)))
    form = rng.integers(5)
    body = [digits, f"{digits}.{frac}", f"{digits}.", f".{frac}", f"{digits}.{frac}"][
        form
    ]
    if rng.random() < 0.25:
        body += (
            ["e", "E"][rng.integers(2)]
            + ["", "-", "+"][rng.integers(3)]
            + str(rng.integers(0, 40))
        )
    return sign + body


def _string(rng: np.random.Generator) -> str:
    n = rng.integers(1, 9)
    return '"' + "".join(_CHARS[i] for i in rng.integers(0, len(_CHARS), n)) + '"'


def _value(rng: np.random.Generator, depth: int) -> str:
    kind = rng.integers(7 if depth < 3 else 5)
    if kind == 0:
        return _number(rng)
    if kind == 1:
        return _string(rng) if rng.random() < 0.9 else '""'
    if kind == 2:
        return ["true", "false", "null"][rng.integers(3)]
    if kind in (3, 4) and depth >= 3:
        return _number(rng)
    return _container(rng, depth + 1, obj=bool(kind % 2))


def _container(rng: np.random.Generator, depth: int, obj: bool) -> str:
    n = rng.integers(0, 5)
    items = []
    for _ in range(n):
        v = _ws(rng) + _value(rng, depth) + _ws(rng)
        items.append(_ws(rng) + _string(rng) + _ws(rng) + ":" + v if obj else v)
    body = ",".join(items) if items else _ws(rng)
    return ("{" if obj else "[") + body + ("}" if obj else "]")


def random_json(rng: np.random.Generator) -> str:
    """One random document of SynCode's JSON grammar (possibly with leading
    whitespace)."""
    return _ws(rng, 0.2) + _container(rng, 0, obj=bool(rng.random() < 0.6))


def _calc_number(rng: np.random.Generator) -> str:
    return _number(rng).lstrip("+-")


def _expr(rng: np.random.Generator, depth: int) -> str:
    if depth >= 4 or (depth > 0 and rng.random() < 0.35):
        return (
            _calc_number(rng)
            if depth >= 4 or rng.random() < 0.8
            else "(" + _ws(rng) + _expr(rng, depth + 1) + _ws(rng) + ")"
        )
    op = "+-*/"[rng.integers(4)]
    return _expr(rng, depth + 1) + _ws(rng) + op + _ws(rng) + _expr(rng, depth + 1)


def random_calc(rng: np.random.Generator) -> str:
    """One random expression of SynCode's calc grammar."""
    return _expr(rng, 0)


def random_prefixes(grammar, generate, n: int, rng: np.random.Generator) -> list[str]:
    """`n` prefixes: each a random document of `generate(rng)` cut at a random character
    (from the empty prefix to the whole document). Every document is first checked to
    parse both with lark's own LALR parser on `grammar.text` and with `grammar.accepts`;
    ValueError if not."""
    import lark

    checks.integer("n", n, at_least=1)
    lk = lark.Lark(grammar.text, parser="lalr")
    out = []
    while len(out) < n:
        doc = generate(rng)
        try:
            lk.parse(doc)
        except lark.exceptions.LarkError as exc:
            raise ValueError(
                f"generated document {doc[:60]!r} does not parse with "
                f"lark: {str(exc).splitlines()[0]}"
            ) from exc
        if not grammar.accepts(doc):
            raise ValueError(
                f"generated document {doc[:60]!r} is rejected by our parser"
            )
        out.append(doc[: int(rng.integers(0, len(doc) + 1))])
    return out


def lark_parses(grammar_text: str):
    """A function telling whether a byte string is a complete sentence of
    `grammar_text`, decided by lark's own LALR parser and lexer (independent of ours);
    invalid UTF-8 is not."""
    import lark

    lk = lark.Lark(grammar_text, parser="lalr")

    def parses(data: bytes) -> bool:
        try:
            lk.parse(data.decode("utf-8"))
            return True
        except (UnicodeDecodeError, lark.exceptions.LarkError):
            return False

    return parses
