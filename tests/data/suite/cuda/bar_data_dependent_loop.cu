// arch: sm_80
// CSR-style work: each thread handles one row with len[row] entries (up to 8) and, step by step, averages
// its entry with the neighbour thread's entry of the same step through shared memory:
// out[row] = sum over k < len[row] of (v[row, k] + v[row ^ 1, k]) / 2, where the partner's entry is 0 past
// its own length. Steps run to the block's longest row.
// Bug: each thread loops to its *own* length, with a __syncthreads inside: threads with shorter rows leave
// the loop and skip the barriers that the others wait at.
__global__ void __launch_bounds__(128)
    pair_avg(const float* __restrict__ v, const int* __restrict__ len, float* __restrict__ out, int maxlen)
{
    __shared__ float cur[128];
    const int t = threadIdx.x, row = blockIdx.x * 128 + t;
    const int n = len[row];
    float acc = 0.f;
#ifdef IRC_BUG
    for (int k = 0; k < n; ++k) {
#else
    for (int k = 0; k < maxlen; ++k) {
#endif
        cur[t] = k < n ? v[row * 8 + k] : 0.f;
        __syncthreads();  // EXPECT: barrier-divergence
        if (k < n) acc += 0.5f * (cur[t] + cur[t ^ 1]);
        __syncthreads();
    }
    out[row] = acc;
}
