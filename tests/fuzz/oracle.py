"""What counts as a bug for one fuzz input, decided inside the sandboxed child (tests/fuzz/sandbox.py).

A .kdsl input must either be refused with diagnostics that all carry a file:line:col, or compile to PTX
that ptxas accepts and that computes the same results in the emulator unoptimized (-O0) and optimized.
A .ptx input must be checked (findings or none) or refused with located diagnostics. Anything else is a
bug of one of these kinds (the campaign's report counts them):

- `internal-error`: `InternalCompilerError` (irc's own "this is a bug" exit 3);
- `traceback`: any other Python exception escaping the driver (MemoryError under the cap included);
- `no-location`: an error diagnostic without a file:line:col;
- `ptxas-reject`: accepted .kdsl whose PTX ptxas rejects;
- `emu-mismatch`: -O0 and optimized PTX compute different results (or only one of them fails in a way
  that is not explained by undefined behaviour the optimizer may remove).

Hangs are decided by the parent (a wall-clock limit on the compile phase).
"""

from __future__ import annotations

import time
import traceback

import numpy as np

PATH_KDSL = "fuzz.kdsl"
PATH_PTX = "fuzz.ptx"
ARRAY_ELEMS = 4096  # every pointer argument gets an array this long


def _located(diags) -> str | None:
    """The message of the first error diagnostic without a location, else None."""
    for d in diags:
        if getattr(d.severity, "value", d.severity) != "error":
            continue
        sp = d.span
        if sp is None or sp.line < 1 or sp.col < 1:
            return f"[{d.check}] {d.message}"
    return None


def _bug(kind: str, detail: str, **extra) -> dict:
    return {"status": "bug", "kind": kind, "detail": detail[-4000:], **extra}


def _exc(e: BaseException) -> dict:
    from irc.diagnostics import InternalCompilerError

    tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
    if isinstance(e, InternalCompilerError):
        return _bug("internal-error", f"{e}\n{tb}", sig=_sig(e))
    return _bug("traceback", tb, sig=_sig(e))


def _sig(e: BaseException) -> str:
    """A short signature (exception type and the innermost irc frame) used to deduplicate bugs and to
    keep the minimiser on the same bug."""
    tb = traceback.extract_tb(e.__traceback__)
    frames = [f for f in tb if "/irc/" in f.filename]
    where = f"{frames[-1].filename.split('/irc/')[-1]}:{frames[-1].name}" if frames else "?"
    return f"{type(e).__name__}@{where}"


def check_ptx_input(text: str, report) -> dict:
    """`irc check` on PTX text."""
    from irc.compiler import check_ptx
    from irc.diagnostics import CompileError

    t0 = time.process_time()
    try:
        diags = check_ptx(text, PATH_PTX)
    except CompileError as e:
        diags = e.diagnostics
    except BaseException as e:  # noqa: BLE001 - every escape is a finding
        return _exc(e)
    report("checked", time.process_time() - t0)
    bad = _located(diags)
    if bad:
        return _bug("no-location", bad, sig="no-location:" + bad[:60])
    return {"status": "ok" if not any(d.severity == "error" for d in diags) else "rejected"}


def compile_kdsl_input(text: str, arch: str, report, *, ptxas: bool = True, emu: bool = True) -> dict:
    """`irc compile` on .kdsl text, then ptxas and the -O0/-O2 emulator differential."""
    from irc.compiler import CompileOptions, compile_kdsl
    from irc.diagnostics import CompileError

    t0 = time.process_time()
    try:
        res = compile_kdsl(text, PATH_KDSL, CompileOptions(arch=arch))
    except CompileError as e:
        report("compiled", time.process_time() - t0)
        bad = _located(e.diagnostics)
        if bad:
            return _bug("no-location", bad, sig="no-location:" + bad[:60])
        return {"status": "rejected", "checks": sorted({d.check for d in e.diagnostics})}
    except BaseException as e:  # noqa: BLE001
        return _exc(e)
    report("compiled", time.process_time() - t0)
    out: dict = {"status": "ok", "ptxas": None, "emu": None}
    if ptxas:
        from irc.ptxas import find_ptxas, run_ptxas

        if find_ptxas():
            r = run_ptxas(res.ptx_text, arch, timeout=60)
            out["ptxas"] = r.ok
            if not r.ok:
                msg = "; ".join(m.message for m in r.errors[:3]) or "ptxas failed"
                return _bug("ptxas-reject", msg + "\n" + res.ptx_text, sig="ptxas:" + _norm(msg))
    if emu:
        out["emu"] = _differential(text, arch, res)
        if isinstance(out["emu"], dict):
            return out["emu"]
    return out


def _norm(msg: str) -> str:
    """ptxas messages without numbers, for deduplication."""
    import re

    return re.sub(r"\d+", "N", msg)[:80]


def _args(fn, seed: int) -> list | None:
    """Arguments for a kernel from its IR parameter types, or None when it takes something the harness
    cannot make (tensor maps)."""
    from irc.ir.types import PtrType, ScalarType

    rng = np.random.default_rng(seed)
    args: list = []
    for p in fn.params:
        t = p.type
        if isinstance(t, PtrType):
            elem = t.elem
            if not isinstance(elem, ScalarType):
                return None
            dt = _dtype(elem.name)
            if dt is None:
                return None
            if dt.kind == "f":
                args.append((rng.standard_normal(ARRAY_ELEMS) * 4).astype(dt))
            elif dt == np.bool_:
                return None
            else:
                args.append(rng.integers(0, 64, ARRAY_ELEMS).astype(dt))
        elif isinstance(t, ScalarType):
            dt = _dtype(t.name)
            if dt is None:
                return None
            args.append(dt.type(3) if t.name != "bool" else True)
        else:
            return None
    return args


def _dtype(name: str):
    table = {
        "u8": np.uint8,
        "i8": np.int8,
        "u16": np.uint16,
        "i16": np.int16,
        "u32": np.uint32,
        "i32": np.int32,
        "u64": np.uint64,
        "i64": np.int64,
        "f16": np.float16,
        "f32": np.float32,
        "f64": np.float64,
        "bool": np.bool_,
    }
    t = table.get(name)
    return np.dtype(t) if t is not None else None


def _run(ptx_text: str, name: str, block, args: list):
    from irc.emu import run_kernel
    from irc.frontend.ptx.parser import parse_ptx

    run_kernel(parse_ptx(ptx_text, "<fuzz>"), name, grid=(2, 1, 1), block=block, args=args, max_steps=200_000)


def _differential(text: str, arch: str, res) -> str | dict:
    """Run every kernel at -O0 and optimized in the emulator on the same arguments; compare outputs."""
    from irc.compiler import CompileOptions, compile_kdsl
    from irc.diagnostics import CompileError
    from irc.emu.errors import EmuError, EmuLaunchError

    try:
        r0 = compile_kdsl(text, PATH_KDSL, CompileOptions(arch=arch, optimize=False))
    except CompileError:
        return "O0-rejected"  # the analyzer sees more before optimization (dead code): not a bug
    except BaseException as e:  # noqa: BLE001
        return _exc(e)
    ran = 0
    for fn in res.module.functions:
        if not fn.is_kernel:
            continue
        launch = fn.attrs.get("launch") or [64, 1, 1]
        block = tuple(int(x) for x in (list(launch) + [1, 1])[:3])
        if block[0] * block[1] * block[2] > 256:
            continue
        a0 = _args(fn, 1)
        if a0 is None:
            continue
        a2 = _args(fn, 1)
        outcome = []
        for ptx, args in ((r0.ptx_text, a0), (res.ptx_text, a2)):
            try:
                _run(ptx, fn.name, block, args)
                outcome.append("ok")
            except EmuLaunchError as e:
                outcome.append(f"launch:{e}")
            except EmuError as e:
                outcome.append(type(e).__name__)
            except BaseException as e:  # noqa: BLE001 - a crash of the emulator is a finding too
                return _exc(e)
        if outcome[0] != "ok" or outcome[1] != "ok":
            # Undefined behaviour (out-of-bounds, uninitialized shared reads, races, step limits) may
            # legally differ after optimization; only a failure of the optimized code on a kernel whose
            # -O0 run is clean is suspicious, and only if the error is not one dead-code removal hides.
            continue
        for x, y in zip(a0, a2):
            if isinstance(x, np.ndarray) and not _same(x, y):
                return _bug("emu-mismatch", f"kernel {fn.name}: -O0 and optimized results differ", sig="emu")
        ran += 1
    return f"ran {ran}"


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype.kind == "f":
        return bool(
            np.all((np.isnan(a) & np.isnan(b)) | (a.view(f"u{a.itemsize}") == b.view(f"u{b.itemsize}")))
        )
    return bool(np.array_equal(a, b))
