"""rulekit: answer extraction and scoring for LLM/VLM evaluations, written as data.

    from rulekit import load_ruleset, Evaluator
    ev = Evaluator(load_ruleset("vlmevalkit"))
    decision = ev.decide(record)
    rewards = ev.decide_batch(replies, golds, options).rewards   # many at once (an RL reward)

Heavy optional parts (vLLM, datasets, sympy) are imported only where used.
"""
__version__ = "0.1.0"

from rulekit.engine.compiler import load_ruleset  # noqa: E402
from rulekit.engine.decide import Batch, Evaluator  # noqa: E402
from rulekit.core.records import Record  # noqa: E402

__all__ = ["load_ruleset", "Evaluator", "Batch", "Record", "__version__"]
