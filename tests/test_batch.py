"""`Evaluator.decide_batch`: many replies in one call, as an RL reward function calls it."""
from __future__ import annotations

import pytest


def test_decide_batch_equals_deciding_each_record(tmp_path):
    """`Evaluator.decide_batch` (the RL-reward shape): the same decisions as `decide` on records built
    the same way, partial credit in `rewards`, per-record random draws keyed by id (batch order and
    company do not change them), bad lengths refused."""


    from rulekit import Evaluator, Record, load_ruleset

    replies = ["The answer is B", "(C) cow", "no idea", "A", "I think it is the dog"]
    golds = ["B", "C", "A", "B", "B"]
    options = [["cat", "dog", "cow"]] * 5
    ev = Evaluator(load_ruleset("vlmevalkit@v1"), seed=3)
    batch = ev.decide_batch(replies, golds, options)
    one = Evaluator(load_ruleset("vlmevalkit@v1"), seed=3)
    each = [one.decide(Record(str(i), "multiple-choice", r, g, {"A": "cat", "B": "dog", "C": "cow"}))
            for i, (r, g) in enumerate(zip(replies, golds))]
    assert batch.decisions == each and len(batch) == 5
    assert batch.preds == [d.pred for d in each] and batch.rewards == [float(d.correct is True) for d in each]

    anls = Evaluator(load_ruleset("atropos-mmvet")).decide_batch(["total 1,250 dollars", "x"], ["1,250", "y"])
    assert anls.rewards == [0.5, 0.0] and anls.correct == [False, False]

    per_item = tmp_path / "guess.yaml"
    per_item.write_text("ruleset: guess\nextends: vlmevalkit\nmultiple-choice:\n"
                        "  fallback: {random-option: {order: per-item, seed: 0}}\n", encoding="utf-8")
    rnd = Evaluator(load_ruleset(str(per_item)), seed=0)
    ids = [f"q{i}" for i in range(40)]
    full = rnd.decide_batch(["zzz"] * 40, ["A"] * 40, [["a", "b", "c", "d"]] * 40, ids=ids)
    part = rnd.decide_batch(["zzz"] * 5, ["A"] * 5, [["a", "b", "c", "d"]] * 5, ids=ids[35:][::-1])
    assert set(full.outcomes) == {"fallback"} and len(set(full.preds)) == 4
    assert part.preds == full.preds[35:][::-1]
    with pytest.raises(ValueError, match="golds has 1 entries for 2 responses"):
        ev.decide_batch(["A", "B"], ["A"])
