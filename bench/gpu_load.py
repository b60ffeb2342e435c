"""Load the GPU this process may use (CUDA_VISIBLE_DEVICES) for SECONDS with nothing but the CUDA driver
(libcuda, through ctypes): 1 GiB of its memory held, and a spinning kernel launched again and again, so
its utilisation and memory show in job-exporter's series. For bench/gpu_metrics_check.sh, where torch
and cupy may not be installed.

    python3 bench/gpu_load.py [SECONDS]
"""

from __future__ import annotations

import ctypes
import sys
import time

PTX = b"""
.version 6.0
.target sm_50
.address_size 64
.visible .entry spin(.param .u64 out, .param .u64 n)
{
  .reg .u64 %rd<6>;
  .reg .pred %p;
  ld.param.u64 %rd1, [out];
  ld.param.u64 %rd2, [n];
  mov.u64 %rd3, 0;
  mov.u64 %rd4, 7;
LOOP:
  mul.lo.u64 %rd4, %rd4, 6364136223846793005;
  add.u64 %rd4, %rd4, 1442695040888963407;
  add.u64 %rd3, %rd3, 1;
  setp.lt.u64 %p, %rd3, %rd2;
  @%p bra LOOP;
  st.global.u64 [%rd1], %rd4;
  ret;
}
"""


def check(result: int, what: str) -> None:
    if result != 0:
        raise SystemExit(f"gpu_load: {what} failed with CUDA error {result}")


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 30.0
    cuda = ctypes.CDLL("libcuda.so.1")
    check(cuda.cuInit(0), "cuInit")
    device, context, module, function = ctypes.c_int(), ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    check(cuda.cuDeviceGet(ctypes.byref(device), 0), "cuDeviceGet")
    check(cuda.cuCtxCreate_v2(ctypes.byref(context), 0, device), "cuCtxCreate")
    held, out = ctypes.c_uint64(), ctypes.c_uint64()
    check(cuda.cuMemAlloc_v2(ctypes.byref(held), ctypes.c_size_t(1 << 30)), "cuMemAlloc (1 GiB)")
    check(cuda.cuMemsetD8_v2(held, 1, ctypes.c_size_t(1 << 30)), "cuMemsetD8")
    check(cuda.cuMemAlloc_v2(ctypes.byref(out), ctypes.c_size_t(8)), "cuMemAlloc")
    check(cuda.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(PTX)), "cuModuleLoadData")
    check(cuda.cuModuleGetFunction(ctypes.byref(function), module, b"spin"), "cuModuleGetFunction")
    n = ctypes.c_uint64(20_000_000)
    args = (ctypes.c_void_p * 2)(ctypes.cast(ctypes.byref(out), ctypes.c_void_p), ctypes.cast(ctypes.byref(n), ctypes.c_void_p))
    end, launches = time.time() + seconds, 0
    while time.time() < end:
        check(cuda.cuLaunchKernel(function, 1024, 1, 1, 256, 1, 1, 0, None, args, None), "cuLaunchKernel")
        check(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
        launches += 1
    print(f"gpu_load: {launches} launches in {seconds:.0f} s, 1 GiB held", flush=True)


if __name__ == "__main__":
    main()
