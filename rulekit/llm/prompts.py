"""Prompt styles as data: YAML files in `prompts/` (shipped in the wheel as `rulekit.prompts`).

A style says how one question becomes the user message (and an optional system message):

```yaml
prompt: vlmevalkit-mcq
system: null                                  # optional system message
images: before                                # before | after | none: where images go
which-images: mentioned                       # mentioned | all | first: which of the item's images
max-tokens: 16                                # optional default for `rulekit generate`
options: {item: "{letter}. {text}\\n", join: ""}   # how {options} is written
vars: {name: value}                           # constants usable as {name}
replace: {gold: [["<AND>", " <AND> "]]}        # literal replacements in a variable's value, in order
reply: stripped                               # judge prompts: the model's reply stripped (default) or as-given
fill: {meta.grading_query: {"{PREDICTION}": prediction}}  # a slot in a variable's value filled by another
multiple-choice:                              # parts, concatenated
  - {text: "Hint: {hint}\\n", if: hint}       # a part only when the variable is non-empty
  - {text: "...", if: meta.answer_type, equals: float}   # ... or has exactly that value
  - "Question: {question}\\n"
open: [...]
```

Templates are filled by a tiny substitution, never `eval` nor `str.format` (no attribute or
index access): `{name}` is replaced by a variable, `{{` and `}}` are literal braces, and an
unknown name is an error when the style is loaded. Variables: `question`, `options`, `hint`,
`letters` ("A, B, C"), `prediction` (judge prompts: the model's reply, or the answer graded), `gold`
(grading judges only, `equal-if-contains:`: the gold answer a prediction is compared with; empty in
every other prompt, so a generation prompt never sees it), `meta.NAME` (a field of the record's
`meta`, empty when absent: MathVerse grades with the dataset's `question_for_eval`) and the style's
`vars`, and `options-source`: where the item's options were read — `columns` (a column per option),
`list:COLUMN` (a list column), `text:COLUMN` (written inside a text, as MMStar's question), empty when
it has none. An original that shows options only from certain columns (Atropos' environments read
columns A-F, or a `choices` key) is reproduced with `{if: options-source, equals: [columns, "list:choices"]}`.

`which-images`: `mentioned` (the default) the `image_N` columns the question or options name as
`<image N>`, in number order, or all of them when none is named (lmms-eval's MMMU; for every other
release that is all its images); `all` the item's images in column order, named or not (Atropos' MMMU
sends every image_1-7); `first` only the first (Atropos' SEED-Bench-2 sends `image[0]` of the row's list).
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Union

import orjson
from pydantic import BaseModel, ConfigDict

from rulekit.core.errors import Loc, RulesetError, UsageError
from rulekit.core.resources import resource_dir

VARIABLES = ("question", "options", "hint", "letters", "prediction", "gold", "options-source")
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{(meta\.[A-Za-z0-9_][A-Za-z0-9_-]*|[A-Za-z][A-Za-z0-9_-]*)\}|[{}]")


def _dash(name: str) -> str:
    return name.replace("_", "-")


class _Word(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", alias_generator=_dash, populate_by_name=True)


class Part(_Word):
    """One conditional piece of a template: `text`, written only when variable `if` is non-empty
    (or, with `unless`, only when it is empty); with `equals: VALUE` (or a list of values), only when
    variable `if` is exactly VALUE (one of them: DynaMath's judge instruction depends on
    `meta.answer_type`); with `differs: [VALUES]`, only when it is none of them, empty included."""

    text: str
    if_: str | None = None
    unless: str | None = None
    equals: str | list[str] | None = None
    differs: list[str] | None = None

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True,
                              alias_generator=lambda n: "if" if n == "if_" else _dash(n))


class OptionFormat(_Word):
    """How `{options}` is written: each option as `item` (`{letter}`, `{text}`), joined by `join`; with
    `letters: ABCDEFGH`, only the options of those letters (Atropos' MMT-Bench reads columns A-H only)."""

    item: str = "{letter}. {text}"
    join: str = "\n"
    letters: str | None = None


class Source(_Word):
    """Where the prompt comes from."""

    repo: str
    path: str | None = None
    function: str | None = None
    commit: str | None = None
    source: str | None = None


class PromptStyle(_Word):
    """A prompt style file (see the module docstring)."""

    prompt: str
    summary: str = ""
    reproduces: Source | None = None
    system: str | None = None
    images: Literal["before", "after", "none"] = "before"
    which_images: Literal["mentioned", "all", "first"] = "mentioned"
    max_tokens: int | None = None
    options: OptionFormat = OptionFormat()
    vars: dict[str, str] = {}
    replace: dict[str, list[tuple[str, str]]] = {}
    reply: Literal["stripped", "as-given"] = "stripped"
    fill: dict[str, dict[str, str]] = {}
    multiple_choice: list[Union[str, Part]] | None = None
    open: list[Union[str, Part]] | None = None


@dataclass(frozen=True)
class Message:
    """The rendered prompt of one item: optional system text, the user text, and how many images
    go where."""

    system: str | None
    text: str
    images: str  # before | after | none


class Prompt:
    """A loaded, checked prompt style."""

    def __init__(self, style: PromptStyle, path: Path):
        self.style = style
        self.path = path
        self.name = style.prompt
        # `replace` only when given: a style without it keeps the fingerprint (and judge cache keys) it had
        # (`reply` likewise only when not the default)
        dumped = style.model_dump(mode="json", by_alias=True, exclude={"summary", "reproduces"} | (
            set() if style.replace else {"replace"}) | (set() if style.reply != "stripped" else {"reply"}) | (
            set() if style.fill else {"fill"}) | (set() if style.which_images != "mentioned" else {"which_images"}))
        if isinstance(dumped.get("options"), dict) and dumped["options"].get("letters") is None:
            dumped["options"].pop("letters", None)  # a style without `letters` keeps the fingerprint it had
        for section in ("multiple-choice", "open"):  # a part without `equals` keeps the fingerprint it had
            for part in dumped.get(section) or []:
                if isinstance(part, dict) and part.get("equals") is None:
                    part.pop("equals", None)
                if isinstance(part, dict) and part.get("differs") is None:
                    part.pop("differs", None)
        blob = orjson.dumps(dumped, option=orjson.OPT_SORT_KEYS)
        self.fingerprint = hashlib.sha256(blob).hexdigest()[:12]
        known = set(VARIABLES) | set(style.vars)
        for section in ("multiple_choice", "open"):
            for part in getattr(style, section) or []:
                part = part if isinstance(part, Part) else Part(text=part)
                for name in _names(part.text) + [n for n in (part.if_, part.unless) if n]:
                    if name not in known and not name.startswith("meta."):
                        raise RulesetError(f"prompt `{self.name}`: unknown variable `{{{name}}}`",
                                           Loc(str(path), 0, 0),
                                           help=f"known: {', '.join(sorted(known))}", code="E113")
        for name, slots in style.fill.items():
            for var in (name, *slots.values()):
                if var not in known and not var.startswith("meta."):
                    raise RulesetError(f"prompt `{self.name}`: `fill` names an unknown variable `{var}`",
                                       Loc(str(path), 0, 0), help=f"known: {', '.join(sorted(known))}", code="E113")
        for name in style.replace:
            if name not in known:
                raise RulesetError(f"prompt `{self.name}`: `replace` names an unknown variable `{name}`",
                                   Loc(str(path), 0, 0), help=f"known: {', '.join(sorted(known))}", code="E113")
        for name in _names(style.options.item):
            if name not in ("letter", "text"):
                raise RulesetError(f"prompt `{self.name}`: `options.item` may use only {{letter}} and {{text}}, "
                                   f"not `{{{name}}}`", Loc(str(path), 0, 0), code="E113")

    def sections(self) -> list[str]:
        """Question types this style can write."""
        return [k for k, v in (("multiple-choice", self.style.multiple_choice), ("open", self.style.open)) if v]

    def options_text(self, choices: dict[str, str] | None) -> str:
        """`{options}`: every option written with the style's item format."""
        if not choices:
            return ""
        fmt = self.style.options
        return fmt.join.join(substitute(fmt.item, {"letter": k, "text": str(v)}) for k, v in choices.items()
                             if fmt.letters is None or k in fmt.letters)

    def variables(self, question: str | None, choices: dict[str, str] | None, hint: str | None = None,
                  prediction: str | None = None, gold: str | None = None, meta: dict | None = None,
                  options_source: str = "") -> dict[str, str]:
        """The substitution mapping for one item (all values are strings; `meta.NAME` from `meta`)."""
        out = dict(self.style.vars)
        out.update(question=question or "", options=self.options_text(choices), hint=hint or "",
                   letters=", ".join(choices or {}), prediction=prediction or "", gold=gold or "")
        out["options-source"] = (options_source or "columns") if choices else ""  # our records: letter → text, as columns
        for name, value in (meta or {}).items():
            out[f"meta.{name}"] = "" if value is None else str(value)
        for name, pairs in self.style.replace.items():
            for old, new in pairs:
                out[name] = out[name].replace(old, new)
        for name, slots in self.style.fill.items():  # after `replace`, from the values as they were
            value = out.get(name, "")
            for slot, var in slots.items():
                value = value.replace(slot, out.get(var, ""))
            out[name] = value
        return out

    def render(self, question_type: str, question: str | None, choices: dict[str, str] | None,
               hint: str | None = None, prediction: str | None = None, gold: str | None = None,
               meta: dict | None = None, options_source: str = "") -> Message:
        """The message for one item; a multiple-choice item without options uses the `open` parts."""
        parts = self.style.multiple_choice if question_type == "multiple-choice" else self.style.open
        if question_type == "multiple-choice" and not choices and self.style.open:
            parts = self.style.open
        if not parts:
            raise UsageError(f"prompt style `{self.name}` has no `{question_type}` template",
                             help=f"it writes: {', '.join(self.sections()) or 'nothing'}", code="E400")
        values = self.variables(question, choices, hint, prediction, gold, meta, options_source)
        text = []
        for part in parts:
            part = part if isinstance(part, Part) else Part(text=part)
            if part.differs is not None:
                if values.get(part.if_ or "", "") in part.differs:
                    continue
            elif part.if_ and (not values.get(part.if_) if part.equals is None else
                               values.get(part.if_) not in ([part.equals] if isinstance(part.equals, str) else part.equals)):
                continue
            if part.unless and values.get(part.unless):
                continue
            text.append(substitute(part.text, values))
        return Message(self.style.system, "".join(text), self.style.images)


    def pick_images(self, names: list[str], question: str | None, choices: dict[str, str] | None) -> list[int]:
        """Which of an item's images (by their column names, e.g. "image_2", in order) the prompt sends:
        their positions in the item's list (see `which-images`)."""
        if self.style.images == "none" or not names:
            return []
        if self.style.which_images == "first":
            return [0]
        if self.style.which_images == "mentioned":
            text = (question or "") + " " + " ".join((choices or {}).values())
            wanted = sorted({int(n) for n in re.findall(r"<image (\d+)>", text)})
            at = {name: i for i, name in enumerate(names)}
            picked = [at[f"image_{n}"] for n in wanted if f"image_{n}" in at]
            return picked or list(range(len(names)))
        return list(range(len(names)))


def _names(template: str) -> list[str]:
    return [m.group(1) for m in _PLACEHOLDER.finditer(template) if m.group(1)]


def substitute(template: str, values: dict[str, str]) -> str:
    """Replace `{name}` by `values[name]`; `{{`/`}}` are literal braces; a lone brace stays as it is."""
    def repl(m: re.Match) -> str:
        token = m.group(0)
        if token == "{{":
            return "{"
        if token == "}}":
            return "}"
        name = m.group(1)
        if name is None:
            return token
        if name in values:
            return str(values[name])
        return "" if name.startswith("meta.") else token  # a meta field the record lacks is empty
    return _PLACEHOLDER.sub(repl, template)


def builtin_prompts() -> dict[str, Path]:
    """Name → path of every built-in prompt style."""
    return {p.stem: p for p in sorted(resource_dir("prompts").glob("*.yaml"))}


_CACHE: dict[str, Prompt] = {}


def load_prompt(name_or_path: str) -> Prompt:
    """A built-in prompt style by name, or a YAML file."""
    found = _CACHE.get(name_or_path)
    if found is not None:
        return found
    from rulekit.language.loader import load_named_yaml

    style, path = load_named_yaml("prompt style", name_or_path, builtin_prompts(), PromptStyle)
    prompt = Prompt(style, path)
    _CACHE[name_or_path] = prompt
    return prompt
