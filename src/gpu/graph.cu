// CUDA graphs for the GPU step: work queued between gpu_record_begin and gpu_record_end becomes a
// graph to replay; inside it, the rebuild is decided on the device -- a one-thread kernel tests
// the skin flag and a conditional node (CUDA 12.4+) runs the recorded rebuild only when asked (with
// pruned lists a switch node, CUDA 12.8+: the rebuild, or the prune) -- so the host never waits
// for the answer.
#include "common.cuh"
#include "../physics/rebuild.h"

#include <stdlib.h>

struct gpu_graph {
    cudaGraphExec_t exec;
};

static cudaStream_t s_record, s_body, s_outer; /* recording streams, made once */
static cudaGraph_t s_prune_body;              /* pruned lists: the switch node's second body, recorded next */

/* A barostat's box at a rebuild: along each edge of 3 or more of the host's cells, as many of them
   as the box holds at least the list cutoff wide (an edge of 1 or 2 cells is searched whole). An
   edge that holds fewer than 3 halts the step (the host chose the builder for 3 or more); else the
   lengths go to report[2..4], from which the host decides a grid that grew. Returns whether to tell
   the host. */
__device__ bool grid_at_rebuild(gpu_box_state *bx, gpu_nb_state *st, long long *report)
{
    for (int d = 0; d < 3; d++) {
        const int held = (int)(bx->grid.region.len[d] / bx->rlist), cells = bx->cells[d];
        if (cells >= 3 && held < 3) {
            bx->runaway = GPU_BOX_UNDER_GRID;
            st->halt = 1;
            if (st->reported)
                return false;
            st->reported = 1;
            report[0] = st->step;
            return true;
        }
        bx->grid.nc[d] = cells >= 3 && held < cells ? held : cells;
    }
    for (int d = 0; d < 3; d++)
        report[2 + d] = __double_as_longlong(bx->grid.region.len[d]);
    return true;
}

/* One thread: the step count, the skin test when the rule says (without the distance check a due
   step rebuilds unless an atom moved past the skin), the reports to the host; the
   node's value: 1 to rebuild, else 0. With `pruned` (a switch node): 0 to rebuild (only when the
   outer list is out of date too), 1 to prune, 2 for neither. With bx (a barostat; NULL: a fixed
   box), a rebuild first fits the cells to the box (grid_at_rebuild). */
__global__ void rebuild_test_kernel(gpu_nb_state *st, gpu_rebuild_rule rule, const int *flags, long long *report, int pruned,
                                    gpu_box_state *bx, cudaGraphConditionalHandle node)
{
    unsigned go = 0, cut = 0;
    bool told = false;
    st->step++;
    st->since++;
    if (rebuild_due(st->since, rule.every, rule.delay)) {
        if (st->unsafe) {
            st->halt = 1;
            if (!st->reported) {
                st->reported = 1;
                report[0] = st->step;
                told = true;
            }
        } else if (st->far || st->far_outer || !rule.distance_check) {
            go = !pruned || st->far_outer || !rule.distance_check;
            cut = !go;
            st->builds += go;
            st->prunes += cut;
            /* the outer test alone: its list was fine a step ago; without the distance check, the
               builds that found an atom past half the skin */
            st->dangerous += (!rule.distance_check || rebuild_dangerous(st->since, rule.every, rule.delay)) && st->far;
            st->last_build = st->step;
            st->since = 0;
            st->far = st->far_outer = 0;
            if (go && bx) {
                told |= grid_at_rebuild(bx, st, report);
                go = !st->halt;
            }
        }
    }
    if (flags[1] > st->overflow_seen) { /* a build asked for longer rows than the list holds */
        st->overflow_seen = flags[1];
        report[1] = flags[1];
        told = true;
    }
    if (told) /* the host reads report without waiting: make the words visible (a system fence is
                 not free; most steps have nothing to say) */
        __threadfence_system();
    cudaGraphSetConditional(node, !pruned ? go : go ? 0 : cut ? 1 : 2);
}

extern "C" int gpu_record_begin(void)
{
    if (!s_record) {
        MDL_CUDA(cudaStreamCreateWithFlags(&s_record, cudaStreamNonBlocking));
        MDL_CUDA(cudaStreamCreateWithFlags(&s_body, cudaStreamNonBlocking));
    }
    MDL_CUDA(cudaStreamBeginCapture(s_record, cudaStreamCaptureModeRelaxed));
    g_mdl_stream = s_record;
    return 0;
}

extern "C" int gpu_record_end(gpu_graph **out)
{
    cudaGraph_t graph;
    g_mdl_stream = 0;
    *out = NULL;
    MDL_CUDA(cudaStreamEndCapture(s_record, &graph));
    gpu_graph *g = (gpu_graph *)calloc(1, sizeof *g);
    cudaError_t e = g ? cudaGraphInstantiate(&g->exec, graph, 0) : cudaErrorMemoryAllocation;
    cudaGraphDestroy(graph);
    if (e != cudaSuccess) {
        free(g);
        mdl_error("CUDA: recording the step's graph: %s", cudaGetErrorString(e));
        return 1;
    }
    *out = g;
    return 0;
}

extern "C" int gpu_switch_nodes(void)
{
#if CUDART_VERSION >= 12080
    int driver = 0;
    return cudaDriverGetVersion(&driver) == cudaSuccess && driver >= 12080;
#else
    return 0;
#endif
}

/* A conditional node on handle h after the recording's last work: an IF node, or a SWITCH node of
   two bodies (gpu_switch_nodes); its (first) body recorded from now on. */
static int conditional_node_begin(cudaGraphConditionalHandle h, int bodies)
{
    cudaStreamCaptureStatus status;
    cudaGraph_t graph;
    const cudaGraphNode_t *deps;
    size_t ndeps;
    MDL_CUDA(cudaStreamGetCaptureInfo(s_outer, &status, NULL, &graph, &deps, NULL, &ndeps));
    cudaGraphNodeParams cp = {};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
#if CUDART_VERSION >= 12080
    cp.conditional.type = bodies == 2 ? cudaGraphCondTypeSwitch : cudaGraphCondTypeIf;
#else
    cp.conditional.type = cudaGraphCondTypeIf;
#endif
    cp.conditional.size = bodies;
    cudaGraphNode_t cond;
    MDL_CUDA(cudaGraphAddNode(&cond, graph, deps, NULL, ndeps, &cp));
    MDL_CUDA(cudaStreamUpdateCaptureDependencies(s_outer, &cond, NULL, 1, cudaStreamSetCaptureDependencies));
    MDL_CUDA(cudaStreamBeginCaptureToGraph(s_body, cp.conditional.phGraph_out[0], NULL, NULL, 0,
                                           cudaStreamCaptureModeRelaxed));
    s_prune_body = bodies == 2 ? cp.conditional.phGraph_out[1] : NULL;
    g_mdl_stream = s_body;
    return 0;
}

extern "C" int gpu_rebuild_node_begin(gpu_nb_state *st, gpu_rebuild_rule rule, const int *flags, long long *report_dev,
                                      int pruned, gpu_box_state *bx)
{
    cudaStreamCaptureStatus status;
    cudaGraph_t graph;
    cudaGraphConditionalHandle h;
    s_outer = g_mdl_stream;
    MDL_CUDA(cudaStreamGetCaptureInfo(s_outer, &status, NULL, &graph, NULL, NULL, NULL));
    MDL_CUDA(cudaGraphConditionalHandleCreate(&h, graph, 0, 0));
    rebuild_test_kernel<<<1, 1, 0, s_outer>>>(st, rule, flags, report_dev, pruned, bx, h);
    MDL_LAUNCHED("rebuild_test");
    return conditional_node_begin(h, pruned ? 2 : 1);
}

extern "C" int gpu_prune_node_begin(void)
{
    cudaGraph_t body;
    MDL_CUDA(cudaStreamEndCapture(s_body, &body));
    MDL_CUDA(cudaStreamBeginCaptureToGraph(s_body, s_prune_body, NULL, NULL, 0, cudaStreamCaptureModeRelaxed));
    return 0;
}

extern "C" int gpu_rebuild_node_end(void)
{
    cudaGraph_t body;
    g_mdl_stream = s_outer;
    MDL_CUDA(cudaStreamEndCapture(s_body, &body));
    return 0;
}

extern "C" int gpu_graph_launch(gpu_graph *g)
{
    MDL_CUDA(cudaGraphLaunch(g->exec, g_mdl_stream));
    return 0;
}

extern "C" void gpu_graph_destroy(gpu_graph *g)
{
    if (!g)
        return;
    cudaGraphExecDestroy(g->exec);
    free(g);
}

extern "C" void gpu_record_abandon(void)
{
    cudaGraph_t graph;
    if (g_mdl_stream == s_body)
        cudaStreamEndCapture(s_body, &graph);
    if (g_mdl_stream == s_body || g_mdl_stream == s_record) {
        if (cudaStreamEndCapture(s_record, &graph) == cudaSuccess && graph)
            cudaGraphDestroy(graph);
    }
    g_mdl_stream = 0;
    cudaGetLastError();
}
