"""Shared fixtures: the real corpus and conformance labels from ../shared."""
from __future__ import annotations

import faulthandler
import json
import os
import signal
import sys
import tempfile
from pathlib import Path

import pytest

from vllm_support import (image_items_file, items_file, shared_engine, tiny_model, vllm_engine,  # noqa: F401
                          vllm_env, vllm_server)  # (real-engine fixtures: one model, one engine, one server a session)
import seed_suite_support  # noqa: E402,F401  (teaches the session's tiny VLM the seed suite's planned replies)

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus" / "responses.jsonl"
LABELS = SHARED / "conformance" / "labels.jsonl"

# The compiled-ruleset cache of this test run: its own directory (never the user's ~/.cache), shared by the
# subprocesses the tests start, so most loads after the first take the cached road (rulekit/language/cache.py).
os.environ.setdefault("RULEKIT_CACHE_DIR", tempfile.mkdtemp(prefix="rulekit-test-cache-"))

TEST_LIMIT_S = 900  # the slowest test (a real vLLM engine on CPU) takes about a tenth of this


class TestHung(Exception):
    """A test ran past TEST_LIMIT_S."""


@pytest.fixture(autouse=True)
def _a_hung_test_fails_alone():
    """A test that runs past TEST_LIMIT_S fails (every thread's stack printed on stderr) and the run goes
    on, instead of holding CI until its own limit stops the whole run with nothing said about where."""
    def expire(signum, frame):
        faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        raise TestHung(f"the test ran past {TEST_LIMIT_S} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(TEST_LIMIT_S)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.fixture(scope="session")
def labelled_records():
    """(labels, records): the labelled corpus records in label order, read by our JSONL reader."""
    from rulekit.readers import read_records

    labels = [json.loads(line) for line in LABELS.open(encoding="utf-8")]
    by_id = {r.id: r for r in read_records([str(CORPUS)])}
    return labels, [by_id[lab["id"]] for lab in labels]
