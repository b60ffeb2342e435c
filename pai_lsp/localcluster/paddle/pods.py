"""PaddlePaddle Cloud jobs on the local cluster's runner: a job is `pservers` pserver tasks and
`parallelism` trainer tasks, each a "pod" with a name and a loopback address of its own, started
as paddle_k8s starts them (§A.18), and shown through the Kubernetes objects the real server lists
(§A.6–A.8), as the Kubernetes Python client's `to_dict()` writes them.
"""

from __future__ import annotations

import asyncio
import random
import shlex
import shutil
import string
from datetime import datetime, timezone
from pathlib import Path

from ...core import paddle
from ...core.roles import TaskRole
from ..cluster import MAX_TASKS, LocalCluster
from ..job_data import Job, Task, now_ms
from ..rest_errors import ClusterError
from ..runner import shell_environment

KIND = "paddle"
PSERVER, TRAINER = "pserver", "trainer"
PORT = 7164
TERMINATION_MESSAGES = {136: "Error Arithmetic Operation(Floating Point Exception)", 139: "Segmentation Fault",
                        1: "General Error", 134: "Program Abort"}


def namespace(user: str) -> str:
    """The user's namespace: `@`, `.` and `_` become `-` (email_escape)."""
    return user.replace("@", "-").replace(".", "-").replace("_", "-")


def framework(user: str, name: str) -> str:
    return f"paddle~{user}~{name}"


def home(user: str) -> str:
    """Where /pfs/<dc>/home/<user>/ lives on the local cluster's HDFS."""
    return f"/user/{user}"


def package(user: str, name: str) -> str:
    return f"{home(user)}/jobs/{name}"


def iso(ms: int | None) -> str | None:
    """A timestamp as DRF renders Kubernetes' datetimes (seconds, `Z`)."""
    if not ms:
        return None
    return datetime.fromtimestamp(ms / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _suffix() -> str:
    return "".join(random.choices(string.ascii_lowercase + string.digits, k=5))


class PaddleJobs:
    """The PaddlePaddle Cloud side of a LocalCluster: submit, kill, and the Kubernetes views."""

    def __init__(self, cluster: LocalCluster, datacenter: str = "local"):
        self.cluster = cluster
        self.datacenter = datacenter
        self.deleting: dict[str, int] = {}  # framework -> when its kill began (ms): its pods are terminating
        cluster.kinds[KIND] = self

    # -- jobs of a user --------------------------------------------------------------
    def jobs(self, user: str) -> list[Job]:
        return [j for j in self.cluster.jobs.values() if j.kind == KIND and j.user == user]

    def find(self, user: str, name: str) -> Job | None:
        return self.cluster.jobs.get(framework(user, name))

    def submit(self, user: str, body: dict) -> None:
        """Raise ClusterError with the server's message (sent as `msg`) when the job cannot start."""
        given = {**paddle.defaults(), **{k: v for k, v in body.items() if v is not None}}
        name = given.get("name") or "paddle-cluster-job"
        if not given.get("entry") and not given.get("topology"):
            raise ClusterError(500, "500", "no topology or entry specified")
        if not body.get("datacenter"):
            raise ClusterError(500, "500", "no datacenter specified")
        if not isinstance(name, str) or paddle.name_problem(name):
            raise ClusterError(422, "422", f'Job.batch "{name}-trainer" is invalid: metadata.name: Invalid value: '
                                           f'"{name}-trainer": a DNS-1123 subdomain must consist of lower case alphanumeric '
                                           "characters, '-' or '.', and must start and end with an alphanumeric character")
        where = self.cluster.store.local(package(user, name))
        if not where.is_dir():
            raise ClusterError(404, "404", f"package not exist in cloud: /pfs/{body['datacenter']}/home/{user}/jobs/{name}")
        fw = framework(user, name)
        if fw in self.cluster.jobs:
            raise ClusterError(409, "409", f'(409)\nReason: Conflict\nHTTP response body: replicasets.extensions "{name}-pserver" '
                                           "already exists")
        try:
            ints = {k: int(given[k]) for k in ("parallelism", "cpu", "gpu", "pservers", "pscpu", "passes")}
        except (TypeError, ValueError) as exc:
            raise ClusterError(500, "500", f"invalid literal for int(): {exc}") from None
        if ints["parallelism"] < 1:
            raise ClusterError(422, "422", f'Job.batch "{name}-trainer" is invalid: spec.parallelism: must be greater than 0')
        if ints["pservers"] < 0:
            raise ClusterError(422, "422", f'ReplicaSet.extensions "{name}-pserver" is invalid: spec.replicas: Invalid value: '
                                           f'{ints["pservers"]}: must be greater than or equal to 0')
        pods = ints["pservers"] + ints["parallelism"]
        if pods > MAX_TASKS:  # checked before a pod is made: a namespace's pod quota refuses them on the platform
            raise ClusterError(403, "403", f"exceeded quota: the job asks for {pods:,} pods (pservers + parallelism); the "
                                           f"local cluster runs at most {MAX_TASKS:,} for a job")
        for field in ("memory", "psmemory"):
            if paddle.quantity_bytes(str(given[field])) is None:
                raise ClusterError(400, "400", f"quantities must match the regular expression "
                                               f"'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$': {given[field]!r}")
        config = {k: given.get(k) for k in paddle.defaults()} | ints | {
            "name": name, "datacenter": str(body["datacenter"]), "jobPackage": body.get("jobPackage"),
            "registry": given.get("registry") or None, "pods": self._pods(name, ints["pservers"], ints["parallelism"])}
        roles = [TaskRole(PSERVER, ints["pservers"], ints["pscpu"], paddle.memory_mb(str(given["psmemory"])), 0, 64,
                          _pserver_command(), {}, None, None),
                 TaskRole(TRAINER, ints["parallelism"], ints["cpu"], paddle.memory_mb(str(given["memory"])), ints["gpu"], 64,
                          _trainer_command(bool(given.get("entry"))), {}, 1, ints["parallelism"])]
        roles = [r for r in roles if r.tasks > 0]
        job = Job(user=user, name=fw, version=1, legacy=True, config=config, virtual_cluster="default", roles=roles,
                  retry_count=0, kind=KIND)
        try:
            self.cluster.submit(job, body)
        except ClusterError as exc:  # worded for this API: its job name, its fields
            raise ClusterError(exc.status, exc.code, exc.message.replace(f"Job {fw}", f"Job {name}").replace(
                "Lower the role's resources or taskNumber.", "Lower cpu, memory, gpu, parallelism or pservers, or start the "
                "local cluster with more (--cpus, --memory-mb, --gpus).")) from None

    @staticmethod
    def _pods(name: str, pservers: int, trainers: int) -> dict[str, dict]:
        """Each task's pod name and address: distinct loopback addresses, so that every pserver can
        listen on 7164 as in the cluster, and trainer ids follow the sorted addresses, not the order."""
        addresses = random.sample(range(1, 254 * 254), pservers + trainers)
        pods = {}
        for i, where in enumerate(addresses):
            role, index = (PSERVER, i) if i < pservers else (TRAINER, i - pservers)
            stem = f"{name}-pserver-{random.randrange(10**9, 10**10)}" if role == PSERVER else f"{name}-trainer"
            pods[f"{role}:{index}"] = {"name": f"{stem}-{_suffix()}", "ip": f"127.1.{where // 254}.{where % 254 + 1}"}
        return pods

    async def kill(self, user: str, name: str) -> list[str]:
        """§A.9: delete everything of the job; its pods terminate in the background. Errors as the
        Kubernetes API words them (a job already gone gives NotFound texts)."""
        job = self.find(user, name)
        fw = framework(user, name)
        if job is None or fw in self.deleting:
            return [f'(404)\nReason: Not Found\nHTTP response body: jobs.batch "{name}-trainer" not found',
                    f'(404)\nReason: Not Found\nHTTP response body: replicasets.extensions "{name}-pserver" not found']
        self.deleting[fw] = now_ms()

        async def remove() -> None:
            try:
                await self.cluster.delete(job)
            finally:
                self.deleting.pop(fw, None)

        task = asyncio.ensure_future(remove())
        self.cluster._watchers.add(task)
        task.add_done_callback(self.cluster._watchers.discard)
        return []

    # -- how a task starts (LocalCluster's JobKind) -------------------------------------
    def prepare(self, job: Job, task: Task, workdir: Path) -> dict[str, str]:
        """The job package copied into the task's folder (its `$TRAINER_PACKAGE`, where it runs), the
        `trainer_id` / `trainer_count` files there, and the environment of §A.18."""
        config = job.config
        source = self.cluster.store.local(package(job.user, config["name"]))
        if source.is_dir():
            shutil.copytree(source, workdir, symlinks=False, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("*.pai-upload", ".pai-manifest.json"))
        pods = config["pods"]
        trainers = sorted(pods[f"{TRAINER}:{i}"]["ip"] for i in range(config["parallelism"]))
        pservers = [pods[f"{PSERVER}:{i}"]["ip"] for i in range(config["pservers"])]
        me = pods[f"{task.role}:{task.index}"]
        gpu = config["gpu"] if task.role == TRAINER else 0
        env = {
            "PADDLE_JOB_NAME": config["name"], "TRAINERS": str(config["parallelism"]), "PSERVERS": str(config["pservers"]),
            "TOPOLOGY": config.get("topology") or "", "ENTRY": config.get("entry") or "",
            "TRAINER_PACKAGE": str(workdir), "PADDLE_INIT_PORT": str(PORT),
            "PADDLE_INIT_TRAINER_COUNT": str(gpu if gpu > 0 else config["cpu"]),
            "PADDLE_INIT_PORTS_NUM": "1", "PADDLE_INIT_PORTS_NUM_FOR_SPARSE": "1",
            "PADDLE_INIT_NUM_GRADIENT_SERVERS": str(config["parallelism"]), "PADDLE_INIT_NUM_PASSES": str(config["passes"]),
            "PADDLE_INIT_USE_GPU": "1" if gpu > 0 else "0", "NAMESPACE": namespace(job.user),
            "PADDLE_CLOUD_CURRENT_DATACENTER": config["datacenter"], "PADDLE_CLOUD_USERNAME": job.user,
            "POD_IP": me["ip"], "POD_NAME": me["name"], "PADDLE_INIT_PSERVERS": ",".join(pservers),
            "PYTHONPATH": str(workdir), "CUDA_VISIBLE_DEVICES": ",".join(map(str, task.gpus)),
        }
        if gpu > 0:
            env["LD_LIBRARY_PATH"] = "/usr/local/nvidia/lib64"
        if task.role == TRAINER:
            trainer_id = trainers.index(me["ip"])
            env["PADDLE_INIT_TRAINER_ID"] = str(trainer_id)
            (workdir / "trainer_id").write_text(f"{trainer_id}\n", encoding="utf-8")
            (workdir / "trainer_count").write_text(f"{config['parallelism']}\n", encoding="utf-8")
        if shutil.which("paddle", path=shell_environment().get("PATH")):
            env["PADDLE_BINARY"] = "paddle"
        return env

    # -- the Kubernetes views -----------------------------------------------------------
    def pod_of(self, job: Job, task: Task) -> dict:
        pod = job.config["pods"][f"{task.role}:{task.index}"]
        ns = namespace(job.user)
        name = job.config["name"]
        label = {"paddle-job": name, "job-name": f"{name}-trainer"} if task.role == TRAINER else {"paddle-job-pserver": name}
        deleting = self.deleting.get(job.framework)
        phase = _phase(job, task)
        code = task.original_exit_code if task.original_exit_code is not None else task.exit_code
        if task.state == "STOPPED":
            code = 0 if job.state == "SUCCEEDED" else 137
        state: dict = {"running": None, "terminated": None, "waiting": None}
        if phase == "Pending":
            state["waiting"] = {"message": None, "reason": "ContainerCreating"}
        elif phase == "Running":
            state["running"] = {"started_at": iso(task.launched)}
        else:
            state["terminated"] = {"container_id": f"docker://{pod['name']}", "exit_code": code, "finished_at": iso(task.completed),
                                   "message": TERMINATION_MESSAGES.get(code) if code else None,
                                   "reason": "Completed" if code == 0 else "Error", "signal": None,
                                   "started_at": iso(task.launched)}
        image = job.config.get("image") or "paddlepaddle/paddlecloud-job"
        return {
            "api_version": None, "kind": None,
            "metadata": _meta(pod["name"], ns, label, task.created, deleting, "pods"),
            "spec": {"containers": [{"args": None, "command": ["paddle_k8s", f"start_{task.role}"], "env": None, "image": image,
                                     "image_pull_policy": "Always", "name": task.role,
                                     "ports": [{"container_port": PORT, "name": "jobport-0", "protocol": "TCP"}]
                                     if task.role == PSERVER else None,
                                     "resources": _resources(job, task.role)}],
                     "image_pull_secrets": [{"name": job.config["registry"]}] if job.config.get("registry") else None,
                     "node_name": "localhost", "restart_policy": "Never" if task.role == TRAINER else "Always"},
            "status": {"conditions": None, "container_statuses": [{
                "container_id": f"docker://{pod['name']}" if task.launched else None, "image": image, "image_id": "",
                "last_state": {"running": None, "terminated": None, "waiting": None}, "name": task.role,
                "ready": phase == "Running", "restart_count": 0, "state": state}],
                "host_ip": "127.0.0.1", "init_container_statuses": None, "message": None, "nominated_node_name": None,
                "phase": phase, "pod_ip": pod["ip"] if task.launched else None, "qos_class": "Burstable", "reason": None,
                "start_time": iso(task.launched or task.created)},
        }

    def pods(self, user: str, jobname: str | None) -> list[tuple[Job, Task]]:
        """Pods of a user's jobs: the trainers of `jobname`, or every pod when it is empty (§A.7)."""
        out = []
        for job in self.jobs(user):
            for task in job.tasks:
                if jobname and (task.role != TRAINER or job.config["name"] != jobname):
                    continue
                out.append((job, task))
        return out

    def job_list(self, user: str) -> dict:
        items = []
        for job in self.jobs(user):
            if job.framework in self.deleting:
                continue  # the Job object goes at once; its pods terminate
            trainers = [t for t in job.tasks if t.role == TRAINER]
            count = {phase: sum(_phase(job, t) == phase for t in trainers) for phase in ("Running", "Succeeded", "Failed")}
            finished = job.state == "SUCCEEDED"
            name = job.config["name"]
            items.append({
                "api_version": None, "kind": None,
                "metadata": _meta(f"{name}-trainer", namespace(user), {"paddle-job": name}, job.created, None, "jobs"),
                "spec": {"active_deadline_seconds": None, "backoff_limit": 0, "completions": job.config["parallelism"],
                         "manual_selector": None, "parallelism": job.config["parallelism"], "selector": None, "template": None},
                "status": {"active": count["Running"] or None, "completion_time": iso(job.completed) if finished else None,
                           "conditions": [{"last_probe_time": iso(job.completed), "last_transition_time": iso(job.completed),
                                           "message": None, "reason": None, "status": "True",
                                           "type": "Complete" if finished else "Failed"}] if job.state in ("SUCCEEDED", "FAILED") else None,
                           "failed": count["Failed"] or None, "start_time": iso(job.launched or job.created),
                           "succeeded": count["Succeeded"] or None},
            })
        terminating = [j.config["name"] for j in self.jobs(user) if j.framework in self.deleting]
        return {"api_version": "batch/v1", "items": items, "kind": "JobList",
                "metadata": {"_continue": None, "resource_version": str(now_ms()),
                             "self_link": f"/apis/batch/v1/namespaces/{namespace(user)}/jobs"},
                "terminating": terminating}

    def pserver_list(self, user: str) -> dict:
        items = []
        for job in self.jobs(user):
            if job.framework in self.deleting:
                continue
            pservers = [t for t in job.tasks if t.role == PSERVER]
            ready = sum(_phase(job, t) == "Running" for t in pservers)
            name = job.config["name"]
            items.append({
                "api_version": None, "kind": None,
                "metadata": _meta(f"{name}-pserver", namespace(user), {"paddle-job-pserver": name}, job.created, None, "replicasets"),
                "spec": {"min_ready_seconds": None, "replicas": job.config["pservers"], "selector": None, "template": None},
                "status": {"available_replicas": ready or None, "conditions": None, "fully_labeled_replicas": len(pservers) or None,
                           "observed_generation": 1, "ready_replicas": ready or None, "replicas": len(pservers)},
            })
        return {"api_version": "extensions/v1beta1", "items": items, "kind": "ReplicaSetList",
                "metadata": {"_continue": None, "resource_version": str(now_ms()),
                             "self_link": f"/apis/extensions/v1beta1/namespaces/{namespace(user)}/replicasets"}}

    def pod_list(self, user: str, jobname: str | None) -> dict:
        return {"api_version": "v1", "items": [self.pod_of(job, task) for job, task in self.pods(user, jobname)], "kind": "PodList",
                "metadata": {"_continue": None, "resource_version": str(now_ms()), "self_link": f"/api/v1/namespaces/{namespace(user)}/pods"}}

    def log(self, user: str, pod_name: str, lines: int | None) -> str:
        """A pod's log (stdout and stderr as they came), its last `lines` lines when given."""
        for job in self.jobs(user):
            for task in job.tasks:
                if job.config["pods"][f"{task.role}:{task.index}"]["name"] == pod_name:
                    path = self.cluster.log_file(job, job.attempt, task.role, task.index, "all")
                    if not path.exists():
                        if task.state == "WAITING":
                            return (f'(400)\nReason: Bad Request\nHTTP response body: container "{task.role}" in pod '
                                    f'"{pod_name}" is waiting to start: ContainerCreating')
                        return ""
                    text = path.read_bytes().decode("utf-8", "replace")
                    return tail_lines(text, lines)
        return f'(404)\nReason: Not Found\nHTTP response body: pods "{pod_name}" not found'

    def job_log(self, user: str, jobname: str, lines: int | None, worker: str | None) -> str:
        """§A.8: one pod's log, or every trainer's, each after a header of 26 '=' around its name."""
        if worker:
            return self.log(user, worker, lines)
        total = ""
        for job, task in self.pods(user, jobname):
            name = job.config["pods"][f"{task.role}:{task.index}"]["name"]
            total = "".join((total, "=" * 26 + name + "=" * 26))
            total = "\n".join((total, self.log(user, name, lines)))
        return total

    def quota(self, user: str) -> dict:
        cap = self.cluster.capacity
        used_cpu = used_mem = used_gpu = pods = 0
        for job in self.jobs(user):
            for task in job.tasks:
                if task.state == "RUNNING":
                    role = job.role(task.role)
                    used_cpu, used_mem, used_gpu, pods = used_cpu + role.cpu, used_mem + role.memory_mb, used_gpu + role.gpu, pods + 1
        hard = {"alpha.kubernetes.io/nvidia-gpu": str(cap.gpu), "limits.cpu": str(cap.cpu), "limits.memory": f"{cap.memory_mb}Mi",
                "pods": str(max(10, cap.cpu)), "requests.cpu": str(cap.cpu), "requests.memory": f"{cap.memory_mb}Mi"}
        used = {"alpha.kubernetes.io/nvidia-gpu": str(used_gpu), "limits.cpu": str(used_cpu), "limits.memory": f"{used_mem}Mi",
                "pods": str(pods), "requests.cpu": str(used_cpu), "requests.memory": f"{used_mem}Mi"}
        ns = namespace(user)
        return {"api_version": "v1", "items": [{"api_version": None, "kind": None,
                                                "metadata": _meta("quota", ns, None, None, None, "resourcequotas"),
                                                "spec": {"hard": hard, "scopes": None}, "status": {"hard": hard, "used": used}}],
                "kind": "ResourceQuotaList", "metadata": {"_continue": None, "resource_version": str(now_ms()),
                                                          "self_link": f"/api/v1/namespaces/{ns}/resourcequotas"}}


def tail_lines(text: str, lines: int | None) -> str:
    """Kubernetes' `tail_lines`: the last `lines` lines (a last line without a newline counts)."""
    if lines is None or lines < 0:
        return text
    if lines == 0:
        return ""
    parts = text.splitlines(keepends=True)
    return "".join(parts[-lines:])


def _phase(job: Job, task: Task) -> str:
    if task.state == "WAITING":
        return "Pending"
    if task.state == "RUNNING":
        return "Running"
    if task.state == "SUCCEEDED":
        return "Succeeded"
    if task.state == "STOPPED" and job.state == "SUCCEEDED":
        return "Succeeded"
    return "Failed"


def _resources(job: Job, role_name: str) -> dict:
    role = next((r for r in job.roles if r.name == role_name), None)
    if role is None:
        return {}
    limits = {"cpu": f"{role.cpu * 1.5:g}", "memory": f"{role.memory_mb}Mi"}
    if role.gpu:
        limits["alpha.kubernetes.io/nvidia-gpu"] = str(role.gpu)
    return {"limits": limits, "requests": {"cpu": str(role.cpu), "memory": f"{role.memory_mb}Mi"}}


def _meta(name: str, ns: str, labels: dict | None, created: int | None, deleted: int | None, plural: str) -> dict:
    group = "/api/v1" if plural in ("pods", "resourcequotas") else "/apis/batch/v1" if plural == "jobs" else "/apis/extensions/v1beta1"
    return {"annotations": None, "cluster_name": None, "creation_timestamp": iso(created),
            "deletion_grace_period_seconds": 30 if deleted else None, "deletion_timestamp": iso(deleted), "finalizers": None,
            "generate_name": None, "generation": None, "labels": labels, "name": name, "namespace": ns,
            "owner_references": None, "resource_version": "1", "self_link": f"{group}/namespaces/{ns}/{plural}/{name}",
            "uid": f"{abs(hash((ns, name))):032x}"[:32]}


def _pserver_command() -> str:
    """paddle_k8s start_pserver, when a `paddle` binary is there; else a pserver that only holds its
    place (the trainers' code may not need one) until the job ends."""
    return ('if [ -n "$PADDLE_BINARY" ]; then exec paddle pserver --port=$PADDLE_INIT_PORT --ports_num=$PADDLE_INIT_PORTS_NUM '
            '--ports_num_for_sparse=$PADDLE_INIT_PORTS_NUM_FOR_SPARSE --num_gradient_servers=$PADDLE_INIT_NUM_GRADIENT_SERVERS; '
            'fi; echo "pserver $POD_NAME at $POD_IP:$PADDLE_INIT_PORT (no paddle binary on this machine: it only holds its '
            'place until the job ends)"; exec sleep 2147483647')


def _trainer_command(v2: bool) -> str:
    """paddle_k8s start_trainer v2 (`sh -c "$ENTRY"`) or v1 (`paddle train`), with its log lines and
    termination messages (§A.18), minus the 20 s wait: the pods here start together."""
    version = "v2" if v2 else "v1"
    run = 'sh -c "$ENTRY"' if v2 else (
        'if [ -z "$PADDLE_BINARY" ]; then echo "topology jobs (PaddlePaddle v1) need the paddle binary on this machine" >&2; '
        'false; else paddle train --port=$PADDLE_INIT_PORT --ports_num=$PADDLE_INIT_PORTS_NUM '
        '--num_passes=$PADDLE_INIT_NUM_PASSES --trainer_count=$PADDLE_INIT_TRAINER_COUNT --local=0 --config=$TOPOLOGY '
        '--use_gpu=$PADDLE_INIT_USE_GPU --trainer_id=$PADDLE_INIT_TRAINER_ID --pservers=$PADDLE_INIT_PSERVERS '
        '--num_gradient_servers=$PADDLE_INIT_NUM_GRADIENT_SERVERS; fi')
    return ('echo "Starting training job: " $TRAINER_PACKAGE, "num_gradient_servers:" $PADDLE_INIT_NUM_GRADIENT_SERVERS, '
            f'"trainer_id: " $PADDLE_INIT_TRAINER_ID, "version: " {shlex.quote(version)}\n'
            f'{run}\nret=$?\n'
            'echo "job returned $ret...setting pod return message..."\necho "==============================="\n'
            'echo "termination log wroted..."\nexit $ret')
