"""Untrusted servers and judge caches (issue 14, item 6): a total deadline per request, a body cap,
answers that are not completions refused (E503), a corrupt cache named (E502).

The servers here are real HTTP servers on loopback that behave as an attacker's (or a broken proxy's)
would; the judge's normal path runs against real `vllm serve` in test_judge.py.
"""
from __future__ import annotations

import http.server
import json
import re
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from rulekit.cli import main
from rulekit.core.errors import RulekitError
from rulekit.llm import client as openai_api
from rulekit.llm.client import OpenAIClient

CLI = Path(__file__).parent / "fixtures" / "cli"
COMPLETION = {"choices": [{"message": {"role": "assistant", "content": "B"}, "finish_reason": "stop"}],
              "usage": {"prompt_tokens": 3, "completion_tokens": 1}}


class _Server:
    """A loopback HTTP server whose every POST answer is produced by `answer(handler)`."""

    def __init__(self, answer):
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - the stdlib's name
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                outer.hits += 1
                try:
                    answer(self)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def log_message(self, *args):
                pass

        self.hits = 0
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server(request):
    made = []

    def start(answer):
        made.append(_Server(answer))
        return made[-1]

    yield start
    for s in made:
        s.close()


def _json(handler, obj, status=200):
    body = json.dumps(obj).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.mark.slow  # waits out a deadline
def test_a_server_dripping_bytes_cannot_hold_a_request_past_the_deadline(server):
    def drip(handler):
        body = json.dumps(COMPLETION).encode()
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        for byte in body:  # each read arrives well within a per-read timeout
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()
            time.sleep(0.3)

    s = server(drip)
    client = OpenAIClient(s.url, timeout=1.5, attempts=3)  # retries share the deadline
    start = time.monotonic()
    with pytest.raises(RulekitError) as info:
        client.chat("m", [{"role": "user", "content": "hi"}])
    assert time.monotonic() - start < 4  # before: one request took len(body) * 0.3 s = ~40 s
    assert info.value.code == "E500" and "after 1 attempt: no complete answer within 1.5 s" in info.value.message


def test_a_huge_body_is_refused_without_being_read_whole(server, monkeypatch):
    monkeypatch.setattr(openai_api, "MAX_BODY", 1 << 16)

    def huge(handler):  # no Content-Length: the cap is hit while reading
        handler.send_response(200)
        handler.end_headers()
        chunk = b" " * 65536
        for _ in range(64):
            handler.wfile.write(chunk)

    s = server(huge)
    with pytest.raises(RulekitError) as info:
        OpenAIClient(s.url, timeout=10, attempts=3).chat("m", [{"role": "user", "content": "hi"}])
    assert info.value.code == "E503" and "cap is 65,536" in info.value.message
    assert s.hits == 1  # refused, not retried


def test_a_declared_huge_body_is_refused_before_reading(server):
    def declared(handler):
        handler.send_response(200)
        handler.send_header("Content-Length", str(100 << 20))
        handler.end_headers()
        handler.wfile.write(b"{")

    s = server(declared)
    with pytest.raises(RulekitError) as info:
        OpenAIClient(s.url, timeout=10, attempts=1).chat("m", [])
    assert info.value.code == "E503" and "104,857,600" in info.value.message


@pytest.mark.parametrize("answer, words", [
    ({"choices": []}, "no `choices`"),
    ({"object": "list", "data": []}, "no `choices`"),
    ({"error": {"message": "model is loading"}}, "model is loading"),
    ({"choices": [{"message": {"content": 42}}]}, "not a string"),
    ({"choices": [{"text": "x"}]}, "without a `message`"),
    ([1, 2], "not an object"),
])
def test_a_200_that_is_not_a_completion_is_E503(server, answer, words):
    s = server(lambda h: _json(h, answer))
    with pytest.raises(RulekitError) as info:
        OpenAIClient(s.url, timeout=10, attempts=1).chat("m", [{"role": "user", "content": "hi"}])
    assert info.value.code == "E503" and words in info.value.message


def test_a_good_answer_still_goes_through(server):
    s = server(lambda h: _json(h, COMPLETION))
    reply = OpenAIClient(s.url, timeout=10, attempts=1).chat("m", [{"role": "user", "content": "hi"}])
    assert (reply.text, reply.prompt_tokens, reply.finish_reason) == ("B", 3, "stop")


def test_the_judge_stops_on_a_non_completion_and_caches_nothing(server, tmp_path):
    """E503 through `rulekit eval`: pinned message (the port masked), exit 2, no cache entry, no output."""
    s = server(lambda h: _json(h, {"choices": []}))
    cache = tmp_path / "judge.sqlite"
    out = tmp_path / "out"
    result = CliRunner().invoke(main, ["eval", "-r", "vlmevalkit+judge", str(CLI / "judge_unresolved.jsonl"),
                                       "--judge-url", s.url, "--judge-model", "tiny", "--judge-cache", str(cache),
                                       "--output-dir", str(out)])
    assert result.exit_code == 2, result.output
    stderr = re.sub(r"127\.0\.0\.1:\d+", "127.0.0.1:PORT", result.stderr)
    assert stderr == (CLI / "E503_not_a_completion.expected").read_text(encoding="utf-8")
    assert not out.exists() or not any(out.iterdir())
    if cache.exists():
        import sqlite3
        assert sqlite3.connect(cache).execute("SELECT count(*) FROM replies").fetchone()[0] == 0


@pytest.mark.parametrize("mode", ["--judge-replay", "--judge-dry-run", None])
def test_a_corrupt_judge_cache_is_E502_in_every_mode(tmp_path, mode):
    cache = tmp_path / "judge.sqlite"
    cache.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200)  # the header, then garbage
    args = ["eval", "-r", "vlmevalkit+judge", str(CLI / "judge_unresolved.jsonl"), "--judge-cache", str(cache)]
    args += [mode] if mode else ["--judge-url", "http://127.0.0.1:9/v1", "--judge-model", "tiny"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert "error[E502]" in result.stderr and str(cache) in result.stderr
    assert "Traceback" not in result.output
    assert cache.read_bytes().startswith(b"SQLite format 3\x00\xff")  # left as it was
