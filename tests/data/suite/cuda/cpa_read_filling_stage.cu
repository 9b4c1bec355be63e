// arch: sm_80
// Double-buffered staging with libcu++'s cuda::pipeline (thread scope) and cuda::memcpy_async:
// out[b, t] = sum_k x[b, k, 127 - t] * scale[k]. Step k fetches tile k + 1 into stage (k + 1) % 2 and then
// consumes tile k from stage k % 2.
// Bug: the consumer indexes the stage with the producer's index, (k + 1) % 2: the stage being filled.
#include <cuda/pipeline>

constexpr int T = 128;

__global__ void __launch_bounds__(T)
    reversed_scaled_sum(const float* __restrict__ x, const float* __restrict__ scale, float* __restrict__ out,
                        int ntiles)
{
    __shared__ float stage[2][T];
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    const int t = threadIdx.x;
    const float* src = x + (size_t)blockIdx.x * ntiles * T;

    pipe.producer_acquire();
    cuda::memcpy_async(&stage[0][t], &src[t], sizeof(float), pipe);
    pipe.producer_commit();

    float acc = 0.f;
    for (int k = 0; k < ntiles; ++k) {
        pipe.producer_acquire();
        if (k + 1 < ntiles) cuda::memcpy_async(&stage[(k + 1) % 2][t], &src[(k + 1) * T + t], sizeof(float), pipe);
        pipe.producer_commit();

        pipe.consumer_wait();  // the oldest batch: tile k
        __syncthreads();       // other threads' copies of tile k are visible too
#ifdef IRC_BUG
        acc += stage[(k + 1) % 2][T - 1 - t] * scale[k];  // EXPECT: async-unwaited
#else
        acc += stage[k % 2][T - 1 - t] * scale[k];
#endif
        __syncthreads();  // everyone is done with stage k % 2 before step k + 1 refills it
        pipe.consumer_release();
    }
    out[blockIdx.x * T + t] = acc;
}
