"""PaddlePaddle Cloud's file server (PFS, paddlecloud-scm.md §A.14) as a `Storage`, and the upload of
a job package.

Files move chunk by chunk: before a chunk is sent its MD5 is compared with the server's
(`GetChunkMeta`), so a re-upload sends only the chunks that changed and an interrupted upload resumes
where it stopped. A manifest (as `upload.py` keeps one for HDFS) lets an unchanged file be skipped
without asking for its chunks. `/pfs/<dc>/public/` is read-only. PFS cannot rename (`Unsupported`),
so a put cannot be renamed into place: see `Pfs.put`. The folders above the user's home, which PFS
does not list, are shown as read-only folders, so a browser can start at `/`.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any
from urllib.parse import urlencode

import httpx

from ..common import multipart
from ..core.messages import message
from ..errors import AuthFailed, Interrupted, InvalidInput, NotFound, PaiError, ServerError, Unsupported
from . import session
from .base import Body, Sent, Stat, Storage, pieces
from .http import answer_error, at_storage, request
from .upload import MANIFEST, Progress, Selected, UploadResult, fingerprint, read_manifest

CHUNK = 4 * 1024 * 1024  # the paddlecloud client's own default; the server takes 4 KiB … 32 MiB
READ = 120.0  # seconds to wait for an answer: a chunk is written and checked before it is answered


class Pfs(Storage):
    name = "PFS"
    renames = False

    def __init__(self, url: str, user: str, datacenter: str, authorization: Callable[[], str], renew: Callable[[], None],
                 http: httpx.Client | None = None, chunk: int = CHUNK, threads: int = 8):
        """`authorization`: the `Authorization` header value; `renew`: fetch a new token (after a 401);
        `http`: the cluster session's client (storage/session.py), else one of its own."""
        self.url = url.rstrip("/")
        self.what = at_storage("PFS", self.url)
        self.user, self.datacenter = user, datacenter
        self.root = f"/pfs/{datacenter}"
        self.home = f"{self.root}/home/{user}"
        self.public = f"{self.root}/public"
        self.chunk = chunk
        self.threads = threads
        self._authorization, self._renew = authorization, renew
        self._own = http is None
        self.http = session.client(read=READ) if http is None else http
        self._per_call: dict[str, Any] = {} if http is None else {"timeout": session.timeout(READ)}

    def close(self) -> None:
        if self._own:
            self.http.close()

    # -- transport -------------------------------------------------------------------------
    def _send(self, method: str, route: str, **kwargs: Any) -> httpx.Response:
        """`route` of the file server ("/storage/chunks"), authenticated; a refused token renewed once."""
        headers = dict(kwargs.pop("headers", {}) or {})
        kwargs = {**self._per_call, **kwargs}

        def send(authorization: str | None) -> httpx.Response:
            return request(self.http, method, self.url + route, what=self.what, headers={**headers, "Authorization": authorization},
                           **kwargs)

        def fresher(_: str | None) -> str:
            self._renew()
            return self._authorization()

        response = session.authorized(send, fresher, lambda answer, _: _unauthenticated(answer), self._authorization())
        if response.status_code >= 400:
            raise answer_error(response.status_code, response.content, self.what)
        return response

    def _call(self, method: str, route: str, path: str, **kwargs: Any) -> Any:
        """One command; `err` becomes the matching error (`path` names the file in it)."""
        response = self._send(method, route, **kwargs)
        try:
            body = response.json()
        except ValueError:
            raise ServerError(message("http.not-json", what=self.what, to="")) from None
        if body.get("err"):
            raise self.error(str(body["err"]), path)
        return body.get("results")

    def error(self, err: str, path: str) -> PaiError:
        """A PFS `err` string (Go's, see pfsmodules/status.go) as ours."""
        if "no such file or directory" in err:
            return self.missing(path)
        if "unauthorized" in err or "public data supports only" in err or "permission denied" in err:
            return self.denied(path, err)
        if "get username error" in err:
            return AuthFailed(message("http.credentials", what="PFS", why=err))
        if err.startswith(("should be pfs path", "the path should be", "can't del directory", "already exist", "bad file size",
                           "chunksize error", "directory already exist")):
            return InvalidInput(message("error.at-file", file=path, reason=err))
        return ServerError(message("error.at-file", file=path, reason=err))

    # -- paths -----------------------------------------------------------------------------
    def read_only(self, path: str) -> bool:
        return path == self.public or path.startswith(self.public + "/")

    def _synthetic(self, path: str) -> list[str] | None:
        """The folders above the user's home, which PFS does not list: their children."""
        return {"/": ["pfs"], "/pfs": [self.datacenter], self.root: ["home", "public"],
                f"{self.root}/home": [self.user]}.get(path.rstrip("/") or "/")

    def _stat(self, item: dict) -> Stat:
        read_only = self.read_only(item["Path"])
        return Stat(posixpath.basename(item["Path"]), bool(item["IsDir"]), item["Size"], int(item["ModTime"]) // 1_000_000,
                    "555" if read_only else "700", "root" if read_only else self.user, "")

    def _writable(self, path: str) -> None:
        if self.read_only(path):
            raise self.denied(path, message("pfs.public-read-only", public=self.public))

    # -- browsing --------------------------------------------------------------------------
    def status(self, path: str) -> Stat | None:
        if self._synthetic(path) is not None:
            return Stat(posixpath.basename(path.rstrip("/")), True, 0, 0, "555", "root", "")
        try:
            return self._stat(self._call("GET", "/files", path, params={"method": "stat", "path": path}))
        except NotFound:
            return None

    def list(self, path: str) -> list[Stat]:
        children = self._synthetic(path)
        if children is not None:
            return [Stat(c, True, 0, 0, "555", "root", "") for c in children]
        items = self._call("GET", "/files", path, params={"method": "ls", "r": "false", "arg": path}) or []
        return sorted((self._stat(i) for i in items), key=lambda s: s.name)

    def walk_files(self, path: str) -> dict[str, int]:
        """Every file under `path` (relative posix path -> size), in one request."""
        try:
            items = self._call("GET", "/files", path, params={"method": "ls", "r": "true", "arg": path}) or []
        except NotFound:
            return {}
        prefix = path.rstrip("/") + "/"
        return {i["Path"][len(prefix):]: i["Size"] for i in items if not i["IsDir"] and i["Path"].startswith(prefix)}

    def mkdir(self, path: str, *more: str) -> None:
        for p in (path, *more):
            self._writable(p)
        self._call("POST", "/files", path, json={"method": "mkdir", "path": [path, *more]})

    def delete(self, path: str, recursive: bool = False) -> bool:
        self._writable(path)
        return bool(self._call("DELETE", "/files", path, json={"method": "rm", "r": recursive, "path": [path]}))

    def rename(self, src: str, dst: str) -> None:
        raise Unsupported(message("pfs.no-rename"))

    # -- reading ---------------------------------------------------------------------------
    def read_chunk(self, path: str, offset: int, size: int) -> bytes:
        response = self._send("GET", "/storage/chunks", params={"path": path, "offset": offset, "chunksize": size})
        kind = response.headers.get("content-type", "")
        if not kind.startswith("multipart/"):
            try:
                error = response.json().get("err")
            except ValueError:
                error = None
            raise self.error(error, path) if error else ServerError(message("pfs.no-data", path=path))
        try:
            parts = multipart.decode(response.content, kind)
        except ValueError:
            raise ServerError(message("pfs.bad-chunk", path=path)) from None
        return next((p.data for p in parts if p.name == "chunk"), b"")

    def stream(self, path: str, offset: int = 0, length: int | None = None) -> Iterator[bytes]:
        status = self.status(path)
        if status is None:
            raise self.missing(path)
        end = status.size if length is None else min(status.size, offset + length)
        while offset < end:
            piece = self.read_chunk(path, offset, min(self.chunk, end - offset))
            if not piece:
                break
            yield piece
            offset += len(piece)

    # -- writing ---------------------------------------------------------------------------
    def touch(self, path: str, size: int) -> None:
        """A file of `size` bytes (sparse until written), in folders made when missing (as WebHDFS makes them)."""
        self._writable(path)
        body = {"method": "touch", "path": path, "filesize": size}
        try:
            self._call("POST", "/files", path, json=body)
        except NotFound:
            self.mkdir(posixpath.dirname(path))
            self._call("POST", "/files", path, json=body)

    def chunk_md5(self, path: str, offset: int, size: int) -> str:
        meta = self._call("GET", "/chunks", path, params={"method": "GetChunkMeta", "path": path, "offset": offset,
                                                           "chunksize": max(size, 4096)})
        return str((meta or {}).get("checksum") or "")

    def write_chunk(self, path: str, offset: int, data: bytes) -> None:
        name = urlencode({"chunksize": len(data), "offset": offset, "path": path})
        body, content_type = multipart.encode("chunk", name, data)
        self._call("POST", "/storage/chunks", path, content=body, headers={"Content-Type": content_type})

    def send_chunk(self, path: str, offset: int, data: bytes, compare: bool = True) -> bool:
        """Write one chunk unless the server has it already (same MD5); whether it was sent."""
        if compare and len(data) >= 4096 and self.chunk_md5(path, offset, len(data)) == hashlib.md5(data).hexdigest():
            return False
        if compare and len(data) < 4096:
            # GetChunkMeta takes at least 4 KiB: compare the rest of the file (this short chunk is its end).
            if self.chunk_md5(path, offset, 4096) == hashlib.md5(data).hexdigest():
                return False
        self.write_chunk(path, offset, data)
        return True

    def write(self, path: str, data: bytes | Body, sent: Sent | None = None) -> None:
        """A whole file: sized first, then sent chunk by chunk."""
        self.touch(path, len(data))
        self._fill(path, data, sent)

    def _fill(self, path: str, data: bytes | Body, sent: Sent | None, compare: bool = False) -> None:
        """The chunks of a file sized already (with `compare`, only those whose MD5 differs from the server's)."""
        offset = 0
        for piece in pieces(data, self.chunk):
            self.send_chunk(path, offset, piece, compare)
            offset += len(piece)
            if sent is not None:
                sent(offset)

    def put(self, path: str, data: bytes | Body, sent: Sent | None = None) -> None:
        """PFS can neither rename nor copy, so a file cannot be written under another name and moved
        into place: it is written under its own name and removed again if the put fails. A failed put
        leaves nothing there unless PFS cannot be reached to remove it either; then the error says
        so. Over a file of the same size, only the chunks that differ are sent (a put again after a
        change sends the change)."""
        before = self.status(path)
        self.touch(path, len(data))  # (what fails before this leaves nothing to remove)
        try:
            self._fill(path, data, sent, compare=before is not None and not before.is_dir and before.size == len(data))
        except BaseException as exc:
            try:
                self.delete(path)
            except PaiError as left:
                if isinstance(exc, Exception):
                    reason = exc.said if isinstance(exc, PaiError) else str(exc)
                    raise Interrupted(message("pfs.part-left", reason=reason, path=path, why=left.said)) from None
            raise


def _unauthenticated(response: httpx.Response) -> bool:
    if response.status_code == 401:
        return True
    if response.headers.get("content-type", "").startswith("application/json"):
        try:
            return "get username error" in str(response.json().get("err") or "")
        except ValueError:
            return False
    return False


def upload(pfs: Pfs, files: list[Selected], remote: str, threads: int | None = None,
           progress: Progress | None = None) -> UploadResult:
    """Make `remote` hold `files`: what the last upload there recorded and the server still has at
    that size is skipped; every other file is sized and sent chunk by chunk, each chunk only when its
    MD5 differs from the server's. Nothing is renamed into place (PFS cannot rename): an interrupted
    upload leaves what arrived, and the next one sends only the rest."""
    started = time.perf_counter()
    remote = "/" + remote.strip("/")
    threads = threads or pfs.threads
    paths = {f.rel: os.path.join(f.root, f.rel) for f in files}
    manifest = {"version": 1, "files": {rel: fingerprint(path) for rel, path in paths.items()}}
    there = pfs.walk_files(remote)
    previous = read_manifest(pfs, remote) if MANIFEST in there else {}
    changed = [rel for rel, entry in manifest["files"].items() if previous.get(rel) != entry or there.get(rel) != entry["size"]]
    removed = [rel for rel in previous if rel not in manifest["files"] and rel in there]
    total = sum(manifest["files"][rel]["size"] for rel in changed)
    done = {"bytes": 0, "files": 0, "sent": 0}
    lock = threading.Lock()
    finished: list[str] = []
    try:
        folders = sorted({posixpath.dirname(f"{remote}/{rel}") for rel in changed} | {remote})
        pfs.mkdir(*folders)
        pending: dict[str, int] = {}
        jobs: list[tuple[str, int, int]] = []
        for rel in changed:
            size = manifest["files"][rel]["size"]
            offsets = list(range(0, size, pfs.chunk)) or [0]
            pending[rel] = len(offsets)
            jobs += [(rel, offset, size) for offset in offsets]
        with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
            list(pool.map(lambda rel: pfs.touch(f"{remote}/{rel}", manifest["files"][rel]["size"]), changed))

            def send(rel: str, offset: int, size: int) -> int:
                if size == 0:
                    return 0
                with open(paths[rel], "rb") as f:
                    f.seek(offset)
                    data = f.read(min(pfs.chunk, size - offset))
                return len(data) if pfs.send_chunk(f"{remote}/{rel}", offset, data, compare=there.get(rel) == size) else 0

            futures = {pool.submit(send, *job): job for job in jobs}
            try:
                for future in as_completed(futures):
                    sent = future.result()
                    rel, offset, size = futures[future]
                    with lock:
                        done["sent"] += sent
                        done["bytes"] += min(pfs.chunk, size - offset)
                        pending[rel] -= 1
                        if pending[rel] == 0:
                            done["files"] += 1
                            finished.append(rel)
                    if progress:
                        progress(done["bytes"], total, done["files"], len(changed))  # may raise to cancel
            finally:
                for future in futures:
                    future.cancel()
        for rel in removed:
            pfs.delete(f"{remote}/{rel}")
        pfs.write(f"{remote}/{MANIFEST}", json.dumps(manifest).encode())
    except (PaiError, OSError) as exc:
        reason = exc.said if isinstance(exc, PaiError) else str(exc)
        raise Interrupted(message("pfs.upload-stopped", reason=reason, remote=remote, left=len(changed) - len(finished),
                                  total=len(changed))) from None
    return UploadResult(remote, len(changed), done["sent"], len(paths) - len(changed), len(removed), time.perf_counter() - started)


def unchanged_files(pfs: Pfs, files: list[Selected], remote: str) -> int:
    """How many of `files` the last upload to `remote` recorded as they are now (and the server
    still has at that size): an upload would not send them again."""
    remote = "/" + remote.strip("/")
    there = pfs.walk_files(remote)
    previous = read_manifest(pfs, remote) if MANIFEST in there else {}
    return sum(1 for f in files if (entry := previous.get(f.rel)) is not None and there.get(f.rel) == entry.get("size")
               and fingerprint(os.path.join(f.root, f.rel)) == entry)
