"""Launch compiled kernels on a real GPU through cuda-python's driver API.

The same `Kernel.launch(..., device="cuda")` as the emulator: numpy arrays are copied to the device and
back, scalars are packed by the parameter types, `irc.TensorMap` arguments are encoded with
`cuTensorMapEncodeTiled`, dynamic shared memory above 48 KB is requested with
`CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`, and kernels with `@cluster` launch through
`cuLaunchKernelEx` with the cluster-dimension attribute. Tests of this module are marked `gpu` and skip
with a reason when no driver is present (`driver_available()`).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from irc.ir.types import PtrType, ScalarType, TensorMapType, Type


class CudaError(RuntimeError):
    pass


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


_CTYPES = {
    "i8": ctypes.c_int8,
    "u8": ctypes.c_uint8,
    "i16": ctypes.c_int16,
    "u16": ctypes.c_uint16,
    "i32": ctypes.c_int32,
    "u32": ctypes.c_uint32,
    "i64": ctypes.c_int64,
    "u64": ctypes.c_uint64,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
    "bool": ctypes.c_uint8,
}

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


def _encode_tensormap(drv: Any, tm: Any, dptr: int) -> Any:
    a = tm.array
    rank = a.ndim
    elem = a.dtype.itemsize
    # CUDA wants innermost-first dimensions and byte strides of dims 1..rank-1.
    dims = [drv.cuuint64_t(int(d)) for d in reversed(a.shape)]
    strides = [drv.cuuint64_t(int(s)) for s in list(reversed(a.strides))[1:]]
    box = [drv.cuuint32_t(int(b)) for b in reversed(tm.box)]
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
    del elem
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
            drv.CUtensorMapSwizzle(_SWIZZLE[tm.swizzle]),
            drv.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_NONE,
            drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
            if tm.oob_fill == "zero"
            else drv.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA,
        )
    )


def launch(
    ptx_text: str,
    arch: str,
    name: str,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    args: list[Any],
    param_types: list[Type],
    *,
    dynamic_shared_bytes: int = 0,
    cluster: tuple[int, int, int] | None = None,
) -> None:
    ok, why = driver_available()
    if not ok:
        raise CudaError(f'device="cuda" is not available here: {why}')
    from cuda.bindings import driver as drv

    from irc.ptxas import ptx_to_cubin

    dev = _check(drv.cuDeviceGet(0))
    ctx = _check(drv.cuDevicePrimaryCtxRetain(dev))
    _check(drv.cuCtxSetCurrent(ctx))
    cubin = ptx_to_cubin(ptx_text, arch)
    mod = _check(drv.cuModuleLoadData(cubin))
    allocs: list[tuple[int, np.ndarray]] = []
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
        for t, a in zip(param_types, args):
            if isinstance(t, PtrType):
                d = _check(drv.cuMemAlloc(a.nbytes))
                _check(drv.cuMemcpyHtoD(d, a.ctypes.data, a.nbytes))
                allocs.append((int(d), a))
                v = ctypes.c_uint64(int(d))
            elif isinstance(t, TensorMapType):
                d = _check(drv.cuMemAlloc(t_nbytes := a.array.nbytes))
                _check(drv.cuMemcpyHtoD(d, a.array.ctypes.data, t_nbytes))
                allocs.append((int(d), a.array))
                tmap = _encode_tensormap(drv, a, int(d))
                v = (ctypes.c_ubyte * 128).from_address(int(tmap.getPtr()))
                keep.append(tmap)
            elif isinstance(t, ScalarType):
                v = _CTYPES[str(t)](a) if str(t) in _CTYPES else ctypes.c_uint16(int(a))
            else:
                raise CudaError(f"unsupported parameter type {t}")
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
        _check(drv.cuCtxSynchronize())
        for d, a in allocs:
            _check(drv.cuMemcpyDtoH(a.ctypes.data, d, a.nbytes))
    finally:
        for d, _ in allocs:
            drv.cuMemFree(d)
        drv.cuModuleUnload(mod)
