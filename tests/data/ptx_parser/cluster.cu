// Thread-block clusters (sm_90): .reqnctapercluster / .explicitcluster and cluster special registers.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void __cluster_dims__(2, 1, 1) k_cluster(int* out) {
  __shared__ int s[32];
  cg::cluster_group c = cg::this_cluster();
  s[threadIdx.x % 32] = c.block_rank();
  c.sync();
  int* peer = c.map_shared_rank(s, (c.block_rank() + 1) % 2);
  out[blockIdx.x * blockDim.x + threadIdx.x] = peer[threadIdx.x % 32];
  c.sync();
}
