"""The LLM agent against a real HTTP server on loopback that speaks the chat-completions protocol."""

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np
import pytest

from repbook.core import data_file
from repbook.papers.ar_bench import gn, llm, load_arbench


def consistent_policy(messages):
    """A scripted 'model': reads the feedback in the conversation and answers a consistent guess."""
    F = gn.feedback_matrix()
    mask = np.ones(5040, dtype=bool)
    for m in messages:
        hit = re.match(
            r"Feedback for (\d{4}): (\d) digits .* (\d) digits", m["content"]
        )
        if m["role"] == "user" and hit:
            g = gn.index_of(hit.group(1))
            mask &= F[g] == gn.encode(int(hit.group(2)), int(hit.group(3)))
    return f"Thinking... Guess: {gn.secret_strings()[int(np.flatnonzero(mask)[0])]}"


def detective_policy(messages):
    """A scripted detective: questions each suspect not yet cleared, accuses whoever has all three."""
    n = len(re.findall(r"\b[A-J]\. ", messages[0]["content"]))
    yes, cleared, asked = {i: set() for i in range(n)}, set(), set()
    for a, u in zip(messages, messages[1:]):
        cmd = llm.parse_dc_reply(a["content"], n) if a["role"] == "assistant" else None
        if cmd and cmd[0] == "ask" and u["role"] == "user":
            asked.add(cmd[1:])
            if " does not have " in u["content"]:
                cleared.add(cmd[1])
            elif " has " in u["content"]:
                yes[cmd[1]].add(cmd[2])
    for i in range(n):
        if len(yes[i]) == 3:
            return f"I am sure. Accuse: {llm.LETTERS[i]}"
    for i in range(n):
        for a in range(3):
            if i not in cleared and (i, a) not in asked:
                return f"Ask: {llm.LETTERS[i]} {llm._DC_ATTRS[a]}"
    return "no idea"


class Server:
    """`mode` scripts the reply: ok, hang, notjson, nochoices, http500, http503, http429, http401,
    babble. `script` is a list of modes used one per request before falling back to `mode`."""

    def __init__(self):
        self.mode, self.requests, self.script = "ok", [], []
        self.released = (
            threading.Event()
        )  # a hanging request waits for this (set at close)
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                outer.requests.append((self.path, dict(self.headers), body))
                mode = outer.script.pop(0) if outer.script else outer.mode
                if mode == "hang":  # never answers while the test runs
                    outer.released.wait(60)
                    return
                if mode.startswith("http"):
                    payload = b'{"error": "scripted failure"}'
                    self.send_response(int(mode[4:]))
                    if mode == "http429":
                        self.send_header("Retry-After", "0")
                else:
                    self.send_response(200)
                    if mode == "notjson":
                        payload = b"<html>oops</html>"
                    elif mode == "nochoices":
                        payload = b'{"choices": []}'
                    else:
                        msgs = body["messages"]
                        text = (
                            "I am not sure."
                            if mode == "babble"
                            else detective_policy(msgs)
                            if "detective" in msgs[0]["content"]
                            else consistent_policy(msgs)
                        )
                        payload = json.dumps(
                            {
                                "choices": [
                                    {"message": {"role": "assistant", "content": text}}
                                ]
                            }
                        ).encode()
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                try:
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self):
        self.released.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    s = Server()
    yield s
    s.close()


def client(server, timeout=60.0, key="sk-test", retries=0):
    """Generous timeouts: a busy machine must not turn a scripted reply into a timeout."""
    return llm.ChatClient(
        server.url, "scripted", key, timeout, retries=retries, backoff=0.01
    )


def test_protocol_and_a_solved_game(server):
    c = client(server)
    game = llm.play_gn_llm(c, "0521")
    assert game.solved and not game.error and 1 <= game.turns <= 10
    path, headers, body = server.requests[0]
    assert path == "/v1/chat/completions" and body["model"] == "scripted"
    assert body["messages"][0]["role"] == "system"
    assert headers["Authorization"] == "Bearer sk-test"
    assert "sk-test" not in repr(c)


def test_benchmark_over_several_secrets(server):
    games = llm.evaluate_gn_llm(client(server), ["1234", "9876", "0519"])
    assert all(g.solved for g in games)


def test_timeout_is_a_clear_error(server):
    server.mode = (
        "hang"  # the server never answers, so the timeout is certain, not a race
    )
    with pytest.raises(
        llm.LLMError, match=r"within 1.0 s \(timeout\) \(after 2 attempts\)"
    ):
        client(server, timeout=1.0, retries=1).complete(
            [{"role": "user", "content": "hi"}]
        )
    assert len(server.requests) == 2


@pytest.mark.parametrize("first", ["http429", "http503"])
def test_rate_limits_and_overload_are_retried(server, first):
    server.script = [first]
    assert "Guess" in client(server, retries=2).complete(
        [{"role": "user", "content": "hi"}]
    )
    assert len(server.requests) == 2


def test_a_persistent_500_is_a_clear_error_after_the_retries(server):
    server.mode = "http500"
    with pytest.raises(llm.LLMError, match=r"HTTP 500 .*\(after 3 attempts\)"):
        client(server, retries=2).complete([{"role": "user", "content": "hi"}])
    assert len(server.requests) == 3


def test_client_errors_are_not_retried_and_the_key_stays_secret(server):
    server.mode = "http401"
    with pytest.raises(llm.LLMError) as err:
        client(server, key="sk-very-secret", retries=3).complete(
            [{"role": "user", "content": "x"}]
        )
    assert len(server.requests) == 1 and "sk-very-secret" not in str(err.value)


def test_an_endpoint_without_a_key(server):
    assert "Guess" in client(server, key=None).complete(
        [{"role": "user", "content": "hi"}]
    )
    assert "Authorization" not in server.requests[0][1]


@pytest.mark.parametrize(
    "mode, match",
    [
        ("notjson", "did not answer JSON"),
        ("nochoices", "no choices"),
        ("http500", "HTTP 500"),
        ("http401", "HTTP 401"),
    ],
)
def test_bad_replies_are_clear_errors(server, mode, match):
    server.mode = mode
    with pytest.raises(llm.LLMError, match=match):
        client(server).complete([{"role": "user", "content": "hi"}])


def test_refused_connection_is_a_clear_error(server):
    url = server.url
    server.close()
    c = llm.ChatClient(url, "m", None, 10.0)
    with pytest.raises(llm.LLMError, match="cannot reach"):
        c.complete([{"role": "user", "content": "hi"}])
    server.httpd = type(
        "Dummy", (), {"shutdown": lambda self: None, "server_close": lambda self: None}
    )()


def test_errors_mid_benchmark_do_not_crash(server):
    server.mode = "http500"
    games = llm.evaluate_gn_llm(
        client(server),
        ["1234", "5678", "9012", "3456", "7890"],
        max_consecutive_errors=2,
    )
    assert len(games) == 5 and not any(g.solved for g in games)
    assert "HTTP 500" in games[0].error and games[-1].error.startswith("not played")
    assert len(server.requests) == 2  # gave up after two failed games


def test_unparsable_replies_lose_turns(server):
    server.mode = "babble"
    g = llm.play_gn_llm(client(server), "1234", max_turn=3)
    # three turns and the final answer, all unparsable
    assert not g.solved and g.invalid == 4 and g.error == "" and g.final == ""
    assert len(server.requests) == 4
    g = llm.play_gn_llm(client(server), "1234", max_turn=3, stop_at_win=True)
    assert not g.solved and g.invalid == 3 and len(server.requests) == 7


def test_official_rule_plays_every_turn_and_judges_the_final_answer(server):
    """All turns are played with feedback, a 4-bull guess too, then the final answer alone is
    judged: the scripted model repeats the secret once found, so it wins; a model that wanders
    off in its final answer loses, though a guess had 4 bulls (a win with `stop_at_win`)."""
    g = llm.play_gn_llm(client(server), "0521", max_turn=12)
    assert g.solved and g.final == "0521" and 1 <= g.turns <= 10
    assert len(server.requests) == 13 and len(g.guesses) == 13
    last = server.requests[-1][2]["messages"]
    assert "final answer" in last[-1]["content"]
    assert any(m["content"].startswith("Feedback for 0521: 4 digits") for m in last)

    server.script = ["ok"] * 12 + ["babble"]  # the final answer is unusable
    g = llm.play_gn_llm(client(server), "0521", max_turn=12)
    assert not g.solved and g.turns >= 1 and g.invalid == 1

    n = len(server.requests)
    g = llm.play_gn_llm(client(server), "0521", max_turn=12, stop_at_win=True)
    assert g.solved and g.final == "" and len(server.requests) - n == g.turns
    with pytest.raises(TypeError, match="stop_at_win"):
        llm.play_gn_llm(client(server), "0521", stop_at_win="yes")


def test_extract_guess():
    assert llm.extract_guess("first 1234 then Guess: 5678") == "5678"
    assert llm.extract_guess("Guess: 1, 2, 3, 4") == "1234"
    assert llm.extract_guess("try 0123") == "0123"
    assert llm.extract_guess("12345 no") is None
    assert llm.extract_guess("") is None


def test_client_settings(monkeypatch):
    monkeypatch.delenv(llm.BASE_ENV, raising=False)
    assert llm.client_from_settings("", "") is None
    monkeypatch.setenv("MY_KEY", "secret-value")
    c = llm.client_from_settings("http://127.0.0.1:9/v1", "m", key_env="MY_KEY")
    assert c.api_key == "secret-value" and "secret-value" not in repr(c)
    with pytest.raises(ValueError, match="no model"):
        llm.client_from_settings("http://127.0.0.1:9/v1", "")
    with pytest.raises(ValueError, match="base_url must be"):
        llm.ChatClient("ftp://x", "m")
    with pytest.raises(ValueError, match="timeout"):
        llm.ChatClient("http://127.0.0.1:9", "m", None, 0)
    with pytest.raises(ValueError, match="messages"):
        llm.ChatClient("http://127.0.0.1:9", "m").complete(["hi"])


# --- detective cases ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cases():
    return load_arbench(data_file("01_ar_bench", "dc_mini.json"))


def test_detective_cases_solved_through_the_menu(server, cases):
    results = llm.evaluate_dc_llm(client(server), cases)
    assert all(r.correct and not r.error and r.invalid == 0 for r in results)
    assert all(1 <= r.turns <= 15 and 0 <= r.process_score <= 1 for r in results)
    system = server.requests[0][2]["messages"][0]["content"]
    assert "A. " + cases[0].names[0] in system


def test_detective_babble_and_errors(server, cases):
    server.mode = "babble"
    r = llm.play_dc_llm(client(server), cases[0], max_turn=2)
    assert r.answer is None and not r.correct and r.invalid == 3 and r.turns == 0
    server.mode = "http401"
    out = llm.evaluate_dc_llm(client(server), cases, max_consecutive_errors=1)
    assert "HTTP 401" in out[0].error and all(
        o.error.startswith("not played") for o in out[1:]
    )


def test_parse_dc_reply():
    assert llm.parse_dc_reply("Ask: B motive", 5) == ("ask", 1, 0)
    assert llm.parse_dc_reply("ask: (c), weapon then Accuse: A", 5) == ("accuse", 0)
    assert llm.parse_dc_reply("Accuse: F", 5) is None  # only 5 suspects
    assert llm.parse_dc_reply("hmm", 5) is None


# --- summaries ----------------------------------------------------------------------------------
def test_summaries_of_llm_games():
    games = [
        llm.LLMGame("0521", ("1234", "0521"), 2, True, 0),
        llm.LLMGame("1234", ("5678",), 0, False, 2),
        llm.LLMGame("9876", ("9876",), 1, False, 1, final="1111"),
        llm.LLMGame("3456", (), 0, False, 0, error="HTTP 500"),
    ]
    s = llm.summarise_gn(games)
    assert (s.games, s.accuracy, s.hit, s.first_hit) == (4, 0.25, 0.5, 1.5)
    assert s.invalid == 3 and s.errors == ("HTTP 500",)
    assert s.describe("fixture secrets") == (
        "accuracy (final answer judged, the official rule) 0.25 on 4 fixture secrets; "
        "some guess had four bulls in 0.50, first four-bull guess at turn 1.5 on "
        "average; invalid replies 3; endpoint errors 1"
    )
    none = llm.summarise_gn([llm.LLMGame("0521", (), 0, False, 0)])
    assert none.accuracy == 0 and none.hit == 0 and np.isnan(none.first_hit)
    assert "first four-bull" not in none.describe()
    with pytest.raises(ValueError, match="at least one game"):
        llm.summarise_gn([])
    cases = [
        llm.LLMCase("a", ((0, 0),), 0, True, 4, 0, 0.5),
        llm.LLMCase("b", (), None, False, 0, 0, float("nan"), error="timeout"),
    ]
    d = llm.summarise_dc(cases)
    assert (d.accuracy, d.questions, d.process, d.errors) == (0.5, 2.0, 0.5, 1)
    assert d.describe() == (
        "accuracy 0.50, mean questions 2.0, process score 0.50, endpoint errors 1"
    )
