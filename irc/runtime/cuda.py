"""Launch compiled kernels on a real GPU through cuda-python's driver API.

The same `launch(..., device="cuda")` as the emulator, for irc's kernels and for PTX from anywhere (nvcc,
Triton): numpy arrays are copied to the device and back (an array passed twice is one allocation), pointer
tables (`arrays`) become device tables, scalars are packed by the parameter specs (`irc.runtime.args`),
`irc.TensorMap` arguments and the emulator's own tensor-map descriptors (`irc.emu.encode_tensormap` bytes
that name an array) are encoded with `cuTensorMapEncodeTiled`, portable PTX is assembled for the device's
own target (`cubin_arch`), dynamic shared memory above 48 KB is requested with
`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, and kernels with `@cluster` launch through
`cuLaunchKernelEx` with the cluster-dimension attribute. Tests of this module are marked `gpu` and skip
with a reason when no driver is present (`driver_available()`).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from irc.runtime.args import ParamSpec, TensorMap


class CudaError(RuntimeError):
    """The GPU path cannot run: no driver, a target the GPU cannot run, a driver call that failed."""


class KernelFault(CudaError):
    """The kernel itself failed on the GPU (an illegal address, a trap, a misaligned access): the kernel's
    bug, reported like the emulator's errors."""


def driver_available() -> tuple[bool, str]:
    """(True, "") when a CUDA driver and a device are usable, else (False, why)."""
    try:
        from cuda.bindings import driver as drv
    except ImportError:
        return False, "cuda-python is not installed (pip install -e '.[cuda]')"
    try:
        (err,) = drv.cuInit(0)
    except Exception as e:  # the bindings raise when libcuda.so is absent
        return False, f"no CUDA driver: {type(e).__name__}"
    if err != drv.CUresult.CUDA_SUCCESS:
        return False, f"cuInit failed: {err}"
    err, n = drv.cuDeviceGetCount()
    if err != drv.CUresult.CUDA_SUCCESS or n == 0:
        return False, "no CUDA device"
    return True, ""


def _check(res: Any) -> Any:
    from cuda.bindings import driver as drv

    err, *rest = res if isinstance(res, tuple) else (res,)
    if err != drv.CUresult.CUDA_SUCCESS:
        _, name = drv.cuGetErrorName(err)
        raise CudaError(f"CUDA error {name.decode() if isinstance(name, bytes) else name}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else tuple(rest)


_UINT = {8: ctypes.c_uint8, 16: ctypes.c_uint16, 32: ctypes.c_uint32, 64: ctypes.c_uint64}

_TMAP_DTYPE = {
    "u8": 0,
    "u16": 1,
    "u32": 2,
    "i32": 3,
    "u64": 4,
    "i64": 5,
    "f16": 6,
    "f32": 7,
    "f64": 8,
    "bf16": 9,
}
_SWIZZLE = {"none": 0, "32B": 1, "64B": 2, "128B": 3}


def _encode_tensormap(
    drv: Any,
    a: np.ndarray,
    dptr: int,
    dims_in: list[int],
    strides_in: list[int],
    box_in: list[int],
    swizzle: str = "none",
    oob_fill: str = "zero",
) -> Any:
    """`cuTensorMapEncodeTiled` of `a`'s device copy at `dptr`; dims, byte strides of dims 1.. and box are
    innermost first (CUDA's order)."""
    rank = len(dims_in)
    dims = [drv.cuuint64_t(int(d)) for d in dims_in]
    strides = [drv.cuuint64_t(int(s)) for s in strides_in]
    box = [drv.cuuint32_t(int(b)) for b in box_in]
    estr = [drv.cuuint32_t(1)] * rank
    dtype_key = {
        np.dtype(np.float16): "f16",
        np.dtype(np.float32): "f32",
        np.dtype(np.float64): "f64",
        np.dtype(np.int32): "i32",
        np.dtype(np.uint32): "u32",
        np.dtype(np.uint16): "bf16",
        np.dtype(np.uint8): "u8",
        np.dtype(np.int64): "i64",
        np.dtype(np.uint64): "u64",
    }[a.dtype]
    return _check(
        drv.cuTensorMapEncodeTiled(
            drv.CUtensorMapDataType(_TMAP_DTYPE[dtype_key]),
            rank,
            dptr,
            dims,
            strides,
            box,
            estr,
            drv.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
            drv.CUtensorMapSwizzle(_SWIZZLE[swizzle]),
            drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
            drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
            if oob_fill == "zero"
            else drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
        )
    )


def device_arch() -> str:
    """The `sm_XY` of device 0 (its compute capability)."""
    from cuda.bindings import driver as drv

    dev = _check(drv.cuDeviceGet(0))
    a = drv.CUdevice_attribute
    major = _check(drv.cuDeviceGetAttribute(a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    minor = _check(drv.cuDeviceGetAttribute(a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev))
    return f"sm_{major}{minor}"


def cubin_arch(ptx_arch: str, dev_arch: str) -> str:
    """The target to assemble PTX of `.target ptx_arch` for on a `dev_arch` device. A cubin runs only on its
    own major version, so portable PTX (`sm_80`) is assembled for the device itself (ptxas takes PTX of an
    older target); arch-specific PTX (`sm_90a`, `sm_100f`) runs only on its own chip."""
    base = ptx_arch.rstrip("af")
    if base != ptx_arch:  # sm_90a, sm_100a, sm_100f: features of that chip alone
        if base != dev_arch:
            raise CudaError(f"the PTX targets {ptx_arch}; this GPU is {dev_arch}: it cannot run it")
        return ptx_arch
    if int(base[3:]) > int(dev_arch[3:]):
        raise CudaError(f"the PTX targets {ptx_arch}; this GPU is {dev_arch}, an older one")
    return dev_arch


def _float_bits(spec: ParamSpec, v: float) -> int:
    """A 16-bit float parameter's bits: f16, or bf16 packed exactly as the emulator packs it
    (`irc.emu.dtypes.f32_to_bf16` of the float32 value)."""
    if "bf16" in spec.type:
        from irc.emu.dtypes import f32_to_bf16

        return int(f32_to_bf16(np.float32(v)))
    return int(np.array(v, np.float16).view(np.uint16))


def _scalar(spec: ParamSpec, v: Any) -> Any:
    """The ctypes value of a scalar parameter: its bits at its width (PTX does not care about C's sign)."""
    if spec.kind == "float":
        if spec.bits == 32:
            return ctypes.c_float(v)
        if spec.bits == 64:
            return ctypes.c_double(v)
        return ctypes.c_uint16(_float_bits(spec, v))
    bits = spec.bits or 8
    return _UINT[bits](int(v) & ((1 << bits) - 1))


class _Device:
    """The device copies of one launch: one allocation per distinct host array, copied back at the end."""

    def __init__(self, drv: Any):
        self.drv = drv
        self.allocs: dict[int, tuple[int, np.ndarray]] = {}
        self.tables: list[int] = []

    def array(self, a: np.ndarray) -> int:
        if id(a) not in self.allocs:
            d = int(_check(self.drv.cuMemAlloc(max(a.nbytes, 1))))
            self.allocs[id(a)] = (d, a)
            _check(self.drv.cuMemcpyHtoD(d, a.ctypes.data, a.nbytes))
        return self.allocs[id(a)][0]

    def table(self, arrays: list[np.ndarray]) -> int:
        ptrs = np.array([self.array(a) for a in arrays], np.uint64)
        d = int(_check(self.drv.cuMemAlloc(ptrs.nbytes)))
        self.tables.append(d)
        _check(self.drv.cuMemcpyHtoD(d, ptrs.ctypes.data, ptrs.nbytes))
        return d

    def copy_back(self) -> None:
        for d, a in self.allocs.values():
            _check(self.drv.cuMemcpyDtoH(a.ctypes.data, d, a.nbytes))

    def free(self) -> None:
        for d in [d for d, _ in self.allocs.values()] + self.tables:
            self.drv.cuMemFree(d)


def _tensormap_value(dev: _Device, a: Any, keep: list[Any]) -> Any:
    """The 128 descriptor bytes of an `irc.TensorMap`, or of an emulator descriptor that names an array
    (`irc.emu.encode_tensormap(array, ...)`), encoded by the driver for the array's device copy."""
    from irc.emu.tensormap import decode_tensormap, token_array

    if isinstance(a, TensorMap):
        arr = a.array
        dims = list(reversed(arr.shape))
        strides = [int(s) for s in list(reversed(arr.strides))[1:]]
        box, swizzle, oob = list(reversed(a.box)), a.swizzle, a.oob_fill
    else:
        arr = token_array(a)
        if arr is None:
            return None
        d = decode_tensormap(a)
        dims, strides, box, swizzle = d.dims, d.strides[1:], d.box, "none"
        oob = "nan" if d.oob_nan else "zero"
    tmap = _encode_tensormap(dev.drv, arr, dev.array(arr), dims, strides, box, swizzle, oob)
    keep.append(tmap)
    return (ctypes.c_ubyte * 128).from_address(int(tmap.getPtr()))


def _param_value(dev: _Device, spec: ParamSpec, a: Any, keep: list[Any]) -> Any:
    if spec.kind in ("int", "float", "bool"):
        return _scalar(spec, a)
    if spec.kind in ("array", "array-or-int"):
        return ctypes.c_uint64(dev.array(a) if isinstance(a, np.ndarray) else int(a) & (2**64 - 1))
    if spec.kind == "arrays":
        return ctypes.c_uint64(dev.table(list(a)))
    if spec.kind == "tensormap":
        return _tensormap_value(dev, a, keep)
    if spec.kind == "bytes":
        tm = _tensormap_value(dev, a, keep) if spec.bits == 1024 else None
        if tm is not None:
            return tm
        buf = (ctypes.c_ubyte * (spec.bits // 8))()
        ctypes.memmove(buf, bytes(a), len(a))
        return buf
    raise CudaError(f"unsupported parameter `{spec.name}` of type {spec.type}")


def launch(
    ptx_text: str,
    arch: str,
    name: str,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    args: list[Any],
    params: list[ParamSpec],
    *,
    dynamic_shared_bytes: int = 0,
    cluster: tuple[int, int, int] | None = None,
) -> None:
    """Assemble `ptx_text` for device 0, copy `args` (already checked by `convert_args` against `params`) to
    it, run kernel `name` and copy every array back. Blocks until the kernel ends: a kernel that hangs hangs
    the caller (run it in a process of its own to put a time limit on it, as tests/asyncsuite/gpu.py does)."""
    ok, why = driver_available()
    if not ok:
        raise CudaError(f'device="cuda" is not available here: {why}')
    from cuda.bindings import driver as drv

    from irc.ptxas import ptx_to_cubin

    dev_id = _check(drv.cuDeviceGet(0))
    ctx = _check(drv.cuDevicePrimaryCtxRetain(dev_id))
    _check(drv.cuCtxSetCurrent(ctx))
    cubin = ptx_to_cubin(ptx_text, cubin_arch(arch, device_arch()))
    mod = _check(drv.cuModuleLoadData(cubin))
    dev = _Device(drv)
    keep: list[Any] = []
    try:
        fn = _check(drv.cuModuleGetFunction(mod, name.encode()))
        if dynamic_shared_bytes > 48 * 1024:
            _check(
                drv.cuFuncSetAttribute(
                    fn,
                    drv.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                    dynamic_shared_bytes,
                )
            )
        ptrs = []
        for spec, a in zip(params, args):
            v = _param_value(dev, spec, a, keep)
            keep.append(v)
            ptrs.append(ctypes.addressof(v))
        arr = (ctypes.c_void_p * len(ptrs))(*ptrs)
        cfg = drv.CUlaunchConfig()
        cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = grid
        cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = block
        cfg.sharedMemBytes = dynamic_shared_bytes
        cfg.hStream = 0
        attrs = []
        if cluster:
            at = drv.CUlaunchAttribute()
            at.id = drv.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            at.value.clusterDim.x, at.value.clusterDim.y, at.value.clusterDim.z = cluster
            attrs.append(at)
        cfg.attrs = attrs
        cfg.numAttrs = len(attrs)
        _check(drv.cuLaunchKernelEx(cfg, fn, ctypes.addressof(arr), 0))
        try:
            _check(drv.cuCtxSynchronize())
        except CudaError as e:
            raise KernelFault(f"kernel `{name}` failed on the GPU: {e}") from None
        dev.copy_back()
    finally:
        dev.free()
        drv.cuModuleUnload(mod)
