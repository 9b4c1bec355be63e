"""Run recursive tree walks on deeply nested input without `RecursionError`.

The parser is iterative, but semantic analysis and lowering walk the AST recursively, and legal input can
nest 1,000 levels deep (parentheses, blocks, a long `a + b + c + ...` chain is a left-deep tree). Rewriting
every walk with explicit stacks would obscure them, so instead `run_deep` runs the walk in a helper thread
with a large stack (`threading.stack_size`) and a raised recursion limit. The limit is interpreter-wide in
CPython, so it is raised only while a deep walk runs (reference-counted across concurrent callers) and
restored afterwards; the calling thread just waits. If the input is deeper still, the walk's
`RecursionError` becomes a `limit-error` diagnostic instead of a traceback.

Who uses it: the .kdsl compile (`irc.compiler.compile_kdsl`, and the front end's `analyze`/`lower` when
called on their own). It sits at the bottom of the package, not in the front end, because the compile
driver owns it. Lifting PTX does not need it: its SSA construction is iterative (`lift_ssa._resolve`).
"""

from __future__ import annotations

import contextvars
import sys
import threading
from collections.abc import Callable
from typing import TypeVar

from irc.diagnostics import CompileError, Span, error

T = TypeVar("T")

_THREAD = "irc-deep"
STACK_BYTES = 512 * 1024 * 1024  # reserved address space only; pages are committed as the stack grows
RECURSION_LIMIT = 1_000_000

_lock = threading.Lock()
_active = 0
_saved_limit = 0


def _raise_limit() -> None:
    global _active, _saved_limit
    with _lock:
        if _active == 0:
            _saved_limit = sys.getrecursionlimit()
            sys.setrecursionlimit(max(_saved_limit, RECURSION_LIMIT))
        _active += 1


def _restore_limit() -> None:
    global _active
    with _lock:
        _active -= 1
        if _active == 0:
            sys.setrecursionlimit(_saved_limit)


def run_deep(fn: Callable[..., T], *args, span: Span | None = None) -> T:
    """Call `fn(*args)` with room for deep recursion; exceptions propagate to the caller. A recursion
    deeper than even that becomes `CompileError([limit-error at span])`."""
    result: list = []
    failure: list[BaseException] = []

    ctx = contextvars.copy_context()  # a new thread starts with an empty context (suppress's `used` set)

    def body() -> None:
        try:
            result.append(ctx.run(fn, *args))
        except BaseException as e:  # handed to the calling thread
            failure.append(e)

    if threading.current_thread().name == _THREAD:
        body()  # already on a deep stack (the whole compile runs on one): no second thread
        return _outcome(result, failure, span)
    _raise_limit()
    try:
        old = threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
            t = threading.Thread(target=body, name=_THREAD)
            t.start()
        except (RuntimeError, ValueError, MemoryError):  # no big stacks on this platform
            t = None
        finally:
            threading.stack_size(old)
        if t is not None:
            t.join()
    finally:
        _restore_limit()
    if t is None:
        body()  # inline with the normal limit: deep input gives the limit-error below
    return _outcome(result, failure, span)


def _outcome(result: list, failure: list[BaseException], span: Span | None):  # type: ignore[no-untyped-def]
    """The result of a `run_deep` body, or its exception (a RecursionError as a limit-error)."""
    if failure:
        if isinstance(failure[0], RecursionError):
            raise CompileError(
                [
                    error(
                        "limit-error",
                        "the program nests too deeply to be compiled",
                        span,
                        help="split deeply nested expressions or blocks",
                    )
                ]
            ) from None
        raise failure[0]
    return result[0]
