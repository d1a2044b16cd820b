"""The named option `index-join` (issue 30, class 8): VLMEvalKit's multiple-choice evaluate joins a prediction
file to its dataset by `index`, and an index is not always unique (SEEDBench2 repeats some).

What the framework does with a repeated index (vlmeval/dataset/utils/multiple_choice.py `mcq_vanilla_eval`,
unchanged from 2024-07 to today; vlmeval/inference.py `infer_data` before it):
- inference keys its replies by index, so every row of an index carries the reply made for its first row
  (the prediction file already shows that; nothing to emulate);
- `answer_map = {index: answer}` keeps the LAST row's answer of an index, and every row of it is judged
  against that answer;
- the per-row result is kept per index (`result[index]`; the run stops on an assertion when two rows of one
  index disagree), so every row of an index gets one hit: the one of its last row, options included;
- `report_acc` then counts every row, its own category: an index repeated k times weighs k.

`index_joined` rewrites records that way; `reproduce` scores a VLMEvalKit multiple-choice file with repeated
indexes both ways and names the option, with its effect in points, when it is the one that gives the published
numbers back."""
from __future__ import annotations

import dataclasses

INDEX_JOIN = "index-join"


def repeated_ids(records: list) -> int:
    """How many records share their id with an earlier one."""
    return len(records) - len({r.id for r in records})


def index_joined(records: list) -> tuple[list, int]:
    """`records` as VLMEvalKit's join by index sees them: each record of a repeated id given the gold answer
    and options of that id's last record (its own question, category and reply kept). Returns the records
    and how many of them changed (0 when no id repeats: then the records are returned as they are)."""
    if not repeated_ids(records):
        return records, 0
    last = {r.id: r for r in records}
    out, changed = [], 0
    for r in records:
        final = last[r.id]
        if final is r or (final.answer == r.answer and final.choices == r.choices):
            out.append(r)
        else:
            out.append(dataclasses.replace(r, answer=final.answer, choices=final.choices))
            changed += 1
    return out, changed
