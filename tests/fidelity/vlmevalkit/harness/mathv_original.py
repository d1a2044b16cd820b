"""VLMEvalKit's ORIGINAL mathv.py (vlmeval/dataset/utils/mathv.py @ e8e78f05, unchanged) with its can_infer
(matching_original.py), loaded from the files beside the harness; only `vlmeval.smp` is stubbed (`load` takes
the DataFrame itself — a harness may set `mathv.load` — and `get_logger` is logging's). Needs pandas,
timeout-decorator and latex2sympy2_extended 1.11.0 with antlr4-python3-runtime 4.11.1."""
import logging, sys

from matching_original import matching  # noqa: F401  (can_infer, before mathv.py imports it)
from modules import load_module

smp = sys.modules["vlmeval.smp"]
smp.load, smp.get_logger = (lambda frame: frame), logging.getLogger
mathv = load_module("vlmeval_mathv", "mathv.py")
