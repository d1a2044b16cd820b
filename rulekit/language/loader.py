"""Ruleset files → validated `schema.Ruleset`, with every node's file:line:col kept.

YAML is composed into nodes and turned into `LocDict`/`LocList` (plain dict/list subclasses that
remember where each key and item came from), so schema errors, expression errors and traces point
back into the file that wrote them, also through `extends:` and `from:`.
"""
from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from rulekit.core.errors import ErrorGroup, Loc, RulesetError, UsageError
from rulekit.core.resources import builtin_rulesets


class LocDict(dict):
    """A YAML mapping that knows the location of itself (`loc`) and of each key (`locs`)."""

    loc: Loc
    locs: dict
    from_ruleset: str | None = None


class LocList(list):
    """A YAML sequence that knows the location of itself (`loc`) and of each item (`locs`)."""

    loc: Loc
    locs: list


def _loc(file: str, node: yaml.Node) -> Loc:
    return Loc(file, node.start_mark.line + 1, node.start_mark.column + 1)


def _convert(file: str, node: yaml.Node, errors: list[RulesetError]) -> Any:
    if isinstance(node, yaml.MappingNode):
        out = LocDict()
        out.loc, out.locs = _loc(file, node), {}
        for key_node, value_node in node.value:
            key = _convert(file, key_node, errors)
            if not isinstance(key, str):
                errors.append(RulesetError(f"keys must be strings, got {key!r}", _loc(file, key_node), code="E102"))
                key = str(key)
            if key in out:
                errors.append(RulesetError(f"duplicate key `{key}` (the first one, at line {out.locs[key].line}, would be silently lost)",
                                           _loc(file, key_node), code="E103"))
            out[key] = _convert(file, value_node, errors)
            out.locs[key] = _loc(file, value_node)
            out.locs["@key:" + key] = _loc(file, key_node)
        return out
    if isinstance(node, yaml.SequenceNode):
        out = LocList(_convert(file, item, errors) for item in node.value)
        out.loc, out.locs = _loc(file, node), [_loc(file, item) for item in node.value]
        return out
    if not node.tag.startswith("tag:yaml.org,2002:"):
        errors.append(RulesetError(f"YAML tag `{node.tag}` is not allowed in a ruleset", _loc(file, node), code="E101"))
        return None
    value = yaml.SafeLoader.construct_scalar(_SCALAR_LOADER, node)
    if node.tag == "tag:yaml.org,2002:str" or node.style in ("'", '"', "|", ">"):
        return value
    try:
        return _SCALAR_LOADER.construct_object(node, deep=True)
    except Exception as exc:  # PyYAML's constructors raise many types on odd tagged scalars
        errors.append(RulesetError(f"cannot read `{node.value}` as {node.tag.rsplit(':', 1)[-1]}: {exc}".split("\n")[0],
                                   _loc(file, node), code="E101"))
        return None


_SCALAR_LOADER = yaml.SafeLoader("")

MAX_DEPTH = 64             # nesting of mappings and sequences in one YAML file
MAX_ALIAS_NODES = 10_000   # nodes that `*alias` references may add, counted as the tree they expand to
MAX_RULESET_FILES = 64     # files one ruleset may read through `extends:` and `from:` (chains and fan-out)


class _LimitExceeded(Exception):
    def __init__(self, message: str, mark) -> None:
        super().__init__(message)
        self.message, self.mark = message, mark


class _BoundedLoader(yaml.SafeLoader):
    """PyYAML's safe composer with two limits it lacks: nesting depth (its composer recurses, so deep
    nesting ends in a RecursionError) and the size of what aliases expand to (a "billion laughs" file
    is small, but turning it into data visits every expanded node)."""

    def __init__(self, stream) -> None:
        super().__init__(stream)
        self._depth = 0
        self._expanded = 0
        self._sizes: dict[int, int] = {}
        self._open: set[str] = set()  # anchors of the nodes being composed: an alias to one would recurse

    def compose_node(self, parent, index):
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            if event.anchor in self._open:
                raise _LimitExceeded(f"alias `*{event.anchor}` refers to a node that contains it (a recursive alias)",
                                     event.start_mark)
            node = self.anchors.get(event.anchor)
            if node is not None:
                self._expanded += _tree_size(node, self._sizes)
                if self._expanded > MAX_ALIAS_NODES:
                    raise _LimitExceeded(f"aliases expand to more than {MAX_ALIAS_NODES:,} nodes (a YAML bomb?)",
                                         event.start_mark)
            return super().compose_node(parent, index)
        anchor = getattr(self.peek_event(), "anchor", None)
        self._depth += 1
        if anchor is not None:
            self._open.add(anchor)
        try:
            if self._depth > MAX_DEPTH:
                raise _LimitExceeded(f"YAML nested more than {MAX_DEPTH} levels deep", self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1
            self._open.discard(anchor)


def _tree_size(node: yaml.Node, sizes: dict[int, int]) -> int:
    """Nodes in the tree `node` expands to, shared sub-trees counted every time (memoized, iterative)."""
    stack = [(node, False)]
    while stack:
        current, expanded = stack.pop()
        if id(current) in sizes:
            continue
        children = []
        if isinstance(current, yaml.MappingNode):
            children = [n for pair in current.value for n in pair]
        elif isinstance(current, yaml.SequenceNode):
            children = list(current.value)
        if expanded or not children:
            sizes[id(current)] = 1 + sum(sizes.get(id(c), 1) for c in children)
        else:
            stack.append((current, True))
            stack.extend((c, False) for c in children if id(c) not in sizes)
    return sizes[id(node)]


def _position(text: str, index: int) -> tuple[int, int]:
    """1-based (line, column) of character `index` of `text`."""
    line = text.count("\n", 0, index) + 1
    return line, index - (text.rfind("\n", 0, index) + 1) + 1


def decode_utf8(data: bytes, file: str) -> str:
    """`data` as UTF-8 text, or E101 located at the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        good = data[:exc.start].decode("utf-8")
        line, col = _position(good + "x", len(good))
        raise RulesetError(f"the file is not UTF-8: byte 0x{data[exc.start]:02X} cannot start or continue a "
                           "character", Loc(file, line, col), help="save the file as UTF-8", code="E101") from None


def compose(text: str, file: str) -> yaml.Node | None:
    """The YAML node tree of `text`, within the depth and alias limits; E101 located on any problem."""
    loader = None
    try:
        loader = _BoundedLoader(text)
        return loader.get_single_node()
    except _LimitExceeded as exc:
        raise RulesetError(exc.message, Loc(file, exc.mark.line + 1, exc.mark.column + 1), code="E101") from None
    except yaml.reader.ReaderError as exc:  # a NUL or another character YAML does not allow: it gives an offset
        line, col = _position(text, exc.position)
        raise RulesetError(f"invalid YAML: the character U+{exc.character:04X} is not allowed in YAML",
                           Loc(file, line, col), help="remove it (a NUL or control character)", code="E101") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        loc = Loc(file, mark.line + 1, mark.column + 1) if mark else Loc(file, 0, 0)
        problem = getattr(exc, "problem", None) or str(exc)
        context = getattr(exc, "context", None)
        raise RulesetError(f"invalid YAML: {problem}" + (f" ({context})" if context else ""), loc,
                           code="E101") from None
    except RecursionError:  # pragma: no cover - MAX_DEPTH stops nesting well before
        raise RulesetError("YAML nested too deeply", Loc(file, 1, 1), code="E101") from None
    finally:
        if loader is not None:
            loader.dispose()


def read_yaml(path: Path) -> Any:
    """Parse one YAML file into Loc-annotated data; raise RulesetError with position on syntax errors."""
    file = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise RulesetError(f"cannot read ruleset: {exc.strerror}", Loc(file, 0, 0), code="E101") from None
    text = decode_utf8(data, file)
    errors: list[RulesetError] = []
    tabs = [(number, line.index("\t") + 1) for number, line in enumerate(text.splitlines(), 1)
            if "\t" in line[: len(line) - len(line.lstrip())]]
    if tabs:  # one error for one mistake: the YAML error a tab causes is not reported beside it
        (number, col), more = tabs[0], [str(n) for n, _ in tabs[1:]]
        also = f" (and on line{'s' if len(more) > 1 else ''} {', '.join(more[:10])}{', ...' if len(more) > 10 else ''})" \
            if more else ""
        errors.append(RulesetError("tab used for indentation" + also, Loc(file, number, col),
                                   help="YAML indentation uses spaces: replace each tab with spaces", code="E104"))
    try:
        node = compose(text, file)
    except RulesetError as exc:
        if not errors:
            raise
        raise errors[0] from None
    if node is None:
        raise RulesetError("the ruleset file is empty", Loc(file, 1, 1), code="E101")
    data = _convert(file, node, errors)
    if errors:
        raise ErrorGroup(errors)
    return data


def resolve_path(name_or_path: str, relative_to: Path | None = None) -> Path:
    """A built-in ruleset name or a path (relative to the including file) → an existing path."""
    if not isinstance(name_or_path, str):
        raise RulesetError(f"a ruleset reference must be a name or a path, got {name_or_path!r}", code="E105")
    builtins = builtin_rulesets()
    if name_or_path in builtins:
        return builtins[name_or_path]
    candidates = [Path(name_or_path)]
    if relative_to is not None:
        candidates.insert(0, relative_to.parent / name_or_path)
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    close = difflib.get_close_matches(name_or_path, list(builtins), n=1)
    hint = f"did you mean `{close[0]}`?" if close else f"built-in rulesets: {', '.join(builtins)}"
    raise RulesetError(f"no ruleset named `{name_or_path}` and no such file", help=hint, code="E105")


SECTIONS = ("multiple-choice", "open")
_STEP_PLACEMENT = ("before", "after", "drop")


def _merge_section(parent: dict, child: dict, file: str) -> dict:
    """Child section keys replace the parent's; `steps` merge by id (override keys, drop, insert)."""
    merged = LocDict(parent)
    merged.loc, merged.locs = getattr(child, "loc", None), dict(getattr(parent, "locs", {}))
    merged.locs.update(getattr(child, "locs", {}))
    for key, value in child.items():
        if key == "steps" and isinstance(parent.get("steps"), list) and isinstance(value, list):
            merged["steps"] = _merge_steps(parent["steps"], value, file)
        elif key != "from":
            merged[key] = value
    return merged


def _merge_steps(parent_steps: list, child_steps: list, file: str) -> LocList:
    steps = LocList(parent_steps)
    steps.loc, steps.locs = getattr(child_steps, "loc", None), list(getattr(parent_steps, "locs", []))
    for index, override in enumerate(child_steps):
        loc = child_steps.locs[index] if hasattr(child_steps, "locs") else None
        if not isinstance(override, dict) or "id" not in override:
            raise RulesetError("a step in a ruleset that extends another needs an `id`", loc, code="E106")
        ids = [s.get("id") for s in steps]
        step_id = override["id"]
        if step_id in ids:
            at = ids.index(step_id)
            if override.get("drop"):
                del steps[at]
                del steps.locs[at]
                continue
            placed = [key for key in ("before", "after") if key in override]
            if placed:  # it would be ignored: a step of the parent keeps its place
                raise RulesetError(f"`{placed[0]}:` places a NEW step, and `{step_id}` is a step of the parent "
                                   "(it keeps its place)", _value_loc(override, "@key:" + placed[0], loc),
                                   help=f"to move it: `{{id: {step_id}, drop: true}}`, then the step under a new id "
                                        f"with `{placed[0]}: {override[placed[0]]}`", code="E106")
            combined = LocDict(steps[at])
            combined.loc = steps[at].loc
            combined.locs = dict(steps[at].locs)
            for key, value in override.items():
                if key in _STEP_PLACEMENT:
                    continue
                if value is None:
                    combined.pop(key, None)
                else:
                    combined[key] = value
                # where the author wrote it, also for a `null` (an error about the key it removed points there)
                combined.locs[key] = override.locs.get(key, loc)
                combined.locs["@key:" + key] = override.locs.get("@key:" + key, loc)
            steps[at] = combined
            continue
        if override.get("drop"):
            raise RulesetError(f"cannot drop step `{step_id}`: the parent has no such step", _value_loc(override, "id", loc),
                               help=_did_you_mean(step_id, ids), code="E106")
        new = LocDict({k: v for k, v in override.items() if k not in _STEP_PLACEMENT})
        new.loc, new.locs = override.loc, override.locs
        position = len(steps)
        for key, delta in (("before", 0), ("after", 1)):
            if key in override:
                if override[key] not in ids:
                    raise RulesetError(f"`{key}: {override[key]}` in step `{step_id}` names no step of the parent",
                                       _value_loc(override, key, loc),
                                       help=_did_you_mean(override[key], ids), code="E106")
                position = ids.index(override[key]) + delta
        steps.insert(position, new)
        steps.locs.insert(position, loc)
    return steps


def _value_loc(node: Any, key: str, default: Loc | None) -> Loc | None:
    """Where the value of `key` in a Loc-annotated mapping was written (`default` when unknown)."""
    locs = getattr(node, "locs", None)
    return locs.get(key, default) if isinstance(locs, dict) else default


def _did_you_mean(word: str, choices: list) -> str | None:
    close = difflib.get_close_matches(str(word), [str(c) for c in choices], n=1)
    return f"did you mean `{close[0]}`?" if close else None


def load_data(name_or_path: str, _seen: tuple = (), _reads: list | None = None) -> tuple[LocDict, list[Path]]:
    """Read a ruleset and everything it extends into one merged Loc-annotated mapping.

    Returns the merged data and the list of files read (for fingerprints and error messages). At most
    MAX_RULESET_FILES files are read for one ruleset (E108), counting every `extends:` and `from:`.
    """
    reads = [0] if _reads is None else _reads
    path = resolve_path(name_or_path)
    key = str(path.resolve())
    if key in _seen:
        chain = " → ".join(Path(p).name for p in _seen + (key,))
        raise RulesetError(f"`extends:` cycle: {chain}", Loc(str(path), 1, 1), code="E107")
    reads[0] += 1
    if reads[0] > MAX_RULESET_FILES:
        raise RulesetError(f"`extends:`/`from:` read more than {MAX_RULESET_FILES} files for one ruleset",
                           help="flatten the chain: a ruleset may extend one that extends another, not without end",
                           code="E108")
    data = read_yaml(path)
    if not isinstance(data, dict):
        raise RulesetError("a ruleset must be a mapping (ruleset:, steps:, ...)", Loc(str(path), 1, 1), code="E100")
    files = [path]
    seen = _seen + (key,)
    for section in SECTIONS:
        source = data.get(section, {}).get("from") if isinstance(data.get(section), dict) else None
        if source:
            try:
                other, other_files = load_data(_resolve_relative(source, path), seen, reads)
            except RulesetError as exc:
                if exc.loc is None:
                    exc.loc = data[section].locs.get("from")
                raise
            files += other_files
            if not isinstance(other.get(section), dict):
                raise RulesetError(f"`from: {source}`: that ruleset has no `{section}` section",
                                   data[section].locs.get("from"), code="E106")
            data[section] = _merge_section(other[section], data[section], str(path))
            data[section].from_ruleset = source  # replaces, never merges into, a parent's section
    parent_name = data.get("extends")
    if not parent_name:
        return data, files
    try:
        parent, parent_files = load_data(_resolve_relative(parent_name, path), seen, reads)
    except RulesetError as exc:
        if exc.loc is None:
            exc.loc = data.locs.get("extends")
        raise
    return _merge_ruleset(parent, data, path), parent_files + files


def _merge_ruleset(parent: LocDict, data: LocDict, path: Path) -> LocDict:
    """The ruleset `data` (read from `path`) laid over its `extends:` parent (MERGE_RULES)."""
    merged = LocDict(parent)
    merged.loc, merged.locs = data.loc, dict(parent.locs)
    for key_, value in data.items():
        if key_ == "extends":
            continue
        if key_ in SECTIONS and isinstance(parent.get(key_), dict) and isinstance(value, dict) \
                and not getattr(value, "from_ruleset", None):  # a parent's `open: null` has nothing to merge
            merged[key_] = _merge_section(parent[key_], value, str(path))
        else:
            merged[key_] = value
        merged.locs[key_] = data.locs.get(key_)
        merged.locs["@key:" + key_] = data.locs.get("@key:" + key_)
    if "examples" not in data:
        merged.pop("examples", None)
    merged["ruleset"] = data.get("ruleset", path.stem)
    return merged


# How `extends:` and `from:` merge, as `rulekit vocabulary` prints it. It describes the functions above
# (`load_data`, `_merge_ruleset`, `_merge_section`, `_merge_steps`); the example under it is merged by
# them each time it is printed (`merge_example`), and tests/test_authoring.py checks each rule.
MERGE_RULES = """\
A ruleset with `extends: PARENT` (a built-in name, or a path relative to the file) starts from the
parent, itself merged first (a chain may read at most 64 files; a cycle is E107):
- Top-level keys written in the child replace the parent's whole (`summary`, `reproduces`, `metrics`,
  ...). `ruleset:` is never inherited (default: the file's name); nor are `examples:` (a child without
  them has none). `open: null` (or `multiple-choice: null`) removes that section.
- A section written in the child merges into the parent's section: each key written replaces the
  parent's value whole (`prepare`, `fallback`, `normalize`, `compare`, ...), except `steps`.
- `steps` merge by `id`; every step of the child needs one (E106). In the child's order:
  - an `id` the parent has: the keys written replace that step's keys one by one (`find:` is replaced
    whole, not merged), a key set to `null` goes back to its default; the step keeps its place
    (`before:`/`after:` on it is E106: to move a step, drop it and add it under a new id);
  - `drop: true`: removes the parent's step with that id (E106 when there is none);
  - a new `id`: inserted `before: ID` or `after: ID` a step (one of the parent's or one added above
    it; E106 when there is none), else appended after the last step.
- `from: RULESET` in a section starts that section from RULESET's section instead (merged by the
  same rules: keys replace, steps by id), and the result replaces the `extends:` parent's section
  rather than merging into it."""

MERGE_EXAMPLE_PARENT = """\
ruleset: parent
summary: letters first
multiple-choice:
  compare: letter
  steps:
    - {id: paren, find: {literal: "({letter})"}}
    - {id: bare, find: {token: "{letter}"}, pick: first}
    - {id: text, find: {option-text: {}}}
"""

MERGE_EXAMPLE_CHILD = """\
ruleset: child
extends: parent.yaml
multiple-choice:
  steps:
    - {id: bare, pick: last}                # override one key
    - {id: text, drop: true}                # remove a step
    - id: answer-is                         # a new step, placed before `bare`
      before: bare
      find: {phrases: ["answer is"]}
"""


def merge_example() -> dict:
    """MERGE_EXAMPLE_CHILD merged over MERGE_EXAMPLE_PARENT as plain data, by the loader's own merge (so
    what `rulekit vocabulary` prints as the result is what the loader does)."""
    parent = _convert("parent.yaml", compose(MERGE_EXAMPLE_PARENT, "parent.yaml"), [])
    child = _convert("child.yaml", compose(MERGE_EXAMPLE_CHILD, "child.yaml"), [])
    return _plain(_merge_ruleset(parent, child, Path("child.yaml")))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _resolve_relative(name: str, including: Path) -> str:
    if not isinstance(name, str):
        raise RulesetError(f"`extends:`/`from:` must name a ruleset, got {name!r}", Loc(str(including), 1, 1), code="E105")
    local = including.parent / name
    if name not in builtin_rulesets() and local.is_file():
        return str(local)
    return name


def load_named_yaml(kind: str, name_or_path: str, builtins: dict[str, Path], model: Any) -> tuple[Any, Path]:
    """(the validated `model`, its path) of a built-in YAML file of `kind` ("layout", "prompt style") by name,
    or of a YAML file: read as rulesets are (UTF-8, depth and alias limits, positions). E400 when it is
    neither (with a did-you-mean), E113 with the file:line:column of the first field that does not validate."""
    path = builtins.get(name_or_path) or Path(name_or_path)
    if not path.is_file():
        close = difflib.get_close_matches(name_or_path, list(builtins), n=1)
        raise UsageError(f"no {kind} `{name_or_path}`",
                         help=(f"did you mean `{close[0]}`? " if close else "") + f"built-in: {', '.join(builtins)}",
                         code="E400")
    data: Any = read_yaml(path)
    try:
        return model.model_validate(data), path
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise RulesetError(f"{kind}: `{where}`: {first['msg']}",
                           locate(data, tuple(first["loc"])) or Loc(str(path), 0, 0), code="E113") from None


def locate(data: Any, path: tuple) -> Loc | None:
    """Best location for a pydantic error path: the deepest node on the path that has one."""
    best = getattr(data, "loc", None)
    node = data
    for part in path:
        if isinstance(node, dict) and part in node:
            best = node.locs.get(part, best) if hasattr(node, "locs") else best
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            best = node.locs[part] if hasattr(node, "locs") else best
        else:
            break
        node = node[part]
    return best


def key_loc(data: Any, path: tuple) -> Loc | None:
    """Location of the KEY at the end of `path` (for unknown-key errors)."""
    parent = data
    for part in path[:-1]:
        try:
            parent = parent[part]
        except (KeyError, IndexError, TypeError):
            return locate(data, path)
    if isinstance(parent, LocDict) and isinstance(path[-1], str):
        return parent.locs.get("@key:" + path[-1]) or locate(data, path)
    return locate(data, path)


def validation_errors(exc: ValidationError, data: Any) -> list[RulesetError]:
    """Turn pydantic errors into located RulesetErrors in the author's terms: a step is named by its `id`
    (not by its index in the merged list), the position is where the author wrote the value (their own
    file, also through `extends:`), an unknown key, word or value gets a did-you-mean, and pydantic's
    internal names (a union's `bare` member) never show. Ordered by position in each file."""
    from rulekit.language.schema import known_keys

    out: list[RulesetError] = []
    seen: set = set()
    for err in exc.errors():
        raw = tuple(p for p in err["loc"] if not (isinstance(p, str) and (p.startswith("function-") or p[:1].isupper() or "[" in p)))
        path = tuple(p for p in raw if p != "bare")
        label, rest = _step_label(path, data)
        where = f" in {label}" if label else ""
        kind = err["type"]
        if kind == "extra_forbidden":
            key = err["loc"][-1]
            path = path if path and path[-1] == key else path + (key,)
            try:
                allowed = known_keys(data, path[:-1])
            except (KeyError, IndexError, TypeError, AttributeError):
                allowed = []
            hint = _did_you_mean(key, allowed) or (f"allowed here: {', '.join(allowed)}" if allowed else None)
            error = RulesetError(f"unknown key `{key}`{where}", key_loc(data, path), help=hint, code="E110")
        elif kind == "missing":
            error = RulesetError(f"missing required key `{path[-1]}`{where}", locate(data, path[:-1]), code="E111")
        elif kind in ("union_tag_invalid", "union_tag_not_found"):
            ctx = err.get("ctx", {})
            expected = ctx.get("expected_tags", "")
            got = ctx.get("tag", "")
            names = [t.strip().strip("'") for t in str(expected).split(",")]
            hint = _did_you_mean(got, names) if got else None
            what = f"unknown {_kind_name(path)} `{got}`" if got else f"cannot tell which {_kind_name(path)} this is"
            error = RulesetError(what + where, locate(data, path), help=hint or f"expected one of: {expected}", code="E112")
        elif kind == "literal_error" and isinstance(err.get("input"), str) and raw[-1:] == ("bare",) \
                and _family(path) is not None:
            error = _unknown_bare_word(err, path, where, locate(data, path))
        else:
            hint = None
            if isinstance(err.get("input"), bool):
                hint = 'YAML reads bare yes/no/on/off/true/false as booleans: quote it ("no") if you meant text'
            elif kind == "literal_error" and isinstance(err.get("input"), str):
                hint = _did_you_mean(err["input"], _expected_literals(err))
            what = (f"`{_dotted(rest)}` of {label}" if rest else label) if label else f"`{_dotted(path)}`"
            error = RulesetError(f"{what}: {err['msg']}", locate(data, path), help=hint, code="E113")
        ident = (str(error.loc), error.message)
        if ident not in seen:
            seen.add(ident)
            out.append(error)
    files = {e.loc.file: i for i, e in reversed(list(enumerate(out))) if e.loc is not None}
    return sorted(out, key=lambda e: (files[e.loc.file], e.loc.line, e.loc.col) if e.loc is not None else (len(out), 0, 0))


def _step_label(path: tuple, data: Any) -> tuple[str | None, tuple]:
    """("step `ID`", the path inside that step) for a path into a section's steps, else (None, path). A
    step without a usable id is named by its place: "step 2 of `open`"."""
    if len(path) < 3 or path[0] not in SECTIONS or path[1] != "steps" or not isinstance(path[2], int):
        return None, path
    try:
        step_id = data[path[0]]["steps"][path[2]].get("id")
    except (KeyError, IndexError, TypeError, AttributeError):
        step_id = None
    if isinstance(step_id, str) and step_id:
        return f"step `{step_id}`", path[3:]
    return f"step {path[2] + 1} of `{path[0]}`", path[3:]


def _family(path: tuple) -> str | None:
    """The word family (`pick`, `compare`, `prepare`, `normalize`) whose bare word sits at `path`."""
    last = [p for p in path if not isinstance(p, int)][-1:]
    return last[0] if last and last[0] in ("pick", "compare", "prepare", "normalize") else None


def _expected_literals(err: dict) -> list[str]:
    """The allowed strings of a pydantic literal error (its `expected`: "'a', 'b' or 'c'")."""
    import re

    return re.findall(r"'([^']*)'", str(err.get("ctx", {}).get("expected", "")))


def _unknown_bare_word(err: dict, path: tuple, where: str, loc: Loc | None) -> RulesetError:
    """E112 for a string that is no bare word of its family (`pick: lastt`): the family's words written as
    a plain string and those written as a mapping (`compare: {exact: {}}`) are both offered."""
    from rulekit.language import schema

    family = _family(path)
    got = err["input"]
    bare = _expected_literals(err)
    mapped = sorted(schema.WORD_FAMILIES.get(family, {}))
    kind = _kind_name(path)
    if got in mapped:
        return RulesetError(f"{kind} `{got}`{where} is written as a mapping, with its options", loc,
                            help=f"write `{family}: {{{got}: {{...}}}}` (see `rulekit vocabulary`, `{family}: {got}`)",
                            code="E112")
    close = difflib.get_close_matches(got, bare + mapped, n=1)
    if close and close[0] in bare:
        hint = f"did you mean `{close[0]}`?"
    elif close:
        hint = f"did you mean `{close[0]}`? it takes options: `{family}: {{{close[0]}: {{...}}}}`"
    else:
        hint = f"{kind}s: {', '.join(bare)}" + (f"; written as a mapping: {', '.join(mapped)}" if mapped else "")
    return RulesetError(f"unknown {kind} `{got}`{where}", loc, help=hint, code="E112")


def _dotted(path: tuple) -> str:
    """`multiple-choice.steps[0].find.regex` (a union tag repeated by pydantic is shown once)."""
    out = ""
    previous = None
    for part in path:
        if part == previous:
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
        previous = part
    return out


def _kind_name(path: tuple) -> str:
    for part in reversed(path):
        if part in ("find", "pick", "fallback", "compare", "prepare", "normalize"):
            return {"prepare": "prepare op"}.get(part, part)
        if isinstance(part, str) and part in ("also",):
            return "find"
    return "entry"
