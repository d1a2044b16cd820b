"""Read text as Python reads a literal arithmetic expression — what originals get from `eval(text)` —
without evaluating code: the text is parsed by `ast` and only literals, containers and arithmetic on
numbers are computed. A name, a call, an attribute, a subscript, a comparison or anything over the
size limits makes the text unreadable (`Unreadable`), where the original's `eval` would run it.

MathVista's list answers (`eval(pred) == eval(ans)`) and MATH-Vision's `is_equal`
(`abs(float(eval(gold)) - float(eval(pred))) < 1e-6`) are read this way by the `arithmetic` compare.
"""
from __future__ import annotations

import ast
import operator
import warnings
from typing import Any

MAX_TEXT = 10_000        # characters of one expression
MAX_INT_BITS = 100_000   # bits of an integer an operation may produce (a power, a shift, a product)


class Unreadable(ValueError):
    """The text is not a literal arithmetic expression (or its value would be too big)."""


_NUMBER = (int, float, complex)  # bool is an int, as in Python
_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow,
           ast.BitXor: operator.xor, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
           ast.LShift: operator.lshift, ast.RShift: operator.rshift}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Invert: operator.invert, ast.Not: operator.not_}


def read_literal(text: str, names: dict[str, Any] | None = None) -> Any:
    """The value `eval(text)` would give for a literal arithmetic expression: numbers, strings, bytes,
    True/False/None, lists, tuples, sets and dicts of them, unary `- + ~ not`, binary `+ - * / // %
    ** ^ & | << >>` between numbers, and `+` between two strings, lists or tuples. Leading spaces
    and tabs are ignored, as `eval` ignores them. Raises Unreadable for anything else, for an
    operation Python refuses (1/0, 2.0**10000) and for integers over MAX_INT_BITS bits. `names`
    gives values to bare names (the local variables an original's `eval` happens to see); any
    other name is unreadable."""
    if not isinstance(text, str):
        text = str(text)
    if len(text) > MAX_TEXT:
        raise Unreadable(f"longer than {MAX_TEXT:,} characters")
    try:
        with warnings.catch_warnings():  # "\d" in a string, "3(4)": Python would warn on the user's terminal
            warnings.simplefilter("ignore")
            tree = ast.parse(text.lstrip(" \t"), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise Unreadable(f"not an expression: {exc.__class__.__name__}") from None
    try:
        return _value(tree.body, names or {})
    except RecursionError:
        raise Unreadable("nested too deeply") from None
    except (ArithmeticError, TypeError, ValueError) as exc:  # 1/0, a float overflow, int/str, ...
        raise Unreadable(f"{exc.__class__.__name__}: {exc}") from None


def _value(node: ast.AST, names: dict[str, Any]) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.Name) and node.id in names:
        return names[node.id]
    if isinstance(node, ast.List):
        return [_value(e, names) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_value(e, names) for e in node.elts)
    if isinstance(node, ast.Set):
        return {_value(e, names) for e in node.elts}
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {_value(k, names): _value(v, names) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        operand = _value(node.operand, names)
        if not isinstance(node.op, ast.Not) and not isinstance(operand, _NUMBER):
            raise Unreadable("a sign on something that is not a number")
        return _UNARY[type(node.op)](operand)
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left, right = _value(node.left, names), _value(node.right, names)
        if isinstance(node.op, ast.Add) and type(left) is type(right) and isinstance(left, (str, bytes, list, tuple)):
            return left + right
        if not (isinstance(left, _NUMBER) and isinstance(right, _NUMBER)):
            raise Unreadable(f"`{type(node.op).__name__}` between {type(left).__name__} and {type(right).__name__}")
        _check_size(node.op, left, right)
        return _BINARY[type(node.op)](left, right)
    raise Unreadable(f"`{type(node).__name__}` is not a literal")


def _check_size(op: ast.operator, left: Any, right: Any) -> None:
    """Refuse an integer result over MAX_INT_BITS bits before computing it."""
    if not (type(left) in (int, bool) and type(right) in (int, bool)):
        return
    bits = max(abs(left).bit_length(), 1)
    if isinstance(op, ast.Pow) and right > 0 and bits > 1 and (bits - 1) * right > MAX_INT_BITS:
        raise Unreadable(f"a power over {MAX_INT_BITS:,} bits")
    if isinstance(op, ast.LShift) and right > 0 and bits + right > MAX_INT_BITS:
        raise Unreadable(f"a shift over {MAX_INT_BITS:,} bits")
    if isinstance(op, ast.Mult) and bits + max(abs(right).bit_length(), 1) > MAX_INT_BITS:
        raise Unreadable(f"a product over {MAX_INT_BITS:,} bits")
