"""SSA construction of the PTX lifter (Braun et al., "Simple and Efficient Construction of SSA Form",
CC 2013): on the fly with sealed blocks and trivial-phi removal; phis are block arguments.

A register-to-register `mov` is folded into the renaming (`fwd`), a value used at another type gets a
`bitcast`/`cvt` cached per block. `finish` materializes edge arguments and applies the benign-undef rule
(`irc.analysis.benign_undef`). `SsaMixin` is one half of `irc.frontend.ptx.lift.FnLifter`.
"""

from __future__ import annotations

from typing import Any

from irc.analysis.benign_undef import benign_undefs
from irc.frontend.ptx.lift_types import bit_width
from irc.ir.core import Block, BlockArg, Op, OpResult, Value
from irc.ir.types import BOOL, ScalarType, Type

__all__ = ["SsaMixin"]


class SsaMixin:
    """Braun et al.'s read/write/seal over the lifter's blocks, plus conversions and constants."""

    # --------------------------------------------------------------------------------- SSA core
    def find(self, v: Value) -> Value:
        f = self.fwd.get(v)
        if f is None:
            return v
        while True:
            g = self.fwd.get(f)
            if g is None:
                return f
            f = g

    def write(self, key: str, v: Value, block: Block | None = None) -> None:
        if v.name is None:
            v.name = key.split("@", 1)[0].lstrip("%")
        self.defs[block or self.b.block][key] = v

    def read(self, key: str, block: Block) -> Value:
        d = self.defs[block].get(key)
        if d is not None:
            f = self.fwd.get(d)
            return d if f is None else self.find(d)
        root = self.join_root.get(block)
        # (a phi made on the way may have been found trivial and replaced after it was returned)
        return self.find(self._resolve(self._read_rec(key, block if root is None else root)))

    def _resolve(self, gen) -> Value:  # type: ignore[no-untyped-def]
        """Drive Braun et al.'s recursive lookup with an explicit stack: `_read_rec` yields each
        `(key, block)` it needs read, and gets the value back. A chain of 20,000 blocks (legal PTX) is as
        deep as the lookup goes, so recursion would need a deep stack; this needs none."""
        stack = [gen]
        value: Value | None = None
        while True:
            try:
                key, b = stack[-1].send(value)
            except StopIteration as done:
                stack.pop()
                if not stack:
                    return self.find(done.value)
                value = self.find(done.value)
                continue
            d = self.defs[b].get(key)
            if d is not None:
                f = self.fwd.get(d)
                value = d if f is None else self.find(d)
                continue
            root = self.join_root.get(b)
            stack.append(self._read_rec(key, b if root is None else root))
            value = None

    def _read_rec(self, key: str, block: Block):  # type: ignore[no-untyped-def]
        """The value of `key` at the start of `block` (no definition in it): a generator for `_resolve`."""
        if block not in self.sealed:
            phi = self._new_phi(key, block)
            self.incomplete.setdefault(block, []).append((key, phi))
            val: Value = phi
        else:
            ps = self.preds[block]
            if len(ps) == 1:
                val = yield (key, ps[0][0])
            elif not ps:
                val = self.undef(key)
            else:
                phi = self._new_phi(key, block)
                self.defs[block][key] = phi
                val = yield from self._phi_operands(key, phi)
        self.defs[block][key] = val
        return val

    def _new_phi(self, key: str, block: Block) -> BlockArg:
        a = block.add_arg(self.regtype(key), key.split("@", 1)[0].lstrip("%"))
        self.phi_var[a] = key
        self.phi_users[a] = []
        return a

    def _phi_operands(self, key: str, phi: BlockArg):  # type: ignore[no-untyped-def]
        """Read `key` in every predecessor of `phi`'s block (yielding each read to `_resolve`), record the
        operands, and remove `phi` if it is trivial."""
        ops = []
        for pb, _ in self.preds[phi.block]:
            v = yield (key, pb)
            ops.append(v)
            if isinstance(v, BlockArg) and v in self.phi_users:
                self.phi_users[v].append(phi)
        self.phi_ops[phi] = ops
        return self._try_remove_trivial(phi)

    def _add_phi_operands(self, key: str, phi: BlockArg) -> Value:
        return self._resolve(self._phi_operands(key, phi))

    def _try_remove_trivial(self, phi0: BlockArg) -> Value:
        result: Value | None = None
        work = [phi0]
        first = True
        while work:
            phi = work.pop()
            if phi in self.dead_phis or phi not in self.phi_ops:
                if first:
                    result = self.find(phi)
                first = False
                continue
            same: Value | None = None
            trivial = True
            for op in self.phi_ops[phi]:
                op = self.strip(self.find(op))
                if op is same or op is phi:
                    continue
                if same is not None:
                    trivial = False
                    break
                same = op
            if not trivial:
                if first:
                    result = phi
                first = False
                continue
            if same is None:
                same = self.undef(self.phi_var[phi])
            if same.type != phi.type:
                same = self._conv_at_start(same, phi.type, phi.block)
            self.dead_phis.add(phi)
            self.fwd[phi] = same
            phi.replace_all_uses_with(same)
            if first:
                result = same
            first = False
            for u in self.phi_users.get(phi, ()):
                if u is not phi and u not in self.dead_phis and u in self.phi_ops:
                    work.append(u)
        assert result is not None
        return result

    def strip(self, v: Value) -> Value:
        """The value a lifter-made conversion converts (a register used at another type is the same
        register value: phis of `bitcast x` and `x` are trivial). A phi removed as trivial since the
        conversion was made is followed to its replacement: `conv_src` still names the phi, and a new
        conversion of it would use a block argument that is no longer its block's."""
        while True:
            s = self.conv_src.get(v)
            if s is not None:
                v = s
                continue
            f = self.fwd.get(v)
            if f is None:
                return v
            v = self.find(v)

    def _conv_at_start(self, v: Value, t: Type, block: Block) -> Value:
        cache = self.cache.setdefault(block, {})
        k = (v, t)
        hit = cache.get(k)
        if hit is not None:
            return hit
        name = "bitcast" if bit_width(v.type) == bit_width(t) else "cvt"
        op = Op(name, [v], [t], span=self.last_span, result_names=[v.name])
        block.insert(0, op)
        cache[k] = op.result
        self.conv_src[op.result] = v
        return op.result

    def seal(self, block: Block) -> None:
        for key, phi in self.incomplete.pop(block, []):
            self._add_phi_operands(key, phi)
        self.sealed.add(block)

    def undef(self, key: str) -> Value:
        u = self.undefs.get(key)
        if u is None:
            op = Op("undef", [], [self.regtype(key)], {"reg": key.split("@", 1)[0]}, span=self.last_span,
                    result_names=[key.split("@", 1)[0].lstrip("%")])  # fmt: skip
            self.undef_ops.append(op)
            u = op.result
            self.undefs[key] = u
        return u

    # ------------------------------------------------------------------------------ value helpers
    def conv(self, v: Value, t: Type) -> Value:
        if v.type == t:
            return v
        v = self.strip(v)
        if v.type == t:
            return v
        block = self.b.block
        cache = self.cache.setdefault(block, {})
        k = (v, t)
        hit = cache.get(k)
        if hit is not None:
            return hit
        try:
            same = bit_width(v.type) == bit_width(t)
        except TypeError:
            same = False
        r = self.b.value("bitcast" if same else "cvt", [v], t, hint=v.name)
        cache[k] = r
        self.conv_src[r] = v
        return r

    def const(self, value: int | float | bool, t: Type) -> Value:
        cache = self.cache.setdefault(self.b.block, {})
        k = ("c", value, t)
        hit = cache.get(k)
        if hit is not None:
            return hit
        r = self.b.const(value, t)
        cache[k] = r
        return r

    # ------------------------------------------------------------------------------- finishing
    def finish(self) -> None:
        fn = self.fn
        entry = fn.entry
        # materialize edge arguments
        for blk in fn.blocks:
            if not blk.args:
                continue
            live = [a for a in blk.args if a not in self.dead_phis]
            if len(live) != len(blk.args):
                blk.args[:] = live
                for i, a in enumerate(live):
                    a.index = i
            if not live:
                continue
            for k, (pb, si) in enumerate(self.preds[blk]):
                term = pb.ops[-1]
                vals = []
                for a in live:
                    v = self.find(self.phi_ops[a][k])
                    if v.type != a.type:
                        v = self._conv_before_term(v, a.type, pb)
                    vals.append(v)
                term.succ_args[si] = vals
                for v in vals:
                    v.uses.append(term)
        for r in self.conv_src:
            if not r.uses and isinstance(r, OpResult) and r.op.block is not None:
                r.op.erase()
        self._check_uninitialized()
        if self.undef_ops:
            for op in reversed(self.undef_ops):
                if op.results[0].uses:
                    entry.insert(0, op)
                else:
                    op.block = None

    def _conv_before_term(self, v: Value, t: Type, blk: Block) -> Value:
        name = "bitcast" if bit_width(v.type) == bit_width(t) else "cvt"
        op = Op(name, [v], [t], span=blk.ops[-1].span, result_names=[v.name])
        blk.insert_before_terminator(op)
        return op.result

    def _check_uninitialized(self) -> None:
        """Replace each `undef` all of whose reads are benign by `const 0` (see `irc.analysis.benign_undef`)."""
        for u in benign_undefs(self.fn, self.undefs.values()):
            uop = u.op  # type: ignore[attr-defined]
            t = u.type
            z: Any = 0.0 if isinstance(t, ScalarType) and t.is_float else (False if t == BOOL else 0)
            uop.name = "const"
            uop.attrs = {"value": z}
