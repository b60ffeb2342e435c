"""This machine's NVIDIA GPUs as job-exporter reads them (nvidia-smi's `utilization.gpu` and framebuffer
use), through NVIDIA's own bindings (`nvidia-ml-py`, imported as `pynvml`). They are loaded on the first
read only: a machine without the driver (or without the package) has no GPU, and says nothing."""

from __future__ import annotations

import threading
from dataclasses import dataclass


@dataclass(frozen=True)
class GpuReading:
    index: int  # NVML's index: what CUDA_VISIBLE_DEVICES names on the local cluster
    minor_number: int  # /dev/nvidiaN: the label job-exporter gives a GPU series
    utilization: float  # percent of the last sample period in which a kernel ran, 0-100
    memory_used: int  # bytes of framebuffer
    memory_total: int

    @property
    def memory_percent(self) -> float:
        """Framebuffer used ÷ total × 100, as job-exporter's `task_gpu_mem_percent`."""
        return 100.0 * self.memory_used / self.memory_total if self.memory_total else 0.0


class Gpus:
    """NVML, started once on first use; `read()` is empty for good where it cannot start."""

    def __init__(self) -> None:
        self._nvml = None
        self._tried = False
        self._lock = threading.Lock()

    def _started(self):
        with self._lock:
            if not self._tried:
                self._tried = True
                try:
                    import pynvml

                    pynvml.nvmlInit()
                    self._nvml = pynvml
                except Exception:  # noqa: BLE001 - no package, no driver, no device: no GPU, the same to us
                    self._nvml = None
            return self._nvml

    def read(self) -> dict[int, GpuReading]:
        """Every GPU's reading now, by index; a GPU that fails to answer is left out."""
        nvml = self._started()
        if nvml is None:
            return {}
        readings: dict[int, GpuReading] = {}
        try:
            count = nvml.nvmlDeviceGetCount()
        except Exception:  # noqa: BLE001 - the driver went away: no GPU now
            return {}
        for index in range(count):
            try:
                handle = nvml.nvmlDeviceGetHandleByIndex(index)
                memory = nvml.nvmlDeviceGetMemoryInfo(handle)
                readings[index] = GpuReading(index, _minor_number(nvml, handle, index),
                                             float(nvml.nvmlDeviceGetUtilizationRates(handle).gpu),
                                             int(memory.used), int(memory.total))
            except Exception:  # noqa: BLE001 - one GPU lost (Xid error, fallen off the bus): the others still count
                continue
        return readings

    def close(self) -> None:
        with self._lock:
            if self._nvml is not None:
                try:
                    self._nvml.nvmlShutdown()
                except Exception:  # noqa: BLE001
                    pass
                self._nvml = None


def _minor_number(nvml, handle, index: int) -> int:
    """The device's minor number (Linux); its index where NVML has none (Windows)."""
    try:
        return int(nvml.nvmlDeviceGetMinorNumber(handle))
    except Exception:  # noqa: BLE001
        return index
