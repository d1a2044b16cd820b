"""The judge's replies on disk: a SQLite file keyed by what was asked (model, prompt template,
prompt, attempt, sampling), committed reply by reply; a file that is not SQLite is E502.

The path is opened as a path, never read as an SQLite URI (`run#1/judge.sqlite` is that file, not
`run`). A cache that is written lives in a directory no other user can write (E407 otherwise): SQLite
creates its journal files there under predictable names (`-wal`, `-shm`) and follows links, so a link
another user planted would be written through. A new database file is created exclusively, never
through a link."""
from __future__ import annotations

import hashlib
import json
import sqlite3
import os
import threading
import time
from pathlib import Path

from rulekit.core.errors import RulekitError


class JudgeCache:
    """Judge replies on disk (SQLite), committed one by one; thread-safe."""

    def __init__(self, path: Path, readonly: bool = False):
        self.path = Path(path)
        self.readonly = readonly
        self._lock = threading.Lock()
        self.conn: sqlite3.Connection | None = None
        if not readonly:
            self._check_place()

    def _check_place(self) -> None:
        """E407 unless the directory the cache's file lives in (links followed: where SQLite will write
        it and its journals) is one no other user can write."""
        from rulekit.core.cachefiles import others_may_write

        where = Path(os.path.realpath(self.path)).parent
        probe = where
        while not probe.exists() and probe != probe.parent:  # created later: its first existing parent
            probe = probe.parent
        try:
            info = os.stat(probe)
        except OSError:
            return  # cannot be looked at: opening it reports the problem
        if others_may_write(info):
            import stat

            raise RulekitError(f"the judge cache {self.path} would be written in {probe}, a directory other users "
                               f"can write (mode {stat.filemode(info.st_mode)})", code="E407",
                               help="SQLite writes the cache and its journals there under names anyone could "
                                    "link elsewhere: give --judge-cache a path in a directory of your own")

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
            if self.path.exists() and not self.path.is_file():  # a FIFO or device would hang or never end
                raise sqlite3.DatabaseError("not a regular file")
            path = str(self.path.absolute())  # starts with "/": SQLite never takes it for a `file:` URI
            if self.readonly:  # the only URI: every character of the path quoted (`#`, `?`, `%`)
                import urllib.parse

                self.conn = sqlite3.connect(f"file:{urllib.parse.quote(path)}?mode=ro", uri=True,
                                            check_same_thread=False, timeout=30)
            else:
                if create and not self.path.exists():
                    self._create()
                self.conn = sqlite3.connect(path, check_same_thread=False, timeout=30)
            if not self.readonly:
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT, "
                                  "prompt TEXT, attempt INTEGER, reply TEXT, created REAL)")
                self.conn.commit()
            else:
                self.conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # reads the header
        return self.conn

    def _create(self) -> None:
        """An empty database file, created exclusively (O_EXCL|O_NOFOLLOW: never through a planted link),
        in a directory made if missing; SQLite fills it."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644))
        except FileExistsError:  # another run made it first (a link left there is refused by SQLite's open)
            if os.path.islink(self.path) and not self.path.exists():
                raise sqlite3.DatabaseError("a dangling symbolic link is in its place") from None

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
