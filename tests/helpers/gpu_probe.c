/* gpu_probe: exits 0 when a CUDA device is usable, else prints why and exits 1.
 * GPU tests run it first and skip with its message. */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*init_fn)(unsigned);
typedef int (*count_fn)(int *);

int main(void)
{
    void *h = dlopen("libcuda.so.1", RTLD_NOW);
    if (!h) {
        printf("libcuda.so.1 not found (%s)\n", dlerror());
        return 1;
    }
    init_fn init = (init_fn)dlsym(h, "cuInit");
    count_fn count = (count_fn)dlsym(h, "cuDeviceGetCount");
    int n = 0, r;
    if (!init || !count) {
        printf("libcuda.so.1 lacks cuInit/cuDeviceGetCount\n");
        return 1;
    }
    if ((r = init(0)) != 0) {
        printf("cuInit failed with CUDA error %d\n", r);
        return 1;
    }
    if ((r = count(&n)) != 0 || n == 0) {
        printf("no CUDA device (error %d, count %d)\n", r, n);
        return 1;
    }
    return 0;
}
