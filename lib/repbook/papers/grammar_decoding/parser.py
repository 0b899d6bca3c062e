"""A lark grammar as data: terminals for the lexer DFA and lark's LALR(1) table,
integer-coded.

Only the *table* comes from lark (its LALR analyser); the parser that runs on it is
ours: a state stack that is a tuple, so configurations can be hashed and memoised by the
online mask step.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .lexer import LexerDFA, Terminal, build_dfa

END = "$END"


@dataclass
class Grammar:
    """A grammar ready for constrained decoding.

    terminals   Terminal objects; index i is terminal id i (ignored terminals included).
    dfa         the combined longest-match lexer DFA (labels are terminal ids).
    actions     per LR state, {terminal id: (shift?, target state or
                (lhs id, rhs length))}; terminal id len(terminals) is END.
    gotos       per LR state, {nonterminal name: state}.
    start       initial LR state; end_state: the state whose appearance on END means
                accept.
    """

    text: str
    terminals: tuple[Terminal, ...]
    dfa: LexerDFA
    actions: list[dict]
    gotos: list[dict]
    start: int
    end_state: int
    term_index: dict = field(default_factory=dict)

    @property
    def end(self) -> int:
        return len(self.terminals)

    @property
    def ignored(self) -> frozenset:
        return frozenset(i for i, t in enumerate(self.terminals) if t.ignore)

    # -- the LR automaton --------------------------------------------------------------
    def advance(self, stack: tuple, term: int):
        """Feed one terminal id to the configuration `stack`; the new stack, or None on
        error.

        For END, returns the accepting stack (the end state on top) or None.
        """
        actions, gotos = self.actions, self.gotos
        while True:
            act = actions[stack[-1]].get(term)
            if act is None:
                return None
            shift, arg = act
            if shift:
                return stack + (arg,)
            lhs, size = arg
            if size:
                stack = stack[:-size]
            stack = stack + (gotos[stack[-1]][lhs],)
            if term == self.end and stack[-1] == self.end_state:
                return stack

    def parse_terminals(self, names) -> bool:
        """True if the sequence of terminal names is a complete sentence of the
        grammar."""
        stack = (self.start,)
        for name in names:
            stack = self.advance(stack, self.term_index[name])
            if stack is None:
                return False
        return self.advance(stack, self.end) is not None

    def accepts(self, text: str | bytes) -> bool:
        """True if `text` lexes and parses completely."""
        try:
            names = self.dfa.tokenize(text)
        except ValueError:
            return False
        return self.parse_terminals(names)


def load_grammar(
    text: str,
    *,
    start: str = "start",
    strip_priorities: bool = False,
    max_states: int = 20_000,
) -> Grammar:
    """Compile lark grammar `text`: terminals, %ignore, priorities and the LALR(1)
    table.

    `strip_priorities` drops rule priorities (`rule.N:`), which lark's LALR does not
    support. Raises ValueError (naming the problem) for grammars lark rejects or that
    need features a byte DFA cannot express (declared terminals, postlexers).
    """
    import re as _re

    import lark
    from lark.parsers.lalr_analysis import Shift

    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"grammar text must be a non-empty str, got {text!r:.60}")
    if strip_priorities:
        text = _re.sub(
            r"^(\??[a-z_][a-z_0-9]*)\.-?\d+(\s*:)", r"\1\2", text, flags=_re.M
        )
    try:
        lk = lark.Lark(text, parser="lalr", start=start, lexer="basic")
    except lark.exceptions.LarkError as exc:
        raise ValueError(
            f"lark rejected the grammar: {str(exc).splitlines()[0]}"
        ) from exc
    ignore = set(lk.ignore_tokens)
    terms = []
    for td in lk.terminals:
        if td.pattern is None:
            raise ValueError(
                f"terminal {td.name} has no pattern (%declare is not supported)"
            )
        terms.append(
            Terminal(
                td.name,
                td.pattern.to_regexp(),
                td.priority,
                type(td.pattern).__name__ == "PatternStr",
                td.name in ignore,
            )
        )
    terms = tuple(terms)
    index = {t.name: i for i, t in enumerate(terms)}
    index[END] = len(terms)
    dfa = build_dfa(terms, max_states=max_states)
    table = lk.parser.parser.parser.parse_table
    n = len(table.states)
    actions: list[dict] = [dict() for _ in range(n)]
    gotos: list[dict] = [dict() for _ in range(n)]
    for st, row in table.states.items():
        for sym, (act, arg) in row.items():
            if sym in index:
                actions[st][index[sym]] = (
                    (True, arg)
                    if act is Shift
                    else (False, (arg.origin.name, len(arg.expansion)))
                )
            else:
                gotos[st][sym] = arg
    g = Grammar(
        text,
        terms,
        dfa,
        actions,
        gotos,
        table.start_states[start],
        table.end_states[start],
        index,
    )
    return g


def grammar_size(text: str) -> dict[str, int]:
    """How large a lark grammar's lexer and grammar are: terminals (those with a
    pattern), states of the
    combined byte-level lexer DFA (as `load_grammar` builds it) and rules. Read with
    lark's Earley front end, so that grammars lark's LALR analysis rejects (e.g.
    SynCode's Go) can be measured too. ValueError for what a DFA cannot lex."""
    import lark

    try:
        lk = lark.Lark(text, parser="earley", lexer="basic")
    except lark.exceptions.LarkError as exc:
        raise ValueError(
            f"lark rejected the grammar: {str(exc).splitlines()[0]}"
        ) from exc
    ignore = set(lk.ignore_tokens)
    terms = tuple(
        Terminal(
            td.name,
            td.pattern.to_regexp(),
            td.priority,
            type(td.pattern).__name__ == "PatternStr",
            td.name in ignore,
        )
        for td in lk.terminals
        if td.pattern is not None
    )
    dfa = build_dfa(terms, max_states=100_000)
    return {
        "terminals": len(terms),
        "lexer states": dfa.n_states,
        "rules": len(lk.rules),
    }
