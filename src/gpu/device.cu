// Device discovery, checked memory helpers, streams and events for the GPU backend.
#include "common.cuh"

#include <stdlib.h>
#include <string.h>

static size_t g_allocated = 0;
cudaStream_t g_mdl_stream = 0;

extern "C" int gpu_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return n;
}

extern "C" void gpu_print_devices(FILE *out)
{
    int n = gpu_device_count();
    if (n == 0) {
        fprintf(out, "GPUs: none found (the GPU backend needs an NVIDIA GPU and driver)\n");
        return;
    }
    for (int d = 0; d < n; d++) {
        cudaDeviceProp p;
        if (cudaGetDeviceProperties(&p, d) != cudaSuccess)
            continue;
        fprintf(out, "GPU %d: %s, %d SMs, %.1f GiB, compute capability %d.%d, L2 %d MiB\n", d, p.name,
                p.multiProcessorCount, p.totalGlobalMem / 1073741824.0, p.major, p.minor, p.l2CacheSize >> 20);
    }
}

extern "C" int gpu_select(int index)
{
    int count = gpu_device_count();
    if (count == 0) {
        mdl_error("backend gpu: no CUDA device found");
        return 1;
    }
    MDL_CUDA(cudaSetDevice(index % count));
    return 0;
}

extern "C" int gpu_bus_id(char *buf, int len)
{
    int dev = 0;
    MDL_CUDA(cudaGetDevice(&dev));
    MDL_CUDA(cudaDeviceGetPCIBusId(buf, len, dev));
    return 0;
}

extern "C" int gpu_malloc(void **p, size_t bytes, const char *what)
{
    cudaError_t e = cudaMalloc(p, bytes ? bytes : 16);
    if (e != cudaSuccess) {
        mdl_error("CUDA: cannot allocate %zu bytes of device memory for %s: %s", bytes, what,
                cudaGetErrorString(e));
        *p = NULL;
        return 1;
    }
    g_allocated += bytes;
    return 0;
}

static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(gpu_ipc_handle), "an IPC handle is 64 bytes");

extern "C" int gpu_ipc_export(void *dev, gpu_ipc_handle *h)
{
    cudaIpcMemHandle_t m;
    MDL_CUDA(cudaIpcGetMemHandle(&m, dev));
    memcpy(h, &m, sizeof m);
    return 0;
}

extern "C" int gpu_ipc_open(const gpu_ipc_handle *h, void **dev, const char **why)
{
    cudaIpcMemHandle_t m;
    memcpy(&m, h, sizeof m);
    cudaError_t e = cudaIpcOpenMemHandle(dev, m, cudaIpcMemLazyEnablePeerAccess);
    if (e == cudaSuccess)
        return 0;
    cudaGetLastError(); /* not sticky: the caller goes on without */
    *dev = NULL;
    *why = cudaGetErrorString(e);
    return 1;
}

extern "C" void gpu_ipc_close(void *dev)
{
    if (dev)
        cudaIpcCloseMemHandle(dev);
}

extern "C" void gpu_free(void *p)
{
    if (p)
        cudaFree(p);
}

extern "C" void gpu_host_free(void *p)
{
    if (p)
        cudaFreeHost(p);
}

extern "C" int gpu_host_alloc_mapped(void **host, void **dev, size_t bytes, const char *what)
{
    cudaError_t e = cudaHostAlloc(host, bytes, cudaHostAllocMapped);
    if (e == cudaSuccess)
        e = cudaHostGetDevicePointer(dev, *host, 0);
    if (e != cudaSuccess) {
        mdl_error("CUDA: cannot allocate %zu bytes of mapped host memory for %s: %s", bytes,
                what, cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

/* Pinned memory for large buffers: page-aligned host memory, touched by the calling thread, then
   page-locked with cudaHostRegister. The page faults and zeroing happen outside the driver, so a
   writer thread pinning a slot holds up the step loop's launches only for the registration
   (cudaMallocHost of 48 MB did so for ~25 ms on the H100 host; docs/PERFORMANCE.md). */
extern "C" int gpu_host_pin_alloc(void **p, size_t bytes, const char *what)
{
    size_t page = 4096, size = (bytes + page - 1) / page * page;
    if (posix_memalign(p, page, size ? size : page) != 0) {
        mdl_error("cannot allocate %zu bytes of host memory for %s", bytes, what);
        *p = NULL;
        return 1;
    }
    memset(*p, 0, size);
    cudaError_t e = cudaHostRegister(*p, size ? size : page, cudaHostRegisterDefault);
    if (e != cudaSuccess) {
        mdl_error("CUDA: cannot pin %zu bytes of host memory for %s: %s", bytes, what,
                cudaGetErrorString(e));
        free(*p);
        *p = NULL;
        return 1;
    }
    return 0;
}

extern "C" void gpu_host_pin_free(void *p)
{
    if (p) {
        cudaHostUnregister(p);
        free(p);
    }
}

extern "C" int gpu_h2d(void *dst, const void *src, size_t bytes)
{
    MDL_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    return 0;
}

extern "C" int gpu_d2h(void *dst, const void *src, size_t bytes)
{
    MDL_CUDA(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    return 0;
}

extern "C" int gpu_d2d(void *dst, const void *src, size_t bytes)
{
    MDL_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g_mdl_stream));
    return 0;
}

extern "C" int gpu_memset(void *dst, int value, size_t bytes)
{
    MDL_CUDA(cudaMemsetAsync(dst, value, bytes, g_mdl_stream));
    return 0;
}

extern "C" int gpu_synchronize(void)
{
    MDL_CUDA(cudaDeviceSynchronize());
    return 0;
}

extern "C" int gpu_check_launch(const char *what)
{
    cudaError_t e = cudaGetLastError();
#ifdef MDLITE_CUDA_SYNC_CHECK
    if (e == cudaSuccess)
        e = cudaDeviceSynchronize();
#endif
    if (e != cudaSuccess) {
        mdl_error("CUDA: kernel %s: %s", what, cudaGetErrorString(e));
        return 1;
    }
    return 0;
}

extern "C" size_t gpu_bytes_allocated(void)
{
    return g_allocated;
}

// ---- streams and events for the asynchronous output path (opaque handles for C) ----

extern "C" int gpu_stream_create(void **s)
{
    cudaStream_t st;
    MDL_CUDA(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    *s = (void *)st;
    return 0;
}

extern "C" void gpu_stream_destroy(void *s)
{
    if (s)
        cudaStreamDestroy((cudaStream_t)s);
}

extern "C" int gpu_event_create(void **e)
{
    cudaEvent_t ev;
    MDL_CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
    *e = (void *)ev;
    return 0;
}

extern "C" int gpu_event_create_timed(void **e)
{
    cudaEvent_t ev;
    MDL_CUDA(cudaEventCreate(&ev));
    *e = (void *)ev;
    return 0;
}

extern "C" int gpu_event_seconds(void *from, void *to, double *seconds)
{
    float ms = 0;
    MDL_CUDA(cudaEventSynchronize((cudaEvent_t)to));
    MDL_CUDA(cudaEventElapsedTime(&ms, (cudaEvent_t)from, (cudaEvent_t)to));
    *seconds = 1e-3 * ms;
    return 0;
}

extern "C" int gpu_event_create_blocking(void **e)
{
    cudaEvent_t ev;
    MDL_CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventBlockingSync));
    *e = (void *)ev;
    return 0;
}

extern "C" void gpu_event_destroy(void *e)
{
    if (e)
        cudaEventDestroy((cudaEvent_t)e);
}

extern "C" int gpu_event_record(void *e, void *stream)
{
    MDL_CUDA(cudaEventRecord((cudaEvent_t)e, (cudaStream_t)stream));
    return 0;
}

extern "C" int gpu_stream_wait(void *stream, void *e)
{
    MDL_CUDA(cudaStreamWaitEvent((cudaStream_t)stream, (cudaEvent_t)e, 0));
    return 0;
}

extern "C" int gpu_event_sync(void *e)
{
    MDL_CUDA(cudaEventSynchronize((cudaEvent_t)e));
    return 0;
}

extern "C" int gpu_stream_sync(void *stream)
{
    MDL_CUDA(cudaStreamSynchronize((cudaStream_t)stream));
    return 0;
}

extern "C" int gpu_copy_async(void *dst, const void *src, size_t bytes, void *stream)
{
    MDL_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, (cudaStream_t)stream));
    return 0;
}

extern "C" int gpu_event_query(void *e)
{
    cudaError_t err = cudaEventQuery((cudaEvent_t)e);
    if (err == cudaErrorNotReady)
        return 1;
    MDL_CUDA(err);
    return 0;
}
