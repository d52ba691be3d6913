// CUDA graphs for the GPU step: work queued between gpu_record_begin and gpu_record_end becomes a
// graph to replay; inside it, the rebuild is decided on the device -- a one-thread kernel tests
// the skin flag and a conditional node (CUDA 12.4+) runs the recorded rebuild only when asked --
// so the host never waits for the answer.
#include "common.cuh"

#include <stdlib.h>

struct gpu_graph {
    cudaGraphExec_t exec;
};

static cudaStream_t s_record, s_body, s_outer; /* recording streams, made once */

/* One thread: the step count, the skin test every `check` steps, the reports to the host. */
__global__ void rebuild_test_kernel(gpu_nb_state *st, int check, const int *flags, long long *report,
                                    cudaGraphConditionalHandle rebuild)
{
    unsigned go = 0;
    bool told = false;
    st->step++;
    st->since++;
    if (st->since % check == 0) {
        if (st->unsafe) {
            st->halt = 1;
            if (!st->reported) {
                st->reported = 1;
                report[0] = st->step;
                told = true;
            }
        } else if (st->far) {
            go = 1;
            st->builds++;
            st->dangerous += st->since == check;
            st->last_build = st->step;
            st->since = 0;
            st->far = 0;
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
    cudaGraphSetConditional(rebuild, go);
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

extern "C" int gpu_rebuild_node_begin(gpu_nb_state *st, int check, const int *flags, long long *report_dev)
{
    cudaStreamCaptureStatus status;
    cudaGraph_t graph;
    const cudaGraphNode_t *deps;
    size_t ndeps;
    cudaGraphConditionalHandle h;
    s_outer = g_mdl_stream;
    MDL_CUDA(cudaStreamGetCaptureInfo(s_outer, &status, NULL, &graph, NULL, NULL, NULL));
    MDL_CUDA(cudaGraphConditionalHandleCreate(&h, graph, 0, 0));
    rebuild_test_kernel<<<1, 1, 0, s_outer>>>(st, check, flags, report_dev, h);
    MDL_LAUNCHED("rebuild_test");
    MDL_CUDA(cudaStreamGetCaptureInfo(s_outer, &status, NULL, &graph, &deps, NULL, &ndeps));
    cudaGraphNodeParams cp = {};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeIf;
    cp.conditional.size = 1;
    cudaGraphNode_t cond;
    MDL_CUDA(cudaGraphAddNode(&cond, graph, deps, NULL, ndeps, &cp));
    MDL_CUDA(cudaStreamUpdateCaptureDependencies(s_outer, &cond, NULL, 1, cudaStreamSetCaptureDependencies));
    MDL_CUDA(cudaStreamBeginCaptureToGraph(s_body, cp.conditional.phGraph_out[0], NULL, NULL, 0,
                                           cudaStreamCaptureModeRelaxed));
    g_mdl_stream = s_body;
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
