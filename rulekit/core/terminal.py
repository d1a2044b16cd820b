"""Text from rulesets and inputs on a terminal: shown, never obeyed.

File names, ids, replies, options, notes and error messages come from files rulekit did not write. A
terminal obeys some of their characters: ESC starts a control sequence (`ESC ] 0 ;` retitles the window,
`ESC [ 2 J` clears it, OSC 8 makes links), C1 controls (U+0080-U+009F, `U+009B` is a one-character CSI)
do the same on many terminals, and bidirectional overrides (U+202E, the isolates U+2066-U+2069) make
text read in another order than it is. `safe` shows each of them as a visible escape (`\\x1b`, `\\u202e`);
`json_safe` does the same inside JSON text (as `\\uXXXX`, so the JSON means the same); `safe_console`
is a rich console that passes every piece of text it draws through `safe`, with markup and emoji codes
off (`[bold]` and `:x:` in a file name are text). Every place that prints such text uses one of them.
"""
from __future__ import annotations

import re
from typing import Any

# C0 controls but tab and newline, DEL, C1 controls; bidi embeddings, overrides, isolates and marks;
# zero-width and other invisible format characters that reorder or hide text
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]")


def _escape(m: re.Match) -> str:
    code = ord(m.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe(text: Any) -> str:
    """`text` (anything: it is made a string) with every character a terminal would act on or that
    reorders what is shown replaced by a visible escape: `\\x1b`, `\\x9b`, `\\u202e`. Tabs and newlines
    stay. Plain text comes back unchanged (and fast: one regex search)."""
    text = text if isinstance(text, str) else str(text)
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def _json_escape(m: re.Match) -> str:
    return f"\\u{ord(m.group()):04x}"


_JSON_UNSAFE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\ufff9-\ufffb]")


def json_safe(text: str) -> str:
    """JSON text (or an HTML page carrying JSON) with the characters `safe` escapes written as `\\uXXXX`
    (CR kept). Valid JSON holds them only inside strings (C0 controls not even there), where the escape
    means the same character: the JSON decodes to the same value, and HTML text shows the escape."""
    return _JSON_UNSAFE.sub(_json_escape, text) if _JSON_UNSAFE.search(text) else text


def safe_console(**kwargs: Any) -> Any:
    """A rich Console (same arguments) that draws every text segment through `safe` — tables, Text
    objects and plain strings alike; rich's own styling, cursor and link codes are not text and stay
    — with markup, emoji codes and highlighting off unless asked for."""
    from rich.console import Console
    from rich.segment import Segment

    class SafeConsole(Console):
        """A Console whose rendered text never carries a control sequence or bidi override from data."""

        def render(self, renderable: Any, options: Any = None):  # noqa: D401 - rich's signature
            for segment in super().render(renderable, options):
                text = segment.text
                if segment.control is None and text and _UNSAFE.search(text):
                    yield Segment(_UNSAFE.sub(_escape, text), segment.style)
                else:
                    yield segment

    for name in ("markup", "emoji", "highlight"):
        kwargs.setdefault(name, False)
    return SafeConsole(**kwargs)


def plural(n: int, word: str, many: str | None = None) -> str:
    """`n` and `word` in its number: `1 row`, `2 rows`, `1,024 rows` (`many`: an irregular plural)."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"
