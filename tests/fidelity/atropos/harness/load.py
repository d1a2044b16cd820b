"""Load the ORIGINAL Atropos vision-eval modules (commit 655faa77) unchanged, with only the
framework imports they need at import time stubbed (no model, no dataset is touched)."""
import importlib.util, os, sys, types
from pathlib import Path

SRC = Path(os.environ.get("ATROPOS_SRC", Path(__file__).with_name("src")))


def _stub(name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


class EvalBase:  # the framework base class: only its constructor would touch servers
    def __init__(self, *a, **k):
        pass


for pkg in ("environments", "environments.eval_environments", "atroposlib", "atroposlib.envs",
            "atroposlib.envs.server_handling"):
    _stub(pkg, __path__=[])
_stub("environments.eval_environments.eval", EvalBase=EvalBase, eval_runner=lambda *a, **k: None)
_stub("atroposlib.envs.server_handling.server_manager", ServerManager=object)
for name in ("openai",):
    if name not in sys.modules:
        try:
            __import__(name)
        except ImportError:
            _stub(name, AsyncOpenAI=object, OpenAI=object)


def _load(modname, path):
    spec = importlib.util.spec_from_file_location(modname, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod
    spec.loader.exec_module(mod)
    return mod


helpers = _load("environments.eval_environments.eval_helpers", SRC / "eval_helpers.py")


def env(name):
    """The module of `<name>_environment.py`."""
    return _load(f"atropos_{name}", SRC / f"{name}_environment.py")


def instance(module, cls_name=None):
    """An instance of the module's EvalBase subclass without running its constructor."""
    if cls_name is None:
        cls_name = next(k for k, v in vars(module).items() if isinstance(v, type) and issubclass(v, EvalBase) and v is not EvalBase)
    cls = getattr(module, cls_name)
    return object.__new__(cls)
