/* image.h: what a loaded image is and where it came from (see image.c). */
#ifndef GT_IMAGE_H
#define GT_IMAGE_H

#include <stddef.h>
#include <stdint.h>

enum gt_format { GT_FMT_UNKNOWN, GT_FMT_WRAPPER, GT_FMT_FATBIN, GT_FMT_CUBIN, GT_FMT_PTX };

enum gt_origin {
    GT_FROM_RUNTIME, /* fatbin registered by the CUDA runtime */
    GT_FROM_FILE,    /* cuModuleLoad / cuLibraryLoadFromFile */
    GT_FROM_MEMORY,  /* cuModuleLoadData and friends, bytes of unknown provenance */
    GT_FROM_NVRTC,   /* bytes the application got from nvrtcGetPTX / nvrtcGetCUBIN */
};

struct gt_nvrtc_program;

struct gt_image {
    const unsigned char *bytes; /* PTX text, cubin, fatbin, or the runtime's wrapper */
    size_t size;                /* bytes readable at `bytes` (for a wrapper: its fatbin's) */
    int owned;                  /* bytes are the shim's copy */
    enum gt_format format;
    enum gt_origin origin;
    char *path;                 /* file it was loaded from */
    char *file;                 /* the file that holds it, absolute, where a cache entry can check it later */
    uint64_t hash;              /* of the bytes; 0 until computed */
    int ptx_arch;               /* best PTX target (e.g. 75), 0 if the image has none */
    int sass_arch;              /* highest SASS architecture, 0 if none */
    const struct gt_nvrtc_program *nvrtc; /* the source, for NVRTC output */
    char *sibling_ptx;          /* a cubin's PTX found beside a copy of it (Triton's cache), owned */
    char *sibling_path;         /* where */
    struct gt_image *next;
};

enum gt_format gt_image_format(const void *p);
size_t gt_image_size(const void *p, enum gt_format format);
const unsigned char *gt_image_container(const struct gt_image *img, size_t *size);
const unsigned char *gt_image_code(const struct gt_image *img, size_t *size);
const char *gt_image_ptx_text(const struct gt_image *img);
void gt_image_describe(struct gt_image *img);
uint64_t gt_image_hash(struct gt_image *img);
const char *gt_format_name(enum gt_format f);
const char *gt_origin_name(enum gt_origin o);

#endif
