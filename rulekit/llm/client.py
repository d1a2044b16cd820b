"""A small client for OpenAI-compatible servers (`vllm serve`, or any other), on the standard library.

Used by `rulekit generate --base-url` and by the `judge:` fallback. Connection failures, 429 and
5xx answers are retried with exponential backoff; when the server still fails, `ServerError`
says so clearly (exit code 2) — nothing ever falls back silently to another mode.

A request has a total deadline (`timeout` seconds from the first connect to the last byte of the
body, retries included), enforced by a watchdog that shuts the socket down: a server that drips
one byte at a time cannot hold a request past it. A body over MAX_BODY bytes, or a 200 answer that is not a completion (no
`choices`, an `error` object), is refused with E503 and never cached.
"""
from __future__ import annotations

import functools
import http.client
import json
import os
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

from rulekit.core.errors import RulekitError

_LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


MAX_BODY = 8 << 20  # bytes of one answer's body; a completion is a few KB


class ServerError(RulekitError):
    """An OpenAI-compatible server could not be reached or kept failing."""

    code = "E500"


class _Watchdog:
    """Shuts down the sockets of one request when its deadline passes (a blocking read then ends)."""

    def __init__(self, seconds: float):
        self.fired = False
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            if self.fired:
                sock.close()
            self._socks.append(sock)

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            for sock in self._socks:
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cancel(self) -> None:
        self._timer.cancel()


class _Watched:
    """A connection whose socket the request's watchdog may shut down (mixed into http.client's)."""

    def __init__(self, *args, watchdog: _Watchdog, **kwargs):
        super().__init__(*args, **kwargs)
        self._watchdog = watchdog

    def connect(self) -> None:
        super().connect()
        self._watchdog.watch(self.sock)


class _WatchedHTTP(_Watched, http.client.HTTPConnection):
    pass


class _WatchedHTTPS(_Watched, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, watchdog: _Watchdog):
        super().__init__()
        self.watchdog = watchdog

    def http_open(self, req):
        return self.do_open(functools.partial(_WatchedHTTP, watchdog=self.watchdog), req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, watchdog: _Watchdog):
        super().__init__()
        self.watchdog = watchdog

    def https_open(self, req):
        return self.do_open(functools.partial(_WatchedHTTPS, watchdog=self.watchdog), req,
                            context=self._context)


def _read_capped(resp, limit: int) -> bytes:
    """The body of `resp`, refusing one over `limit` bytes (E503) without reading it all."""
    length = resp.headers.get("Content-Length")
    if length and length.isdigit() and int(length) > limit:
        raise _TooBig(int(length))
    chunks, size = [], 0
    while chunk := resp.read(65536):
        size += len(chunk)
        if size > limit:
            raise _TooBig(size)
        chunks.append(chunk)
    return b"".join(chunks)


class _TooBig(Exception):
    pass


@dataclass
class Reply:
    """One completion: its text and token counts."""

    text: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    finish_reason: str | None = None


def normalize_base_url(url: str) -> str:
    """`http://host:port` or `http://host:port/v1` → the `/v1` base (no trailing slash)."""
    url = url.rstrip("/")
    parsed = urllib.parse.urlparse(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise ServerError(f"not an http(s) URL: {url!r}", help="e.g. http://127.0.0.1:8000/v1", code="E400")
    if parsed.path in ("", "/"):
        url += "/v1"
    return url


class OpenAIClient:
    """POSTs JSON to `<base>/chat/completions` or `<base>/completions`; retries with backoff."""

    def __init__(self, base_url: str, api_key: str | None = None, timeout: float = 300.0, attempts: int = 3,
                 backoff: float = 0.5):
        self.base_url = normalize_base_url(base_url)
        self.api_key = api_key or os.environ.get("OPENAI_API_KEY") or "EMPTY"
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.backoff = backoff
        host = urllib.parse.urlparse(self.base_url).hostname or ""
        self._handlers = [urllib.request.ProxyHandler({})] if host in _LOOPBACK else []

    def _open(self, req: urllib.request.Request, seconds: float) -> dict:
        """One attempt: the decoded JSON body, within `seconds` (the request's time left) and the body cap."""
        watchdog = _Watchdog(seconds)
        opener = urllib.request.build_opener(*self._handlers, _HTTPHandler(watchdog), _HTTPSHandler(watchdog))
        try:
            with opener.open(req, timeout=seconds) as resp:
                body = _read_capped(resp, MAX_BODY)
            if watchdog.fired:  # the socket was shut down mid-body: what came is cut short
                raise TimeoutError(f"no complete answer within {self.timeout:g} s")
        except urllib.error.HTTPError as exc:
            try:  # the error's body, still under the deadline and capped
                exc.body_text = exc.read(4096).decode("utf-8", "replace")  # type: ignore[attr-defined]
            except (OSError, http.client.HTTPException):
                exc.body_text = ""  # type: ignore[attr-defined]
            raise
        except _TooBig as exc:
            raise ServerError(f"{req.full_url} answered a body of {exc.args[0]:,}+ bytes; the cap is {MAX_BODY:,}",
                              code="E503") from None
        except (OSError, http.client.HTTPException) as exc:
            if watchdog.fired and not isinstance(exc, urllib.error.HTTPError):
                raise TimeoutError(f"no complete answer within {self.timeout:g} s") from None
            raise
        finally:
            watchdog.cancel()
        return json.loads(body)

    def _request(self, method: str, path: str, payload: dict | None = None) -> dict:
        url = f"{self.base_url}{path}"
        data = json.dumps(payload).encode() if payload is not None else None
        last = ""
        deadline = time.monotonic() + self.timeout  # for the request, retries included
        tried = 0
        for attempt in range(self.attempts):
            if attempt:
                time.sleep(min(self.backoff * 2 ** (attempt - 1), max(deadline - time.monotonic(), 0)))
            left = deadline - time.monotonic()
            if left <= 0:
                break
            req = urllib.request.Request(url, data=data, method=method, headers={
                "Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"})
            tried += 1
            try:
                out = self._open(req, left)
            except urllib.error.HTTPError as exc:
                body = getattr(exc, "body_text", "")[:500]
                last = f"HTTP {exc.code}: {_message(body)}"
                if exc.code != 429 and exc.code < 500:
                    raise ServerError(f"{url} answered {last}", code="E500") from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError, http.client.HTTPException) as exc:
                last = str(getattr(exc, "reason", exc)) or type(exc).__name__
            except (json.JSONDecodeError, UnicodeDecodeError):
                last = "the reply is not JSON"
            else:
                return _completion_or_raise(out, url, method, path)
        raise ServerError(f"no answer from {url} after {tried} attempt{'s' * (tried != 1)}: {last}",
                          help="is the server running? e.g. `vllm serve MODEL --host 127.0.0.1 --port 8000`",
                          code="E500")

    def models(self) -> list[str]:
        """Model ids the server serves (`GET /models`)."""
        return [m["id"] for m in self._request("GET", "/models").get("data", [])]

    def chat(self, model: str, messages: list[dict], **params) -> Reply:
        """One chat completion (`params`: temperature, max_tokens, top_p, seed, ...)."""
        out = self._request("POST", "/chat/completions", {"model": model, "messages": messages, **_clean(params)})
        choice = out["choices"][0]
        message = choice.get("message")
        if not isinstance(message, dict):
            raise ServerError(f"{self.base_url}/chat/completions answered a choice without a `message`", code="E503")
        return _reply(out, _text(message.get("content")), choice.get("finish_reason"))

    def completion(self, model: str, prompt: str, **params) -> Reply:
        """One text completion (no chat template)."""
        out = self._request("POST", "/completions", {"model": model, "prompt": prompt, **_clean(params)})
        choice = out["choices"][0]
        return _reply(out, _text(choice.get("text")), choice.get("finish_reason"))


def _completion_or_raise(out, url: str, method: str, path: str) -> dict:
    """`out` when it is what `path` promises (a completion has a non-empty `choices` list of objects;
    `/models` a dict), else E503: a server's error object or an empty answer must not be scored or cached."""
    if not isinstance(out, dict):
        raise ServerError(f"{url} answered JSON that is not an object", code="E503")
    if method == "POST":
        if out.get("error") is not None:
            raise ServerError(f"{url} answered an error: {_message(json.dumps(out))[:500]}", code="E503")
        choices = out.get("choices")
        if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
            raise ServerError(f"{url} answered without a completion (no `choices`)", code="E503",
                              help="is this an OpenAI-compatible /v1 endpoint?")
    return out


def _text(value) -> str:
    """A completion's text: None reads as empty; anything else that is not a string is refused."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ServerError(f"a completion's text is a {type(value).__name__}, not a string", code="E503")
    return value


def _clean(params: dict) -> dict:
    return {k: v for k, v in params.items() if v is not None}


def _reply(out: dict, text: str, finish: str | None) -> Reply:
    usage = out.get("usage") or {}
    return Reply(text, int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0), finish)


def _message(body: str) -> str:
    try:
        err = json.loads(body)
        if isinstance(err, dict):
            inner = err.get("error", err)
            return str(inner.get("message", inner) if isinstance(inner, dict) else inner)
    except json.JSONDecodeError:
        pass
    return body.strip()
