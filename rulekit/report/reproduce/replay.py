"""Judged generations run on a framework's own judge replies, imported into a temporary judge cache
(never a server)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from rulekit.core.terminal import plural


def replayed(names: tuple[str, ...], records: list, replies: dict[str, str], guessed: set[str],
             sheet: Path, grades: dict[str, str] | None = None) -> list[tuple[Any, str | None]]:
    """Each judged generation run with the sheet's judge replies imported into a temporary judge cache
    (model `imported:<sheet>`, never a server): (Result, None), or (None, why it cannot be replayed)
    when rows it would send to the judge have no reply in the sheet. A sheet keeps one reply per row,
    the one the framework kept, so it stands for every try: one the judge's rules refuse (LogicVista's
    "" after five refused tries) is refused at each. A row VLMEvalKit guessed at random gets unusable
    replies, so the ruleset's own (seeded) guess decides it. `grades` are a two-stage judge's second
    replies (MathVerse's grader), put under the prompts the first replies lead to."""
    import tempfile

    from rulekit.engine.compiler import load_ruleset
    from rulekit.engine.judge import client_for, configure
    from rulekit.run.evaluate import evaluate
    from rulekit.run.judging import grader_pending, pending, with_overrides

    url, model = "http://imported.invalid/v1", f"imported:{sheet.name}"
    out: list[tuple[Any, str | None]] = []
    with tempfile.TemporaryDirectory(prefix="rulekit-replay-") as tmp:
        cache = str(Path(tmp) / "judge.sqlite")
        try:
            configure(base_url=url, model=model, cache=cache)
            ready = []
            for name in names:
                rs = with_overrides(load_ruleset(name))
                missing = []
                for section, record, prompts, _ in pending(rs, records):
                    client = client_for(section.fallback.judge)
                    if record.id in replies or record.id in guessed:
                        reply = replies.get(record.id, "")
                        for attempt in range(1, client.spec.retries + 1):
                            client.cache.put(client.key(prompts[0], attempt), client.model, prompts[0], attempt, reply)
                    else:
                        missing.append(record.id)
                for _, record, grader, prompts in (grader_pending(rs, records) if grades is not None else []):
                    if record.id not in grades:
                        missing.append(record.id)
                        continue
                    for attempt in range(1, grader.spec.retries + 1):
                        grader.cache.put(grader.key(prompts[0], attempt), grader.model, prompts[0], attempt,
                                         grades[record.id])
                ready.append((rs, missing))
            configure(base_url=url, model=model, cache=cache, replay=True)
            for rs, missing in ready:
                if missing:
                    out.append((None, f"`{rs.name}` would ask the judge about {plural(len(missing), 'row')} the sheet "
                                      f"has no judge reply for (first: {missing[0]})"))
                else:
                    out.append((evaluate([rs], records, keep=True, count_unreadable=True)[0], None))
        finally:
            configure()
    return out
