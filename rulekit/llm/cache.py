"""The judge's replies on disk: a SQLite file keyed by what was asked (model, prompt template,
prompt, attempt, sampling), committed reply by reply; a file that is not SQLite is E502."""
from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from pathlib import Path

from rulekit.core.errors import RulekitError


class JudgeCache:
    """Judge replies on disk (SQLite), committed one by one; thread-safe."""

    def __init__(self, path: Path, readonly: bool = False):
        self.path = path
        self.readonly = readonly
        self._lock = threading.Lock()
        self.conn: sqlite3.Connection | None = None

    def _broken(self, e: Exception) -> RulekitError:
        """E502 for a cache file that is not a readable SQLite database."""
        return RulekitError(f"the judge cache {self.path} is not a readable SQLite database ({e})", code="E502",
                            help="move it aside (the judge is then asked again) or pass another --judge-cache")

    def _connect(self, create: bool) -> sqlite3.Connection | None:
        """Open the database on first use; a missing file is created only to store a reply. A file that
        is not a SQLite database raises E502."""
        try:
            return self._open(create)
        except sqlite3.DatabaseError as e:
            self.close()
            raise self._broken(e) from None

    def _open(self, create: bool) -> sqlite3.Connection | None:
        if self.conn is None:
            if not self.path.exists() and not create:
                return None
            if create:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            uri = f"file:{self.path}?mode=ro" if self.readonly else f"file:{self.path}"
            self.conn = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=30)
            if not self.readonly:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT, "
                                  "prompt TEXT, attempt INTEGER, reply TEXT, created REAL)")
                self.conn.commit()
            else:
                self.conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the header
        return self.conn

    @staticmethod
    def key(model: str, template: str, prompt: str, attempt: int, sampling: dict) -> str:
        """The content address of one judge call."""
        blob = json.dumps([model, template, prompt, attempt, sampling], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(blob.encode()).hexdigest()

    def get(self, key: str) -> str | None:
        """The cached reply, or None."""
        with self._lock:
            conn = self._connect(create=False)
            if conn is None:
                return None
            try:
                row = conn.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
            except sqlite3.OperationalError as e:
                if "no such table" in str(e):  # an empty file opened read-only: no table yet
                    return None
                raise self._broken(e) from None
            except sqlite3.DatabaseError as e:
                raise self._broken(e) from None
        return row[0] if row else None

    def put(self, key: str, model: str, prompt: str, attempt: int, reply: str) -> None:
        """Store one reply (committed at once)."""
        with self._lock:
            try:
                self._connect(create=True).execute("INSERT OR REPLACE INTO replies VALUES (?, ?, ?, ?, ?, ?)",
                                                   (key, model, prompt, attempt, reply, time.time()))
                self.conn.commit()
            except sqlite3.DatabaseError as e:
                raise self._broken(e) from None

    def close(self) -> None:
        """Close the database."""
        if self.conn is not None:
            self.conn.close()
            self.conn = None
