// Microbenchmark: what a replayed step graph pays to decide a rebuild on the device, and to chain kernels.
/* Not part of mdlite or of CI; a measurement, built by hand on a machine with nvcc and run on the GPU:
     nvcc -O3 -arch=sm_90 -rdc=true tools/graph_bench.cu -lcudadevrt -o graph_bench
     ./graph_bench [atoms = 32000] [rebuild every = 7]
   Each graph stands for one step of `atoms` threads and is replayed 5,000 times (after 200 to warm
   up), three rounds; it prints microseconds per replay. A "work" kernel touches one float per thread
   and stands for the force kernel or the kicks; the "rebuild" is 13 one-thread kernels, as many as
   mdlite's rebuild chain has nodes. The shapes:
   - work x2: the floor of two kernel nodes;
   - test + IF: mdlite's step (graph.cu): a one-thread test kernel sets an IF node's condition, the
     node runs the rebuild every `every` steps, then the two work kernels; "x2": two such steps
     in one graph (what a replay of one graph per step costs beyond its nodes);
   - test in the last block: the two work kernels, the second's last block to finish (a ticket)
     setting the condition of an IF node after it (no test kernel);
   - tail launch: the two work kernels, then the test kernel launches the rebuild as a device graph
     (cudaStreamGraphTailLaunch: it runs after this graph and before the next one);
   - test (never launches): the same test kernel, which never launches anything (its own cost);
   - programmatic: each kernel after the first is launched with programmatic stream serialization
     and waits in cudaGridDependencySynchronize (programmatic dependent launch), against the same
     kernels launched plainly.
   H100, commit 24ff8e6 (PERFORMANCE.md's appendix, "The step's launches"): the tail launch costs
   2.2-2.9 us more per replay than the IF node at every size; programmatic launches save about
   0.4 us per kernel boundary up to 32,000 threads and nothing from 256,000. The test in the last block
   (2026-11-28): 9.77 against 10.10 us at 32,000 threads, 11.84 against 11.96 at 256,000, 32.87
   against 28.83 at 2,048,000. Two steps in one graph (H200, 2026-11-28): 18.25 us a replay against
   9.76 for one at 32,000 threads, 21.96 against 11.83 at 256,000, 55.80 against 28.70 at 2,048,000. */
#include <cstdio>
#include <cstdlib>

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

enum { REBUILD_KERNELS = 13, REPLAYS = 5000, WARM_UP = 200, ROUNDS = 3, BLOCK = 128 };

__global__ void work_kernel(int n, float *a)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = a[i] * 0.999f + 1.0f;
}

/* The same work, started early by a programmatic launch: it waits for the kernel before it. */
__global__ void work_after_kernel(int n, float *a)
{
    cudaGridDependencySynchronize();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = a[i] * 0.999f + 1.0f;
}

/* One node of the stand-in rebuild: counts how often the rebuild ran. */
__global__ void rebuild_node_kernel(int *runs)
{
    if (threadIdx.x == 0)
        runs[0]++;
}

__global__ void test_if_kernel(int *step, int every, cudaGraphConditionalHandle h)
{
    step[0]++;
    cudaGraphSetConditional(h, step[0] % every == 0);
}

/* The work, and the test in its last block to finish (a ticket): the IF node after it. */
__global__ void work_then_test_kernel(int n, float *a, int *ticket, int *step, int every, cudaGraphConditionalHandle h)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = a[i] * 0.999f + 1.0f;
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(ticket, 1) == (int)gridDim.x - 1) {
            *ticket = 0;
            step[0]++;
            cudaGraphSetConditional(h, step[0] % every == 0);
        }
    }
}

__global__ void test_tail_kernel(int *step, int every, cudaGraphExec_t rebuild)
{
    step[0]++;
    if (step[0] % every == 0)
        cudaGraphLaunch(rebuild, cudaStreamGraphTailLaunch);
}

struct bench {
    int n, every, grid;
    float *a;      /* two arrays of n floats */
    int *step;     /* the test kernels' step count */
    int *runs;     /* rebuild nodes run */
    cudaStream_t s, body;
};

static void queue_rebuild(cudaStream_t s, int *runs)
{
    for (int k = 0; k < REBUILD_KERNELS; k++)
        rebuild_node_kernel<<<1, 32, 0, s>>>(runs);
}

static void queue_work(const bench &b, int k, bool programmatic)
{
    float *a = b.a + (size_t)(k % 2) * b.n;
    if (!programmatic) {
        work_kernel<<<b.grid, BLOCK, 0, b.s>>>(b.n, a);
        return;
    }
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = b.grid, cfg.blockDim = BLOCK, cfg.stream = b.s, cfg.attrs = at, cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&cfg, work_after_kernel, b.n, a));
}

static cudaGraphExec_t instantiate_capture(cudaStream_t s)
{
    cudaGraph_t g;
    cudaGraphExec_t e;
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiate(&e, g, 0));
    CHECK(cudaGraphDestroy(g));
    return e;
}

/* `kernels` work kernels, those after the first launched programmatically or not. */
static cudaGraphExec_t record_work(const bench &b, int kernels, bool programmatic)
{
    CHECK(cudaStreamBeginCapture(b.s, cudaStreamCaptureModeRelaxed));
    for (int k = 0; k < kernels; k++)
        queue_work(b, k, programmatic && k > 0);
    return instantiate_capture(b.s);
}

/* A new conditional handle of the graph that b.s is capturing. */
static cudaGraphConditionalHandle handle_of_capture(const bench &b)
{
    cudaStreamCaptureStatus status;
    cudaGraph_t graph;
    cudaGraphConditionalHandle h;
    CHECK(cudaStreamGetCaptureInfo(b.s, &status, NULL, &graph, NULL, NULL, NULL));
    CHECK(cudaGraphConditionalHandleCreate(&h, graph, 0, 0));
    return h;
}

/* A conditional handle of the graph that b.s is capturing (begun here). */
static cudaGraphConditionalHandle begin_with_handle(const bench &b)
{
    CHECK(cudaStreamBeginCapture(b.s, cudaStreamCaptureModeRelaxed));
    return handle_of_capture(b);
}

/* An IF node on h after the capture's last work, its body the stand-in rebuild. */
static void add_rebuild_if(const bench &b, cudaGraphConditionalHandle h)
{
    cudaStreamCaptureStatus status;
    cudaGraph_t graph, body;
    const cudaGraphNode_t *deps;
    size_t ndeps;
    CHECK(cudaStreamGetCaptureInfo(b.s, &status, NULL, &graph, &deps, NULL, &ndeps));
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeConditional;
    p.conditional.handle = h, p.conditional.type = cudaGraphCondTypeIf, p.conditional.size = 1;
    cudaGraphNode_t node;
    CHECK(cudaGraphAddNode(&node, graph, deps, NULL, ndeps, &p));
    CHECK(cudaStreamUpdateCaptureDependencies(b.s, &node, NULL, 1, cudaStreamSetCaptureDependencies));
    CHECK(cudaStreamBeginCaptureToGraph(b.body, p.conditional.phGraph_out[0], NULL, NULL, 0,
                                        cudaStreamCaptureModeRelaxed));
    queue_rebuild(b.body, b.runs);
    CHECK(cudaStreamEndCapture(b.body, &body));
}

/* mdlite's step, `steps` times in one graph: test kernel, IF node holding the rebuild, two work
   kernels. */
static cudaGraphExec_t record_test_if(const bench &b, int steps)
{
    CHECK(cudaStreamBeginCapture(b.s, cudaStreamCaptureModeRelaxed));
    for (int k = 0; k < steps; k++) {
        const cudaGraphConditionalHandle h = handle_of_capture(b);
        test_if_kernel<<<1, 1, 0, b.s>>>(b.step, b.every, h);
        add_rebuild_if(b, h);
        queue_work(b, 0, false);
        queue_work(b, 1, false);
    }
    return instantiate_capture(b.s);
}

/* Two work kernels, the second testing in its last block, then the IF node holding the rebuild. */
static cudaGraphExec_t record_work_then_if(const bench &b)
{
    const cudaGraphConditionalHandle h = begin_with_handle(b);
    queue_work(b, 0, false);
    work_then_test_kernel<<<b.grid, BLOCK, 0, b.s>>>(b.n, b.a + b.n, b.step + 2, b.step, b.every, h);
    add_rebuild_if(b, h);
    return instantiate_capture(b.s);
}

/* Two work kernels, then the test kernel, which tail-launches `rebuild` every `every` replays. */
static cudaGraphExec_t record_test_tail(const bench &b, int every, cudaGraphExec_t rebuild)
{
    CHECK(cudaStreamBeginCapture(b.s, cudaStreamCaptureModeRelaxed));
    queue_work(b, 0, false);
    queue_work(b, 1, false);
    test_tail_kernel<<<1, 1, 0, b.s>>>(b.step, every, rebuild);
    return instantiate_capture(b.s);
}

static cudaGraphExec_t record_device_rebuild(const bench &b)
{
    cudaGraph_t g;
    cudaGraphExec_t e;
    CHECK(cudaStreamBeginCapture(b.s, cudaStreamCaptureModeRelaxed));
    queue_rebuild(b.s, b.runs);
    CHECK(cudaStreamEndCapture(b.s, &g));
    CHECK(cudaGraphInstantiate(&e, g, cudaGraphInstantiateFlagDeviceLaunch));
    CHECK(cudaGraphUpload(e, b.s));
    CHECK(cudaGraphDestroy(g));
    return e;
}

static int rebuild_runs(const bench &b)
{
    int r;
    CHECK(cudaMemcpy(&r, b.runs, sizeof r, cudaMemcpyDeviceToHost));
    return r;
}

/* Microseconds per replay of e; the rebuild nodes it ran go to *runs. */
static double time_replays(const bench &b, cudaGraphExec_t e, int *runs)
{
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    for (int r = 0; r < WARM_UP; r++)
        CHECK(cudaGraphLaunch(e, b.s));
    CHECK(cudaStreamSynchronize(b.s));
    int before = rebuild_runs(b);
    CHECK(cudaEventRecord(t0, b.s));
    for (int r = 0; r < REPLAYS; r++)
        CHECK(cudaGraphLaunch(e, b.s));
    CHECK(cudaEventRecord(t1, b.s));
    CHECK(cudaEventSynchronize(t1));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    *runs = rebuild_runs(b) - before;
    CHECK(cudaEventDestroy(t0));
    CHECK(cudaEventDestroy(t1));
    return 1000.0 * ms / REPLAYS;
}

int main(int argc, char **argv)
{
    bench b;
    b.n = argc > 1 ? atoi(argv[1]) : 32000;
    b.every = argc > 2 ? atoi(argv[2]) : 7;
    if (b.n < 1 || b.every < 1) {
        fprintf(stderr, "usage: graph_bench [atoms >= 1] [rebuild every >= 1 steps]\n");
        return 2;
    }
    b.grid = (b.n + BLOCK - 1) / BLOCK;
    CHECK(cudaMalloc(&b.a, 2 * (size_t)b.n * sizeof(float)));
    CHECK(cudaMemset(b.a, 0, 2 * (size_t)b.n * sizeof(float)));
    CHECK(cudaMalloc(&b.step, 3 * sizeof(int)));
    CHECK(cudaMemset(b.step, 0, 3 * sizeof(int)));
    b.runs = b.step + 1;
    CHECK(cudaStreamCreateWithFlags(&b.s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b.body, cudaStreamNonBlocking));
    cudaGraphExec_t rebuild = record_device_rebuild(b);
    const struct {
        const char *name;
        cudaGraphExec_t exec;
    } shapes[] = {
        {"work x2", record_work(b, 2, false)},
        {"test + IF, work x2", record_test_if(b, 1)},
        {"(test + IF, work x2) x2", record_test_if(b, 2)},
        {"work x2 (test in its last block), IF", record_work_then_if(b)},
        {"work x2, test + tail launch", record_test_tail(b, b.every, rebuild)},
        {"work x2, test (never launches)", record_test_tail(b, 1 << 30, rebuild)},
        {"work, work (programmatic)", record_work(b, 2, true)},
        {"work x4", record_work(b, 4, false)},
        {"work, work x3 (programmatic)", record_work(b, 4, true)},
    };
    for (int round = 0; round < ROUNDS; round++)
        for (const auto &sh : shapes) {
            int runs;
            double us = time_replays(b, sh.exec, &runs);
            printf("atoms %8d every %d  %-32s %7.2f us per replay, rebuild nodes run %d\n", b.n, b.every, sh.name,
                   us, runs);
        }
    CHECK(cudaGetLastError());
    return 0;
}
