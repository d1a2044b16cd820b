"""A pickle file read as plain data, never run.

VLMEvalKit keeps some of what a run did only in pickles: the judge's verdicts per row
(`<model>_<dataset>_openai_result.pkl`, `_<judge>_result.pkl`: {index: {'hit': 0 or 1, 'log': text}}),
an API model's raw replies (`_supp.pkl`: {index: reply}), a previous run's predictions (`_PREV.pkl`).
A pickle is a program: `pickle.load` imports and calls whatever it names (`os.system` by REDUCE). A work
dir is untrusted, so this module never calls `pickle`: it interprets the opcodes itself, and only those
that build plain data — None, bool, int, float, str, bytes, list, tuple, dict (and the memo that lets a
pickle refer to an object twice). Every other opcode (a global, a call, an object build, a persistent id,
an extension code, an out-of-band buffer, a set) is refused with its name, before anything is built from
it. Three names are read as names of data, never imported: pandas puts every number taken from a
DataFrame row into a pickle as `numpy.core.multiarray.scalar(numpy.dtype('i8', False, True), <bytes>)`
(VLMEvalKit's index keys), and protocols 0-2 write bytes as `_codecs.encode(<text>, 'latin1')` (empty ones as
`bytes()`); exactly those calls are decoded (an integer, float or bool dtype; latin-1), any other use of them
is refused. Bounds: the file's bytes (read whole, at most `report-bytes`), the nesting depth, an integer's digits,
and the number of values the data holds counting each reference as often as it occurs (a memo "billion
laughs" of ten lists of ten references to the one before is refused, not expanded).
"""
from __future__ import annotations

import struct
from typing import Any

from rulekit.core.errors import InputError, Loc

MAX_DEPTH = 100  # nesting of lists, tuples and dicts
MAX_VALUES = 5_000_000  # values of the data, a shared one counted at each reference
MAX_INT_BYTES = 64  # an integer of LONG1/LONG4 (512 bits); a text integer at most 160 digits


class _Mark:
    """The MARK opcode's place on the stack."""


_MARK = _Mark()

class _Name:
    """A global the pickle names that is read as the name of data (never imported): what it stands for."""

    def __init__(self, what: str):
        self.what = what


class _Dtype:
    """`numpy.dtype(code, False, True)` as data: the code and (after BUILD) the byte order."""

    def __init__(self, code: str):
        self.code, self.order = code, "<"


# the globals read as names of data; a dtype's code -> struct format (itemsize checked against the bytes)
_NAMES = {"numpy.core.multiarray scalar": "scalar", "numpy._core.multiarray scalar": "scalar",
          "numpy dtype": "dtype", "_codecs encode": "encode",
          "__builtin__ bytes": "bytes", "builtins bytes": "bytes"}  # protocols 0-2 write b"" as bytes()
_DTYPES = {"i1": "b", "i2": "h", "i4": "i", "i8": "q", "u1": "B", "u2": "H", "u4": "I", "u8": "Q",
           "f2": "e", "f4": "f", "f8": "d", "b1": "?"}

# opcodes that build something other than plain data, named in the refusal
_REFUSED = {
    b"i": "INST (builds an object)",
    b"o": "OBJ (builds an object)", b"\x81": "NEWOBJ (builds an object)", b"\x92": "NEWOBJ_EX (builds an object)",
    b"P": "PERSID (a persistent id)", b"Q": "BINPERSID (a persistent id)", b"\x82": "EXT1 (an extension code)",
    b"\x83": "EXT2 (an extension code)", b"\x84": "EXT4 (an extension code)",
    b"\x97": "NEXT_BUFFER (an out-of-band buffer)", b"\x98": "READONLY_BUFFER (an out-of-band buffer)",
    b"\x8f": "EMPTY_SET (a set)", b"\x90": "ADDITEMS (a set)", b"\x91": "FROZENSET (a set)",
    b"S": "STRING (a Python 2 text literal)",
}


def read_plain_pickle(path: str) -> Any:
    """The plain data a pickle file holds, or E303 (it holds something else: refused, nothing run), E301 (it
    ends early or is damaged), E302 (over a bound). The file is at most `report-bytes` long."""
    from rulekit.core.limits import limit, over

    try:
        with open(path, "rb") as f:
            data = f.read(limit("report-bytes") + 1)
    except OSError as exc:
        raise InputError(f"cannot read this pickle: {exc.strerror or exc}", loc=Loc(path, 0, 0), code="E301") from None
    if len(data) > limit("report-bytes"):
        raise over("report-bytes", "the pickle is larger than", path)
    return loads_plain(data, path)


def loads_plain(data: bytes, where: str = "<pickle>") -> Any:
    """The plain data of pickle bytes `data` (see the module's docstring); `where` names it in errors."""
    return _Reader(data, where).run()


class _Reader:
    def __init__(self, data: bytes, where: str):
        self.data, self.where, self.pos = data, where, 0
        self.stack: list[Any] = []
        self.marks: list[int] = []
        self.memo: dict[int, Any] = {}
        self.weight: dict[int, tuple[int, int]] = {}  # id(container) -> (values in it, depth)
        self.kept: list[Any] = []  # every container built, so no id() is reused while reading
        self.values = 0
        self.op_at = 0  # where the opcode being run starts
        self.named: set[int] = set()  # ids of tuples holding a name of data (kept alive by `kept`)

    # ---------------------------------------------------------------- errors and bytes
    def fail(self, message: str, code: str = "E303", help: str | None = None):
        loc = Loc(self.where, 0, 0)
        if code == "E302":
            from rulekit.core.limits import LimitError

            raise LimitError(f"byte {self.pos:,}: {message}", loc=loc, code="E302", help=help)
        cls = InputError
        if code == "E301":
            from rulekit.core.errors import CorruptInput

            cls = CorruptInput
        raise cls(f"byte {self.pos:,}: {message}", loc=loc, code=code, help=help)

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            self.fail(f"the pickle ends before the {n:,} bytes an opcode needs", "E301")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def line(self) -> bytes:
        end = self.data.find(b"\n", self.pos)
        if end < 0:
            self.fail("the pickle ends inside a text argument", "E301")
        out = self.data[self.pos:end]
        self.pos = end + 1
        return out

    def size(self, fmt: str, n: int) -> int:
        return struct.unpack(fmt, self.take(n))[0]

    # ---------------------------------------------------------------- values and their weight
    def measure(self, obj: Any) -> tuple[int, int]:
        """(values, depth) of an object on the stack: a scalar 1 and 0, a container what it was built with."""
        if isinstance(obj, (list, tuple, dict)):
            return self.weight.get(id(obj), (1, 1))
        return 1, 0

    def grow(self, container: Any, items: list[Any]) -> None:
        """Account for `items` put into `container` (already in it)."""
        values, depth = self.weight.get(id(container), (1, 1))
        for item in items:
            if self.is_name(item) and not isinstance(container, tuple):  # a call's arguments may hold one
                self.refuse("a global kept as data (only a numpy scalar's call reads one)")
            v, d = self.measure(item)
            values += v
            depth = max(depth, d + 1)
            self.values += v
        if depth > MAX_DEPTH:
            self.fail(f"the data is nested deeper than {MAX_DEPTH} levels", "E302")
        if self.values > MAX_VALUES:
            self.fail(f"the data holds more than {MAX_VALUES:,} values (counting each reference to a shared one)",
                      "E302")
        self.weight[id(container)] = (values, depth)

    def new(self, container: Any, items: list[Any] = ()) -> Any:
        self.kept.append(container)
        self.weight[id(container)] = (1, 1)
        self.values += 1
        self.grow(container, list(items))
        return container

    def pop_mark(self) -> list[Any]:
        if not self.marks:
            self.fail("an opcode needs a MARK the pickle never set", "E301")
        at = self.marks.pop()
        items = self.stack[at:]
        del self.stack[at:]
        return items

    def pop(self) -> Any:
        if len(self.stack) <= (self.marks[-1] if self.marks else 0):
            self.fail("an opcode needs a value the pickle never pushed", "E301")
        return self.stack.pop()

    def top(self) -> Any:
        if len(self.stack) <= (self.marks[-1] if self.marks else 0):
            self.fail("an opcode needs a value the pickle never pushed", "E301")
        return self.stack[-1]

    def key(self, value: Any) -> Any:
        """A dict key: only what hashes as plain data (a tuple of such)."""
        if isinstance(value, (list, dict)) or (isinstance(value, tuple) and not all(
                not isinstance(v, (list, dict)) for v in value)):
            self.fail(f"a dict key is a {type(value).__name__}, which no plain dict has", "E301")
        return value

    def setitems(self, target: Any, items: list[Any]) -> None:
        if not isinstance(target, dict):
            self.fail("SETITEM(S) on something that is not a dict", "E303")
        if len(items) % 2:
            self.fail("SETITEMS with an odd number of items", "E301")
        pairs = list(zip(items[0::2], items[1::2]))
        for k, v in pairs:
            target[self.key(k)] = v
        self.grow(target, [v for pair in pairs for v in pair])

    def append(self, target: Any, items: list[Any]) -> None:
        if not isinstance(target, list):
            self.fail("APPEND(S) on something that is not a list", "E303")
        target.extend(items)
        self.grow(target, items)

    def integer(self, text: bytes) -> int:
        text = text.rstrip(b"L")
        if len(text) > 160:
            self.fail(f"an integer of {len(text):,} digits (at most 160)", "E302")
        try:
            return int(text)
        except ValueError:
            self.fail(f"not an integer: {text[:40]!r}", "E301")

    def long(self, n: int) -> int:
        if n > MAX_INT_BYTES:
            self.fail(f"an integer of {n:,} bytes (at most {MAX_INT_BYTES})", "E302")
        return int.from_bytes(self.take(n), "little", signed=True)

    def text(self, raw: bytes, encoding: str = "utf-8") -> str:
        try:
            return raw.decode(encoding, "surrogatepass" if encoding == "utf-8" else "strict")
        except UnicodeDecodeError:
            self.fail("a text that does not decode", "E301")

    # ---------------------------------------------------------------- the interpreter
    def refuse(self, what: str):
        """E303 at the opcode being run: the byte offset it starts at, and what it would have done."""
        self.pos = self.op_at
        self.fail(f"refused {what}: this pickle holds more than plain data, and rulekit never runs one",
                  help="only dict, list, tuple, str, bytes, int, float, bool and None are read from a pickle "
                       "(and numbers pandas wrote as numpy scalars)")

    def global_name(self, name: str) -> None:
        """GLOBAL / STACK_GLOBAL: one of the names of data, or refused."""
        if name not in _NAMES:
            self.refuse(f"the global `{name[:80]}` (a pickle names it to import and call it)")
        self.stack.append(_Name(_NAMES[name]))

    def reduce(self) -> None:
        """REDUCE: only the calls a numpy scalar or protocol 2's bytes are written with, decoded as data."""
        args, func = self.pop(), self.pop()
        if not isinstance(func, _Name) or not isinstance(args, tuple):
            self.refuse("REDUCE (calls a function)")
        if func.what == "dtype" and len(args) == 3 and isinstance(args[0], str) and args[0] in _DTYPES \
                and args[1:] == (False, True):
            self.stack.append(_Dtype(args[0]))
        elif func.what == "scalar" and len(args) == 2 and isinstance(args[0], _Dtype) and isinstance(args[1], bytes):
            fmt = ("<" if args[0].order in ("<", "|", "=") else ">") + _DTYPES[args[0].code]
            if struct.calcsize(fmt) != len(args[1]):
                self.fail(f"a numpy {args[0].code} scalar of {len(args[1])} bytes", "E301")
            value = struct.unpack(fmt, args[1])[0]
            self.stack.append(bool(value) if args[0].code == "b1" else value)
        elif func.what == "bytes" and args == ():
            self.stack.append(b"")
        elif func.what == "encode" and len(args) == 2 and isinstance(args[0], str) and args[1] in ("latin1", "latin-1"):
            try:
                self.stack.append(args[0].encode("latin-1"))
            except UnicodeEncodeError:
                self.fail("bytes written as text that is not latin-1", "E301")
        else:
            self.refuse(f"REDUCE of `{func.what}` with other arguments than data is written with")

    def build(self) -> None:
        """BUILD: only a numpy dtype's state (its byte order), as pandas writes it."""
        state, target = self.pop(), self.top()
        if not isinstance(target, _Dtype) or not isinstance(state, tuple) or len(state) != 8 \
                or state[1] not in ("<", ">", "|", "="):
            self.refuse("BUILD (sets an object's state)")
        target.order = state[1]

    def run(self) -> Any:  # noqa: C901 - one branch per opcode
        while True:
            self.op_at = self.pos
            op = self.take(1)
            if op in _REFUSED:
                self.refuse(_REFUSED[op])
            if op == b".":  # STOP
                if len(self.stack) != 1 or self.marks:
                    self.fail("STOP with a stack that is not one value", "E301")
                if self.is_name(self.stack[0]):
                    self.refuse("a global kept as data (only a numpy scalar's call reads one)")
                return self.stack[0]
            if op == b"c":  # GLOBAL: "module\nname\n"
                module = self.text(self.line(), "ascii")
                self.global_name(f"{module} {self.text(self.line(), 'ascii')}")
            elif op == b"\x93":  # STACK_GLOBAL
                name, module = self.pop(), self.pop()
                if not (isinstance(module, str) and isinstance(name, str)):
                    self.refuse("STACK_GLOBAL (imports a module attribute)")
                self.global_name(f"{module} {name}")
            elif op == b"R":
                self.reduce()
            elif op == b"b":
                self.build()
            elif op == b"\x80":  # PROTO
                self.take(1)
            elif op == b"\x95":  # FRAME
                self.take(8)
            elif op == b"(":
                self.marks.append(len(self.stack))
            elif op == b"0":  # POP
                if self.stack and (not self.marks or len(self.stack) > self.marks[-1]):
                    self.stack.pop()
                elif self.marks and len(self.stack) == self.marks[-1]:
                    self.marks.pop()
                else:
                    self.fail("POP on an empty stack", "E301")
            elif op == b"1":  # POP_MARK
                self.pop_mark()
            elif op == b"2":  # DUP
                self.stack.append(self.top())
            elif op == b"N":
                self.stack.append(None)
            elif op == b"\x88":
                self.stack.append(True)
            elif op == b"\x89":
                self.stack.append(False)
            elif op == b"I":  # INT: text, "00"/"01" are False/True
                raw = self.line()
                self.stack.append(False if raw == b"00" else True if raw == b"01" else self.integer(raw))
            elif op == b"J":
                self.stack.append(self.size("<i", 4))
            elif op == b"K":
                self.stack.append(self.size("<B", 1))
            elif op == b"M":
                self.stack.append(self.size("<H", 2))
            elif op == b"L":
                self.stack.append(self.integer(self.line()))
            elif op == b"\x8a":
                self.stack.append(self.long(self.size("<B", 1)))
            elif op == b"\x8b":
                self.stack.append(self.long(self.size("<i", 4)))
            elif op == b"F":
                try:
                    self.stack.append(float(self.line()[:40]))
                except ValueError:
                    self.fail("not a float", "E301")
            elif op == b"G":
                self.stack.append(self.size(">d", 8))
            elif op == b"V":  # UNICODE: raw-unicode-escape text
                self.stack.append(self.text(self.line(), "raw-unicode-escape"))
            elif op == b"X":
                self.stack.append(self.text(self.take(self.size("<I", 4))))
            elif op == b"\x8c":
                self.stack.append(self.text(self.take(self.size("<B", 1))))
            elif op == b"\x8d":
                self.stack.append(self.text(self.take(self.size("<Q", 8))))
            elif op == b"T":  # BINSTRING / SHORT_BINSTRING: Python 2 str, read as pickle does (ASCII)
                self.stack.append(self.text(self.take(self.size("<i", 4)), "ascii"))
            elif op == b"U":
                self.stack.append(self.text(self.take(self.size("<B", 1)), "ascii"))
            elif op == b"B":
                self.stack.append(self.take(self.size("<I", 4)))
            elif op == b"C":
                self.stack.append(self.take(self.size("<B", 1)))
            elif op in (b"\x8e", b"\x96"):  # BINBYTES8, BYTEARRAY8 (read as bytes)
                self.stack.append(self.take(self.size("<Q", 8)))
            elif op == b"]":
                self.stack.append(self.new([]))
            elif op == b"l":
                self.stack.append(self._list(self.pop_mark()))
            elif op == b"a":
                item = self.pop()
                self.append(self.top(), [item])
            elif op == b"e":
                items = self.pop_mark()
                self.append(self.top(), items)
            elif op == b"}":
                self.stack.append(self.new({}))
            elif op == b"d":
                target = self.new({})
                self.setitems(target, self.pop_mark())
                self.stack.append(target)
            elif op == b"s":
                value, key = self.pop(), self.pop()
                self.setitems(self.top(), [key, value])
            elif op == b"u":
                items = self.pop_mark()
                self.setitems(self.top(), items)
            elif op == b")":
                self.stack.append(self.new(()))
            elif op == b"t":
                self.stack.append(self._tuple(self.pop_mark()))
            elif op in (b"\x85", b"\x86", b"\x87"):
                n = op[0] - 0x84
                items = [self.pop() for _ in range(n)][::-1]
                self.stack.append(self._tuple(items))
            elif op == b"p":
                self.memo[self.integer(self.line())] = self.top()
            elif op == b"q":
                self.memo[self.size("<B", 1)] = self.top()
            elif op == b"r":
                self.memo[self.size("<I", 4)] = self.top()
            elif op == b"\x94":  # MEMOIZE
                self.memo[len(self.memo)] = self.top()
            elif op in (b"g", b"h", b"j"):
                n = self.integer(self.line()) if op == b"g" else self.size("<B", 1) if op == b"h" else self.size("<I", 4)
                if n not in self.memo:
                    self.fail(f"a memo reference ({n}) to nothing stored", "E301")
                obj = self.memo[n]
                v, _ = self.measure(obj)
                self.values += v  # a reference counts what it refers to, each time
                if self.values > MAX_VALUES:
                    self.fail(f"the data holds more than {MAX_VALUES:,} values (counting each reference to a "
                              "shared one)", "E302")
                self.stack.append(obj)
            else:
                self.pos -= 1
                self.fail(f"unknown opcode {op!r}: not a pickle rulekit reads", "E301")

    def _list(self, items: list[Any]) -> list:
        out = self.new([])
        out.extend(items)
        self.grow(out, items)
        return out

    def is_name(self, item: Any) -> bool:
        """Is `item` a name of data, or a tuple that holds one (a call's arguments)?"""
        return isinstance(item, (_Name, _Dtype)) or (isinstance(item, tuple) and id(item) in self.named)

    def _tuple(self, items: list[Any]) -> tuple:
        out = tuple(items)
        if any(self.is_name(item) for item in items):
            self.named.add(id(out))
        self.kept.append(out)
        self.weight[id(out)] = (1, 1)
        self.values += 1
        self.grow(out, items)
        return out
