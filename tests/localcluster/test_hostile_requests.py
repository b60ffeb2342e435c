"""Requests made to hurt the local cluster, over real HTTP: none deletes data, stops the
scheduler, stalls the other requests or exhausts memory; each gets a clear 4xx (or a job FAILED with
its reason), never a 500."""

from __future__ import annotations

import base64
import socket
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit

import httpx
import psutil
import pytest

from pai_lsp.common.multipart import encode

from ..helpers.localcluster import PASSWORD, USER, detail, finished, job, own_cluster, role, submit
from ..helpers.webhdfs import hdfs

pytestmark = pytest.mark.subprocess  # a local cluster of each test's own, and its tasks


def v2(name: str, instances: object = 1, memory: object = 64, ports: str = "", extras: str = "") -> str:
    return (f"protocolVersion: 2\nname: {name}\ntype: job\nprerequisites:\n  - {{name: img, type: dockerimage, uri: local}}\n"
            f"taskRoles:\n  r:\n    instances: {instances}\n    dockerImage: img\n"
            f"    resourcePerInstance: {{cpu: 1, memoryMB: {memory}, gpu: 0{ports}}}\n    commands: [\"echo done\"]\n{extras}")


def post_v2(c: httpx.Client, text: str) -> httpx.Response:
    return c.post("/api/v2/jobs", content=text.encode(), headers={"Content-Type": "text/yaml"})


def v2_state(c: httpx.Client, name: str, timeout: float = 30) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        status = c.get(f"/api/v2/jobs/{USER}~{name}").json()["jobStatus"]
        if status["state"] in ("SUCCEEDED", "FAILED", "STOPPED") or time.monotonic() > deadline:
            return status
        time.sleep(0.05)


def deep_list(depth: int) -> object:
    value: object = []
    for _ in range(depth - 1):
        value = [value]
    return value


def rss(cluster) -> int:
    return psutil.Process(cluster.process.pid).memory_info().rss


def files_of(folder) -> set[str]:
    """What the data folder holds (less the lock and the database's passing journal files)."""
    return {str(p.relative_to(folder)) for p in folder.rglob("*")
            if p.name != "cluster.lock" and not p.name.endswith(("-journal", "-wal", "-shm"))}


def paddle_auth() -> dict:
    return {"Authorization": "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()}


class HealthWatch:
    """Polls the cheapest route while something heavy runs: how many answers it got, and how many
    were not a 200. (How long each took is bench/hostile_requests.py's: a loaded machine stretches it.)"""

    def __init__(self, url: str):
        self.url, self.answers, self.failed = url, 0, 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll)

    def __enter__(self) -> HealthWatch:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _poll(self) -> None:
        with httpx.Client(timeout=30) as c:
            while not self._stop.is_set():
                self.failed += c.get(f"{self.url}/api/v2/info").status_code != 200
                self.answers += 1
                self._stop.wait(0.02)


def test_names_that_would_leave_the_data_folder_are_refused_before_any_file_work(tmp_path):
    with own_cluster(tmp_path / "data") as cluster, cluster.client() as c:
        assert hdfs(cluster, "PUT", f"/user/{USER}/keep.txt", "CREATE", USER, b"keep").status_code == 201
        assert submit(c, job("before", role("r", "true"))).status_code == 201
        assert finished(c, "before")["jobStatus"]["state"] == "SUCCEEDED"
        before = files_of(cluster.data_dir)
        for name in ("..", "."):  # the legacy route: the job's folder is named after the job alone
            answer = c.post("/api/v1/jobs", json=job(name, role("r", "true")))
            assert (answer.status_code, answer.json()["code"]) == (400, "InvalidParametersError"), answer.text
            assert f"job name '{name}' cannot be used" in answer.json()["message"]
        # A name in a PUT's URL is checked as the body's is.
        nul = c.put(f"/api/v1/user/{USER}/jobs/a%00b", json=job("nul", role("r", "true")))
        assert (nul.status_code, nul.json()["code"]) == (400, "InvalidParametersError")
        assert 'child "jobName" fails because ["jobName" with value "a\x00b" fails to match the required pattern' \
            in nul.json()["message"]
        # On the user's route ".." is the real server's valid name "alice~..": a folder of its own.
        dots = c.put(f"/api/v1/user/{USER}/jobs/%2E%2E", json=job("dots", role("r", "true")))
        assert dots.status_code == 201, dots.text
        assert before <= files_of(cluster.data_dir)
        assert hdfs(cluster, "GET", f"/user/{USER}/keep.txt", "OPEN", USER).content == b"keep"
        assert c.delete(f"/api/v1/user/{USER}/jobs/%2E%2E").status_code == 202
        assert c.get(f"/api/v1/user/{USER}/jobs/before").json()["jobStatus"]["state"] == "SUCCEEDED"
        assert before <= files_of(cluster.data_dir)


def test_what_fails_one_job_never_stops_the_scheduler(tmp_path):
    with own_cluster(tmp_path / "data") as cluster:
        with cluster.client() as c:
            deep = submit(c, job("deep", role("r", "true"), jobEnvs={"x": deep_list(900)}))
            assert (deep.status_code, deep.json()["code"]) == (400, "InvalidParametersError")
            assert "nested more than 64 levels deep" in deep.json()["message"]
            circular = post_v2(c, v2("circular", extras="extras: {a: &a [*a]}\n"))
            assert (circular.status_code, circular.json()["code"]) == (400, "InvalidProtocolError")
            assert "alias *a is inside the node it names" in circular.json()["message"]
            # The real server takes a port no machine has; the scheduler cannot place it: FAILED, with why.
            ports = submit(c, job("ports", role("r", "true", portList=[{"label": "web", "beginAt": 70000, "portNumber": 1}])))
            assert ports.status_code == 201, ports.text
            status = detail(c, "ports")["jobStatus"]
            assert (status["state"], status["appExitCode"]) == ("FAILED", -7201)
            assert "ports are 1 to 65535" in status["appExitDiagnostics"]
            assert submit(c, job("after", role("r", "echo after"))).status_code == 201
            assert finished(c, "after")["jobStatus"]["state"] == "SUCCEEDED"
            assert submit(c, job("running", role("r", "sleep 60"))).status_code == 201
            assert detail(c, "running")["jobStatus"]["state"] in ("WAITING", "RUNNING")
    assert cluster.process.returncode in (0, 130)  # it shut down by itself, stopping the running job


def test_a_yaml_bomb_is_refused_at_once_and_costs_no_memory(cluster):
    lines = ["a0: &a0 [lol]"] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    bomb = v2("bomb", extras="extras:\n" + "".join(f"  {line}\n" for line in lines))
    assert len(bomb) < 1500
    before = rss(cluster)
    with cluster.client() as c, HealthWatch(cluster.url) as watch:
        answer = post_v2(c, bomb)
    assert (answer.status_code, answer.json()["code"]) == (400, "InvalidProtocolError")
    assert "aliases expand to more than 1,000,000" in answer.json()["message"]
    assert watch.failed == 0
    assert rss(cluster) - before < 50 << 20


@pytest.mark.parametrize("instances", ["2147483648", "1e20"])
def test_a_huge_instance_count_fails_the_job_with_its_reason(cluster, instances):
    before = rss(cluster)
    name = f"huge{len(instances)}"
    with cluster.client() as c:
        assert post_v2(c, v2(name, instances=instances)).status_code == 202
        status = v2_state(c, name)
        count = f"{int(float(instances)):,}"
    assert (status["state"], status["appExitCode"]) == ("FAILED", -7201)
    assert f"The job has {count} tasks; the local cluster runs each task as a process of this machine, at most 1,000" \
        in status["appExitDiagnostics"]
    assert rss(cluster) - before < 50 << 20


def test_huge_resources_and_port_counts_never_hang(cluster):
    with cluster.client() as c:
        assert post_v2(c, v2("bigmem", memory="1e20")).status_code == 202  # the server takes it: it runs scaled
        status = v2_state(c, "bigmem")
        assert status["state"] == "SUCCEEDED" and "the job asks for 100000000000000000000 MB" in status["localNote"]
        assert post_v2(c, v2("bigports", ports=", ports: {web: 2147483648}")).status_code == 202
        status = v2_state(c, "bigports")
        assert status["state"] == "FAILED" and "2,147,483,650 ports in all" in status["appExitDiagnostics"]


def test_paddle_jobs_of_too_many_pods_are_refused_in_one_line(cluster):
    assert hdfs(cluster, "PUT", f"/user/{USER}/jobs/many", "MKDIRS", USER).status_code == 200
    body = {"name": "many", "datacenter": "local", "entry": "true", "parallelism": 2147483648, "pservers": 0}
    answer = httpx.post(f"{cluster.paddle_url}/api/v1/jobs/", json=body, headers=paddle_auth())
    assert answer.status_code == 200
    assert answer.json()["msg"].startswith("exceeded quota: the job asks for 2,147,483,648 pods")


def test_heavy_requests_leave_the_others_answered_within_budget(cluster):
    """Parsing and checking a job run off the event loop: a health check waits for none of them."""
    head = v2("roles").split("taskRoles:\n")[0] + "taskRoles:\n"
    first = "  r0: &r {instances: 1, dockerImage: img, resourcePerInstance: {cpu: 1, memoryMB: 64, gpu: 0}, commands: [a]}\n"
    heavy = [head.replace("name: roles", f"name: roles{k}") + first + "".join(f"  r{i}: *r\n" for i in range(1, 8000))
             for k in range(3)]
    assert all(len(text) < 100 * 1024 for text in heavy)
    answers: list[int] = []
    health_answers_then: list[int] = []  # how many health checks had been answered when each heavy one was

    def send(text: str) -> None:
        with cluster.client() as c:
            c.timeout = httpx.Timeout(120)  # three 8,000-role checks in turn, on a loaded machine
            answers.append(post_v2(c, text).status_code)
            health_answers_then.append(watch.answers)

    senders = [threading.Thread(target=send, args=(text,)) for text in heavy]
    with HealthWatch(cluster.url) as watch:
        before = watch.answers
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join()
    assert answers == [202, 202, 202] and watch.failed == 0
    # Counted, not timed: health checks were answered while the first heavy check still ran (a check on the
    # event loop would have held them all until it was done), whatever else loads the machine.
    assert min(health_answers_then) - before >= 3, (before, health_answers_then)


def raw_request(url: str, head: str, body: bytes = b"") -> bytes:
    """Send a request as written and read the whole answer (the server may answer before the body)."""
    where = urlsplit(url)
    answer = b""
    with socket.create_connection((where.hostname, where.port), timeout=10) as s:
        s.sendall(head.encode() + body)
        while b"\r\n\r\n" not in answer or len(answer.partition(b"\r\n\r\n")[2]) < _length(answer):
            piece = s.recv(65536)
            if not piece:
                break
            answer += piece
    return answer


def _length(answer: bytes) -> int:
    for line in answer.partition(b"\r\n\r\n")[0].split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.lower() == b"content-length":
            return int(value)
    return 0


def test_bodies_and_headers_are_bounded(cluster):
    before = rss(cluster)
    path = f"/api/v1/user/{USER}/jobs"
    token = f"Authorization: Bearer {cluster.token}\r\n"
    announced = raw_request(cluster.url, f"POST {path} HTTP/1.1\r\nHost: x\r\n{token}Content-Type: application/json\r\n"
                                         f"Content-Length: {300 << 20}\r\n\r\n")
    assert announced.startswith(b"HTTP/1.1 413 ") and b"the body is over 102,400 bytes" in announced
    chunk = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
    streamed = raw_request(cluster.url, f"POST {path} HTTP/1.1\r\nHost: x\r\n{token}Content-Type: application/json\r\n"
                                        "Transfer-Encoding: chunked\r\n\r\n", chunk * 3)
    assert streamed.startswith(b"HTTP/1.1 413 ")
    # A client that sends 300 MB anyway: answered, then the connection is closed; nobody else waits meanwhile.
    piece = b" " * (1 << 20)
    pieces = 0

    def body():
        nonlocal pieces
        for _ in range(300):
            pieces += 1
            yield piece

    with HealthWatch(cluster.url) as watch, cluster.client() as c:
        try:
            sent = c.post(path, content=body(), headers={"Content-Type": "application/json"}).status_code
        except httpx.TransportError:
            sent = "closed"
    # Bytes, not seconds: of the 300 MB, the client sent no more than the sockets' buffers hold before it was cut off.
    assert sent in (413, "closed") and pieces <= 32 and watch.failed == 0, (sent, pieces, watch.failed)
    with cluster.client() as c:
        big = post_v2(c, v2("big", extras="extras: {s: '" + "x" * (200 << 10) + "'}\n"))
        assert (big.status_code, big.json()["code"], big.headers["connection"]) == (413, "PayloadTooLargeError", "close")
        try:  # a 400, or (when the server closes before the client has sent it all) the connection closed
            header = c.get("/api/v2/jobs", headers={"X-Big": "x" * (1 << 20)}).status_code
        except httpx.TransportError:
            header = "closed"
        assert header in (400, "closed")
        assert c.get("/api/v2/jobs").status_code == 200
    assert rss(cluster) - before < 50 << 20


def _head_answer(url: str, pieces: list[bytes]) -> bytes:
    """Send a request's head in these pieces (a pause between them, so each is its own read) and read
    what comes back until the server closes; b"" when it closed without a word."""
    where = urlsplit(url)
    answer = b""
    with socket.create_connection((where.hostname, where.port), timeout=10) as s:
        try:
            for piece in pieces:
                s.sendall(piece)
                time.sleep(0.002)
            while piece := s.recv(65536):
                answer += piece
                if b"connection: close" not in answer.lower() and b"\r\n\r\n" in answer:
                    break  # an answer on a connection kept open: the head was taken
        except (ConnectionResetError, BrokenPipeError):
            pass
    return answer


def test_request_heads_are_bounded_however_they_arrive(cluster):
    """A head over 16 KiB is refused whole (400, connection closed): in one read, spread over many reads,
    or as one endless header; one just under the bound is served."""
    line = b"GET /api/v2/info HTTP/1.1\r\nHost: x\r\n"
    under = line + b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 100) for i in range(140)) + b"\r\n"  # ~15.6 KiB
    assert len(under) < 16 * 1024
    assert _head_answer(cluster.url, [under]).startswith(b"HTTP/1.1 200 ")
    over = line + b"".join(b"X-H%d: %s\r\n" % (i, b"v" * 100) for i in range(200)) + b"\r\n"
    long_url = b"GET /api/v2/info?" + b"q" * (20 << 10) + b" HTTP/1.1\r\nHost: x\r\n\r\n"
    endless = [line, b"X-Big: "] + [b"y" * 4096] * 64  # 256 KiB of one header value, 4 KiB a read
    before = rss(cluster)
    for pieces in ([over], [over[i:i + 1000] for i in range(0, len(over), 1000)], [long_url], endless):
        answer = _head_answer(cluster.url, pieces)
        assert answer == b"" or answer.startswith(b"HTTP/1.1 400 "), answer[:200]
        assert b"200 OK" not in answer
    assert rss(cluster) - before < 20 << 20
    with cluster.client() as c:  # the cluster itself is unharmed
        assert c.get("/api/v2/jobs").status_code == 200


def test_a_paddle_file_download_is_streamed(cluster, tmp_path):
    size = 200 << 20
    chunk = b"0123456789abcdef" * 65536
    assert hdfs(cluster, "PUT", f"/user/{USER}/big.bin", "CREATE", USER, (chunk for _ in range(size // len(chunk)))).status_code == 201
    before = rss(cluster)
    peak = before
    got = 0
    with httpx.stream("GET", f"{cluster.paddle_url}/api/v1/file/", params={"path": f"/pfs/local/home/{USER}/big.bin"},
                      headers=paddle_auth(), timeout=60) as answer:
        assert answer.status_code == 200 and answer.headers["content-length"] == str(size)
        for piece in answer.iter_bytes(1 << 20):
            got += len(piece)
            peak = max(peak, rss(cluster))
    assert got == size
    assert peak - before < 60 << 20


NESTED = b"[" * 1000 + b"]" * 1000


@pytest.mark.parametrize("route", ["/api/v1/jobs", f"/api/v1/user/{USER}/jobs", "/api/v1/token", "/api/v2/jobs"])
def test_deeply_nested_bodies_get_a_400(cluster, route):
    with cluster.client() as c:
        answer = c.post(route, content=NESTED, headers={"Content-Type": "text/yaml" if "v2" in route else "application/json"})
    assert answer.status_code == 400, answer.text
    assert "nested more than 64 levels deep" in answer.json()["message"]


def test_paddle_routes_refuse_deep_bodies_and_negative_offsets_in_their_own_words(cluster):
    auth = paddle_auth()
    base = cluster.paddle_url
    jobs = httpx.post(f"{base}/api/v1/jobs/", content=NESTED, headers=auth)
    assert (jobs.status_code, jobs.json()["msg"]) == (200, "the JSON is nested more than 64 levels deep")
    kill = httpx.request("DELETE", f"{base}/api/v1/jobs/", content=NESTED, headers=auth)
    assert (kill.status_code, kill.json()["msg"]) == (200, "JSON parse error")
    files = httpx.post(f"{base}/api/v1/pfs/files", content=NESTED, headers=auth)
    assert (files.status_code, files.json()["err"]) == (200, "parse json error")
    path = f"/pfs/local/home/{USER}/chunky.bin"
    assert hdfs(cluster, "PUT", f"/user/{USER}/chunky.bin", "CREATE", USER, b"x" * 10_000).status_code == 201
    seek = f"seek {path}: invalid argument"
    meta = httpx.get(f"{base}/api/v1/pfs/chunks", params={"method": "GetChunkMeta", "path": path, "offset": -1,
                                                          "chunksize": 4096}, headers=auth)
    assert (meta.status_code, meta.json()["err"]) == (200, seek)
    read = httpx.get(f"{base}/api/v1/pfs/storage/chunks", params={"path": path, "offset": -5, "chunksize": 4096}, headers=auth)
    assert (read.status_code, read.json()["err"]) == (200, seek)
    body, content_type = encode("chunk", f"path={path}&offset=-1&chunksize=4", b"abcd")
    write = httpx.post(f"{base}/api/v1/pfs/storage/chunks", content=body, headers={**auth, "Content-Type": content_type})
    assert (write.status_code, write.json()["err"]) == (200, seek)
    good = httpx.get(f"{base}/api/v1/pfs/storage/chunks", params={"path": path, "offset": 9_996, "chunksize": 4096},
                     headers=auth)
    assert good.status_code == 200 and good.content.count(b"xxxx") == 1


@pytest.mark.parametrize("arguments,said", [
    (["--gpus", "-5"], "--gpus -5: give 0 or more"),
    (["--memory-mb", "-1"], "--memory-mb -1: give 1 or more"),
    (["--cpus", "0"], "--cpus 0: give 1 or more"),
    (["--port", "99999"], "--port 99999: a port is 0 to 65535 (0 picks a free one)"),
    (["--port", "-1"], "--port -1: a port is 0 to 65535 (0 picks a free one)"),
    (["--paddle-port", "65536"], "--paddle-port 65536: a port is 0 to 65535"),
    (["--data-dir", "{file}"], "--data-dir {file}: it is a file, not a folder"),
    (["--data-dir", "{file}/below"], "cannot use {file}/below as the data folder: Not a directory"),
])
def test_serve_refuses_impossible_arguments_in_one_line(tmp_path, arguments, said):
    afile = tmp_path / "a-file"
    afile.write_text("not a folder")
    arguments = [a.format(file=afile) for a in arguments]
    run = subprocess.run([sys.executable, "-m", "pai_lsp", "local-cluster", "serve", "--data-dir", str(tmp_path / "data"),
                          "--port", "0", *arguments], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.splitlines() == [run.stderr.strip()] and run.stderr.startswith("pai local-cluster: ")
    assert said.format(file=afile) in run.stderr


@pytest.mark.parametrize("data_dir,said", [
    ("{file}", "--data-dir {file}: it is a file, not a folder"),
    ("{file}/below", "cannot use {file}/below as the data folder: Not a directory"),
])
def test_users_add_refuses_a_data_folder_it_cannot_use_in_one_line(tmp_path, data_dir, said):
    afile = tmp_path / "a-file"
    afile.write_text("not a folder")
    run = subprocess.run([sys.executable, "-m", "pai_lsp", "local-cluster", "--data-dir", data_dir.format(file=afile),
                          "users", "add", "bob", "--password-stdin"], input="secret\n", capture_output=True, text=True,
                         timeout=60)
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.strip() == "pai local-cluster users add: " + said.format(file=afile)
    assert afile.read_text() == "not a folder"
