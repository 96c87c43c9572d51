#!/bin/bash
# usage: resources.sh TREE OUT: polypragma of TREE on the kernels whose mapping changed, then nvcc --resource-usage
tree=$1; out=$2
SP=$(ls -d "$(dirname "$0")"/../../.venv/lib/python3*/site-packages); SP=$(cd "$SP" && pwd)
K=$(cd "$(dirname "$0")/../.." && pwd)/tests/kernels
mkdir -p $out; cd /tmp
for k in bicg column_scale correlation covariance fdtd_2d gemm gemver gramschmidt lu matvec_flat mm2 mm3 mvt symm syr2k syrk transpose trmm struct_grid pure_calls; do
  f=$K/$k.c
  D=$(grep -m1 '// RUN:' $f | sed 's/.*RUN://; s/--.*//')
  PYTHONPATH=$tree:$SP $SP/../../../bin/python -S -m polypragma $f -I $K $D -o $out >/dev/null 2>&1
  nvcc -arch=sm_90 --resource-usage -I $K $D -c $out/$k.polypragma.cu -o $out/$k.o 2>&1 | grep -E "Function properties for|registers|spill" | sed "s/^/$k: /"
done
