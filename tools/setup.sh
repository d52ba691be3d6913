#!/usr/bin/env bash
# Installs what mdlite needs on Debian 12 (apt-get, through sudo when not root), then configures
# and builds it in build/. Safe to run again: it installs only what is missing.
# tools/setup.sh run: the packages the mdlite program needs and that program alone (what `build/mdlite
# run` needs: no tests), without the GPU backend where no GPU is visible (nvidia-smi lists none);
# plain tools/setup.sh installs everything the tests use too and builds everything, the GPU backend
# wherever nvcc is found (the tests compile it, and skip where no GPU is).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config libhdf5-dev)
[ "${1:-}" = run ] || packages+=(libcriterion-dev hdf5-tools python3 lammps lammps-data python3-h5py
                                 python3-mdanalysis python3-ase python3-matplotlib clang libclang-rt-dev
                                 libopenmpi-dev openmpi-bin valgrind python3-numpy python3-pytest
                                 python3-lammps liblammps-dev lammps-examples)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# `import mdlite` in Debian's python3 from any folder: a .pth file naming python/ (the build copies
# libmdlite.so there), where this user may write one (root: the system's site folder)
python_path() {
  local site
  site=$(/usr/bin/python3 -c 'import site, sys; print(site.getsitepackages()[0] if sys.prefix == "/usr" and __import__("os").access(site.getsitepackages()[0], 2) else site.getusersitepackages())' 2>/dev/null) || return 0
  mkdir -p "$site" 2>/dev/null && echo "$PWD/python" > "$site/mdlite.pth" || echo "setup: could not write $site/mdlite.pth"
}

if [ "${1:-}" = run ]; then
  cuda=AUTO
  nvidia-smi -L 2>/dev/null | grep -q "^GPU" || cuda=OFF
  cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMDLITE_CUDA=$cuda -DMDLITE_TESTS=OFF >/dev/null
  cmake --build build -j"$(nproc)" --target mdlite
  exit 0
fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DMDLITE_CUDA=AUTO -DMDLITE_TESTS=ON >/dev/null
cmake --build build -j"$(nproc)"
python_path

