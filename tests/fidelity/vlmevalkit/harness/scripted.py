"""What the scripted-judge harnesses share (rate_mmvet.py, rate_logicvista.py, rate_mathverse.py import it
from beside them): a judge whose replies are scripted, and an ORIGINAL VLMEvalKit file loaded unchanged
with only `vlmeval.smp` stubbed."""
import hashlib, importlib.util, logging, sys, types


class Scripted:
    """A judge: the scripted replies, one per call, noting each prompt and temperature."""

    def __init__(self, replies):
        self.replies, self.prompts, self.temperatures = list(replies), [], []

    def generate(self, prompt, temperature=0):
        self.prompts.append(prompt)
        self.temperatures.append(temperature)
        return self.replies[len(self.prompts) - 1]


def sha256(text):
    """The sha256 of a prompt, UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def load_original(path):
    """The VLMEvalKit file at `path`, unchanged, with `vlmeval.smp`'s `load` (and `vlmeval.smp.file.load`)
    taking the DataFrame itself and `get_logger` logging's."""
    smp = types.ModuleType("vlmeval.smp")
    smp.load, smp.get_logger = (lambda frame: frame), logging.getLogger
    smp_file = types.ModuleType("vlmeval.smp.file")
    smp_file.load = smp.load
    sys.modules.update({"vlmeval": types.ModuleType("vlmeval"), "vlmeval.smp": smp, "vlmeval.smp.file": smp_file})
    spec = importlib.util.spec_from_file_location(f"vlmeval_{path.rsplit('.', 1)[0]}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
