"""VLMEvalKit's ORIGINAL can_infer (vlmeval/utils/matching_util.py @ e8e78f05, unchanged, from the file beside
the harness) as `vlmeval.utils.can_infer`, with only `vlmeval.smp.log.get_logger` stubbed (logging's)."""
import logging, sys, types

from modules import load_module, stub_packages

stub_packages("vlmeval", "vlmeval.smp")
log = types.ModuleType("vlmeval.smp.log")
log.get_logger = logging.getLogger
sys.modules["vlmeval.smp.log"] = log
matching = load_module("vlmeval.utils.matching_util", "matching_util.py")
utils = types.ModuleType("vlmeval.utils")
utils.can_infer = matching.can_infer
sys.modules["vlmeval.utils"] = utils
