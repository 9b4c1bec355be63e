"""Witnesses: the concrete launch a solver model describes, in the words a kernel engineer reads.

A witness names the block and thread extents, the block, the two threads the query was about, the
parameter values and loop iterations the model chose, and, when the deciding condition depends only on
the thread's coordinates, the launch and the parameters, which threads of the block go which way
("threads 200..255 ... while threads 0..199 ..."). `to_json` is what `--format json` prints as the
finding's `witness` object and SARIF carries in the result's `properties`.
"""

from __future__ import annotations

from typing import Any

from irc.analysis.symbolic.launch import AXES
from irc.analysis.symbolic.solver import z3
from irc.records import field, record


@record
class Witness:
    block_dim: tuple[int, int, int]
    grid_dim: tuple[int, int, int]
    block: tuple[int, int, int]
    threads: list[tuple[int, int, int]]
    params: dict[str, int] = field(default_factory=dict)
    param_index: dict[str, int] = field(default_factory=dict)  # parameter position (as a string) -> value
    iterations: dict[str, int] = field(default_factory=dict)
    groups: list[tuple[str, str]] = field(default_factory=list)  # (thread ranges, what they do)
    story: str = ""  # one sentence: what happens to whom
    contract: str = ""  # the launch contract the finding assumed, when there was one
    confirmed: str = ""  # "" (not replayed), or what the emulator reported when replaying the launch
    # source positions the sentence names: `{L0}`, `{L1}`... in `groups`/`story` stand for "line N" of
    # refs[0], refs[1]... (IR spans: PTX lines for lifted PTX until `map_to_source` moves them to .cu)
    refs: list = field(default_factory=list)

    def ref(self, span: object) -> str:
        """A placeholder for "line N" of `span` (kept symbolic so the source mapping can rewrite it)."""
        if span is None:
            return "there"
        self.refs.append(span)
        return f"{{L{len(self.refs) - 1}}}"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "block_dim": list(self.block_dim),
            "grid_dim": list(self.grid_dim),
            "block": list(self.block),
            "threads": [list(t) for t in self.threads],
            "params": dict(self.params),
            "param_index": dict(self.param_index),
            "iterations": dict(self.iterations),
        }
        if self.groups:
            out["groups"] = [{"threads": r, "what": w} for r, w in self.groups]
        if self.story:
            out["story"] = self.story
        if self.contract:
            out["contract"] = self.contract
        if self.confirmed:
            out["confirmed"] = self.confirmed
        out["template"] = self.text()
        out["refs"] = [[r.file, r.line] for r in self.refs]
        out["text"] = fill(out["template"], out["refs"], None)
        return out

    def text(self) -> str:
        """'with n = 200 (block 256x1x1, grid 4x1x1): threads 200..255 of block (3, 0, 0) ...'"""
        launch = f"block {_dims(self.block_dim)}, grid {_dims(self.grid_dim)}"
        given = ", ".join(f"{k} = {v}" for k, v in self.params.items())
        its = ", ".join(f"in iteration {v} of {k}" for k, v in self.iterations.items())
        head = (f"with {given}" if given else "") + (", " if given and its else "") + its
        head = f"{head} ({launch})" if head else f"with a launch of {launch}"
        where = f"block {_coord(self.block)}"
        if self.groups:
            body = " while ".join(
                f"{_who(r)} of {where} {w}" if i == 0 else f"{_who(r)} {w}"
                for i, (r, w) in enumerate(self.groups)
            )
        elif self.story:
            body = self.story.replace("{block}", where)
        else:
            body = "threads " + " and ".join(_coord(t) for t in self.threads) + f" of {where}"
        out = f"{head}: {body}"
        if self.contract:
            out += f" (assuming {self.contract})"
        if self.confirmed:
            out += f"; {self.confirmed}"
        return out


def fill(template: str, refs: list, where: object) -> str:
    """`template` with each `{Lk}` replaced by "line N" of refs[k] (`where(file, line)` -> (file, line)
    maps PTX lines to the user's source; None keeps them)."""
    out = template
    for k, (f, ln) in enumerate(refs):
        if where is not None:
            got = where(f, ln)  # type: ignore[operator]
            if got is not None:
                f, ln = got
        out = out.replace(f"{{L{k}}}", f"line {ln}")
    return out


def _dims(d: tuple[int, int, int]) -> str:
    return "x".join(str(x) for x in d)


def _who(r: str) -> str:
    """'thread 0' / 'threads 1..255'."""
    return f"thread {r}" if r.isdigit() else f"threads {r}"


def _coord(t: tuple[int, int, int]) -> str:
    return f"({t[0]}, {t[1]}, {t[2]})"


def ranges(ids: list[int], most: int = 4) -> str:
    """'0..143, 200, 202..255' for sorted integers (at most `most` runs, then '... (N threads)')."""
    if not ids:
        return ""
    out = []
    start = prev = ids[0]
    for x in ids[1:] + [None]:  # type: ignore[list-item]
        if x is not None and x == prev + 1:
            prev = x
            continue
        out.append(str(start) if start == prev else f"{start}..{prev}")
        if x is not None:
            start = prev = x
    if len(out) > most:
        return ", ".join(out[:most]) + f", ... ({len(ids)} threads)"
    return ", ".join(out)


def _int(model: Any, term: Any, signed: bool = False) -> int:
    v = model.eval(term, model_completion=True)
    try:
        n = v.as_long()
    except AttributeError:
        return 0
    if signed and v.size() and n >= 1 << (v.size() - 1):
        n -= 1 << v.size()
    return n


def from_model(
    model: Any, enc: Any, thread_names: list[str], contract: str = "", blocks: list | None = None
) -> Witness:
    """The launch, block, threads, parameters and iterations of `model`; with `blocks`, only the iterations
    of loops around one of them (a counter other terms merely mention says nothing about the finding)."""
    L = enc.launch
    bd = tuple(_int(model, n) for n in L.ntid)
    gd = tuple(_int(model, n) for n in L.nctaid)
    blk = tuple(_int(model, c) for c in L.ctaid)
    threads = []
    for nm in thread_names:
        th = enc.thread(nm)
        threads.append(tuple(_int(model, t) for t in th.tid))
    params: dict[str, int] = {}
    by_index: dict[str, int] = {}
    for idx, sym in sorted(L.params.items()):
        a = enc.fn.params[idx]
        if _is_pointer(a):
            continue  # an address: its value says nothing to the reader
        signed = bool(getattr(a.type, "is_signed", False))
        params[_param_name(enc, idx)] = by_index[str(idx)] = _int(model, sym, signed)
    w = Witness(bd, gd, blk, threads, params, by_index, {}, contract=contract)  # type: ignore[arg-type]
    for lp in enc.cfg.loops:
        if blocks is not None and not any(b in lp.blocks for b in blocks):
            continue
        for nm in thread_names:
            k = enc.threads[nm].iters.get(id(lp))
            if k is not None:
                sp = _loop_span(lp)
                w.iterations[f"the loop at {w.ref(sp)}" if sp is not None else "the loop"] = _int(model, k)
                break
    return w


def _is_pointer(a: Any) -> bool:
    """A pointer parameter: a pointer type (.kdsl), or lifted PTX's 64-bit parameter made global with
    `cvta.to.global`."""
    if getattr(a.type, "is_ptr", False):
        return True
    for u in a.uses:
        if u.name == "cvt" and u.attrs.get("cvta"):
            return True
        if u.name == "bitcast" and any(
            x.name == "cvt" and x.attrs.get("cvta") for r in u.results for x in r.uses
        ):
            return True
    return False


def _param_name(enc: Any, idx: int) -> str:
    names = getattr(enc.launch, "param_names", None)
    if names and idx < len(names) and names[idx]:
        return names[idx]
    a = enc.fn.params[idx]
    nm = a.name or f"param{idx}"
    # lifted PTX: `_Z5shiftPKfPfi_param_2` -> `param_2`
    if "_param_" in nm:
        nm = "param_" + nm.rsplit("_param_", 1)[1].split(".", 1)[0]
    return nm


def _loop_span(lp: Any) -> Any:
    for b in [lp.header, *lp.blocks]:
        for op in b.ops:
            if op.span is not None:
                return op.span
    return None


def enumerate_threads(
    model: Any, enc: Any, make_term: Any, limit: int = 1024
) -> dict[bool, list[int]] | None:
    """Evaluate a boolean `make_term(thread)` for every thread of the witness's block (linear ids), with
    the launch, parameters, iteration counters and shared unknowns of `model`. None when the term depends
    on something per thread the model does not fix (a loaded value), or the block is too large."""
    z = enc.z
    th = enc.thread("enum")
    term = make_term(th)
    dims = [_int(model, n) for n in enc.launch.ntid]
    total = dims[0] * dims[1] * dims[2]
    if total > limit or total <= 0:
        return None
    kmap = {}
    for lid, k in th.iters.items():
        other = None
        for nm, t2 in enc.threads.items():
            if nm != "enum" and lid in t2.iters:
                other = t2.iters[lid]
                break
        kmap[k] = _int(model, other) if other is not None else 0
    if has_unknowns(term):
        return None  # the split depends on data, not only on the coordinates
    subs_k = [(k, z.BitVecVal(v, 32)) for k, v in kmap.items()]
    if subs_k:
        term = z.substitute(term, *subs_k)
    # everything but the coordinates fixed by the model (`enum` is never in a solved query, so the model
    # leaves its coordinates free)
    term = model.eval(term, model_completion=False)
    out: dict[bool, list[int]] = {True: [], False: []}
    for lin in range(total):
        x = lin % dims[0]
        y = (lin // dims[0]) % dims[1]
        zz = lin // (dims[0] * dims[1])
        subs = [
            (z.BitVec(f"tid.{a}@enum", w), z.BitVecVal(c, w))
            for a, w, c in zip(AXES, (10, 10, 6), (x, y, zz))
        ]
        v = z.simplify(z.substitute(term, *subs))
        if not (z.is_true(v) or z.is_false(v)):
            return None
        out[z.is_true(v)].append(lin)
    return out


def has_unknowns(term: Any) -> bool:
    """Whether `term` depends on a value the encoding does not determine from the coordinates, the
    launch, the parameters and the iterations: a fresh unknown (`#` constants), a per-thread unknown
    (`#t` functions), memory (`ld:`) or an uninterpreted pure function (`pf:`, float arithmetic)."""
    z = z3()
    seen: set = set()
    work = [term]
    while work:
        t = work.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z.is_app(t) and t.decl().kind() == z.Z3_OP_UNINTERPRETED:
            n = t.decl().name()
            if ("#" in n and "#u" not in n) or n.startswith(("ld:", "pf:")):
                return True
        work.extend(t.children())
    return False


def free_consts(term: Any) -> list:
    z = z3()
    seen: set = set()
    out = []
    work = [term]
    while work:
        t = work.pop()
        if t.get_id() in seen:
            continue
        seen.add(t.get_id())
        if z.is_const(t) and t.decl().kind() == z.Z3_OP_UNINTERPRETED:
            out.append(t)
            continue
        work.extend(t.children())
    return out


__all__ = ["Witness", "from_model", "enumerate_threads", "ranges", "AXES"]
