"""`rulekit check`: validate a ruleset (every error located) and lint it for likely mistakes.

Validation errors (unknown keys, wrong types, bad conditions, bad regexes, duplicate ids,
`extends:` cycles, tabs, duplicate keys) raise. Lints come back as a list of findings:
YAML booleans written as bare yes/no/on/off, steps that can never be reached, and `{letter}`
patterns that can never match.
"""
from __future__ import annotations

from pathlib import Path

import yaml

from rulekit.language import schema as S
from rulekit.engine.compiler import load_ruleset
from rulekit.core.errors import Loc, RulesetError
from rulekit.language.loader import compose, decode_utf8, resolve_path

_YAML_BOOLS = {"yes", "no", "on", "off", "y", "n", "true", "false"}


def lint(name_or_path: str) -> list[RulesetError]:
    """Validate (raises on errors) and return lint findings for one ruleset."""
    ruleset = load_ruleset(name_or_path, cache=False)  # its lint reads every node's position
    findings = _yaml_bools(resolve_path(name_or_path))
    for section_name, section in (("multiple-choice", ruleset.model.multiple_choice), ("open", ruleset.model.open)):
        if section is None:
            continue
        raw_steps = ruleset.data.get(section_name, {}).get("steps", [])
        findings += _unreachable(section, raw_steps)
        findings += _never_matching(section, raw_steps)
    return findings


def _yaml_bools(path: Path) -> list[RulesetError]:
    out = []
    node = compose(decode_utf8(path.read_bytes(), str(path)), str(path))  # load_ruleset already read it safely
    stack = [node] if node is not None else []
    while stack:
        n = stack.pop()
        if isinstance(n, yaml.MappingNode):
            for k, v in n.value:
                stack += [k, v]
        elif isinstance(n, yaml.SequenceNode):
            stack += n.value
        elif n.style is None and n.tag == "tag:yaml.org,2002:bool" and n.value.lower() in _YAML_BOOLS - {"true", "false"}:
            out.append(RulesetError(f"bare `{n.value}` is read by YAML as the boolean {n.value.lower() in ('yes', 'on', 'y')}",
                                    Loc(str(path), n.start_mark.line + 1, n.start_mark.column + 1),
                                    help=f"quote it (\"{n.value}\") if you meant the text", code="W301"))
    return out


def _step_loc(raw_steps, i: int) -> Loc | None:
    return getattr(raw_steps[i], "loc", None) if i < len(raw_steps) else None


def _unreachable(section: S.Section, raw_steps) -> list[RulesetError]:
    out = []
    steps = list(section.steps)
    for i, step in enumerate(steps):
        catch_all = step.enabled and step.when is None and step.where is None and step.skip_to is None and (
            (step.find is None and step.answer is not None)
            or (isinstance(step.find, S.WholeFind) and step.pick in ("first", "last", "all", "only")))
        if catch_all and i + 1 < len(steps):
            later = ", ".join(f"`{s.id}`" for s in steps[i + 1:])
            out.append(RulesetError(f"step `{step.id}` always fires, so {later} can never run",
                                    _step_loc(raw_steps, i), help="move the catch-all step last or give it a `when:`",
                                    code="W302"))
            break
    return out


def _never_matching(section: S.Section, raw_steps) -> list[RulesetError]:
    out = []
    lowered = "lowercase" in section.prepare
    for i, step in enumerate(section.steps):
        find = step.find
        templates: tuple = ()
        if isinstance(find, (S.LiteralFind, S.TokenFind, S.WordFind)):
            value = getattr(find, {S.LiteralFind: "literal", S.TokenFind: "token", S.WordFind: "word"}[type(find)])
            templates = (value,) if isinstance(value, str) else tuple(value)
        if isinstance(find, S.TokenFind):
            for t in templates:
                bad = [c for c in t.replace("{letter}", "").replace("{option}", "") if c in find.separators or c.isspace()]
                if bad:
                    out.append(RulesetError(f"token template `{t}` contains {bad[0]!r}, a separator, so it can never be one token",
                                            _step_loc(raw_steps, i), help="use `literal:` to find text with separators", code="W303"))
        if lowered and step.look_in == "prepared" and getattr(find, "case", "ignore") == "exact" and "lowercase" not in step.prepare:
            for t in templates:
                if "{letter}" in t:
                    out.append(RulesetError(f"`{t}` looks for upper-case option letters in text that `prepare` lowercased",
                                            _step_loc(raw_steps, i), help="add `case: ignore` or `look-in: original`", code="W304"))
    return out
