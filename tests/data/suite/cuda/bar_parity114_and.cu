// arch: sm_80
// 2-D smoothing of an nx x ny image, 16x16 tiles per block of 256 threads: each thread stages its pixel,
// and interior pixels of the tile average with their 4 tile neighbours (tile-border pixels keep their
// value). Image sizes are not multiples of 16, so the edge blocks have threads outside the image.
// Bug (the PARITY-114 pattern): threads outside the image (`inside` is an `&&` of the two bounds) return
// before the __syncthreads, which the others then wait at.
#define TS 16

__global__ void __launch_bounds__(TS * TS) smooth_tile(const float* __restrict__ in, float* __restrict__ out, int nx, int ny)
{
    __shared__ float tile[TS][TS];
    const int tx = threadIdx.x % TS, ty = threadIdx.x / TS;
    const int x = blockIdx.x * TS + tx, y = blockIdx.y * TS + ty;
    const bool inside = x < nx && y < ny;
#ifdef IRC_BUG
    if (!inside) return;
    tile[ty][tx] = in[y * nx + x];
#else
    tile[ty][tx] = inside ? in[y * nx + x] : 0.f;
#endif
    __syncthreads();  // EXPECT: barrier-divergence
    const bool interior = tx > 0 && tx < TS - 1 && ty > 0 && ty < TS - 1 && x + 1 < nx && y + 1 < ny;
    float v = tile[ty][tx];
    if (interior) v = 0.2f * (v + tile[ty][tx - 1] + tile[ty][tx + 1] + tile[ty - 1][tx] + tile[ty + 1][tx]);
    if (inside) out[y * nx + x] = v;
}
