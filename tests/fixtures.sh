#!/bin/sh
# fixtures.sh DIR: compiles the device-code fixtures the parser tests read
# (tests/fixtures/*.cu) with nvcc into DIR, once: a later call finds DIR
# complete and returns at once.  Exit status 77: no nvcc.
set -e
dir=$1
src=$(cd "$(dirname "$0")/fixtures" && pwd)
NVCC=${NVCC:-$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")}
FATBINARY=$(dirname "$NVCC")/fatbinary
[ -x "$NVCC" ] || { echo "no nvcc at $NVCC" >&2; exit 77; }

stamp="$dir/.complete"
if [ -f "$stamp" ] && [ "$stamp" -nt "$0" ] && [ "$stamp" -nt "$src/kernels.cu" ] &&
   [ "$stamp" -nt "$src/linked_a.cu" ] && [ "$stamp" -nt "$src/linked_b.cu" ] &&
   [ "$stamp" -nt "$src/watchdog_kernels.cu" ] && [ "$stamp" -nt "$src/sidefx_kernels.cu" ]; then
    exit 0
fi

mkdir -p "$(dirname "$dir")"
# Absolute, since the compiles run in the temporary directory.
dir=$(cd "$(dirname "$dir")" && pwd)/$(basename "$dir")
tmp=$(mktemp -d "$dir.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
cp "$src"/*.cu .

# Host binaries: nvcc's defaults, several targets, everything compressed,
# a device-linked program, a shared library, an object and an archive.
"$NVCC" -o app_default kernels.cu
"$NVCC" -o app_gencode kernels.cu -gencode arch=compute_75,code=sm_75 \
    -gencode arch=compute_90,code='[sm_90,compute_90]' -gencode arch=compute_90a,code=sm_90a \
    -gencode arch=compute_120,code=sm_120
"$NVCC" -o app_compressed kernels.cu -arch=sm_90 -Xfatbin -compress-all
"$NVCC" -rdc=true -arch=sm_90 -c linked_a.cu linked_b.cu
"$NVCC" -rdc=true -arch=sm_90 -o app_rdc linked_a.o linked_b.o
"$NVCC" -shared -Xcompiler -fPIC -cudart shared -arch=sm_90 -o libkernels.so kernels.cu
"$NVCC" -c -arch=sm_90 -o kernels.o kernels.cu
ar rcs libkernels.a kernels.o

# Bare device code: PTX, a cubin (with ptxas' own account of its resources),
# kernels that print, assert and allocate (linked, relocatable, and as SASS
# with PTX), fatbins compressed with LZ4, not compressed, holding NVVM IR for
# link-time optimization, and one made by fatbinary.
"$NVCC" -ptx -arch=compute_90 -o kernels.ptx kernels.cu
"$NVCC" -ptx -arch=compute_90 -o watchdog_kernels.ptx watchdog_kernels.cu
"$NVCC" -cubin -arch=sm_90 -Xptxas -v -o kernels.cubin kernels.cu 2> kernels.ptxas
"$NVCC" -cubin -arch=sm_75 -Xptxas -v -o kernels75.cubin kernels.cu 2> kernels75.ptxas
"$NVCC" -cubin -rdc=true -arch=sm_90 -o linked_a.cubin linked_a.cu
"$NVCC" -cubin -arch=sm_90 -o sidefx.cubin sidefx_kernels.cu
"$NVCC" -cubin -rdc=true -arch=sm_90 -o sidefx_rdc.cubin sidefx_kernels.cu
"$NVCC" -fatbin -gencode arch=compute_90,code='[sm_90,compute_90]' -o sidefx.fatbin sidefx_kernels.cu
"$NVCC" -fatbin -arch=sm_90 -Xfatbin -compress-all -Xfatbin -compress-mode=speed -o lz4.fatbin kernels.cu
"$NVCC" -fatbin -arch=sm_90 -Xfatbin -compress-mode=none -o plain.fatbin kernels.cu
"$NVCC" -fatbin -gencode arch=compute_90,code=lto_90 -o lto.fatbin kernels.cu
"$FATBINARY" -64 --create=made.fatbin --image3=kind=elf,sm=90,file=kernels.cubin \
    --image3=kind=ptx,sm=90,file=kernels.ptx

# A fatbin a host object carries in a section of its own choosing, as
# libraries that load their code through the driver API do.
printf 'int host_only(void) { return 0; }\n' > host.c
${CC:-cc} -c -o host.o host.c
objcopy --add-section .gpu_blob=lz4.fatbin --set-section-flags .gpu_blob=alloc,contents,readonly host.o embedded.o
rm -f host.c host.o
rm -f ./*.cu linked_a.o linked_b.o

touch .complete
cd /
rm -rf "$dir"
mv "$tmp" "$dir"
trap - EXIT
