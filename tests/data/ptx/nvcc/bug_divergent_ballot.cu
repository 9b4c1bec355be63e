// BUG: full-mask __ballot_sync inside a branch on per-thread loaded data (not warp-uniform).
__global__ void bug_divergent_ballot(const float* __restrict__ in, unsigned int* __restrict__ out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[i];
    unsigned int mask = 0;
    if (v > 0.0f) {
        mask = __ballot_sync(0xffffffffu, v > 1.0f);  // EXPECT: warp-sync-divergence
    }
    out[i] = mask;
}
