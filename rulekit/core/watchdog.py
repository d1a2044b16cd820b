"""A watchdog for regex calls: their time limit kept by one SIGALRM timer instead of the `regex`
module's per-call `timeout` (see `Watchdog`). `rulekit.core.regex.timed` uses it once a process has
called `watch()`; the command line does, for the process it owns and the workers it forks.
"""
from __future__ import annotations

import math
import os
import signal
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator


class Watchdog:
    """The time limit of regex calls without the `regex` module's per-call `timeout` (which costs
    ~2.5 µs a call, as much as a typical match): one one-shot SIGALRM timer, armed at a record's first
    regex call and re-armed from its own handler while calls are still inside their limits. The
    `regex` module checks for signals while it matches, so the handler's exception stops a runaway
    match where it stands. A process opts in with `watch()`: the command line does (it owns the process
    and its signals), and `Evaluator.decide_batch` does for its batch (`watching()`); elsewhere a
    program that embeds rulekit keeps the per-call `timeout`.

    The limits are CPU time of the process (`time.process_time()`), as SymPy's are
    (rulekit/core/symbolic.py): the timer wakes the handler, which stops a call only once it has
    spent its limit on the processor, so a loaded machine slows a record down but never changes its
    decision. `deadline` is the CPU time the running call must end by (+inf between calls); `armed`,
    whether the timer is set, and `expiry`, the CPU time by which it will have gone off; `thread`, the main thread's id (signal handlers
    run there only). Only that thread arms, re-arms or disarms the timer (`timed`, `rest`); other
    threads keep the per-call `timeout`, and their records' budgets are their own
    (`rulekit.core.regex.Clock` is per thread)."""

    __slots__ = ("on", "thread", "deadline", "armed", "expiry")

    def __init__(self) -> None:
        self.on = False
        self.thread = -1
        self.deadline = math.inf
        self.armed = False
        self.expiry = math.inf

    def arm(self, seconds: float) -> None:
        """Set the timer to go off in `seconds` (wall-clock; `expiry` is the CPU time by which it will have,
        at the latest: the process cannot spend more CPU than the time that passes, one thread at a time)."""
        self.armed = True
        self.expiry = time.process_time() + seconds
        signal.setitimer(signal.ITIMER_REAL, seconds)


WATCH = Watchdog()


class Expired(BaseException):
    """Raised by the watchdog's handler inside a regex call that ran past its deadline (a BaseException,
    so no `except Exception` of the code between can swallow it)."""


def _on_alarm(signum: int, frame: Any) -> None:
    """The SIGALRM handler: stop the regex call that is past its deadline (CPU time: a call that waited
    for the processor on a busy machine has not used its time), wake up again when one still inside
    its limit could reach it, and between calls do nothing."""
    watch = WATCH
    left = watch.deadline - time.process_time()
    if left <= 0:
        watch.deadline = math.inf
        watch.armed = False
        raise Expired()
    if watch.deadline != math.inf:  # a later call of the record, still inside its limit: wake up at its end
        watch.arm(left)
    else:  # between calls (a SymPy compare, a judge's reply): the next call arms the timer again
        watch.armed = False


def watch() -> bool:
    """Bound this process's regex calls with the Watchdog (see there) from now on, when it can: on the
    main thread, where setitimer exists and nobody else handles SIGALRM. Returns whether it is on;
    `unwatch()` gives SIGALRM back."""
    if WATCH.on:
        return True
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        return False
    try:
        if signal.getsignal(signal.SIGALRM) not in (signal.SIG_DFL, None) or signal.getitimer(signal.ITIMER_REAL)[0]:
            return False
        signal.signal(signal.SIGALRM, _on_alarm)
    except (ValueError, OSError):
        return False
    WATCH.on, WATCH.thread, WATCH.deadline, WATCH.armed = True, threading.get_ident(), math.inf, False
    return True


def unwatch() -> None:
    """Stop the Watchdog: disarm its timer and put SIGALRM's default handling back."""
    if not WATCH.on:
        return
    WATCH.on = False
    rest()
    WATCH.deadline = math.inf
    if signal.getsignal(signal.SIGALRM) is _on_alarm:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)


@contextmanager
def watching() -> Iterator[bool]:
    """The Watchdog on for a block, when it can be (see `watch`), and off again after it unless it
    was on before (`Evaluator.decide_batch` runs under it: a reward function's batch is the caller's
    main-thread call, and a caller that keeps SIGALRM for itself is left alone). Yields whether it is on."""
    was = WATCH.on
    on = watch()
    try:
        yield on
    finally:
        if on and not was:
            unwatch()


def rest() -> None:
    """Disarm the Watchdog's timer (the engine calls this when a record is decided, a judge before asking),
    when called on the thread that owns it: the timer bounds that thread's regex calls only, so
    another thread that finishes a record (or asks a judge) while the owner is inside a regex call
    leaves it armed, and that call keeps its limit."""
    if WATCH.armed and threading.get_ident() == WATCH.thread:
        WATCH.armed = False
        signal.setitimer(signal.ITIMER_REAL, 0)


def _after_fork() -> None:
    """A forked child has no timers (POSIX): nothing is armed there."""
    WATCH.armed, WATCH.expiry, WATCH.deadline = False, math.inf, math.inf


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
