// arch: sm_80
// Block maximum of floats into one shared slot, then out[b] = max. The twin updates the slot with the
// atomicCAS loop idiom (a plain read of the current value, then CAS until it sticks), which is race-free:
// the plain read only ever sees an older value, and the CAS decides.
// Bug: the slot is updated with a plain read-modify-write, which loses updates of other threads.
__device__ __forceinline__ void atomic_max_float(float* addr, float v)
{
    int* p = reinterpret_cast<int*>(addr);
    int old = *p;
    while (__int_as_float(old) < v) {
        const int seen = atomicCAS(p, old, __float_as_int(v));
        if (seen == old) break;
        old = seen;
    }
}

__global__ void __launch_bounds__(128) block_max(const float* __restrict__ x, float* __restrict__ out, int per_block)
{
    __shared__ float smax;
    if (threadIdx.x == 0) smax = -INFINITY;
    __syncthreads();
    float local = -INFINITY;
    for (int i = threadIdx.x; i < per_block; i += blockDim.x) local = fmaxf(local, x[blockIdx.x * per_block + i]);
#ifdef IRC_BUG
    if (local > smax) smax = local;  // EXPECT: shared-race
#else
    atomic_max_float(&smax, local);
#endif
    __syncthreads();
    if (threadIdx.x == 0) out[blockIdx.x] = smax;
}
