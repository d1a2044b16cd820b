"""VLMEvalKit's ORIGINAL vlmeval/smp/misc.py of ANY commit (2023-2026), loaded unchanged from the file beside
the harness (`git show COMMIT:vlmeval/smp/misc.py > misc.py`), as `vlmeval.smp`: the third-party packages it
imports at load time and never uses for scoring (requests, matplotlib, seaborn, tabulate, huggingface_hub,
sty, portalocker, tqdm, ...) are stubbed when they are not installed; VLMEvalKit's file I/O (`load`, `dump`)
is workdir_original's. Older commits keep misc.py's names in vlmeval/smp.py itself: pass that file instead.
    from smp_any_era import smp   # then `from ...smp import *` in an original module finds it"""
import importlib, importlib.util, sys, types

import numpy as np
import pandas as pd

from modules import load_module, stub_packages
from workdir_original import dump, load


class _Anything(types.ModuleType):
    """A stand-in for a package the original imports but scoring never calls: any attribute is another one."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        child = _Anything(f"{self.__name__}.{name}")
        setattr(self, name, child)
        return child

    def __call__(self, *args, **kwargs):
        return None


STUBBED = ("requests", "matplotlib", "matplotlib.pyplot", "seaborn", "tabulate", "huggingface_hub",
           "huggingface_hub.utils", "huggingface_hub.utils._cache_manager", "sty", "portalocker", "tqdm",
           "validators", "termcolor", "xlsxwriter_unused", "decord", "timeout_decorator", "omegaconf",
           "rich", "rich.progress")
for _name in STUBBED:
    if _name in sys.modules:
        continue
    try:
        if _name in ("tqdm",):  # real ones are harmless; stub only what is missing
            importlib.import_module(_name)
            continue
    except ImportError:
        pass
    sys.modules[_name] = _Anything(_name)
    parent, _, child = _name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], child, sys.modules[_name])

stub_packages("vlmeval", "vlmeval.dataset", "vlmeval.dataset.utils", "vlmeval.utils", "vlmeval.evaluate",
              "vlmeval.eval")
misc = load_module("vlmeval.smp.misc", "misc.py")
smp = types.ModuleType("vlmeval.smp")
smp.__dict__.update({k: v for k, v in vars(misc).items() if not k.startswith("__")})
smp.__dict__.update(np=np, pd=pd, load=load, dump=dump)
sys.modules["vlmeval.smp"] = smp
sys.modules["vlmeval"].smp = smp
