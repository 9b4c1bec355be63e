"""The PTX-level program model shared by the PTX printer, the PTX parser, the emulator and the lifter.

Why one model: the backend emits it (after register allocation), `irc.backends.ptx.printer` prints it,
`irc.frontend.ptx.parser` builds the very same structure from any generator's PTX text (nvcc, Triton,
builder libraries), and the emulator executes it. So the emulator runs exactly what is printed, and it can
run nvcc's PTX too.

An instruction keeps PTX's own spelling: `opcode` is the full dotted name (`setp.lt.s32`,
`ld.global.nc.v4.f32`, `mbarrier.try_wait.parity.shared::cta.b64`), operands in PTX order (destinations
first where PTX puts them first). `base` and `mods` split the opcode for table look-ups.
"""

from __future__ import annotations

from irc.records import field, record
from irc.target import DEFAULT_ARCH, DEFAULT_MODULE_VERSION, format_version


@record(frozen=True)
class Reg:
    """A register operand such as `%r1`, `%fd3`, `%p2`, or a special register such as `%tid.x`."""

    name: str

    def __str__(self) -> str:
        return self.name


@record(frozen=True)
class Imm:
    """An immediate. `value` is an int or a float; `text` is the spelling to print (`0f3F800000`, `-1`)."""

    value: int | float
    text: str

    def __str__(self) -> str:
        return self.text


@record(frozen=True)
class Sym:
    """A symbol: a label (branch target), a variable or parameter name, a function name."""

    name: str

    def __str__(self) -> str:
        return self.name


@record(frozen=True)
class Addr:
    """A memory operand `[base+offset]`; base is a register or a symbol (`[%rd1+16]`, `[smem+4]`,
    `[param_0]`), or None for an absolute immediate address `[16]`."""

    base: Reg | Sym | None
    offset: int = 0
    # Tensor coordinates of a TMA address `[%rd1, {%r1, %r2}]` (cp.async.bulk.tensor, tex); None otherwise.
    index: Vec | None = None

    def __str__(self) -> str:
        tail = f", {self.index}" if self.index is not None else ""
        if self.base is None:
            return f"[{self.offset}{tail}]"
        if self.offset == 0:
            return f"[{self.base}{tail}]"
        return f"[{self.base}+{self.offset}{tail}]"  # `[%rd1+-4]`: ptxas rejects `[%rd1-4]`


@record(frozen=True)
class Vec:
    """A vector operand `{%f1, %f2, %f3, %f4}` (elements may be `_` sinks)."""

    items: tuple[Operand, ...]

    def __str__(self) -> str:
        return "{" + ", ".join(str(i) for i in self.items) + "}"


@record(frozen=True)
class Pair:
    """A pair destination `%r1|%p2` (shfl.sync's value and in-range predicate)."""

    first: Operand
    second: Operand

    def __str__(self) -> str:
        return f"{self.first}|{self.second}"


@record(frozen=True)
class Sink:
    """The `_` sink operand."""

    def __str__(self) -> str:
        return "_"


@record(frozen=True)
class Neg:
    """A negated predicate source operand `!%p1` (as in `selp` or `@!%p` guards)."""

    inner: Operand

    def __str__(self) -> str:
        return f"!{self.inner}"


Operand = Reg | Imm | Sym | Addr | Vec | Pair | Sink | Neg


@record
class Loc:
    """A `.loc file line col` position: maps the instruction back to the original source. `up` is the
    call site this position was inlined at (`.loc ..., inlined_at F L C` from nvcc/LLVM), itself possibly
    inlined further up; None for code written where it runs."""

    file: int
    line: int
    col: int
    up: Loc | None = None


@record
class Instr:
    """One PTX instruction. `line` is its line in the PTX text (1-based; 0 when not from text).
    `loc` is the source position from the nearest `.loc` (or the kdsl span the backend attached).
    `meta` is free-form and never printed: the backend stores the SSA values an instruction defines and
    uses there for the allocation checker."""

    opcode: str
    operands: list[Operand] = field(default_factory=list)
    pred: Reg | None = None
    pred_neg: bool = False
    line: int = 0
    loc: Loc | None = None
    meta: dict = field(default_factory=dict)

    @property
    def base(self) -> str:
        return self.opcode.split(".", 1)[0]

    @property
    def mods(self) -> list[str]:
        return self.opcode.split(".")[1:]

    def __str__(self) -> str:
        guard = ""
        if self.pred is not None:
            guard = f"@{'!' if self.pred_neg else ''}{self.pred} "
        ops = ", ".join(str(o) for o in self.operands)
        return f"{guard}{self.opcode}{(' ' + ops) if ops else ''};"


@record
class Label:
    name: str
    line: int = 0


@record
class RegDecl:
    """`.reg .b32 %r<12>;` (count > 0, names %r0..%r11 as PTX numbers them) or `.reg .pred p, q;`."""

    type: str  # e.g. ".b32", ".pred", ".f32"
    prefix: str | None = None
    count: int = 0
    names: list[str] = field(default_factory=list)
    line: int = 0

    def reg_names(self) -> list[str]:
        if self.prefix is not None:
            return [f"{self.prefix}{i}" for i in range(self.count)]
        return list(self.names)


@record
class VarDecl:
    """A state-space variable: `.shared .align 16 .b8 smem[4096];`, `.global .u32 counter;`,
    `.extern .shared .align 16 .b8 dyn[];` (dims == [0] for an unsized extern array)."""

    space: str  # "shared" | "global" | "const" | "local"
    type: str  # ".b8", ".f32", ...
    name: str
    align: int | None = None
    dims: list[int] = field(default_factory=list)
    init: list[int | float] | None = None
    extern: bool = False
    visible: bool = False
    line: int = 0

    def size_bytes(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n * type_size(self.type)


@record
class Param:
    """A kernel or function parameter: `.param .u64 .ptr .global .align 16 p`, or
    `.param .align 64 .b8 tmap[128]` for a tensor map."""

    name: str
    type: str
    align: int | None = None
    dims: list[int] = field(default_factory=list)
    ptr_space: str | None = None
    ptr_align: int | None = None
    line: int = 0

    def size_bytes(self) -> int:
        n = 1
        for d in self.dims:
            n *= d
        return n * type_size(self.type)


@record
class Scope:
    """A nested `{ ... }` block with its own `.reg` declarations."""

    body: list[Stmt] = field(default_factory=list)
    line: int = 0


Stmt = Instr | Label | RegDecl | VarDecl | Scope


@record
class Function:
    """A `.entry` (kernel) or `.func`. `directives` holds performance directives by name without the dot:
    {"reqntid": [128, 1, 1], "maxntid": [...], "maxnreg": [64], "minnctapersm": [2],
    "reqnctapercluster": [2, 1, 1]}."""

    name: str
    kind: str  # "entry" | "func"
    params: list[Param] = field(default_factory=list)
    ret_params: list[Param] = field(default_factory=list)
    visible: bool = True
    extern: bool = False
    directives: dict[str, list[int]] = field(default_factory=dict)
    body: list[Stmt] | None = None  # None for a declaration (prototype) only
    line: int = 0
    meta: dict = field(default_factory=dict)

    def instructions(self) -> list[Instr]:
        """All instructions in order, nested scopes flattened."""
        out: list[Instr] = []

        def walk(stmts: list[Stmt]) -> None:
            for s in stmts:
                if isinstance(s, Instr):
                    out.append(s)
                elif isinstance(s, Scope):
                    walk(s.body)

        walk(self.body or [])
        return out


@record
class Module:
    version: str = format_version(DEFAULT_MODULE_VERSION)
    target: str = DEFAULT_ARCH
    address_size: int = 64
    files: dict[int, str] = field(default_factory=dict)  # .file index -> path
    globals: list[VarDecl] = field(default_factory=list)
    functions: list[Function] = field(default_factory=list)
    path: str = "<ptx>"
    meta: dict = field(default_factory=dict)

    def function(self, name: str) -> Function:
        for f in self.functions:
            if f.name == name:
                return f
        raise KeyError(name)

    def entries(self) -> list[Function]:
        return [f for f in self.functions if f.kind == "entry" and f.body is not None]


_TYPE_SIZES = {
    "pred": 1,
    "b8": 1,
    "u8": 1,
    "s8": 1,
    "b16": 2,
    "u16": 2,
    "s16": 2,
    "f16": 2,
    "bf16": 2,
    "b32": 4,
    "u32": 4,
    "s32": 4,
    "f32": 4,
    "f16x2": 4,
    "bf16x2": 4,
    "tf32": 4,
    "b64": 8,
    "u64": 8,
    "s64": 8,
    "f64": 8,
    "b128": 16,
}


def type_size(ptx_type: str) -> int:
    """Size in bytes of a PTX fundamental type, given with or without the leading dot."""
    return _TYPE_SIZES[ptx_type.lstrip(".")]
