/* test_geom: the geometry fingerprint that indexes the per-thread caches of
 * the launch path (the verdicts, the signature texts) spreads a framework's
 * geometries over their slots.  Each cache takes its slot from the
 * fingerprint's low bits: geometries that share a slot push one another
 * out, and each such launch takes the slow path. */
#include "registry.h"
#include "tap.h"

#define SLOTS 128

/* How many of SLOTS slots n geometries fill. */
static int filled(const struct gt_geom *g, int n)
{
    int used[SLOTS] = {0}, count = 0;
    for (int i = 0; i < n; i++) {
        int s = (int)(gt_reg_geom_fingerprint(&g[i]) % SLOTS);
        count += !used[s];
        used[s] = 1;
    }
    return count;
}

/* 128 geometries, at random into 128 slots, fill about 81 (1 - 1/e); the
 * test asks for 70, which a fingerprint that ignores most of a component
 * misses by far (grids that differed in their x alone filled 4 to 16). */
static void spread(const char *what, struct gt_geom *g)
{
    ok(filled(g, SLOTS) >= 70, "%s: the low bits spread them (%d slots of %d)", what, filled(g, SLOTS), SLOTS);
}

int main(void)
{
    struct gt_geom g[SLOTS];
    for (int i = 0; i < SLOTS; i++) /* an elementwise kernel's grid, one block per 512 elements */
        g[i] = (struct gt_geom){{(unsigned)i + 1, 1, 1}, {128, 1, 1}, 0};
    spread("grid x 1..128", g);
    for (int i = 0; i < SLOTS; i++) /* grids in steps of a wave */
        g[i] = (struct gt_geom){{132u * ((unsigned)i + 1), 1, 1}, {256, 1, 1}, 0};
    spread("grid x in steps of 132", g);
    for (int i = 0; i < SLOTS; i++) /* a GEMM's tiles: x and y vary, z splits k */
        g[i] = (struct gt_geom){{(unsigned)i % 8 + 1, (unsigned)i / 8 % 8 + 1, (unsigned)i / 64 + 1}, {128, 1, 1}, 8704};
    spread("grid x, y, z", g);
    for (int i = 0; i < SLOTS; i++) /* one grid, blocks and shared memory varying */
        g[i] = (struct gt_geom){{64, 1, 1}, {32 * ((unsigned)i % 32 + 1), 1, 1}, 1024u * ((unsigned)i / 32)};
    spread("block x and shared memory", g);
    struct gt_geom a = {{1, 1, 1}, {1, 1, 1}, 0}, b = a;
    b.smem = 1;
    ok(gt_reg_geom_fingerprint(&a) != gt_reg_geom_fingerprint(&b), "geometries a byte of shared memory apart differ");
    struct gt_geom zero = {{0, 0, 0}, {0, 0, 0}, 0};
    ok(gt_reg_geom_fingerprint(&zero) != 0, "no geometry's fingerprint is 0 (an empty slot)");
    struct gt_geom big = {{~0u, ~0u, ~0u}, {~0u, ~0u, ~0u}, ~0u};
    uint64_t f = gt_reg_geom_fingerprint(&big);
    ok(f != 0 && f != UINT64_MAX, "nor all ones (a map's other reserved key)");
    return done_testing();
}
