// MIS-1 with fixed statuses as ECL-MIS computes it (Burtscher et al. 2018): one kernel, a
// status byte per vertex (0 undecided, IN, OUT), no rounds. A vertex joins once every
// neighbour of lower status is OUT and leaves once a neighbour is IN; with fixed, distinct
// statuses those facts never change back, so the set is the greedy one in status order,
// the one the round-synchronous verbs find (algorithms/mis.py), however threads interleave.
#pragma once
#include "worklist.cuh"

namespace gbgraph {
namespace native {

constexpr unsigned char UNDECIDED = 0, JOINED = 1, LEFT = 2;

// state: n zeroed bytes, JOINED marks the set on return; set (n entries): its vertices in
// ascending order, and *count their number (block_counts: a word per block). Cooperative
// launch keeps every block resident, so a thread that waits on another's vertex never
// waits on a block that cannot run.
template <typename S, typename O, typename I>
__global__ void __launch_bounds__(256, 6)
ecl_mis(const long long n, const O* __restrict__ indptr, const I* __restrict__ indices,
        const S* __restrict__ status, volatile unsigned char* state, unsigned long long* count,
        unsigned long long* block_counts, long long* set)
{
    const long long first = first_thread(), stride = thread_stride();
    for (bool waiting = true; waiting;) {
        waiting = false;
        for (long long v = first; v < n; v += stride) {
            if (state[v] != UNDECIDED) continue;
            const S own = status[v];
            unsigned char verdict = JOINED;
            for (O p = indptr[v]; p < indptr[v + 1]; ++p) {
                const I u = indices[p];
                const unsigned char s = state[u];
                if (s == JOINED) {
                    verdict = LEFT;
                    break;
                }
                if (s == UNDECIDED && status[u] < own) verdict = UNDECIDED;  // it decides first
            }
            if (verdict == UNDECIDED)
                waiting = true;
            else
                state[v] = verdict;
        }
    }
    __syncwarp();  // the lanes leave the loop at different sweeps: meet before the grid does
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    grid.sync();
    ordered_select(grid, const_cast<const unsigned char*>(state), JOINED, n, block_counts, set, count);
}

}  // namespace native
}  // namespace gbgraph
