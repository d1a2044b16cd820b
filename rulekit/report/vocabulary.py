"""The ruleset vocabulary as documentation: every word's docstring, condition names and functions."""
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


def print_vocabulary(console: Console) -> None:
    """Print the vocabulary, one entry per paragraph."""
    for word, doc in vocabulary_entries():
        console.print(Text(word, style="bold"))
        console.print("  " + " ".join(doc.split()), markup=False)
