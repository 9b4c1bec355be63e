"""The SMT solver behind the analyzer's queries: z3, imported on first use, with a limit per query and a
budget per function.

Why lazy: importing z3 costs about 70 ms, more than checking a small kernel, and most kernels never need
it (the uniformity lattice decides them). Why a budget: a file with thousands of undecided branches must
still be checked in bounded time; what the budget leaves unasked is reported as `not-analysed`, never
silently dropped.

Why resource units, not milliseconds: the limits are z3's `rlimit` (a count of the solver's own steps),
so a query either finishes within them on every machine or on none. A wall-clock timeout made answers
depend on the machine's load: two CI runs of one file could differ, one with a finding and one with a
`not-analysed` note. A wall-clock limit stays as a safety net only (`IRC_SOLVER_TIMEOUT_MS`, 30 s), far
above what the unit limit allows (about 1 s of solving on a laptop core).
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import Any

from irc.records import record

_Z3: ModuleType | None = None

#: z3 resource units one query may spend before it is `unknown` ("timeout"); $IRC_SOLVER_LIMIT overrides.
#: About 1 s of solving on one core of this project's CI machines (5,000-10,000 units per ms)
QUERY_LIMIT = 10_000_000
#: total units one function's queries may spend before further queries are `unknown` ("budget");
#: $IRC_SOLVER_BUDGET overrides
FUNCTION_BUDGET = 80_000_000
#: of the query's limit, what keeping each preferred witness constraint may spend (`Session.check`)
PREFER_SHARE = 10
#: wall-clock milliseconds after which any one query stops, whatever its units ($IRC_SOLVER_TIMEOUT_MS)
SAFETY_TIMEOUT_MS = 30_000


def z3() -> ModuleType:
    """The z3 module (imported once, on first use)."""
    global _Z3
    if _Z3 is None:
        import z3 as mod  # noqa: PLC0415 - lazy on purpose (start-up time)

        _Z3 = mod
    return _Z3


class Z3Context:
    """z3's API bound to a context of its own. Each function's queries get a fresh one, so a witness
    depends only on that function (not on what the process checked before): serial and parallel runs,
    and two runs of CI, print the same launch."""

    def __init__(self) -> None:
        self.m = z3()
        self.ctx = self.m.Context()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.m, name)

    def BitVec(self, name: str, bits: int) -> Any:  # noqa: N802 - z3's names
        return self.m.BitVec(name, bits, ctx=self.ctx)

    def BitVecVal(self, v: int, bits: int) -> Any:  # noqa: N802
        return self.m.BitVecVal(v, bits, ctx=self.ctx)

    def BitVecSort(self, bits: int) -> Any:  # noqa: N802
        return self.m.BitVecSort(bits, ctx=self.ctx)

    def BoolSort(self) -> Any:  # noqa: N802
        return self.m.BoolSort(ctx=self.ctx)

    def Bool(self, name: str) -> Any:  # noqa: N802
        return self.m.Bool(name, ctx=self.ctx)

    def BoolVal(self, v: bool) -> Any:  # noqa: N802
        return self.m.BoolVal(v, ctx=self.ctx)

    def SolverFor(self, logic: str) -> Any:  # noqa: N802
        return self.m.SolverFor(logic, ctx=self.ctx)


def available() -> bool:
    try:
        z3()
    except ImportError:
        return False
    return True


@record
class Outcome:
    """A query's answer: `status` is "sat" (with `model`), "unsat" (proven impossible) or "unknown"
    (with `reason`: "timeout", "budget", "solver unavailable", or the solver's own reason)."""

    status: str
    model: Any = None
    reason: str = ""

    @property
    def sat(self) -> bool:
        return self.status == "sat"

    @property
    def unsat(self) -> bool:
        return self.status == "unsat"


class Budget:
    """Solver resource units left for one function."""

    def __init__(self, total: int | None = None):
        self.left = float(total if total is not None else _env_int("IRC_SOLVER_BUDGET", FUNCTION_BUDGET))

    def spend(self, units: float) -> None:
        self.left -= units


def _env_int(name: str, default: int) -> int:
    env = os.environ.get(name)
    return int(env) if env and env.isdigit() and int(env) > 0 else default


def query_limit() -> int:
    return _env_int("IRC_SOLVER_LIMIT", QUERY_LIMIT)


def safety_timeout_ms() -> int:
    return _env_int("IRC_SOLVER_TIMEOUT_MS", SAFETY_TIMEOUT_MS)


def limit_solver(s: Any, units: int) -> None:
    """Bound the next `check()` of solver `s` by `units` of z3's resources (and the wall-clock net)."""
    s.set("rlimit", max(1, int(units)))
    s.set("timeout", safety_timeout_ms())


def spent(s: Any) -> int:
    """The resource units solver `s`'s context has spent so far (z3's cumulative `rlimit count`)."""
    try:
        return int(s.statistics().get_key_value("rlimit count"))
    except Exception:  # noqa: BLE001 - a z3 without the counter: nothing measured
        return 0


def unknown_reason(s: Any) -> str:
    """ "timeout" for a check stopped by its limits (units or wall clock), else z3's own reason."""
    why = s.reason_unknown()
    return "timeout" if any(w in why for w in ("timeout", "canceled", "resource", "rlimit")) else why


class Session:
    """One incremental solver for the queries of one function. The definitional constraints (launch
    bounds, coordinate bounds, join arguments) are asserted once, as they appear; each query is checked
    between a push and a pop. Re-encoding the same definitions for every query was most of the solver
    time on kernels with many undecided access pairs."""

    def __init__(self, zc: Any):
        self.z = zc
        self.s = None
        self.added: set[int] = set()

    def check(
        self, base: list, query: list, budget: Budget | None = None, prefer: list[list] | None = None
    ) -> Outcome:
        """Satisfiability of `base` and `query`. When satisfiable and `prefer` lists tiers of further
        constraints, each tier (or, failing that, each constraint of it) is kept in turn if the rest stays
        satisfiable, so the model (the witness a user reads) is a typical launch: a 1-D block of 256
        threads, block 0, small parameters."""
        if budget is not None and budget.left <= 0:
            return Outcome("unknown", reason="budget")
        z = self.z
        if self.s is None:
            self.s = z.SolverFor("QF_UFBV")
            self.s.set("random_seed", 0)
        s = self.s
        for c in base:
            if id(c) not in self.added:
                self.added.add(id(c))
                s.add(c)
        limit = query_limit()
        if budget is not None:
            limit = max(1, min(limit, int(budget.left)))
        limit_solver(s, limit)
        depth = s.num_scopes()
        s.push()
        u0 = spent(s)
        try:
            s.add(*query)
            r = s.check()
            if r == z.unsat:
                return Outcome("unsat")
            if r != z.sat:
                return Outcome("unknown", reason=unknown_reason(s))
            model = s.model()
            if prefer:
                # each preference is kept only if it costs little; all of them together at most the limit
                u1 = spent(s)
                limit_solver(s, max(1, limit // PREFER_SHARE))
                for tier in prefer:
                    for group in (tier, *([[p] for p in tier] if len(tier) > 1 else [])):
                        if spent(s) - u1 > limit:
                            break
                        s.push()
                        s.add(*group)
                        if s.check() == z.sat:
                            model = s.model()
                            break
                        s.pop()
            return Outcome("sat", model=model)
        finally:
            if budget is not None:
                budget.spend(spent(s) - u0)
            s.pop(s.num_scopes() - depth)  # the query's scope and every kept preference's


class RawTerms:
    """A term's DAG read through z3's C API directly: node ids, kinds, declaration names and arguments
    without a Python wrapper (and its reference counting and error check) per node.

    Why: `Encoder.pure` and `asyncq._uniform_unknowns` walk every subterm of path conditions of thousands
    of nodes; through `children()` each node costs a few wrapper objects, which was most of their time.
    The nodes read here are subterms of a term the caller holds, so they stay alive while it is walked."""

    _INSTANCE: RawTerms | None = None

    def __init__(self) -> None:
        from z3 import z3core

        m = z3()
        self.kind = _raw(z3core.Z3_get_ast_kind)
        self.id = _raw(z3core.Z3_get_ast_id)
        self.decl = _raw(z3core.Z3_get_app_decl)
        self.decl_kind = _raw(z3core.Z3_get_decl_kind)
        self._decl_name = _raw(z3core.Z3_get_decl_name)
        self._sym_kind = _raw(z3core.Z3_get_symbol_kind)
        self._sym_str = z3core.Z3_get_symbol_string  # (the wrapper: it decodes the name as z3 does)
        self._sym_int = _raw(z3core.Z3_get_symbol_int)
        self.num_args = _raw(z3core.Z3_get_app_num_args)
        self.arg = _raw(z3core.Z3_get_app_arg)
        self.body = _raw(z3core.Z3_get_quantifier_body)
        self.APPS = (m.Z3_APP_AST, m.Z3_NUMERAL_AST)  # `is_app`: constants and numerals are applications
        self.QUANTIFIER = m.Z3_QUANTIFIER_AST
        self.UNINTERPRETED = m.Z3_OP_UNINTERPRETED
        self.INT_SYMBOL = m.Z3_INT_SYMBOL

    @classmethod
    def get(cls) -> RawTerms:
        if cls._INSTANCE is None:
            cls._INSTANCE = cls()
        return cls._INSTANCE

    def name(self, c: Any, d: Any) -> str:
        """`FuncDeclRef.name()` of the declaration `d`."""
        s = self._decl_name(c, d)
        if self._sym_kind(c, s) == self.INT_SYMBOL:
            return f"k!{self._sym_int(c, s)}"
        return self._sym_str(c, s)

    def children(self, c: Any, a: Any, kind: int) -> list:
        """`ExprRef.children()` of the node `a` of kind `kind`."""
        if kind in self.APPS:
            arg = self.arg
            return [arg(c, a, i) for i in range(self.num_args(c, a))]
        if kind == self.QUANTIFIER:
            return [self.body(c, a)]
        return []


def _raw(fn: Any) -> Any:
    """The C function behind a z3core wrapper (which is `f(ctx, ..., _elems=Elementaries(c_function))`
    and checks the context's error code after each call), or the wrapper itself where z3 lays it out
    otherwise. The calls made here cannot fail on the live nodes they are given."""
    d = getattr(fn, "__defaults__", None) or ()
    f = getattr(d[-1], "f", None) if d else None
    return f if callable(f) else fn
