// OK: the cuda::barrier histogram of bug_mbar_cuda_barrier_count.cu with the barrier initialised for
// blockDim.x arrivals: the phase completes once every thread has added its elements.
#include <cuda/barrier>

#pragma nv_diag_suppress static_var_with_dynamic_init

#define NB 64

__global__ void __launch_bounds__(256) hist64(const unsigned char* __restrict__ in, unsigned* __restrict__ bins, int n)
{
    __shared__ unsigned sbins[NB];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0)
        init(&bar, blockDim.x);
    if (threadIdx.x < NB)
        sbins[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&sbins[in[i] % NB], 1u);
    bar.arrive_and_wait();
    if (threadIdx.x < NB)
        atomicAdd(&bins[threadIdx.x], sbins[threadIdx.x]);
}
