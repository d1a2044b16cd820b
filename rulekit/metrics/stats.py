"""Statistics over decisions: McNemar's exact test and bootstrap confidence intervals.

Everything here is deterministic: the bootstrap draws from ``numpy.random.default_rng(seed)``, so
the same inputs and seed give the same interval on every machine and run.
"""
from __future__ import annotations

from collections.abc import Sequence


__all__ = ["mcnemar_exact", "bootstrap_ci", "paired_bootstrap_ci"]

# At most this many distinct values → resample category counts (multinomial), else indices.
_MAX_CATEGORIES = 64
# Rough cap on the number of int64 indices drawn at once by the index path (~32 MiB).
_CHUNK_ELEMENTS = 4_000_000


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for `b` and `c` discordant pairs.

    ``p = min(1, 2 * P(X <= min(b, c)))`` with ``X ~ Binomial(b + c, 1/2)``, computed exactly with
    integer combinatorics (the binomial coefficients C(n, i), built by the exact integer
    recurrence C(n, i+1) = C(n, i)(n-i)/(i+1), equal to ``math.comb``) and converted to float once,
    correctly rounded, at the end; fast for b + c in the tens of thousands. ``b + c == 0``
    (no discordant pair) gives 1.0. Example: ``mcnemar_exact(1, 7) == 0.0703125``.
    """
    import numpy as np  # imported here: `import rulekit` stays light
    for name, v in (("b", b), ("c", c)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise ValueError(f"mcnemar_exact: {name} must be a non-negative integer, got {v!r}")
    b, c = int(b), int(c)
    n = b + c
    if n == 0:
        return 1.0
    # sum_{i <= min(b, c)} C(n, i), built term by term: C(n, i+1) = C(n, i) * (n - i) / (i + 1)
    # is exact in integers and far cheaper than calling math.comb for every i.
    term = 1
    tail = 1
    for i in range(min(b, c)):
        term = term * (n - i) // (i + 1)
        tail += term
    numerator, denominator = 2 * tail, 1 << n
    if numerator >= denominator:
        return 1.0
    return numerator / denominator  # int / int: correctly rounded, no overflow


def _as_1d(values: Sequence[float], name: str) -> np.ndarray:
    import numpy as np  # imported here: `import rulekit` stays light
    arr = np.asarray(values, dtype=float)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    if arr.size == 0:
        raise ValueError(f"{name} is empty: no confidence interval for zero items")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def _check_level(level: float, n_resamples: int) -> None:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    if n_resamples < 1:
        raise ValueError(f"n_resamples must be >= 1, got {n_resamples!r}")


def _bootstrap_means(x: np.ndarray, rng: np.random.Generator, n_resamples: int) -> np.ndarray:
    """Means of `n_resamples` bootstrap resamples (size n, with replacement) of `x`.

    When `x` holds few distinct values (0/1 correctness, paired differences in {-1, 0, 1}) a
    resample is fully described by how many times each distinct value was drawn, which is
    Multinomial(n, frequencies): same distribution as drawing indices, at O(resamples × values)
    cost. Otherwise indices are drawn in chunks that bound memory.
    """
    import numpy as np  # imported here: `import rulekit` stays light
    n = x.size
    uniq, counts = np.unique(x, return_counts=True)
    if uniq.size <= _MAX_CATEGORIES:
        draws = rng.multinomial(n, counts / n, size=n_resamples)
        return draws @ uniq / n
    out = np.empty(n_resamples)
    chunk = max(1, _CHUNK_ELEMENTS // n)
    for start in range(0, n_resamples, chunk):
        stop = min(n_resamples, start + chunk)
        idx = rng.integers(0, n, size=(stop - start, n))
        out[start:stop] = x[idx].mean(axis=1)
    return out


def _percentile_interval(means: np.ndarray, level: float) -> tuple[float, float]:
    import numpy as np  # imported here: `import rulekit` stays light
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(means, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def bootstrap_ci(values: Sequence[float], seed: int, n_resamples: int = 2000,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap confidence interval for ``mean(values)`` (e.g. one accuracy).

    `values` are per-item scores (1/0 correctness or partial credit). Resampling uses
    ``numpy.random.default_rng(seed)``: the same seed gives the same interval. Returns
    ``(low, high)`` as fractions; raises ValueError on empty input or a level outside (0, 1).
    """
    import numpy as np  # imported here: `import rulekit` stays light
    _check_level(level, n_resamples)
    x = _as_1d(values, "values")
    return _percentile_interval(_bootstrap_means(x, np.random.default_rng(seed), n_resamples),
                                level)


def paired_bootstrap_ci(a: Sequence[float], b: Sequence[float], seed: int,
                        n_resamples: int = 2000, level: float = 0.95) -> tuple[float, float]:
    """Paired percentile bootstrap confidence interval for ``mean(a) - mean(b)``.

    `a` and `b` are per-item scores of two systems on the same items in the same order; items
    are resampled jointly (the per-item difference is resampled), which is what makes the test
    paired. Uses ``numpy.random.default_rng(seed)`` and is reproducible for a given seed.
    Returns ``(low, high)``; raises ValueError when the lengths differ or the input is empty.
    """
    import numpy as np  # imported here: `import rulekit` stays light
    _check_level(level, n_resamples)
    xa = _as_1d(a, "a")
    xb = _as_1d(b, "b")
    if xa.size != xb.size:
        raise ValueError(f"paired bootstrap needs equal lengths, got {xa.size} and {xb.size}")
    diff = xa - xb
    return _percentile_interval(
        _bootstrap_means(diff, np.random.default_rng(seed), n_resamples), level)
