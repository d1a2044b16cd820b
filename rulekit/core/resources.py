"""Where the built-in rulesets, grammars and sample live, installed or in a source checkout."""
from __future__ import annotations

from importlib import resources
from pathlib import Path

_SOURCE_ROOT = Path(__file__).resolve().parent.parent.parent  # rulekit/core/ → the checkout


def resource_dir(name: str) -> Path:
    """Directory of the built-in `rulesets` or `grammars`: inside the wheel, else the checkout."""
    try:
        packaged = Path(str(resources.files("rulekit") / name))
        if packaged.is_dir():
            return packaged
    except (ModuleNotFoundError, TypeError):  # pragma: no cover - defensive
        pass
    return _SOURCE_ROOT / name


def builtin_rulesets() -> dict[str, Path]:
    """Name → path of every built-in ruleset (file stem; `@` and `+` allowed in names)."""
    return {p.stem: p for p in sorted(resource_dir("rulesets").glob("*.yaml"))}
