"""Unit tests for the analyzer's facts (CFG, uniformity levels, explanations) and its entry points.

The corpus test checks end-to-end findings; these pin the individual rules (so a regression names the
rule that broke) and run a hypothesis property: structured kernels whose branch conditions are all
block-uniform never produce `barrier-divergence`.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from irc.analysis import CFG, EXIT, AnalyzerPass, Level, analyze_uniformity, check_module
from irc.ir.core import Function, Value
from irc.ir.parser import parse_module
from irc.ir.verifier import verify
from irc.passes.manager import PassContext, PassManager

DATA = Path(__file__).parent / "data" / "analysis"


def _kernel(body: str, params: str = "%n.0: u32", attrs: str = "") -> Function:
    text = f'module "t.kdsl" {{\nkernel @k({params}){attrs} {{\n{body}\n}}\n}}\n'
    m = parse_module(text, "t.kdsl")
    assert verify(m) == []
    return m.functions[0]


def _value(fn: Function, hint: str) -> Value:
    for b in fn.blocks:
        for a in b.args:
            if a.name == hint:
                return a
        for op in b.ops:
            for r in op.results:
                if r.name == hint:
                    return r
    raise KeyError(hint)


def _cmp_level(expr: str, launch: str = "") -> Level:
    body = f"""^bb0:
  %tid.0 = sreg {{name = "tid.x"}} : u32
{expr}
  ret"""
    fn = _kernel(body, attrs=launch)
    return analyze_uniformity(fn).level(_value(fn, "r"))


# -- uniformity rules -------------------------------------------------------------------------------
def test_seed_levels() -> None:
    body = """^bb0:
  %t.1 = sreg {name = "tid.x"} : u32
  %c.2 = sreg {name = "ctaid.x"} : u32
  %g.3 = sreg {name = "nctaid.x"} : u32
  %l.4 = sreg {name = "laneid"} : u32
  %a.5 = add %c.2, %n.0 : u32
  %b.6 = add %a.5, %t.1 : u32
  %k.7 = const {value = 3} : u32
  ret"""
    fn = _kernel(body)
    f = analyze_uniformity(fn)
    assert f.level(_value(fn, "t")) == Level.THREAD
    assert f.level(_value(fn, "c")) == Level.BLOCK
    assert f.level(_value(fn, "g")) == Level.GRID
    assert f.level(_value(fn, "l")) == Level.THREAD
    assert f.level(_value(fn, "a")) == Level.BLOCK
    assert f.level(_value(fn, "b")) == Level.THREAD
    assert f.level(_value(fn, "k")) == Level.GRID
    assert f.level(fn.params[0]) == Level.GRID


def test_warp_boundary_comparisons() -> None:
    def lvl(pred: str, c: int, launch: str = "") -> Level:
        expr = f"""  %c.1 = const {{value = {c}}} : u32
  %r.2 = cmp %tid.0, %c.1 {{pred = "{pred}"}} : bool"""
        return _cmp_level(expr, launch)

    assert lvl("lt", 64) == Level.WARP
    assert lvl("ge", 64) == Level.WARP
    assert lvl("gt", 63) == Level.WARP
    assert lvl("le", 63) == Level.WARP
    assert lvl("lt", 65) == Level.THREAD
    assert lvl("gt", 64) == Level.THREAD
    assert lvl("eq", 64) == Level.THREAD
    # known x-extent that is not a multiple of 32 with a 2-D block: no warp structure
    assert lvl("lt", 64, " attributes {launch = [48, 2, 1]}") == Level.THREAD
    # a 1-D block is fine whatever its size
    assert lvl("lt", 64, " attributes {launch = [48, 1, 1]}") == Level.WARP


def test_warp_index_forms() -> None:
    shr = """  %c.1 = const {value = 5} : u32
  %r.2 = shr %tid.0, %c.1 : u32"""
    div = """  %c.1 = const {value = 64} : u32
  %r.2 = div %tid.0, %c.1 : u32"""
    div_bad = """  %c.1 = const {value = 16} : u32
  %r.2 = div %tid.0, %c.1 : u32"""
    offset = """  %c.1 = const {value = 32} : u32
  %t.3 = add %tid.0, %c.1 : u32
  %c.4 = const {value = 96} : u32
  %r.2 = cmp %t.3, %c.4 {pred = "lt"} : bool"""
    lane = """  %c.1 = const {value = 31} : u32
  %r.2 = and %tid.0, %c.1 : u32"""
    assert _cmp_level(shr) == Level.WARP
    assert _cmp_level(div) == Level.WARP
    assert _cmp_level(div_bad) == Level.THREAD
    assert _cmp_level(offset) == Level.WARP
    assert _cmp_level(lane) == Level.THREAD


def test_tid_y_levels() -> None:
    expr = """  %r.2 = sreg {name = "tid.y"} : u32"""
    assert _cmp_level(expr) == Level.WARP  # x-extent assumed a multiple of 32
    assert _cmp_level(expr, " attributes {launch = [64, 2, 1]}") == Level.WARP
    assert _cmp_level(expr, " attributes {launch = [16, 4, 1]}") == Level.THREAD
    assert _cmp_level(expr, " attributes {launch = [128, 1, 1]}") == Level.GRID


def test_block_dims_argument_overrides_attr() -> None:
    body = """^bb0:
  %tid.0 = sreg {name = "tid.x"} : u32
  %c.1 = const {value = 5} : u32
  %r.2 = shr %tid.0, %c.1 : u32
  ret"""
    fn = _kernel(body, attrs=" attributes {launch = [128, 1, 1]}")
    assert analyze_uniformity(fn).level(_value(fn, "r")) == Level.WARP
    assert analyze_uniformity(fn, (48, 2, 1)).level(_value(fn, "r")) == Level.THREAD


def test_sync_dependence_and_why_chain() -> None:
    fn = parse_module((DATA / "bug_sync_dependence.ir").read_text(), "x").functions[0]
    f = analyze_uniformity(fn)
    k = _value(fn, "k")
    assert f.level(k) == Level.THREAD
    chain = f.why(k)
    assert chain[0].value is k
    assert chain[-1].text == "tid.x"


def test_temporal_divergence_only_outside_loop() -> None:
    fn = parse_module((DATA / "bug_temporal_divergence.ir").read_text(), "x").functions[0]
    f = analyze_uniformity(fn)
    inext = _value(fn, "inext")
    assert f.level(inext) == Level.GRID  # uniform among the threads still iterating
    assert f.level(_value(fn, "few")) == Level.THREAD  # but divergent after the loop
    loop = f.cfg.loops[0]
    assert f.loop_exit_level(loop) == Level.THREAD


def test_block_level_after_early_return() -> None:
    fn = parse_module((DATA / "bug_parity114.ir").read_text(), "x").functions[0]
    f = analyze_uniformity(fn)
    assert f.block_level(fn.blocks[0]) == Level.GRID
    assert f.block_level(fn.blocks[2]) == Level.THREAD
    fn2 = parse_module((DATA / "ok_persistent_block_exit.ir").read_text(), "x").functions[0]
    f2 = analyze_uniformity(fn2)
    assert f2.block_level(fn2.blocks[2]) == Level.BLOCK


def test_shared_broadcast_rule() -> None:
    ok = parse_module((DATA / "ok_shared_broadcast.ir").read_text(), "x").functions[0]
    assert analyze_uniformity(ok).level(_value(ok, "f")) == Level.BLOCK
    bad = parse_module((DATA / "bug_shared_race_condition.ir").read_text(), "x").functions[0]
    assert analyze_uniformity(bad).level(_value(bad, "f")) == Level.THREAD


# -- CFG facts ----------------------------------------------------------------------------------------
def test_cfg_postdom_and_control_dependence() -> None:
    fn = parse_module((DATA / "bug_parity114.ir").read_text(), "x").functions[0]
    cfg = CFG(fn)
    b0, b1, b2 = fn.blocks
    assert cfg.ipdom[b0] is EXIT and cfg.ipdom[b1] is EXIT
    assert cfg.cd[b2] == [b0] and cfg.cd[b1] == [b0]
    assert cfg.idom[b2] is b0 and cfg.idom[b0] is None
    assert cfg.rpo[0] is b0


def test_cfg_loops_and_infinite_loop() -> None:
    fn = parse_module((DATA / "ok_grid_stride_barrier.ir").read_text(), "x").functions[0]
    cfg = CFG(fn)
    assert len(cfg.loops) == 1
    lp = cfg.loops[0]
    assert lp.header is fn.blocks[1] and lp.blocks == {fn.blocks[1], fn.blocks[2]}
    assert lp.exits == [(fn.blocks[1], fn.blocks[3])]
    inf = parse_module((DATA / "ok_infinite_loop.ir").read_text(), "x").functions[0]
    c2 = CFG(inf)
    assert c2.fake_exit == {inf.blocks[3]}  # the latch, so the barrier still post-dominates the `if`
    assert inf.blocks[1] not in c2.cd_closure(inf.blocks[3])  # not controlled by the divergent `if`


def test_cfg_unreachable_blocks_ignored() -> None:
    fn = parse_module((DATA / "ok_unreachable.ir").read_text(), "x").functions[0]
    cfg = CFG(fn)
    assert cfg.rpo == [fn.blocks[0]]
    assert not cfg.is_reachable(fn.blocks[1])


# -- explanations ---------------------------------------------------------------------------------------
def test_parity114_explanation() -> None:
    m = parse_module((DATA / "bug_parity114.ir").read_text(), "bug_parity114.kdsl")
    (d,) = check_module(m)
    assert d.check == "barrier-divergence" and d.span.line == 24
    texts = [lb.message for lb in d.labels]
    assert any("depends on `tid.x` through `gid`" in t for t in texts)
    assert any("return here" in t for t in texts)
    assert "guard only the memory accesses" in (d.help or "")


def test_old_max_message() -> None:
    m = parse_module((DATA / "bug_old_max_alias.ir").read_text(), "x")
    (d,) = check_module(m)
    assert "always 0" in d.message and "exp2(0) = 1" in d.message and "no-op" in d.message
    assert d.labels and "last written here" in d.labels[0].message and d.labels[0].span.line == 5


def test_ptx_register_names() -> None:
    m = parse_module((DATA / "bug_undef_use.ir").read_text(), "x")
    (d,) = check_module(m)
    assert "`%r7`" in d.message


def test_check_subset_and_pass() -> None:
    m = parse_module((DATA / "bug_int_self_cancel.ir").read_text(), "x")
    assert check_module(m, checks=["barrier-divergence"]) == []
    ctx = PassManager([AnalyzerPass()]).run(m, PassContext())
    assert [d.check for d in ctx.diagnostics] == ["self-cancel"] * 3


# -- property: block-uniform control never yields barrier-divergence ----------------------------------
class _Gen:
    """Emits a structured kernel as IR text from a hypothesis-drawn statement tree."""

    def __init__(self) -> None:
        self.blocks: list[list[str]] = []
        self.n = 0

    def fresh(self, hint: str = "v") -> str:
        self.n += 1
        return f"%{hint}.{self.n}"

    def new_block(self, args: str = "") -> int:
        self.blocks.append([f"^bb{len(self.blocks)}{args}:"])
        return len(self.blocks) - 1

    def emit(self, b: int, line: str) -> None:
        self.blocks[b].append("  " + line)

    def cond(self, b: int, uniform: list[str], pick: int, divergent: bool) -> str:
        src = "%tid.0" if divergent else uniform[pick % len(uniform)]
        c = self.fresh("c")
        self.emit(b, f'{c} = cmp {src}, %n.0 {{pred = "lt"}} : bool')
        return c

    def stmts(self, b: int, tree: list, uniform: list[str]) -> int | None:
        for node in tree:
            kind = node[0]
            if kind == "bar":
                self.emit(b, "barrier {id = 0}")
            elif kind == "store":
                self.emit(b, "store %p.0, %n.0")
            elif kind in ("if", "divif"):
                c = self.cond(b, uniform, node[1], kind == "divif")
                t = self.new_block()
                e = self.new_block()
                j = self.new_block()
                self.emit(b, f"cbr {c}, ^bb{t}, ^bb{e}")
                tb = self.stmts(t, node[2] if kind == "if" else [("store",)], uniform)
                if tb is not None:
                    self.emit(tb, f"br ^bb{j}")
                eb = self.stmts(e, node[3] if kind == "if" else [], uniform)
                if eb is not None:
                    self.emit(eb, f"br ^bb{j}")
                b = j
            elif kind == "loop":
                i = self.fresh("i")
                h = self.new_block(f"({i}: u32)")
                self.emit(b, f"br ^bb{h}(%z.0)")
                c = self.fresh("c")
                self.emit(h, f'{c} = cmp {i}, %n.0 {{pred = "lt"}} : bool')
                body = self.new_block()
                ex = self.new_block()
                self.emit(h, f"cbr {c}, ^bb{body}, ^bb{ex}")
                bb = self.stmts(body, node[1], uniform + [i])
                if bb is not None:
                    nxt = self.fresh("i")
                    self.emit(bb, f"{nxt} = add {i}, %one.0 : u32")
                    self.emit(bb, f"br ^bb{h}({nxt})")
                b = ex
            elif kind == "retif":
                c = self.cond(b, uniform, node[1], False)
                r = self.new_block()
                cont = self.new_block()
                self.emit(b, f"cbr {c}, ^bb{r}, ^bb{cont}")
                self.emit(r, "ret")
                b = cont
        return b

    def module(self, tree: list) -> str:
        b0 = self.new_block()
        for line in (
            '%tid.0 = sreg {name = "tid.x"} : u32',
            '%cta.0 = sreg {name = "ctaid.x"} : u32',
            "%z.0 = const {value = 0} : u32",
            "%one.0 = const {value = 1} : u32",
            "%g.0 = load %q.0 : u32",
        ):
            self.emit(b0, line)
        end = self.stmts(b0, tree, ["%cta.0", "%g.0", "%z.0"])
        if end is not None:
            self.emit(end, "ret")
        body = "\n".join("\n".join(b) for b in self.blocks)
        return (
            'module "p.kdsl" {\nkernel @k(%n.0: u32, %p.0: *global u32, %q.0: *global u32) {\n'
            + body
            + "\n}\n}\n"
        )


_leaf = st.one_of(st.just(("bar",)), st.just(("store",)), st.tuples(st.just("divif"), st.integers(0, 3)))
_tree = st.recursive(
    st.lists(_leaf, max_size=3),
    lambda inner: st.lists(
        st.one_of(
            _leaf,
            st.tuples(st.just("if"), st.integers(0, 7), inner, inner),
            st.tuples(st.just("loop"), inner),
            st.tuples(st.just("retif"), st.integers(0, 7)),
        ),
        max_size=4,
    ),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(_tree)
def test_block_uniform_control_never_flags_barriers(tree: list) -> None:
    text = _Gen().module(tree)
    m = parse_module(text, "p.kdsl")
    assert verify(m) == [], text
    diags = check_module(m)
    assert not [d for d in diags if d.check == "barrier-divergence"], text


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 7), st.integers(0, 7), st.integers(0, 3), st.booleans()),
        min_size=1,
        max_size=8,
    )
)
def test_arbitrary_cfgs_do_not_crash(spec: list) -> None:
    """Irreducible loops, infinite loops, unreachable blocks, self loops: the analyzer must stay total."""
    n = len(spec)
    lines = []
    for i, (a, b, kind, bar) in enumerate(spec):
        lines.append(f"^bb{i}:")
        if i == 0:
            lines.append('  %tid.0 = sreg {name = "tid.x"} : u32')
            lines.append('  %c.0 = cmp %tid.0, %n.0 {pred = "lt"} : bool')
            lines.append("  %full.0 = const {value = 4294967295} : u32")
        if bar:
            lines.append("  barrier {id = 0}")
            lines.append(f'  %s.{i} = shfl %n.0, %n.0, %full.0 {{mode = "down"}} : u32')
        ta, tb = 1 + a % max(n - 1, 1), 1 + b % max(n - 1, 1)
        if kind == 0 or n == 1:
            lines.append("  ret")
        elif kind == 1:
            lines.append(f"  br ^bb{ta}")
        elif kind == 2:
            lines.append(f"  cbr %c.0, ^bb{ta}, ^bb{tb}")
        else:
            lines.append("  trap")
    fn = _kernel("\n".join(lines))
    m = fn.module
    assert m is not None
    for d in check_module(m):
        assert d.check in ("barrier-divergence", "warp-sync-divergence")


def test_device_functions_get_value_checks_only() -> None:
    text = """module "f.ptx" {
func @f(%a.0: u32, %n.0: u32) {
^bb0:
  %tid.0 = sreg {name = "tid.x"} : u32
  %c.0 = cmp %tid.0, %n.0 {pred = "lt"} : bool
  cbr %c.0, ^bb1, ^bb2
^bb1:
  barrier {id = 0}
  %x.0 = sub %a.0, %a.0 : u32
  br ^bb2
^bb2:
  ret
}
}
"""
    diags = check_module(parse_module(text, "f.ptx"))
    assert [d.check for d in diags] == ["self-cancel"]
    assert diags[0].message == "`%a - %a` is always 0"
