"""`self-cancel`: an op whose two operands are the same value, so its result is a constant: the symptom of
the old_max aliasing bug, where a PTX builder bound `old_max` to the register of `max_score`, the in-place
`max.f32 %f8, %f8, %f9` clobbered both, and the rescale became `sub.f32 %f27, %f8, %f8` -> `ex2(0)` = 1.

Errors: a computation that collapses to a constant. Integers: `a - a`, `a ^ a`, `a / a`, `a % a` and every
comparison. Floats: `a - a`, `a / a` and `a < a` / `a > a`; `a == a`, `a != a`, `a <= a`, `a >= a` are NaN
tests and are not flagged. An idempotent `min(a, a)` / `max(a, a)` is the value itself, not a constant:
it is a note (it does nothing), never an error.

It reports what the source says: for .kdsl the driver runs it on the IR before the optimization passes
(`irc.analysis.checks.SOURCE_CHECKS`), where two operands are the same SSA value only when the source
names the same value (`let t = a; a - t`, a splat array's elements); after value numbering `min(v | 0, v)`
would read `min(v, v)`. Lifted PTX is checked as lifted: a register-to-register `mov` is folded into the
SSA renaming, so `mov %f10, %f8; sub %f27, %f10, %f8` is a self-cancel.

Copies are looked through (`copy` preserves the value exactly), conversions are not.
An op that is one of several copies of the same source expression (an `unroll for` / `for d in [...]`
body, or a helper inlined at several calls) is not reported when some copy has two different operands:
there the operands only coincide because the loop variable or an argument is a constant in that copy
(`v[k] - v[0]` at `k = 0`), which is not the aliasing bug.
The message follows the result one or two users on (through `mul`/`cvt`/`copy`) to say what the constant
does (e.g. `exp2(0) = 1`: the rescale is a no-op); a label points at the op that last wrote the operand.
"""

from __future__ import annotations

import weakref

from irc.analysis.checks.common import FunctionContext, value_span
from irc.diagnostics import Diagnostic, Label, error, note
from irc.ir.core import Op, OpResult, Value
from irc.ir.types import ScalarType

CHECK = "self-cancel"
_INT_CMP = {"eq": "true", "ne": "false", "lt": "false", "gt": "false", "le": "true", "ge": "true"}
_FLOAT_CMP = {"lt": "false", "gt": "false"}
_SYM = {"sub": "-", "xor": "^", "div": "/", "rem": "%"}


def root(v: Value) -> Value:
    """`v` with `copy` ops looked through."""
    n = 0
    while isinstance(v, OpResult) and v.op.name == "copy" and v.op.operands and n < 64:
        v = v.op.operands[0]
        n += 1
    return v


def _is_float(v: Value) -> bool:
    return isinstance(v.type, ScalarType) and v.type.is_float


def constant_result(op: Op) -> str | None:
    """What `op(a, a)` always yields ("0", "1", "a", "true"...) or None when it is not a self-cancel."""
    if len(op.operands) != 2 or root(op.operands[0]) is not root(op.operands[1]):
        return None
    a = op.operands[0]
    fl = _is_float(a)
    n = op.name
    if n == "sub" or n == "xor" or n == "rem":
        if fl and n != "sub":
            return None
        return "0"
    if n == "div":
        return "1"
    if n in ("max", "min"):
        return "same"
    if n == "cmp":
        pred = str(op.attrs.get("pred"))
        return (_FLOAT_CMP if fl else _INT_CMP).get(pred)
    return None


def _flow(ctx: FunctionContext, op: Op, value: str) -> str:
    """Follow the result a step or two to say what the constant does downstream."""
    if value != "0":
        return ""
    cur = op.result
    for _ in range(3):
        users = cur.users
        if len(users) != 1:
            return ""
        u = users[0]
        if u.name == "exp2":
            nxt = u.result.users
            if any(x.name in ("mul", "fma") for x in nxt):
                return ": exp2(0) = 1, so the rescale is a no-op"
            return ": exp2(0) = 1"
        if u.name in ("mul",) and u.results:
            cur = u.result  # 0 * x = 0: keep following
            continue
        if u.name in ("cvt", "copy") and u.results:
            cur = u.result
            continue
        if u.name == "fma":
            return ", so the product it feeds is always 0"
        return ""
    return ""


_LINEINFO: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Module -> LineInfo | None


def _source_key(ctx: FunctionContext):  # type: ignore[no-untyped-def]
    """Span -> the source expression it is a copy of: for PTX with `.loc`, the instruction's own source
    location (nvcc unrolls and inlines into distinct PTX lines); otherwise the span itself."""
    mod = ctx.module
    text = getattr(mod, "source_text", None) if mod is not None else None
    if not text or ".loc" not in text:
        return lambda sp: sp
    info = _LINEINFO.get(mod)
    if info is None:
        from irc.ptxisa.lineinfo import LineInfo

        info = _LINEINFO[mod] = LineInfo(text)

    def key(sp):  # type: ignore[no-untyped-def]
        ch = info.chain(sp.line)
        return ch[0] if ch else sp

    return key


def _specialized_copies(ctx: FunctionContext, key) -> set[tuple]:  # type: ignore[no-untyped-def]
    """(source expression, op name) of expressions with a copy whose operands differ (see the module doc)."""
    out: set[tuple] = set()
    for op in ctx.reachable_ops():
        if op.span is None or len(op.operands) != 2:
            continue
        if root(op.operands[0]) is not root(op.operands[1]):
            out.add((key(op.span), op.name))
    return out


def check_self_cancel(ctx: FunctionContext) -> list[Diagnostic]:
    out: list[Diagnostic] = []
    varied: set[tuple] | None = None
    for op in ctx.reachable_ops():
        c = constant_result(op)
        if c is None:
            continue
        if op.span is not None:
            if varied is None:
                key = _source_key(ctx)
                varied = _specialized_copies(ctx, key)
            if (key(op.span), op.name) in varied:
                continue
        a = root(op.operands[0])
        # An operand without a source name (a temporary such as `gid ^ 5`) is called `x` in the message
        # and the label shows where it is computed, instead of printing an IR id like `%8`.
        anonymous = not a.name
        nm = "x" if anonymous else ctx.name(a)
        if op.name == "cmp":
            pred = {"eq": "==", "ne": "!=", "lt": "<", "gt": ">", "le": "<=", "ge": ">="}[
                str(op.attrs["pred"])
            ]
            msg = f"`{nm} {pred} {nm}` is always {c}"
        elif op.name in ("max", "min"):  # idempotent: the value itself, not a constant
            msg = f"`{op.name}({nm}, {nm})` is always `{nm}`: the operation is a no-op"
        else:
            msg = f"`{nm} {_SYM[op.name]} {nm}` is always {c}"
            msg += _flow(ctx, op, c)
        labels: list[Label] = []
        sp = value_span(a)
        if sp is not None and sp != op.span:
            what = "is computed here" if anonymous else "was last written here"
            labels.append(Label(sp, f"`{nm}` {what}, so both operands are the same value"))
        elif anonymous:
            msg += " (both operands are the same computed value)"
        help_text = (
            "if one operand should be the value from before an in-place update (e.g. `old_max` before "
            "`max_score = max(max_score, x)`), copy it into its own variable/register before the update"
        )
        report = note if c == "same" else error
        out.append(report(CHECK, msg, op.span, labels=labels, help=help_text))
    return out
