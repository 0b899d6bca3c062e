"""A minimal client for OpenAI-compatible chat endpoints and LLM agents for guessing numbers and for
detective cases (questions from a fixed menu, answered by the structured simulator's facts).

Protocol: POST ``{base_url}/chat/completions`` with JSON ``{"model", "messages", "temperature"}``
and read ``choices[0].message.content``. The request is made with the standard library
(`urllib.request`); the `openai` package would do the same with a dependency tree (pydantic,
httpx) the book does not otherwise need. A hosted endpoint sheds load with HTTP 429 and 5xx
replies, so the request is retried with exponential backoff and jitter (`tenacity`): HTTP 429,
500, 502, 503 and 504, timeouts and dropped connections are retried (a `Retry-After` header is
honoured, up to `max_wait`), other failures are not. The API key comes from an environment
variable (default ``REPBOOK_LLM_API_KEY``), is sent as a bearer token and is never part of a repr,
an error message or a log line. Every failure that remains after the retries (timeout, refused
connection, HTTP 4xx/5xx, a reply that is not JSON or lacks the content) raises `LLMError` with a
sentence saying what went wrong; the benchmark loop records it and moves on instead of crashing.
"""

from __future__ import annotations

import json
import os
import re
import socket
import urllib.error
import urllib.request
from dataclasses import dataclass, field

import numpy as np
import tenacity

from . import gn, metrics

KEY_ENV = "REPBOOK_LLM_API_KEY"
BASE_ENV = "REPBOOK_LLM_BASE_URL"
MODEL_ENV = "REPBOOK_LLM_MODEL"


class LLMError(RuntimeError):
    """The chat endpoint could not be reached or gave an unusable reply."""


class _Transient(LLMError):
    """A failure worth another attempt (rate limit, overload, timeout, dropped connection)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


RETRY_STATUS = (429, 500, 502, 503, 504)


def _retry_after(headers) -> float | None:
    try:
        value = float(headers.get("Retry-After", ""))
    except (TypeError, ValueError):
        return None
    return value if value >= 0 else None


@dataclass(frozen=True)
class ChatClient:
    """An OpenAI-compatible chat endpoint. `retries` extra attempts follow a transient failure,
    waiting `backoff`·2^k seconds (with jitter, at most `max_wait`) or what `Retry-After` asks."""

    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 60.0
    retries: int = 4
    backoff: float = 1.0
    max_wait: float = 30.0

    def __post_init__(self):
        if not isinstance(self.base_url, str) or not re.match(
            r"^https?://[^\s/]+", self.base_url
        ):
            raise ValueError(
                f"base_url must be an http(s) URL such as http://127.0.0.1:8000/v1, "
                f"got {self.base_url!r}"
            )
        if not isinstance(self.model, str) or not self.model.strip():
            raise ValueError(f"model must be a non-empty string, got {self.model!r}")
        if not (isinstance(self.timeout, (int, float)) and self.timeout > 0):
            raise ValueError(
                f"timeout must be a positive number of seconds, got {self.timeout!r}"
            )
        if not (isinstance(self.retries, int) and self.retries >= 0):
            raise ValueError(f"retries must be an int ≥ 0, got {self.retries!r}")
        for name in ("backoff", "max_wait"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and value >= 0):
                raise ValueError(
                    f"{name} must be a number of seconds ≥ 0, got {value!r}"
                )

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def _wait(self, state: tenacity.RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        asked = getattr(exc, "retry_after", None)
        if asked is not None:
            return min(asked, self.max_wait)
        expo = tenacity.wait_random_exponential(
            multiplier=self.backoff, max=self.max_wait
        )
        return expo(state)

    def complete(self, messages: list[dict], *, temperature: float = 0.0) -> str:
        """Send one chat request (retrying transient failures) and return the reply text."""
        if not isinstance(messages, list) or not all(
            isinstance(m, dict) and {"role", "content"} <= set(m) for m in messages
        ):
            raise ValueError(
                "messages must be a list of {'role': ..., 'content': ...} dicts"
            )
        body = json.dumps(
            {"model": self.model, "messages": messages, "temperature": temperature}
        ).encode()
        attempts = self.retries + 1
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(attempts),
            wait=self._wait,
            retry=tenacity.retry_if_exception_type(_Transient),
            reraise=True,
        )
        try:
            raw = retrying(self._post, body)
        except _Transient as exc:
            tries = f" (after {attempts} attempts)" if attempts > 1 else ""
            raise LLMError(f"{exc}{tries}") from None
        return self._content(raw)

    def _post(self, body: bytes) -> bytes:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(
            self.url, data=body, headers=headers, method="POST"
        )
        timeout_msg = f"no reply from {self.url} within {self.timeout} s (timeout)"
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read(300).decode("utf-8", "replace").strip()
            msg = f"the endpoint {self.url} answered HTTP {exc.code} {exc.reason}" + (
                f": {detail}" if detail else ""
            )
            if exc.code in RETRY_STATUS:
                raise _Transient(msg, _retry_after(exc.headers)) from None
            raise LLMError(msg) from None
        except (socket.timeout, TimeoutError):
            raise _Transient(timeout_msg) from None
        except urllib.error.URLError as exc:
            if isinstance(exc.reason, (socket.timeout, TimeoutError)):
                raise _Transient(timeout_msg) from None
            if isinstance(exc.reason, (ConnectionResetError, ConnectionAbortedError)):
                raise _Transient(
                    f"the connection to {self.url} dropped: {exc.reason}"
                ) from None
            # refused, unknown host, or the book's network guard: another attempt will not help
            raise LLMError(f"cannot reach {self.url}: {exc.reason}") from None
        except ConnectionRefusedError as exc:
            raise LLMError(f"cannot reach {self.url}: {exc}") from None
        except (ConnectionResetError, ConnectionAbortedError, BrokenPipeError) as exc:
            raise _Transient(f"the connection to {self.url} dropped: {exc}") from None
        except ConnectionError as exc:  # includes the book's network guard
            raise LLMError(f"cannot reach {self.url}: {exc}") from None

    def _content(self, raw: bytes) -> str:
        try:
            reply = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError):
            raise LLMError(
                f"the endpoint {self.url} did not answer JSON: "
                f"{raw[:80].decode('utf-8', 'replace')!r}"
            ) from None
        try:
            content = reply["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise LLMError(
                f"the reply from {self.url} has no choices[0].message.content: "
                f"{json.dumps(reply)[:120]}"
            ) from None
        if not isinstance(content, str):
            raise LLMError(
                f"choices[0].message.content from {self.url} is not text: {content!r}"
            )
        return content


def client_from_settings(
    base_url: str = "",
    model: str = "",
    *,
    key_env: str = KEY_ENV,
    timeout: float = 60.0,
) -> ChatClient | None:
    """A client from notebook parameters, falling back to $REPBOOK_LLM_BASE_URL / $REPBOOK_LLM_MODEL;
    None when no base URL is set (the LLM agent is off by default). The key is read from `key_env`."""
    base_url = base_url or os.environ.get(BASE_ENV, "")
    model = model or os.environ.get(MODEL_ENV, "")
    if not base_url:
        return None
    if not model:
        raise ValueError(
            f"an LLM base URL is set ({base_url!r}) but no model: set llm_model or ${MODEL_ENV}"
        )
    return ChatClient(base_url, model, os.environ.get(key_env) or None, timeout)


# ----------------------------------------------------------------------------------------------
RULES = (
    "We play a number-guessing game. I hold a secret of 4 different digits (0-9; it may start "
    "with 0). Each turn you guess 4 different digits and I say how many of your digits are in "
    "the secret at the same position, and how many are in the secret at another position. The "
    "game lasts {turns} turns; then you give one final answer, which alone decides the game. "
    "Reply with your reasoning if you like, but end with 'Guess: dddd'."
)


def extract_guess(text: str) -> str | None:
    """The last run of exactly 4 digits in a reply (also accepts 'd, d, d, d' after 'Guess:')."""
    m = re.findall(r"guess:\s*([0-9](?:[\s,]*[0-9]){3})\b", text or "", flags=re.I)
    if m:
        return re.sub(r"[\s,]", "", m[-1])
    runs = re.findall(r"(?<!\d)\d{4}(?!\d)", text or "")
    return runs[-1] if runs else None


FINAL = (
    "All {turns} turns are over. Based on the guesses and the feedback above, give your final "
    "answer, ending with 'Guess: dddd'."
)


@dataclass(frozen=True)
class LLMGame:
    """One GN game. `solved` follows the official evaluator for plain prompting (zero-shot and
    few-shot): all turns are played, then the final answer alone is judged. `turns` is the turn
    of the first 4-bull guess (0 if none); with `stop_at_win` the game ends there and `solved`
    means a 4-bull guess within the budget (the rule of the official ToT, UoT and proactive-CoT
    runs)."""

    secret: str
    guesses: tuple[str, ...]
    turns: int  # turn of the first 4-bull guess (0 if none)
    solved: bool
    invalid: int  # replies without a usable guess (the final answer included)
    error: str = ""  # the LLMError that ended the game, if any
    final: str = (
        ""  # the final answer ("" if none was given or the game stopped at a win)
    )


def play_gn_llm(
    client: ChatClient,
    secret: str,
    *,
    max_turn: int = gn.MAX_TURN,
    temperature: float = 0.0,
    stop_at_win: bool = False,
) -> LLMGame:
    """One GN game against a chat endpoint; an endpoint failure ends the game with `error` set.

    By default the official rule for plain prompting: `max_turn` guesses, each answered with its
    feedback (a 4-bull guess too), then a request for the final answer, which alone decides
    `solved`. With `stop_at_win`, the game ends at the first 4-bull guess (solved)."""
    if not gn.is_valid_secret(secret):
        raise ValueError(f"secret must be 4 distinct digits, got {secret!r}")
    if not isinstance(stop_at_win, bool):
        raise TypeError(f"stop_at_win must be True or False, got {stop_at_win!r}")
    messages = [{"role": "system", "content": RULES.format(turns=max_turn)}]
    guesses, invalid, first_win = [], 0, 0

    def ask(content):
        messages.append({"role": "user", "content": content})
        reply = client.complete(messages, temperature=temperature)
        messages.append({"role": "assistant", "content": reply})
        guess = extract_guess(reply)
        return guess if guess is not None and gn.is_valid_secret(guess) else None, (
            guess or ""
        )

    for t in range(1, max_turn + 1):
        try:
            guess, raw = ask(f"Turn {t}: your guess?")
        except LLMError as exc:
            return LLMGame(secret, tuple(guesses), first_win, False, invalid, str(exc))
        if guess is None:
            invalid += 1
            guesses.append(raw)
            messages.append(
                {
                    "role": "user",
                    "content": "That is not 4 different digits; the turn "
                    "is lost. End your reply with 'Guess: dddd'.",
                }
            )
            continue
        guesses.append(guess)
        bulls, cows, _ = gn.compare_guess(secret, guess)
        if bulls == gn.N_DIGITS and not first_win:
            first_win = t
            if stop_at_win:
                return LLMGame(secret, tuple(guesses), t, True, invalid)
        messages.append(
            {
                "role": "user",
                "content": f"Feedback for {guess}: {gn.feedback_text(bulls, cows)}.",
            }
        )
    if stop_at_win:
        return LLMGame(secret, tuple(guesses), 0, False, invalid)
    try:
        final, raw = ask(FINAL.format(turns=max_turn))
    except LLMError as exc:
        return LLMGame(secret, tuple(guesses), first_win, False, invalid, str(exc))
    if final is None:
        invalid += 1
    guesses.append(final or raw)
    return LLMGame(
        secret, tuple(guesses), first_win, final == secret, invalid, "", final or ""
    )


def evaluate_gn_llm(
    client: ChatClient,
    secrets,
    *,
    max_turn: int = gn.MAX_TURN,
    max_consecutive_errors: int = 3,
    stop_at_win: bool = False,
) -> list[LLMGame]:
    """Play every secret; after `max_consecutive_errors` games ended by endpoint errors in a row,
    the remaining games are recorded as not played (same error) instead of waiting on a dead server.
    `stop_at_win` as in `play_gn_llm` (off: the official rule for plain prompting)."""
    return _evaluate(
        lambda s: play_gn_llm(client, s, max_turn=max_turn, stop_at_win=stop_at_win),
        secrets,
        max_consecutive_errors,
        lambda s, err: LLMGame(s, (), 0, False, 0, err),
    )


# ----------------------------------------------------------------------------------------------
# detective cases through a menu of structured questions
DC_RULES = (
    "You are a detective. {victim} was murdered. The suspects are: {choices}. Exactly one "
    "of them is the murderer, and the murderer is the only suspect with a motive, the "
    "opportunity and access to the weapon. Each turn, either question one suspect about one "
    "of motive, opportunity or weapon, replying 'Ask: <letter> <motive|opportunity|weapon>', "
    "or name the murderer, replying 'Accuse: <letter>'. You may ask {turns} questions."
)
_DC_ATTRS = ("motive", "opportunity", "weapon")
_DC_PHRASE = ("a motive", "the opportunity", "access to the weapon")
LETTERS = "ABCDEFGHIJ"


def parse_dc_reply(text: str, n_suspects: int):
    """('accuse', i), ('ask', i, attribute) or None, from the last command in a reply."""
    found = []
    for m in re.finditer(
        r"(accuse)\s*:\s*\(?([A-J])\b|(ask)\s*:\s*\(?([A-J])\)?[\s,]+(motive|opportunity|weapon)",
        text or "",
        flags=re.I,
    ):
        if m.group(1):
            found.append(("accuse", LETTERS.index(m.group(2).upper())))
        else:
            found.append(
                (
                    "ask",
                    LETTERS.index(m.group(4).upper()),
                    _DC_ATTRS.index(m.group(5).lower()),
                )
            )
    found = [f for f in found if f[1] < n_suspects]
    return found[-1] if found else None


@dataclass(frozen=True)
class LLMCase:
    index: str
    questions: tuple[tuple[int, int], ...]
    answer: int | None
    correct: bool
    turns: int
    invalid: int
    process_score: float
    error: str = ""


def play_dc_llm(
    client: ChatClient,
    case,
    *,
    max_turn: int = 25,
    victim: str = "The victim",
    temperature: float = 0.0,
) -> LLMCase:
    """One detective case: the model asks structured questions, answered from `case.facts`."""
    n = len(case.names)
    if n > len(LETTERS):
        raise ValueError(f"a case may have at most {len(LETTERS)} suspects, got {n}")
    choices = ", ".join(f"{LETTERS[i]}. {nm}" for i, nm in enumerate(case.names))
    messages = [
        {
            "role": "system",
            "content": DC_RULES.format(victim=victim, choices=choices, turns=max_turn),
        }
    ]
    asked, invalid, answer = [], 0, None

    def result(error=""):
        score = (
            len(set(asked) & case.key_pairs) / case.n_key_questions
            if case.n_key_questions
            else float("nan")
        )
        return LLMCase(
            case.index,
            tuple(asked),
            answer,
            answer == case.label,
            len(asked),
            invalid,
            score,
            error,
        )

    for t in range(1, max_turn + 2):
        final = t > max_turn
        messages.append(
            {
                "role": "user",
                "content": "No questions left: reply 'Accuse: <letter>'."
                if final
                else f"Question {t} of {max_turn}: ask or accuse.",
            }
        )
        try:
            reply = client.complete(messages, temperature=temperature)
        except LLMError as exc:
            return result(str(exc))
        messages.append({"role": "assistant", "content": reply})
        cmd = parse_dc_reply(reply, n)
        if cmd is not None and cmd[0] == "accuse":
            answer = cmd[1]
            return result()
        if final or cmd is None:
            invalid += 1
            if final:
                return result()
            messages.append(
                {
                    "role": "user",
                    "content": "Reply with 'Ask: <letter> <motive|opportunity"
                    "|weapon>' or 'Accuse: <letter>'.",
                }
            )
            continue
        _, i, a = cmd
        asked.append((i, a))
        has = case.facts[i][a]
        messages.append(
            {
                "role": "user",
                "content": f"{case.names[i]} {'has' if has else 'does not have'} "
                f"{_DC_PHRASE[a]}, according to the case file.",
            }
        )
    return result()


def _evaluate(play, items, max_consecutive_errors: int, not_played):
    out, streak = [], 0
    for item in items:
        if streak >= max_consecutive_errors:
            out.append(not_played(item, f"not played: {out[-1].error}"))
            continue
        g = play(item)
        streak = streak + 1 if g.error else 0
        out.append(g)
    return out


def evaluate_dc_llm(
    client: ChatClient, cases, *, max_turn: int = 25, max_consecutive_errors: int = 3
) -> list[LLMCase]:
    """Every case in turn; gives up on the rest after repeated endpoint errors (recorded per case)."""
    return _evaluate(
        lambda c: play_dc_llm(client, c, max_turn=max_turn),
        cases,
        max_consecutive_errors,
        lambda c, err: LLMCase(c.index, (), None, False, 0, 0, float("nan"), err),
    )


# ----------------------------------------------------------------------------------------------
# what a chapter reads from a run of LLM games
@dataclass(frozen=True)
class GNSummary:
    """GN games of an LLM: `accuracy` by the official rule (the final answer judged), `hit` the
    share of games with a four-bull guess, `first_hit` the mean turn of the first one (NaN when
    none), `invalid` replies and endpoint `errors` (one per game that ended with one)."""

    games: int
    accuracy: float
    hit: float
    first_hit: float
    invalid: int
    errors: tuple[str, ...]

    def describe(self, secrets: str = "secrets") -> str:
        """The summary in words (`secrets` names what was played, e.g. "fixture secrets")."""
        first = f", first four-bull guess at turn {self.first_hit:.1f} on average"
        return (
            f"accuracy (final answer judged, the official rule) {self.accuracy:.2f} on "
            f"{self.games} {secrets}; some guess had four bulls in {self.hit:.2f}"
            + (first if self.hit > 0 else "")
            + f"; invalid replies {self.invalid}; endpoint errors {len(self.errors)}"
        )


def summarise_gn(games) -> GNSummary:
    """The numbers of `GNSummary` from `evaluate_gn_llm`'s games (at least one)."""
    hit = [g.turns > 0 for g in games]
    return GNSummary(
        len(games),
        metrics.accuracy([g.solved for g in games]),
        metrics.accuracy(hit),
        metrics.mean_turns([g.turns for g in games], hit) if any(hit) else np.nan,
        sum(g.invalid for g in games),
        tuple(g.error for g in games if g.error),
    )


@dataclass(frozen=True)
class DCSummary:
    """Detective cases played by an LLM: accuracy, mean questions, mean process score (cases
    without key questions left out) and how many cases ended with an endpoint error."""

    accuracy: float
    questions: float
    process: float
    errors: int

    def describe(self) -> str:
        """The summary in words."""
        return (
            f"accuracy {self.accuracy:.2f}, mean questions {self.questions:.1f}, process "
            f"score {self.process:.2f}, endpoint errors {self.errors}"
        )


def summarise_dc(cases) -> DCSummary:
    """The numbers of `DCSummary` from `evaluate_dc_llm`'s cases (at least one)."""
    return DCSummary(
        metrics.accuracy([c.correct for c in cases]),
        np.mean([c.turns for c in cases]),
        np.nanmean([c.process_score for c in cases]),
        sum(bool(c.error) for c in cases),
    )
