"""Ruleset → CompiledRuleset: plain callables and precompiled `regex` patterns.

The engine never sees YAML or dicts. Each word is compiled by its family in `rulekit.language`
(prepare, finds, picks, compares, math); this module assembles steps and sections and
loads a ruleset by name or path. Patterns that depend on a record's options (`{letter}`,
`{option}`) are expanded once per set of letters (`core.options.pattern_cache`), or per record
when they use the option texts (`OptionSet.cache`).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from rulekit.core.errors import Loc, RulesetError
from rulekit.language import schema as S
from rulekit.language.expr import Condition, compile_condition
from rulekit.language.finds import Finder, LiteralFinder, RegexFinder, TokenFinder, compile_find
from rulekit.core.options import OptionSet
from rulekit.language.compares import compile_compare
from rulekit.language.picks import Picker, direct_literal_pick
from rulekit.language.prepare import compile_prepare

# ---------------------------------------------------------------- steps and sections
@dataclass(eq=False)  # compared and hashed by identity
class CompiledStep:
    """A step ready to run."""

    id: str
    loc: Loc | None
    look_in: str
    prepare: Callable[[str], str] | None
    when: Condition | None
    finder: Finder | None
    where: Condition | None
    picker: Picker
    answer: str | None
    outcome: str
    skip_to: int | None
    also: list[Finder]
    describe: str
    compare: Any = None  # the step's own compare (None: the section's)
    plain: bool = field(init=False)  # only find → pick: the engine's short road when not tracing
    direct: Callable[[str, OptionSet], Any] | None = field(init=False)  # find → pick in one call (literal finds)

    def __post_init__(self) -> None:
        self.plain = (self.finder is not None and self.prepare is None and self.when is None and self.where is None
                      and self.answer is None and self.skip_to is None and not self.also)
        # a literal find whose step only adds a `prepare` or a `when` that is decided before the find
        fused = (isinstance(self.finder, LiteralFinder) and self.where is None and self.answer is None
                 and self.skip_to is None and not self.also and (self.when is None or not self.when.needs_candidates))
        self.direct = direct_literal_pick(self.finder, self.picker) if fused else None


@dataclass(eq=False)
class CompiledSection:
    """A question type's pipeline ready to run."""

    name: str
    prepare: Callable[[str], str] | None
    steps: list[CompiledStep]
    fallback: Any
    normalize: S.Normalize | None
    compare: Any
    letters_if_missing: tuple = ()
    letters_at_least: int = 0
    letters_count: tuple | None = None  # (count, among, at_least, if_none): `letters-count`
    needs_options: bool = False  # a multiple-choice record without options is `unreadable` (see `needs_options`)


@dataclass
class CompiledRuleset:
    """A validated, compiled ruleset. `sections` maps question type → CompiledSection."""

    name: str
    model: S.Ruleset
    sections: dict[str, CompiledSection]
    fingerprint: str
    files: list[str]
    data: Any = None
    seed: int | None = None
    stream: bool = field(default=False)

    def run_seed(self, seed: int | None) -> int | None:
        """The seed this ruleset's decisions depend on in a run given `seed` (`--seed`; None: the ruleset's
        own): the seed of its random-option fallback, or None when it draws no letter at all (then no
        seed changes a decision, and none is part of its fingerprint)."""
        if self.seed is None:
            return None
        return self.seed if seed is None else seed

    def fingerprint_for(self, seed: int | None) -> str:
        """The fingerprint of this ruleset run with `seed` (`--seed`; None: its own): one value per
        (ruleset, seed) in every command and output (`eval`, `explain`, `diff`, `reproduce`, JSON, HTML)."""
        from rulekit.language.fingerprint import fingerprint

        return fingerprint(self.data, self.run_seed(seed))


_KEY = [0]


def _next_key() -> int:
    _KEY[0] += 1
    return _KEY[0]


def compile_section(name: str, section: S.Section, data: Any) -> CompiledSection:
    """Compile one section; `data` is its Loc-annotated YAML for error positions."""
    raw_steps = data.get("steps", []) if data is not None else []

    def step_loc(i: int, key: str | None = None) -> Loc | None:
        if i >= len(raw_steps):
            return None
        node = raw_steps[i]
        if key and hasattr(node, "locs") and key in node.locs:
            return node.locs[key]
        return getattr(node, "loc", None)

    enabled = [(i, s) for i, s in enumerate(section.steps) if s.enabled]
    ids = [s.id for _, s in enabled]
    all_ids = [s.id for s in section.steps]
    seen: dict[str, int] = {}
    for i, s in enumerate(section.steps):
        if s.id in seen:
            raise RulesetError(f"duplicate step id `{s.id}` (also step {seen[s.id] + 1})", step_loc(i, "id"), code="E130")
        seen[s.id] = i
    steps, errors = [], []
    for position, (i, s) in enumerate(enabled):
        try:
            steps.append(_compile_step(position, i, s, raw_steps, ids, all_ids, step_loc))
        except RulesetError as exc:
            errors.append(exc)
    if errors:
        from rulekit.core.errors import ErrorGroup
        raise ErrorGroup(errors)
    prep_node = data.get("prepare", []) if data is not None else []
    prepare = compile_prepare(section.prepare, lambda k: prep_node.locs[k] if hasattr(prep_node, "locs") else None)
    compare = compile_compare(section.compare, data.get("compare") if data is not None else None)
    if isinstance(section.fallback, S.Judge) and section.fallback.judge.prepare_reply:  # bad ops found now, located
        node = data.get("fallback", {}).get("judge", {}).get("prepare-reply", []) if data is not None else []
        compile_prepare(section.fallback.judge.prepare_reply, lambda k: node.locs[k] if hasattr(node, "locs") else None)
    return CompiledSection(name, prepare, steps, section.fallback, section.normalize, compare,
                           tuple(section.letters_if_missing), section.letters_at_least,
                           _letters_count(section.letters_count), needs_options(name, section, compare))


def _letters_count(spec: S.LettersCount | None) -> tuple | None:
    """A section's `letters-count` as `option_set` takes it."""
    if spec is None:
        return None
    return (spec.count, spec.among, spec.at_least, spec.if_none)


def needs_options(name: str, section: S.Section, compare: Any) -> bool:
    """Whether section `name` cannot read a multiple-choice record that ships no options: the record
    gets no letters of the section's own (`letters-if-missing`, `letters-at-least`, `letters-count`) and the section
    says `needs-options: true`, or says nothing and compares letters (`compare: letter`: its answer is
    one of the record's option letters). Open sections read every record."""
    if name != "multiple-choice" or section.letters_if_missing or section.letters_at_least:
        return False
    if section.letters_count is not None and (section.letters_count.if_none or section.letters_count.at_least):
        return False  # `letters-count` gives an option-less record its `if-none` / `at-least` letters
    if section.needs_options is not None:
        return section.needs_options
    return isinstance(compare, str) and compare == "letter"


def _compile_step(position, i, s, raw_steps, ids, all_ids, step_loc) -> CompiledStep:
    """Compile one enabled step (position among enabled steps, i among all steps)."""
    prep_node = raw_steps[i].get("prepare", []) if i < len(raw_steps) else []
    finder = compile_find(s.find, _next_key(), step_loc(i, "find")) if s.find is not None else None
    also = [compile_find(f, _next_key(), step_loc(i, "also")) for f in s.also]
    skip_to = None
    if s.skip_to is not None:
        if s.skip_to not in all_ids:
            import difflib
            close = difflib.get_close_matches(s.skip_to, all_ids, n=1)
            raise RulesetError(f"`skip-to: {s.skip_to}` names no step", step_loc(i, "skip-to"),
                               help=f"did you mean `{close[0]}`?" if close else None, code="E131")
        if s.skip_to in ids and ids.index(s.skip_to) <= position:
            raise RulesetError(f"`skip-to: {s.skip_to}` must name a LATER step", step_loc(i, "skip-to"), code="E131")
        skip_to = ids.index(s.skip_to) if s.skip_to in ids else len(ids)
    if finder is None and s.answer is None and s.skip_to is None:
        raise RulesetError(f"step `{s.id}` has neither `find` nor `answer`", step_loc(i, "find"), code="E132")
    when = compile_condition(s.when, step_loc(i, "when")) if s.when is not None else None
    where = compile_condition(s.where, step_loc(i, "where"), where=True) if s.where is not None else None
    if isinstance(finder, TokenFinder) and where is not None and where.names & {"start", "end"}:
        finder.needs_offsets = True
    if isinstance(finder, LiteralFinder) and (where is not None or (when is not None and "candidates" in when.names)
                                              or s.pick == "all" or s.also):
        finder.needs_all = True
    if isinstance(finder, RegexFinder) and finder.per_options:
        finder.compiled(OptionSet({"A": "", "B": "", "C": "", "D": ""}))  # report a bad pattern at load time
    return CompiledStep(
        id=s.id, loc=step_loc(i), look_in=s.look_in,
        prepare=compile_prepare(s.prepare, lambda k, n=prep_node: n.locs[k] if hasattr(n, "locs") else None),
        when=when, finder=finder, where=where, picker=Picker(s.pick, _next_key()), answer=s.answer,
        outcome=s.outcome, skip_to=skip_to, also=also,
        describe=finder.description if finder else "nothing (fixed answer)",
        compare=compile_compare(s.compare, raw_steps[i].get("compare") if i < len(raw_steps) else None)
        if s.compare is not None else None)


def load_ruleset(name_or_path: str, *, cache: bool = True) -> CompiledRuleset:
    """Load (with `extends:`), validate and compile a ruleset by built-in name or path.

    Raises RulesetError / ErrorGroup with every problem located in its file. With `cache` (the
    default) a ruleset loaded before from the same bytes is rebuilt from its plain-JSON entry in
    `rulekit.language.cache` (no YAML, no validation, no Lark); `cache=False` always reads the YAML
    (`rulekit check` does: its lint reads every node's position).
    """
    from rulekit.language import cache as C

    entry, token = C.lookup(name_or_path) if cache else (None, None)
    if entry is not None:
        try:
            located = {section: _Located(steps=[_Located(loc=Loc(*loc) if loc else None) for loc in locs])
                       for section, locs in entry.step_locs.items()}
            return _compile(entry.model, located, entry.data, entry.files)
        except Exception:  # noqa: BLE001 - an entry that does not compile (edited by hand?): load the long way
            pass

    from pydantic import ValidationError

    from rulekit.core.errors import ErrorGroup
    from rulekit.language.expr import RECORDING
    from rulekit.language.loader import load_data, validation_errors

    RECORDING.append({})
    try:
        data, files = load_data(name_or_path)
        try:
            model = S.Ruleset.model_validate(data)
        except ValidationError as exc:
            raise ErrorGroup(validation_errors(exc, data)) from None
        compiled = _compile(model, data, data, [str(f) for f in files])
    finally:
        conditions = RECORDING.pop()
    if token is not None:
        step_locs = {key: [_loc_list(getattr(step, "loc", None)) for step in data[key].get("steps", [])]
                     for key in ("multiple-choice", "open") if isinstance(data.get(key), dict)}
        C.store(token, model, data, compiled.files, step_locs, conditions)
    return compiled


class _Located(dict):
    """A stand-in for a Loc-annotated YAML node on a cache hit: only the step locations are kept."""

    def __init__(self, loc: Loc | None = None, **items: Any):
        super().__init__(items)
        self.loc = loc


def _loc_list(loc: Loc | None) -> list | None:
    return [loc.file, loc.line, loc.col] if loc is not None else None


def _compile(model: S.Ruleset, located: Any, data: Any, files: list[str]) -> CompiledRuleset:
    """Compile a validated ruleset; `located` carries positions for errors and traces."""
    from rulekit.core.errors import ErrorGroup
    from rulekit.language.fingerprint import fingerprint

    sections: dict[str, CompiledSection] = {}
    errors: list[RulesetError] = []
    for key, attr in (("multiple-choice", "multiple_choice"), ("open", "open")):
        section = getattr(model, attr)
        if section is None:
            continue
        try:
            sections[key] = compile_section(key, section, located.get(key))
        except ErrorGroup as exc:
            errors.extend(exc.errors)
        except RulesetError as exc:
            errors.append(exc)
    if errors:
        raise ErrorGroup(errors)
    if not sections:
        raise RulesetError("the ruleset has no `multiple-choice` or `open` section", getattr(located, "loc", None),
                           code="E133")
    finals = [S.final_fallback(s.fallback) for s in (model.multiple_choice, model.open) if s is not None]
    seeds = [fb.random_option.seed for fb in finals if isinstance(fb, S.RandomOption)]
    stream = any(fb.random_option.order == "stream" for fb in finals if isinstance(fb, S.RandomOption))
    return CompiledRuleset(model.ruleset, model, sections, fingerprint(data, seeds[0] if seeds else None),
                           files, data, seeds[0] if seeds else None, stream)
