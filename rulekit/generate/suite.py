"""The seed suite (rulekit/data/suite.yaml): for each benchmark, the layout of its release, each
framework's prompt and ruleset; `rulekit run` drives generate → eval → diff from it."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml

from rulekit.core.errors import UsageError


@dataclass(frozen=True)
class Benchmark:
    """One benchmark of the suite: its layout, each framework's prompt style and ruleset, the field maps
    a ruleset needs (`fields`), and a note on where the frameworks read it differently."""

    name: str
    aliases: tuple[str, ...]
    layout: str
    prompts: dict
    rulesets: dict
    fields: dict = field(default_factory=dict)
    note: str | None = None

    def prompt(self, choice: str | None) -> str:
        """The prompt style for `--prompt` (None: Atropos'; a framework's name: that framework's; else a style)."""
        if choice is None:
            return self.prompts["atropos"]
        return self.prompts.get(choice, choice)


@lru_cache(maxsize=1)
def load_suite() -> dict[str, Benchmark]:
    """Name → Benchmark for every benchmark of the suite, in the file's order."""
    path = Path(__file__).resolve().parent.parent / "data" / "suite.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    out = {}
    for name, entry in data["benchmarks"].items():
        out[name] = Benchmark(name, tuple(entry.get("aliases") or ()), entry["layout"], dict(entry["prompts"]),
                              dict(entry["rulesets"]), dict(entry.get("fields") or {}), entry.get("note"))
    return out


def find_benchmark(name: str) -> Benchmark:
    """The suite's benchmark called `name` or one of its aliases (case ignored); E400 naming the suite when none."""
    wanted = name.strip().lower()
    for bench in load_suite().values():
        if wanted == bench.name.lower() or wanted in (a.lower() for a in bench.aliases):
            return bench
    import difflib

    names = list(load_suite())
    close = difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    raise UsageError(f"`{name}` is not a benchmark of the seed suite",
                     help=(f"did you mean `{close[0]}`? " if close else "") + f"the suite: {', '.join(names)}",
                     code="E400")
