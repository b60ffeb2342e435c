#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: the local cluster's GPU series (job-exporter's task_gpu_percent and
# task_gpu_mem_percent, nvidiasmi_utilization_gpu) through its /prometheus, for a job that holds one GPU and
# loads it for about 30 s (bench/gpu_load.py: the CUDA driver through ctypes, 1 GiB and a spinning kernel;
# else torch or cupy; else it only holds it, and the series must exist at 0 %). Prints NVML's own reading,
# the series, and a verdict. About 2 minutes.
#   bash bench/gpu_metrics_check.sh            (PY=python3 with PYTHONPATH set: another Python than .venv's)
set -euo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
if [ -z "${PY:-}" ]; then
  [ -x .venv/bin/python ] || bash scripts/bootstrap
  PY=.venv/bin/python
fi
command -v prometheus >/dev/null || apt-get install -y -qq prometheus >/dev/null 2>&1 || true
command -v prometheus >/dev/null || { echo "no prometheus: apt-get install prometheus" >&2; exit 1; }
nvidia-smi -L
echo "== NVML, as the cluster reads it"
$PY -c "from pai_lsp.localcluster.gpus import Gpus; [print(r) for r in Gpus().read().values()]"
DATA=$(mktemp -d)
echo pw-gpu-check | $PY -m pai_lsp local-cluster --data-dir "$DATA" users add alice --password-stdin --admin >/dev/null
$PY -m pai_lsp local-cluster --data-dir "$DATA" --port 0 --metrics-interval 2 >"$DATA/out" 2>&1 &
CLUSTER=$!
trap 'kill -INT $CLUSTER 2>/dev/null; wait $CLUSTER 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "REST " "$DATA/out" 2>/dev/null && break; sleep 0.2; done
head -1 "$DATA/out"
URL=$(grep -o 'REST [^ ]*' "$DATA/out" | cut -d' ' -f2)
status=0
timeout 240 $PY - "$URL" "$REPO" <<'EOF' || status=$?
import sys, time, httpx
url, repo = sys.argv[1], sys.argv[2]
token = httpx.post(f"{url}/api/v1/token", json={"username": "alice", "password": "pw-gpu-check"}).json()["token"]
load = (f"python3 {repo}/bench/gpu_load.py 30 || python3 -c 'import torch,time; x=torch.rand(4096,4096,device=\"cuda\"); e=time.time()+30\n"
        "while time.time()<e: x=x@x; x=x/x.norm()' || python3 -c 'import cupy,time; x=cupy.random.rand(4096,4096); "
        "e=time.time()+30\nwhile time.time()<e: x=x@x; x=x/cupy.linalg.norm(x)' || sleep 30; sleep 20")
job = {"jobName": "gpu", "image": "x", "taskRoles": [{"name": "w", "taskNumber": 1, "cpuNumber": 1, "memoryMB": 4096,
       "gpuNumber": 1, "command": load}]}
r = httpx.post(f"{url}/api/v1/user/alice/jobs", json=job, headers={"Authorization": f"Bearer {token}"})
print("submit", r.status_code, r.text[:200])
def q(promql):
    return httpx.get(f"{url}/prometheus/api/v1/query", params={"query": promql}, timeout=30).json()["data"]["result"]
time.sleep(40)
for promql in ('task_gpu_percent{job_name="alice~gpu"}', 'task_gpu_mem_percent{job_name="alice~gpu"}',
               'max_over_time(task_gpu_percent{job_name="alice~gpu"}[1m])',
               'max_over_time(task_gpu_mem_percent{job_name="alice~gpu"}[1m])', "nvidiasmi_utilization_gpu",
               'task_cpu_percent{job_name="alice~gpu"}'):
    print("==", promql)
    for s in q(promql):
        m = s["metric"]
        print("  ", {k: m[k] for k in ("role_name", "task_index", "minor_number") if k in m}, s["value"][1])
peak = q('max_over_time(task_gpu_percent{job_name="alice~gpu"}[1m])')
print("VERDICT:", "GPU series present" if peak else "NO GPU SERIES", "peak", [p["value"][1] for p in peak])
sys.exit(0 if peak else 1)
EOF
echo "== the task's log"
tail -n 5 "$DATA"/jobs/alice~gpu/attempt-0/w-0/logs/all 2>/dev/null || true
exit $status
