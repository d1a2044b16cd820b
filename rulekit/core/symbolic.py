"""SymPy equivalence checks with a time limit that works anywhere: a persistent worker process.

Why a worker process: a SymPy call cannot be interrupted from Python. `signal.alarm` (what the
originals use, via `timeout_decorator`) only works in the main thread of the main interpreter,
and per-call subprocesses (the physics original) cost ~1 s of SymPy import each. Here each
process that needs SymPy starts ONE worker (`rulekit/core/_sympy_worker.py`, a separate Python
process) and talks to it over a `multiprocessing` pipe. The time limit is CPU time, counted in
the worker (ITIMER_PROF): a request past it is interrupted there, the caller gets `MathTimeout`
and the record's outcome becomes `error`. CPU time does not grow when the machine is loaded, so
`physics` and `olympiadbench@fixed` give the same decisions on a busy machine as on an idle one.
A wall-clock backstop (WALL_BACKSTOP x the limit, at least WALL_MIN s) catches what the timer
cannot interrupt (one long call into C): the worker is then killed (SIGKILL) and a fresh one
started for the next request. This works from any thread (requests
are serialized per worker; up to `max_workers` workers serve concurrent threads), from
multiprocessing pool workers (daemonic processes included: the worker is started with
`subprocess`, not `multiprocessing.Process`) and after `fork` (a forked child starts its own).

Parser choice: SymPy's own `sympy.parsing.latex.parse_latex` (ANTLR backend, needs
`antlr4-python3-runtime` 4.11, which rulekit's dependencies pin) for `equivalent`: both originals
it reproduces — VLMEvalKit's OlympiadBench `MathJudger` and the physics `is_equiv` — call exactly
`parse_latex`, and OlympiadBench pins `antlr4-python3-runtime==4.11.1`. Originals that call
`latex2sympy` instead (VLMEvalKit's MATH-Vision `is_equal`) get the maintained
latex2sympy2_extended package (a dependency; it runs on the same ANTLR 4.11), through `printed`:
it builds different trees, so each parser is used only where its original used it. SymPy's newer
Lark backend is avoided: it accepts a different subset of LaTeX than the originals saw.

SymPy is a dependency but is never imported here (the worker does), and `import rulekit` never
starts a worker. If SymPy/antlr are broken or missing anyway, the worker answers `MathUnavailable`,
which the engine reports as outcome `error` with a reinstall hint.
"""
from __future__ import annotations

import atexit
import contextlib
import contextvars
import os
import subprocess
import sys
import threading
import time
from multiprocessing import Pipe
from pathlib import Path
from typing import Any

DEFAULT_TIMEOUT = 5.0       # CPU seconds per request (rulesets set their own with `timeout:`)
RECORD_BUDGET = 2.0         # x the per-request limit: CPU seconds all the requests of one record share
MAX_PARSE_CHARS = 10_000    # a text longer than this is never sent to a parser (as if it could not parse)
WALL_BACKSTOP = 10.0        # x the CPU limit: wall-clock time after which the worker is killed
WALL_MIN = 30.0             # seconds: the backstop is never shorter than this
STARTUP_TIMEOUT = 120.0     # importing SymPy + the ANTLR parser; not counted against requests
_WORKER_FILE = Path(__file__).with_name("_sympy_worker.py")
_BOOT = "import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')"


class MathError(Exception):
    """Base of the errors a SymPy request can end with (the record's outcome becomes `error`)."""


class MathTimeout(MathError):
    """A SymPy request ran past its time limit (the worker was killed and will be restarted), or the
    record's requests together spent their budget."""


class MathUnavailable(MathError):
    """SymPy or its LaTeX parser cannot be imported in the worker."""


class MathWorkerDied(MathError):
    """The worker process ended while answering (out of memory, a crash)."""


class RequestFailed(Exception):
    """The request raised inside SymPy (a parse error, an unsupported expression): an ordinary
    "could not compare" answer, not a run error. `str()` is "Type: message"."""


class Worker:
    """One SymPy worker process and its pipe. Not thread-safe by itself (the pool serializes)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen | None = None
        self.conn = None
        self.info: dict = {}
        self.started = 0

    def alive(self) -> bool:
        """True when the process is running."""
        return self.proc is not None and self.proc.poll() is None

    def start(self) -> None:
        """Start the process and wait for it to import SymPy (raises MathUnavailable)."""
        self.stop()
        parent, child = Pipe()
        fd = child.fileno()
        try:
            self.proc = subprocess.Popen([sys.executable, "-c", _BOOT, str(_WORKER_FILE), str(fd)],
                                         pass_fds=(fd,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, close_fds=True)
        finally:
            child.close()
        self.conn = parent
        self.started += 1
        if not parent.poll(STARTUP_TIMEOUT):
            self.stop()
            raise MathUnavailable(f"the SymPy worker did not start within {STARTUP_TIMEOUT:.0f} s")
        try:
            kind, payload = parent.recv()
        except (EOFError, OSError):
            self.stop()
            raise MathUnavailable("the SymPy worker exited while starting") from None
        if kind != "ready":
            self.stop()
            raise MathUnavailable(f"{payload} (sympy and antlr4-python3-runtime 4.11 are dependencies of rulekit: "
                                  f"reinstall it, e.g. pip install --force-reinstall rulekit)")
        self.info = payload

    def stop(self) -> None:
        """Kill the process (if any) and close the pipe."""
        if self.conn is not None:
            try:
                self.conn.close()
            except OSError:  # pragma: no cover
                pass
            self.conn = None
        if self.proc is not None:
            if self.proc.poll() is None:
                try:
                    self.proc.kill()
                except OSError:  # pragma: no cover
                    pass
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
            self.proc = None

    def request(self, message: tuple, timeout: float) -> Any:
        """Send one request; its answer, RequestFailed, or MathTimeout / MathWorkerDied. `self.used` is then
        the CPU seconds it took (the whole limit when it was stopped)."""
        self.used = timeout
        if not self.alive():
            self.start()
        try:
            self.conn.send((message[0], timeout, *message[1:]))
        except (OSError, EOFError, BrokenPipeError):
            self.stop()
            raise MathWorkerDied("the SymPy worker is gone (restarting it)") from None
        if not self.conn.poll(max(timeout * WALL_BACKSTOP, WALL_MIN)):
            self.stop()
            raise MathTimeout(f"SymPy ran past the wall-clock backstop of its {timeout:g} s limit "
                              "(the worker was restarted)")
        try:
            kind, payload, *used = self.conn.recv()
        except (EOFError, OSError):
            self.stop()
            raise MathWorkerDied("the SymPy worker died while answering (out of memory?)") from None
        if used and kind != "timeout":
            self.used = min(float(used[0]), timeout)
        if kind == "ok":
            return payload
        if kind == "timeout":
            raise MathTimeout(f"SymPy used more than its CPU-time limit of {timeout:g} s")
        raise RequestFailed(payload)


class Pool:
    """Workers shared by the threads of one process (at most `max_workers`, started on demand)."""

    def __init__(self, max_workers: int | None = None) -> None:
        self.max_workers = max_workers or max(1, min(4, os.cpu_count() or 1))
        self._lock = threading.Condition()
        self._idle: list[Worker] = []
        self._all: list[Worker] = []
        self._pid = os.getpid()

    def _forked(self) -> None:
        # A forked child inherited our pipes: never use (or kill) the parent's workers.
        if os.getpid() != self._pid:
            self._idle, self._all, self._pid = [], [], os.getpid()

    def request(self, message: tuple, timeout: float = DEFAULT_TIMEOUT) -> Any:
        """Run one request on a free worker (waiting for one when all are busy), within the CPU budget of the
        record being decided (`record_budget`): its limit is at most what is left of it, and what it took is
        taken off; a budget already spent is MathTimeout at once."""
        budget, capped = _BUDGET.get(), False
        if budget is not None:
            if budget.left <= 0:
                raise MathTimeout(budget.spent())
            if budget.left < timeout:
                timeout, capped = budget.left, True
        with self._lock:
            self._forked()
            while not self._idle and len(self._all) >= self.max_workers:
                self._lock.wait()
            if self._idle:
                worker = self._idle.pop()
            else:
                worker = Worker()
                self._all.append(worker)
        try:
            return worker.request(message, timeout)
        except MathTimeout:
            if capped:  # stopped by what was left of the record's budget, not by its own limit
                raise MathTimeout(budget.spent()) from None
            raise
        finally:
            if budget is not None:
                budget.left -= getattr(worker, "used", timeout)
            with self._lock:
                if worker in self._all:
                    self._idle.append(worker)
                self._lock.notify()

    def shutdown(self) -> None:
        """Stop every worker (they also exit on their own when this process ends)."""
        with self._lock:
            for worker in self._all:
                worker.stop()
            self._idle, self._all = [], []

    def restarts(self) -> int:
        """How many worker processes were started in all (1 per worker + 1 per timeout)."""
        return sum(w.started for w in self._all)


_POOL: Pool | None = None
_POOL_LOCK = threading.Lock()


@atexit.register
def _shutdown() -> None:  # workers would also exit on EOF; this just does it now
    if _POOL is not None and _POOL._pid == os.getpid():
        _POOL.shutdown()


def pool() -> Pool:
    """The process-wide worker pool."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None or _POOL._pid != os.getpid():
            _POOL = Pool()
        return _POOL


class Budget:
    """The CPU seconds the SymPy requests of one record may still use."""

    def __init__(self, seconds: float):
        self.seconds = self.left = seconds

    def spent(self) -> str:
        """Why a record's request was refused or stopped."""
        return f"the record's SymPy requests used their CPU-time budget of {self.seconds:g} s"


_BUDGET: contextvars.ContextVar[Budget | None] = contextvars.ContextVar("rulekit_sympy_budget", default=None)


@contextlib.contextmanager
def record_budget(timeout: float):
    """While one record is compared: its SymPy requests share RECORD_BUDGET x `timeout` CPU seconds (each
    still at most `timeout`), so a reply with 4,000 boxed answers costs one budget, not 4,000 limits; past
    it, MathTimeout (the record's outcome `error`). Nested uses keep the outer budget."""
    if _BUDGET.get() is not None:
        yield _BUDGET.get()
        return
    token = _BUDGET.set(Budget(RECORD_BUDGET * timeout))
    try:
        yield _BUDGET.get()
    finally:
        _BUDGET.reset(token)


def _parsable(*texts: str) -> None:
    """RequestFailed for a text longer than MAX_PARSE_CHARS: it is not sent to a parser (which would take
    seconds per 100,000 characters), just as a text a parser cannot read."""
    for text in texts:
        if isinstance(text, str) and len(text) > MAX_PARSE_CHARS:
            raise RequestFailed(f"TooLong: {len(text):,} characters, more than the {MAX_PARSE_CHARS:,} a SymPy parser "
                                "is given")


def expr_equal(a: str, b: str, spec: dict, timeout: float = DEFAULT_TIMEOUT) -> bool:
    """Are two expressions equal under `spec` (see `_sympy_worker.expr_equal`)? Raises
    RequestFailed when SymPy could not decide (parse error, a text over MAX_PARSE_CHARS, the `mismatch:
    error` rule) and MathTimeout/MathError when the run must mark the record `error`."""
    _parsable(a, b)
    return pool().request(("expr", a, b, spec), timeout)


def equation_equal(a: str, b: str, spec: dict, timeout: float = DEFAULT_TIMEOUT) -> bool:
    """Are two equations `lhs = rhs` equivalent (their differences proportional by an integer)?"""
    _parsable(a, b)
    return pool().request(("equation", a, b, spec), timeout)


def printed(text: str, parse: str, timeout: float = DEFAULT_TIMEOUT) -> str:
    """`str()` of what the parser `parse` (`latex`, `latex2sympy`) makes of `text`. Raises RequestFailed
    when it cannot parse the text (or it is over MAX_PARSE_CHARS), MathTimeout/MathError when the run must
    mark the record `error`."""
    _parsable(text)
    return pool().request(("print", text, parse), timeout)


def versions(timeout: float = DEFAULT_TIMEOUT) -> dict:
    """SymPy/antlr versions the worker runs with (starts a worker)."""
    return pool().request(("ping",), timeout)


def _spin(timeout: float) -> None:
    """Test hook: a request that never finishes (the worker loops until killed)."""
    pool().request(("spin",), timeout)


def wait_ready(timeout: float = STARTUP_TIMEOUT) -> float:
    """Start a worker now (outside any timed request); the seconds it took."""
    t = time.perf_counter()
    versions(timeout)
    return time.perf_counter() - t
