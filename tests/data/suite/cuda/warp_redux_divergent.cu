// arch: sm_80
// Per-warp count of values above a threshold, with the sm_80 warp reduction __reduce_add_sync (redux.sync):
// the lanes whose value passes add their weights, and lane 0 of the warp's passing lanes stores the total
// into out[warp] (global warp index). Warps with no passing lane store 0.
// Bug: __reduce_add_sync with the full mask runs inside the data-dependent `if (pass)`; the twin reduces
// over all lanes with a zero weight for the lanes that do not pass.
__global__ void __launch_bounds__(128)
    weighted_pass(const float* __restrict__ x, const unsigned* __restrict__ w, unsigned* __restrict__ out, float thr)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x % 32;
    const bool pass = x[i] > thr;
    unsigned total = 0;
#ifdef IRC_BUG
    if (pass) total = __reduce_add_sync(0xffffffffu, w[i]);  // EXPECT: warp-sync-divergence
#else
    total = __reduce_add_sync(0xffffffffu, pass ? w[i] : 0u);
#endif
    const unsigned passing = __ballot_sync(0xffffffffu, pass);
    if (passing == 0 && lane == 0) out[i / 32] = 0;
    if (passing != 0 && lane == __ffs(passing) - 1) out[i / 32] = total;
}
