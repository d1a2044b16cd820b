"""Model and benchmark from a framework's file stem `<model>_<dataset>`."""
from __future__ import annotations

from rulekit.report.reproduce.registry import Family, registry

def split_name(stem: str, framework: str = "vlmevalkit") -> tuple[str, str, Family | None]:
    """(model, benchmark, family) of a file stem `<model>_<dataset>`: the longest registered dataset name
    that ends it; unknown datasets give (stem before the last `_`, the rest, None)."""
    best: tuple[str, Family] | None = None
    low = stem.lower()
    for family in registry():
        if family.framework != framework:
            continue
        for name in family.datasets:
            if low.endswith("_" + name.lower()) and (best is None or len(name) > len(best[0])):
                best = (name, family)
    if best is not None:
        name, family = best
        return stem[: -len(name) - 1], stem[-len(name):], family
    model, _, bench = stem.rpartition("_")
    return model or stem, bench, None
