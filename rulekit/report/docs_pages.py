"""The documentation pages generated from the registries: `docs/vocabulary.md` (every word of the ruleset
language, the condition names and functions, how `extends:` merges) and `docs/rulesets.md` (every built-in
ruleset with its summary, what it reproduces and its generation's dates). `rulekit vocabulary --format
markdown` and `rulekit list --format markdown` print them; tests/test_docs.py fails when a committed page
differs from what the registries give."""
from __future__ import annotations

import re

_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)


def _text(text: str) -> str:
    """Plain documentation text made safe for Markdown: outside code spans, `<`, `>` and `*` are written as
    themselves (no raw HTML, no emphasis from an arithmetic star)."""
    out, pos = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_escape(text[pos:m.start()]))
        out.append(m.group(0))
        pos = m.end()
    out.append(_escape(text[pos:]))
    return "".join(out)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("*", "\\*")


def _paragraphs(doc: str) -> str:
    """A docstring as Markdown paragraphs: each paragraph's lines joined, a line that starts with `- ` kept
    as a list item."""
    blocks = []
    for para in re.split(r"\n\s*\n", doc.strip()):
        items, current = [], []
        for line in para.splitlines():
            if line.lstrip().startswith("- ") and current:
                items.append(" ".join(current))
                current = []
            current.append(line.strip())
        items.append(" ".join(current))
        lines = [_text(item) for item in items if item]
        if len(lines) > 1 and all(line.startswith("- ") for line in lines[1:]) and not lines[0].startswith("- "):
            lines.insert(1, "")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _merge_rules_markdown(rules: str) -> str:
    """The merge rules (written for the terminal: `- ` items, nested items under two spaces) as Markdown:
    a blank line before the list, nested items under four spaces."""
    out = []
    for line in rules.splitlines():
        stripped = line.lstrip()
        depth = len(line) - len(stripped)
        if stripped.startswith("- ") and depth == 0 and out and not out[-1].startswith(("- ", "  ", "    ")):
            out.append("")
        out.append(("    " * (depth // 2) + stripped) if stripped.startswith("- ") else line)
    return "\n".join(out)


def vocabulary_markdown() -> str:
    """`docs/vocabulary.md`: every vocabulary entry (the registries' models' docstrings, bare words,
    condition names and functions), grouped by family in the registries' order, then how `extends:`
    merges with the loader's own worked example."""
    from rulekit.report.vocabulary import merge_example_parts, vocabulary_entries

    groups: dict[str, list[tuple[str, str]]] = {}
    for word, doc in vocabulary_entries():
        family, _, name = word.rpartition(": ")
        groups.setdefault(family or "ruleset structure", []).append((name, doc))
    lines = ["# Vocabulary", "",
             "<!-- Generated from the registries: rulekit vocabulary --format markdown > docs/vocabulary.md -->", "",
             "Every word of the ruleset language, with its documentation, as `rulekit vocabulary` prints it "
             "(generated from the registries; [Rulesets and authoring](authoring.md) shows a whole ruleset). "
             "How `extends:` merges a ruleset into its parent is [at the end](#extends-how-a-ruleset-merges-into-its-parent).",
             ""]
    for family, entries in groups.items():
        lines += [f"## {family}", ""]
        for name, doc in entries:
            lines += [f"### `{name}`", "", _paragraphs(doc) or "(no documentation)", ""]
    rules, parent, child, merged = merge_example_parts()
    lines += ["## extends: how a ruleset merges into its parent", "", _merge_rules_markdown(rules), "",
              "Example. `parent.yaml`:", "", "```yaml", parent.rstrip("\n"), "```", "",
              "`child.yaml`:", "", "```yaml", child.rstrip("\n"), "```", "",
              "`child.yaml` as loaded (the steps in the order they run; merged by the loader itself):", "",
              "```yaml", merged, "```", ""]
    return "\n".join(lines)


def _cell(text: str) -> str:
    return _text(" ".join(str(text).split())).replace("|", "\\|")


def rulesets_markdown() -> str:
    """`docs/rulesets.md`: every built-in ruleset (name order) with its summary, the original code it
    reproduces (repository, path, commit) and, where `rulekit/data/generations.yaml` dates it, its
    framework, dates and the change its generation brought."""
    from rulekit.core.resources import builtin_rulesets
    from rulekit.engine.compiler import load_ruleset
    from rulekit.report.reproduce.registry import generation_info

    lines = ["# Built-in rulesets", "",
             "<!-- Generated from the rulesets and rulekit/data/generations.yaml: "
             "rulekit list --format markdown > docs/rulesets.md -->", "",
             "Every built-in ruleset, as `rulekit list` shows them (generated from the rulesets and "
             "`rulekit/data/generations.yaml`): what it reproduces and, for a scorer generation, when it was "
             "its framework's behaviour ([Frameworks and their generations](frameworks.md) says how `reproduce` "
             "chooses one). `rulekit list --benchmark NAME` gives the rulesets registered for a benchmark.", "",
             "| ruleset | summary | reproduces | generation |", "|---|---|---|---|"]
    for name in builtin_rulesets():
        model = load_ruleset(name).model
        rep = model.reproduces
        reps = rep if isinstance(rep, list) else [rep] if rep else []
        where = "<br>".join(f"{_cell(r.repo)} `{r.path}` @ `{r.commit[:8]}`" for r in reps)
        gen = generation_info(name)
        dated = f"{_cell(gen.framework)} {gen.span} (`{gen.commit}`): {_cell(gen.change)}" if gen else ""
        lines.append(f"| `{name}` | {_cell(model.summary)} | {where} | {dated} |")
    return "\n".join(lines) + "\n"
