/* suite: the benchmark applications, one kernel of kernels/ per run, or all
 * of them in turn (see suite.h).  A closed build: tuning never rebuilds it. */
#include "suite.h"

static const struct {
    const char *name;
    void (*run)(struct suite *s);
} kernels[] = {
    {"transpose", suite_transpose}, {"gemm", suite_gemm},       {"reduce", suite_reduce},
    {"conv2d", suite_conv2d},       {"nbody", suite_nbody},     {"coulomb", suite_coulomb},
    {"stencil", suite_stencil},
};
enum { NKERNELS = sizeof kernels / sizeof kernels[0] };

static void usage(const char *argv0)
{
    fprintf(stderr, "usage: %s KERNEL|all [-o FILE] [-r REPS] [--small] [--graph]\nkernels:", argv0);
    for (int i = 0; i < NKERNELS; i++)
        fprintf(stderr, " %s", kernels[i].name);
    fprintf(stderr, "\n");
    exit(2);
}

/* Coulomb's repetitions differ from one to the next (suite.h). */
static int has_graph_mode(int k)
{
    return strcmp(kernels[k].name, "coulomb") != 0;
}

int main(int argc, char **argv)
{
    struct suite s;
    memset(&s, 0, sizeof s);
    s.reps = 10;
    int which = -1, all = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
            s.e.out_path = argv[++i];
        else if (strcmp(argv[i], "-r") == 0 && i + 1 < argc && atoi(argv[i + 1]) > 0)
            s.reps = atoi(argv[++i]);
        else if (strcmp(argv[i], "--small") == 0)
            s.small = 1;
        else if (strcmp(argv[i], "--graph") == 0)
            s.graph = 1;
        else if (which < 0 && !all && strcmp(argv[i], "all") == 0)
            all = 1;
        else if (which < 0 && !all && argv[i][0] != '-')
            for (int k = 0; k < NKERNELS; k++)
                which = strcmp(argv[i], kernels[k].name) == 0 ? k : which;
        else
            usage(argv[0]);
    }
    if (which < 0 && !all)
        usage(argv[0]);
    if (which >= 0 && s.graph && !has_graph_mode(which)) {
        fprintf(stderr, "%s: --graph: %s launches something else every time, so it has no graph mode\n", argv[0],
                kernels[which].name);
        return 2;
    }
    if (s.e.out_path && !(s.e.out = fopen(s.e.out_path, "wb"))) {
        perror(s.e.out_path);
        return 2;
    }
    if (s.graph)
        CK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    CK(cudaEventCreate(&s.start));
    CK(cudaEventCreate(&s.stop));
    for (int k = 0; k < NKERNELS; k++)
        if (k == which || (all && (!s.graph || has_graph_mode(k)))) {
            s.kernel = kernels[k].name;
            kernels[k].run(&s);
        }
    return ex_finish(&s.e);
}
