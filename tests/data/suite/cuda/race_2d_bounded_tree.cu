// arch: sm_80
// Column sums of a rows x 32 matrix: a 32x16 block (__launch_bounds__(512), so the PTX says .maxntid 512 and
// not the shape) accumulates a strided slice of rows per thread, then folds the 16 row partials of each
// column in shared memory, halving the rows each step.
// Bug: the last two steps drop their __syncthreads, as if the rows ran in lock step (each row is a warp).
#define BX 32
#define BY 16

__global__ void __launch_bounds__(BX * BY) column_sums(const float* __restrict__ x, float* __restrict__ out, int rows)
{
    __shared__ float part[BY][BX + 1];  // padded against bank conflicts
    const int tx = threadIdx.x, ty = threadIdx.y;
    float s = 0.f;
    for (int r = ty; r < rows; r += BY) s += x[(size_t)r * BX + tx];
    part[ty][tx] = s;
    __syncthreads();
#ifdef IRC_BUG
    for (int h = BY / 2; h > 2; h >>= 1) {
        if (ty < h) part[ty][tx] += part[ty + h][tx];
        __syncthreads();
    }
    if (ty < 2) part[ty][tx] += part[ty + 2][tx];
    if (ty < 1) part[ty][tx] += part[ty + 1][tx];  // EXPECT: shared-race
#else
    for (int h = BY / 2; h > 0; h >>= 1) {
        if (ty < h) part[ty][tx] += part[ty + h][tx];
        __syncthreads();
    }
#endif
    if (ty == 0) out[blockIdx.x * BX + tx] = part[0][tx];
}
