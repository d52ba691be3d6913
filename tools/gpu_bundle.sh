#!/usr/bin/env bash
# Builds mdlite for sm_90 (mixed and double precision, portable CPU code) and bundles the binaries
# with their libraries into .gpu/ for the GPU machine, plus a copy of ../shared/reference for the
# reference test there (.gpu/ is ignored by git; nothing from ../shared enters the repository).
set -euo pipefail
cd "$(dirname "$0")/.."
common=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DMDLITE_NATIVE=OFF -DMDLITE_SANITIZERS=OFF
        -DMDLITE_CUDA=ON -DMDLITE_PYTHON_COPY=OFF)
cmake -S . -B build-gpu "${common[@]}" -DMDLITE_GPU_PRECISION=mixed >/dev/null
cmake -S . -B build-gpu-double "${common[@]}" -DMDLITE_GPU_PRECISION=double >/dev/null
cmake --build build-gpu -j"$(nproc)" --target mdlite mdlite_shared test_rng_gpu test_rng_curand test_backends
cmake --build build-gpu-double -j"$(nproc)" --target mdlite
rm -rf .gpu && mkdir -p .gpu/ref
cp build-gpu-double/mdlite build-gpu-double/mdlite-double
../shared/tools/bundle.sh .gpu build-gpu/mdlite build-gpu-double/mdlite-double build-gpu/tests/test_rng_gpu build-gpu/tests/test_backends
rm build-gpu-double/mdlite-double
strip -s .gpu/bin/* # their symbol tables (no debug information is built): the carry has 64 MiB
# compressed too (61 MB becomes 25 MB beside the working tree in the 64 MiB carry); sourcing
# .gpu/env.sh on the GPU machine unpacks them
gzip -6 .gpu/bin/* .gpu/lib/*
echo 'for f in "$here"/bin/*.gz "$here"/lib/*.gz; do [ -e "$f" ] && gunzip -f "$f"; done' >> .gpu/env.sh
# the Python package on the mixed build's libmdlite.so (tests/python/gpu_api.py .gpu/python there)
mkdir -p .gpu/python/mdlite
cp python/mdlite/*.py .gpu/python/mdlite/ && strip -s -o .gpu/python/mdlite/libmdlite.so build-gpu/libmdlite.so.0
gzip -6 .gpu/python/mdlite/libmdlite.so
echo 'gunzip -f "$here"/python/mdlite/libmdlite.so.gz 2>/dev/null || true' >> .gpu/env.sh
if [ -d ../shared/reference ]; then cp ../shared/reference/xy.txt ../shared/reference/neighbor.txt .gpu/ref/; fi
# the EAM tests' potential files (Debian's lammps-data), compressed: the carry has 64 MiB;
# tools/gpu_check.sh unpacks them into /usr/share/lammps/potentials on the GPU machine
mkdir -p .gpu/potentials
for f in Cu_u3.eam Ni_u3.eam CuNi.eam.alloy CuZr_mm.eam.fs CuTa.eam.alloy Fe_mm.eam.fs; do
  [ -f /usr/share/lammps/potentials/$f ] && gzip -c /usr/share/lammps/potentials/$f > .gpu/potentials/$f.gz
done
