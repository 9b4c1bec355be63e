// OK: online-softmax attention decode loop; the old running max is kept in its own variable, so the
// rescale factor exp(old_max - new_max) is computed correctly (no self-cancel).
__global__ void ok_online_softmax(const float* __restrict__ q, const float* __restrict__ k,
                                  const float* __restrict__ v, float* __restrict__ o, int seqlen, float scale)
{
    __shared__ float ks[64][64];
    __shared__ float vs[64][64];
    __shared__ float qs[64];
    int d = threadIdx.x;  // head dim 64, one thread per output column
    qs[d] = q[blockIdx.x * 64 + d] * scale;
    float max_score = -INFINITY, denom = 0.0f, acc = 0.0f;
    for (int j0 = 0; j0 < seqlen; j0 += 64) {
        for (int r = 0; r < 64; ++r) {
            int j = j0 + r;
            ks[r][d] = j < seqlen ? k[(size_t)j * 64 + d] : 0.0f;
            vs[r][d] = j < seqlen ? v[(size_t)j * 64 + d] : 0.0f;
        }
        __syncthreads();
        int nr = min(64, seqlen - j0);
        for (int r = 0; r < nr; ++r) {
            float s = 0.0f;
            for (int e = 0; e < 64; ++e) s += qs[e] * ks[r][e];
            float old_max = max_score;
            max_score = fmaxf(max_score, s);
            float rescale = exp2f((old_max - max_score) * 1.44269504f);
            float p = exp2f((s - max_score) * 1.44269504f);
            denom = denom * rescale + p;
            acc = acc * rescale + p * vs[r][d];
        }
        __syncthreads();
    }
    o[blockIdx.x * 64 + d] = acc / denom;
}
