// arch: sm_80
// Per half-warp count of positive values: lane l of each warp writes how many of the 16 lanes of its own
// half-warp hold a positive x (out[i] for every thread i).
// Bug: the author wanted a half-warp ballot and passed the mask 0x0000ffff, but all 32 lanes execute the
// call: lanes 16..31 run a collective whose member mask does not contain them.
__global__ void __launch_bounds__(128) half_warp_positive(const float* __restrict__ x, unsigned* __restrict__ out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % 32;
    const bool pos = x[i] > 0.f;
#ifdef IRC_BUG
    const unsigned bits = __ballot_sync(0x0000ffffu, pos);  // EXPECT: warp-sync-divergence
    const unsigned mine = lane < 16 ? bits : bits >> 16;
#else
    const unsigned bits = __ballot_sync(0xffffffffu, pos);
    const unsigned mine = lane < 16 ? (bits & 0xffffu) : (bits >> 16);
#endif
    out[i] = __popc(mine);
}
