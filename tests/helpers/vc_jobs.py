"""Clusters shaped by virtual-clusters.json, and v2 jobs that ask for a given share of them: for the
waiting, queueing and capacity tests on the local cluster and through the CLI."""

from __future__ import annotations

import json
from pathlib import Path

# Three simulated nodes: vc1 holds half of w1 and w2 (so no node of it has more than 2 free GPUs),
# `default` holds w3; the group `ml` may use vc1, everyone `default`.
LAYOUT = {
    "nodes": {"w1": {"gpu": 4, "cpu": 8, "memoryMB": 16384}, "w2": {"gpu": 4, "cpu": 8, "memoryMB": 16384},
              "w3": {"gpu": 2, "cpu": 8, "memoryMB": 16384}},
    "virtualClusters": {"default": {"nodes": ["w3"]},
                        "vc1": {"nodes": {"w1": {"gpu": 2, "cpu": 4, "memoryMB": 8192},
                                          "w2": {"gpu": 2, "cpu": 4, "memoryMB": 8192}}}},
    "groups": {"default": ["default"], "ml": ["vc1"]},
}
# The same with HiveD's SKUs: one cell is a GPU with 2 CPUs and 4096 MB.
HIVED_LAYOUT = {**LAYOUT, "skuTypes": {"DT": {"gpu": 1, "cpu": 2, "memory": 4096}}, "hived": True}


def shaped(data_dir: Path, layout: dict) -> Path:
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / "virtual-clusters.json").write_text(json.dumps(layout))
    return data_dir


def v2_job(name: str, vc: str = "vc1", instances: int = 1, gpu: int = 1, command: str = "sleep 600", cpu: int = 1,
           memory_mb: int = 1024, priority: str | None = None, sku: str | None = None) -> str:
    """A protocol-v2 job of one role, `worker`."""
    extras = ""
    if priority or sku:
        extras = "extras:\n  hivedScheduler:\n"
        if priority:
            extras += f"    jobPriorityClass: {priority}\n"
        if sku:
            extras += f"    taskRoles:\n      worker:\n        skuType: {sku}\n"
    return (f"protocolVersion: 2\nname: {name}\ntype: job\n"
            "prerequisites:\n  - {name: image, type: dockerimage, uri: 'ubuntu:18.04'}\n"
            f"taskRoles:\n  worker:\n    instances: {instances}\n    dockerImage: image\n"
            f"    resourcePerInstance: {{cpu: {cpu}, memoryMB: {memory_mb}, gpu: {gpu}}}\n"
            f"    commands:\n      - {json.dumps(command)}\n"
            f"defaults:\n  virtualCluster: {vc}\n{extras}")
