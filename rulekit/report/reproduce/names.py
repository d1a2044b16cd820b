"""Model and benchmark from a framework's file stem `<model>_<dataset>`.

VLMEvalKit names every file it writes `<model>_<dataset>[_<what>]`, and a model name may hold
underscores (`llava_v1.5_7b`), so the split is never at the last underscore: the dataset is the longest
name VLMEvalKit has ever listed (`rulekit/data/vlmevalkit_datasets.tsv`, every era from 2023-11, with the
class that serves it; written by tests/fidelity/vlmevalkit/harness/dataset_names.py from VLMEvalKit's
history) or the registry names, that ends the stem. Two more forms are read, from what real work dirs
hold:
- the model is the work dir's folder (`outputs/<model>/<model>_<dataset>.xlsx`, or since 2025
  `outputs/<model>/T<date>_G<hash>/<model>_<dataset>.xlsx`): the dataset is what follows it;
- a known name followed by a suffix VLMEvalKit never wrote itself (`MTVQA_TEST_JA`, a per-language file of
  the MT-VQA pull request; `TextVQA_VAL_TextVQA_VAL_[0]`, `ScienceQA_TEST_QCME`: a fork that wrapped a
  dataset under its own name): a *variant* of that dataset, scored with its rules and said so.
A stem with no known name in it is unknown, and said so.

A judged evaluation adds the judge: `<model>_<dataset>_<judge>.xlsx` (its per-row sheet) and
`<model>_<dataset>_<judge>_score.csv` (its table), `<judge>` being a name VLMEvalKit wrote
(`rulekit/data/vlmevalkit_judges.tsv`: run.py's `judge_kwargs['model']`, build_judge's names, the short names
of the datasets' `name_str_map`, every era; written by tests/fidelity/vlmevalkit/harness/judge_names.py) or
any other `--judge NAME` whose sheet lies beside the report. `parse_stem` splits the judge off first, then
reads the dataset as above: a fork's `LogicVista_Rationale_gpt4o-mini` is the variant `LogicVista_Rationale`
of LogicVista, judged by `gpt4o-mini` — never the dataset `LogicVista_Rationale_gpt4o-mini`.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Callable

from rulekit.report.reproduce.registry import Family, families_for, registry

# VLMEvalKit's run folders since 2025: T<YYYYMMDD>_G<git hash> (or _Glocal) under the model's folder
_RUN_FOLDER = re.compile(r"T\d{8}_G[0-9a-zA-Z]+")


@dataclass(frozen=True)
class Dataset:
    """A dataset as a file names it: `name` as written in the stem; `base`, the known dataset it is (itself,
    or the known name a variant starts with); `cls`, the VLMEvalKit class that serves the base ('' when
    only the registry knows it), `evaluates`, the class whose `evaluate` that class runs; `first` and
    `last`, the months VLMEvalKit's dataset lists held the name."""

    name: str
    base: str
    cls: str = ""
    evaluates: str = ""
    first: str = ""
    last: str = ""

    @property
    def variant(self) -> bool:
        """Is this a known dataset with a suffix VLMEvalKit never listed?"""
        return self.name != self.base

    def described(self) -> str:
        """`<name> (<class>)`, with a variant's base: how a note names it."""
        cls = self.cls if self.cls and self.cls != "dataset_URLs" else (
            "a dataset_URLs name of VLMEvalKit before its dataset classes" if self.cls else "no VLMEvalKit class")
        what = f"{cls}; a variant of {self.base}" if self.variant else cls
        return f"{self.name} ({what})"


@functools.lru_cache(maxsize=1)
def vlmevalkit_datasets() -> dict[str, Dataset]:
    """{lowercased name: Dataset} of every name VLMEvalKit's dataset lists held (the TSV), with the
    registry's own VLMEvalKit names (which it may spell differently, or list before VLMEvalKit did)."""
    from rulekit.data import data_path

    out: dict[str, Dataset] = {}
    for line in data_path("vlmevalkit_datasets.tsv").read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        name, cls, first, last, evaluates = (line.split("\t") + [""] * 5)[:5]
        out[name.lower()] = Dataset(name, name, cls, evaluates if evaluates != "-" else "", first, last)
    for family in registry():
        if family.framework == "vlmevalkit":
            for name in family.datasets:
                out.setdefault(name.lower(), Dataset(name, name))
    return out


@functools.lru_cache(maxsize=1)
def vlmevalkit_judges() -> frozenset[str]:
    """The lowercased judge names VLMEvalKit has written into its file names (`rulekit/data/vlmevalkit_judges.tsv`)."""
    from rulekit.data import data_path

    lines = data_path("vlmevalkit_judges.tsv").read_text(encoding="utf-8").splitlines()
    return frozenset(line.split("\t")[0].lower() for line in lines if line and not line.startswith("#"))


def split_judge(stem: str, judged: Callable[[str], bool] | None = None) -> tuple[str, str]:
    """(the stem without its judge, the judge) of `<model>_<dataset>_<judge>`; (stem, '') when it names no
    judge. The judge is the shortest last part (cut at an `_`) that is a judge name VLMEvalKit wrote
    (`exact_matching`, `gpt4o-mini`, `chatgpt-0125`, `openai`, ...), or, with `judged`, any last part for
    which `judged(cut)` holds: the caller's evidence that a sheet named by the whole stem is the judge's sheet
    of the prediction file `<cut>` (`--judge` takes any name)."""
    judges = vlmevalkit_judges()
    cut = len(stem)
    while (cut := stem.rfind("_", 0, cut)) > 0:
        tail = stem[cut + 1:]
        if tail and (tail.lower() in judges or (judged is not None and judged(stem[:cut]))):
            return stem[:cut], tail
    return stem, ""


@dataclass(frozen=True)
class StemName:
    """What a report's stem names: `model`, `dataset` (None: unknown), `judge` ('' when none) and `stem`,
    the prediction file's stem `<model>_<dataset>` (the report's stem without its judge)."""

    model: str
    dataset: Dataset | None
    judge: str
    stem: str


def parse_stem(stem: str, framework: str = "vlmevalkit", model: str | None = None,
               judged: Callable[[str], bool] | None = None) -> StemName:
    """The model, dataset and judge a report's stem `<model>_<dataset>[_<judge>]` names: a stem that ends in a
    known dataset name is that dataset, unjudged; else its judge suffix is split off first (split_judge;
    `judged` is the evidence for a judge name VLMEvalKit never wrote) and the rest read as `<model>_<dataset>`,
    a known name or a variant of the longest known name it starts with; else the whole stem as a variant, or
    unknown. `model` is the work dir's folder the stem starts with (folder_model), when there is one."""
    found_model, dataset = name_dataset(stem, framework, model, variants=False)
    if dataset is not None:
        return StemName(found_model, dataset, "", stem)
    if framework == "vlmevalkit":
        cut, judge = split_judge(stem, judged)
        if judge:
            hint = model if model is not None and cut.startswith(model + "_") and len(cut) > len(model) + 1 else None
            found_model, dataset = name_dataset(cut, framework, hint)
            if dataset is not None:
                return StemName(found_model, dataset, judge, cut)
    found_model, dataset = name_dataset(stem, framework, model)
    return StemName(found_model, dataset, "", stem)


def _known(framework: str) -> dict[str, Dataset]:
    if framework == "vlmevalkit":
        return vlmevalkit_datasets()
    return {name.lower(): Dataset(name, name) for f in registry() if f.framework == framework for name in f.datasets}


def folder_model(stem: str, parents: tuple[str, ...]) -> str | None:
    """The model a work dir's folder names, when the stem starts with it: the file's folder, or the one
    above a VLMEvalKit run folder `T<date>_G<hash>`."""
    for i, name in enumerate(parents[:2]):
        if i == 1 and not _RUN_FOLDER.fullmatch(parents[0]):
            break
        if name and stem.startswith(name + "_") and len(stem) > len(name) + 1:
            return name
    return None


def name_dataset(stem: str, framework: str = "vlmevalkit", model: str | None = None,
                 variants: bool = True) -> tuple[str, Dataset | None]:
    """(model, Dataset or None) of a stem `<model>_<dataset>`: with `model` (the work dir's folder, which
    the stem starts with) the dataset is the rest of the stem; else the longest known name that ends the
    stem. With `variants`, a stem that ends in no known name is read as `<model>_<known name>_<suffix>`
    (the leftmost known name that a `_` starts and a `_` follows). Unknown: (model or '', None)."""
    known = _known(framework)
    low = stem.lower()
    if model is not None:
        rest = stem[len(model) + 1:]
        found = known.get(rest.lower())
        if found is not None:
            return model, _as_named(found, rest)
        if not variants:
            return model, None
        base = _longest_prefix(rest, known)
        return model, (None if base is None else _as_named(base, rest))
    best = None
    for i in range(len(stem) - 1, 0, -1):  # every `_` boundary: the longest known name that ends the stem
        if stem[i - 1] == "_" and low[i:] in known:
            best = i
    if best is not None:
        return stem[: best - 1], _as_named(known[low[best:]], stem[best:])
    if not variants:
        return "", None
    for i in range(1, len(stem)):
        if stem[i - 1] == "_":
            base = _longest_prefix(stem[i:], known)
            if base is not None:
                return stem[: i - 1], _as_named(base, stem[i:])
    return "", None


def _longest_prefix(text: str, known: dict[str, Dataset]) -> Dataset | None:
    """The longest known name that `text` starts with, followed by `_` (a variant's suffix)."""
    low = text.lower()
    cut = low.rfind("_")
    while cut > 0:
        if low[:cut] in known:
            return known[low[:cut]]
        cut = low.rfind("_", 0, cut)
    return None


def _as_named(found: Dataset, name: str) -> Dataset:
    """`found` as the stem writes it: its own name (its spelling in the stem), or a variant of it."""
    if name.lower() == found.name.lower():
        return Dataset(name, name, found.cls, found.evaluates, found.first, found.last)
    return Dataset(name, found.name, found.cls, found.evaluates, found.first, found.last)


def family_of(dataset: Dataset | None, framework: str = "vlmevalkit") -> Family | None:
    """The registry family that scores `dataset` (a variant: its base's): the one that lists its name, else
    the one whose `classes:` holds the class whose `evaluate` VLMEvalKit runs for it (unless the name holds
    one of the family's `not-containing:`, where that evaluate scores otherwise: LEGO, MMSci)."""
    if dataset is None:
        return None
    for name in (dataset.name, dataset.base):
        found = next((f for f in families_for(name) if f.framework == framework), None)
        if found is not None:
            return found
    if not dataset.evaluates:
        return None
    # a class whose evaluate branches on the name (ImageMCQDataset: CircularEval for a name holding
    # `mmbench`, `ccbench`, `circular`, `mmcr`): the family whose `names-containing:` the name holds, first
    low = dataset.name.lower()
    fits = [f for f in registry() if f.framework == framework and dataset.evaluates in f.classes
            and not any(part in low for part in (f.spec or {}).get("not-containing", ()))]  # scored otherwise
    named = [f for f in fits if any(part in low for part in (f.spec or {}).get("names-containing", ()))]
    plain = [f for f in fits if not (f.spec or {}).get("names-containing")]
    return next(iter(named + plain), None)


def split_name(stem: str, framework: str = "vlmevalkit") -> tuple[str, str, Family | None]:
    """(model, benchmark, family) of a file stem `<model>_<dataset>`: the longest known dataset name that
    ends it (see the module's docstring); a stem that ends in none gives ('', stem, None) — never a split at
    the last underscore."""
    model, dataset = name_dataset(stem, framework, variants=False)
    if dataset is None:
        return "", stem, None
    return model, dataset.name, family_of(dataset, framework)
