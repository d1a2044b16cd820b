"""A small client for OpenAI-compatible servers (`vllm serve`, or any other), on the standard library.

Used by `rulekit generate --base-url` and by the `judge:` fallback. Connection failures, 429 and
5xx answers are retried with exponential backoff; when the server still fails, `ServerError`
says so clearly (exit code 2) — nothing ever falls back silently to another mode.
"""
from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass

from ..errors import RulekitError

_LOOPBACK = {"127.0.0.1", "localhost", "::1", "[::1]"}


class ServerError(RulekitError):
    """An OpenAI-compatible server could not be reached or kept failing."""

    code = "E500"


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
        handlers = [urllib.request.ProxyHandler({})] if host in _LOOPBACK else []
        self._opener = urllib.request.build_opener(*handlers)

    def _request(self, method: str, path: str, payload: dict | None = None) -> dict:
        url = f"{self.base_url}{path}"
        data = json.dumps(payload).encode() if payload is not None else None
        last = ""
        for attempt in range(self.attempts):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            req = urllib.request.Request(url, data=data, method=method, headers={
                "Content-Type": "application/json", "Authorization": f"Bearer {self.api_key}"})
            try:
                with self._opener.open(req, timeout=self.timeout) as resp:
                    return json.loads(resp.read())
            except urllib.error.HTTPError as exc:
                body = exc.read().decode("utf-8", "replace")[:500]
                last = f"HTTP {exc.code}: {_message(body)}"
                if exc.code != 429 and exc.code < 500:
                    raise ServerError(f"{url} answered {last}", code="E500") from None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as exc:
                last = str(getattr(exc, "reason", exc))
            except json.JSONDecodeError:
                last = "the reply is not JSON"
        raise ServerError(f"no answer from {url} after {self.attempts} attempts: {last}",
                          help="is the server running? e.g. `vllm serve MODEL --host 127.0.0.1 --port 8000`",
                          code="E500")

    def models(self) -> list[str]:
        """Model ids the server serves (`GET /models`)."""
        return [m["id"] for m in self._request("GET", "/models").get("data", [])]

    def chat(self, model: str, messages: list[dict], **params) -> Reply:
        """One chat completion (`params`: temperature, max_tokens, top_p, seed, ...)."""
        out = self._request("POST", "/chat/completions", {"model": model, "messages": messages, **_clean(params)})
        choice = out["choices"][0]
        return _reply(out, choice["message"].get("content") or "", choice.get("finish_reason"))

    def completion(self, model: str, prompt: str, **params) -> Reply:
        """One text completion (no chat template)."""
        out = self._request("POST", "/completions", {"model": model, "prompt": prompt, **_clean(params)})
        choice = out["choices"][0]
        return _reply(out, choice.get("text") or "", choice.get("finish_reason"))


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
