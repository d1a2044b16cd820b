"""A ruleset's fingerprint: a short hash of its merged content and seed, the provenance every number
carries. Kept apart from the YAML loader so a cached load (`language.cache`) never imports YAML."""
from __future__ import annotations

import hashlib
from typing import Any

import orjson


def fingerprint(data: Any, seed: int | None) -> str:
    """Short hash of a ruleset's merged, normalized content and the seed: a number's provenance."""
    try:
        blob = orjson.dumps(plain_data(data), option=orjson.OPT_SORT_KEYS)
    except TypeError:  # e.g. integers beyond 64 bits: fall back to the standard library
        import json
        blob = json.dumps(plain_data(data), sort_keys=True, default=str).encode()
    blob += f"|seed={seed}".encode()
    return hashlib.sha256(blob).hexdigest()[:12]


def plain_data(value: Any) -> Any:
    """A loaded ruleset mapping as plain dicts and lists, without its documentation keys (what the
    fingerprint hashes)."""
    if isinstance(value, dict):
        return {str(k): plain_data(v) for k, v in value.items() if k not in ("examples", "summary", "description")}
    if isinstance(value, list):
        return [plain_data(v) for v in value]
    return value
