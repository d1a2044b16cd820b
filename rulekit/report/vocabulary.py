"""The ruleset vocabulary as documentation: every word's docstring, condition names and functions, and
how `extends:` merges."""
from __future__ import annotations

import inspect

from rich.console import Console
from rich.text import Text

from rulekit.language.expr import FUNCTIONS, VARIABLES
from rulekit.language.schema import BARE_WORDS, VOCABULARY


def vocabulary_entries() -> list[tuple[str, str]]:
    """(word, documentation) for every vocabulary entry, bare words and condition names included."""
    out = [(name, inspect.cleandoc(model.__doc__ or "")) for name, model in VOCABULARY.items()]
    for kind, words in BARE_WORDS.items():
        out += [(f"{kind}: {w}", doc) for w, doc in words.items()]
    out += [(f"condition name: {n}", doc) for n, doc in VARIABLES.items()]
    out += [(f"condition function: {n}", doc) for n, doc in FUNCTIONS.items()]
    return out


def merge_example_parts() -> tuple[str, str, str, str]:
    """How `extends:` merges, in parts: the rules, the example's parent and child files, and the child as the
    loader's own merge functions load it when this is called (never written by hand)."""
    import yaml

    from rulekit.language.loader import MERGE_EXAMPLE_CHILD, MERGE_EXAMPLE_PARENT, MERGE_RULES, merge_example

    def flow(value) -> str:
        return yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10_000).strip().removesuffix("\n...")

    lines = []
    for key, value in merge_example().items():
        if not isinstance(value, dict):
            lines.append(f"{key}: {flow(value)}")
            continue
        lines.append(f"{key}:")
        for inner, item in value.items():
            if inner == "steps":
                lines += ["  steps:"] + [f"    - {flow(step)}" for step in item]
            else:
                lines.append(f"  {inner}: {flow(item)}")
    return MERGE_RULES, MERGE_EXAMPLE_PARENT, MERGE_EXAMPLE_CHILD, "\n".join(lines)


def merge_rules_text() -> str:
    """How `extends:` (and a section's `from:`) merge, with a worked example whose result is computed by
    the loader's own merge functions when this is called (never written by hand)."""
    rules, parent, child, result = merge_example_parts()

    def indent(text: str) -> str:
        return "\n".join("    " + line for line in text.rstrip("\n").splitlines())

    return (rules + "\n\nExample. parent.yaml:\n" + indent(parent)
            + "\nchild.yaml:\n" + indent(child)
            + "\nchild.yaml as loaded (the steps in the order they run):\n" + indent(result))


def print_vocabulary(console: Console) -> None:
    """Print the vocabulary, one entry per paragraph, then how `extends:` merges."""
    for word, doc in vocabulary_entries():
        console.print(Text(word, style="bold"))
        console.print("  " + " ".join(doc.split()), markup=False)
    console.print(Text("extends: how a ruleset merges into its parent", style="bold"))
    console.print("\n".join("  " + line for line in merge_rules_text().splitlines()), markup=False,
                  soft_wrap=True)
