"""The storages a Kubernetes-era cluster mounts in its jobs, through their own protocols' clients,
against the real servers on 127.0.0.1: Samba (smbd), NFS (NFS-Ganesha, over NFSv4) and Azure Blob
(Azurite); and the local cluster's storages, folders of this machine. The same operations
and promises as HDFS and PFS (tests/test_storage_suite.py): a round trip, a put that replaces whole,
a cut-off upload that leaves nothing under the name, a read-only storage, a `share: false` storage's
sub-path, hostile names refused before any file work, credentials never said."""

from __future__ import annotations

import hashlib
import io
import os

import pytest

from pai_lsp.errors import AuthFailed, InvalidInput, NotFound, PaiError, PermissionDenied
from pai_lsp.storage.base import Body, Storage

from .helpers.servers import azurite, nfs, samba

pytestmark = pytest.mark.subprocess  # Samba (smbd), NFS (ganesha) and Azurite servers, through fixtures asked for by name

BIG = 3_000_000  # more than one piece of a streamed file
KINDS = ["samba", "nfs", "azure-blob", "local-folder"]


@pytest.fixture(scope="module")
def samba_server(tmp_path_factory, starts_processes):
    with samba(tmp_path_factory.mktemp("samba")) as server:
        yield server


@pytest.fixture(scope="module")
def nfs_server(tmp_path_factory, starts_processes):
    with nfs(tmp_path_factory.mktemp("nfs")) as server:
        yield server


@pytest.fixture(scope="module")
def azurite_server(tmp_path_factory, starts_processes):
    with azurite(tmp_path_factory.mktemp("azurite")) as server:
        yield server


def _container(server, name: str) -> str:
    from azure.storage.blob import BlobServiceClient

    service = BlobServiceClient(server.endpoint, credential={"account_name": server.account, "account_key": server.key})
    if not any(c.name == name for c in service.list_containers()):
        service.create_container(name)
    service.close()
    return name


@pytest.fixture(scope="module")
def local_folder(tmp_path_factory):
    return tmp_path_factory.mktemp("local-storage")


def open_storage(kind: str, request, *, root: str = "", readonly: bool = False, wrong_secret: bool = False) -> Storage:
    if kind == "local-folder":
        from pai_lsp.storage.local_folder import LocalFolder

        return LocalFolder(request.getfixturevalue("local_folder"), root=root, read_only=readonly)
    if kind == "nfs":
        from pai_lsp.storage.nfs import Nfs, mount_settings

        server = request.getfixturevalue("nfs_server")
        port, version, _ = mount_settings(server.options())
        return Nfs("127.0.0.1", "/readonly" if readonly else "/share", port=port, version=version, root=root)
    if kind == "samba":
        from pai_lsp.storage.samba import Samba

        server = request.getfixturevalue("samba_server")
        return Samba(server.address("readonly" if readonly else "share"), server.user,
                     "wrong" if wrong_secret else server.password, port=server.port, root=root)
    from azure.storage.blob import ContainerSasPermissions, generate_container_sas

    from pai_lsp.storage.azure_blob import AzureBlob

    server = request.getfixturevalue("azurite_server")
    container = _container(server, "data")
    if readonly:
        from datetime import datetime, timedelta, timezone

        sas = generate_container_sas(server.account, container, account_key=server.key,
                                     permission=ContainerSasPermissions(read=True, list=True),
                                     expiry=datetime.now(timezone.utc) + timedelta(hours=1))
        return AzureBlob(container, server.account, sas=sas, endpoint=server.endpoint, root=root)
    key = "d3Jvbmcga2V5" + server.key[12:] if wrong_secret else server.key
    return AzureBlob(container, server.account, key=key, endpoint=server.endpoint, root=root)


@pytest.fixture(params=KINDS)
def kind(request) -> str:
    return request.param


@pytest.fixture
def storage(kind, request):
    store = open_storage(kind, request)
    folder = f"/t-{os.urandom(4).hex()}"
    store.mkdir(folder)
    store.folder = folder  # type: ignore[attr-defined]
    yield store
    store.delete(folder, recursive=True)
    store.close()


def test_a_round_trip(storage):
    top = storage.folder
    storage.mkdir(f"{top}/code/sub")
    storage.put(f"{top}/code/train.py", b"print('hi')\n")
    storage.put(f"{top}/code/sub/empty", b"")
    assert [(s.name, s.is_dir) for s in storage.list(f"{top}/code")] == [("sub", True), ("train.py", False)]
    found = storage.status(f"{top}/code/train.py")
    assert found is not None and found.size == 12 and not found.is_dir
    assert storage.read(f"{top}/code/train.py") == b"print('hi')\n"
    assert storage.read(f"{top}/code/train.py", offset=6, length=4) == b"'hi'"
    assert storage.read(f"{top}/code/sub/empty") == b""
    storage.put(f"{top}/code/train.py", b"v2")
    assert storage.read(f"{top}/code/train.py") == b"v2"
    storage.rename(f"{top}/code", f"{top}/code-v1")
    assert storage.status(f"{top}/code") is None
    assert storage.read(f"{top}/code-v1/train.py") == b"v2"
    assert [s.name for s in storage.list(f"{top}/code-v1/sub")] == ["empty"]
    assert storage.delete(f"{top}/code-v1", recursive=True) is True
    assert storage.status(f"{top}/code-v1") is None and storage.delete(f"{top}/code-v1") is False


def test_a_big_file_streams_in_pieces_and_is_hashed_on_the_way(storage, tmp_path):
    data = os.urandom(BIG)
    (tmp_path / "big.bin").write_bytes(data)
    seen: list[int] = []
    with open(tmp_path / "big.bin", "rb") as f, Body(f, BIG) as body:
        storage.put(f"{storage.folder}/big.bin", body, seen.append)
        assert body.hexdigest() == hashlib.sha256(data).hexdigest()
    assert seen and seen[-1] == BIG
    pieces = list(storage.stream(f"{storage.folder}/big.bin"))
    assert len(pieces) > 1 and max(map(len, pieces)) <= 1 << 20 and b"".join(pieces) == data


class BreaksAfter(io.RawIOBase):
    """A local file whose disk fails part-way: the upload must stop and leave nothing behind."""

    def __init__(self, data: bytes, after: int):
        self.data, self.after, self.at = data, after, 0

    def readable(self) -> bool:
        return True

    def seek(self, offset: int, whence: int = 0) -> int:
        self.at = offset
        return offset

    def read(self, n: int = -1) -> bytes:
        if self.at >= self.after:
            raise OSError(5, "Input/output error")
        piece = self.data[self.at:self.at + (n if n >= 0 else len(self.data))]
        self.at += len(piece)
        return piece


def test_a_cut_off_upload_leaves_nothing_under_its_name_nor_beside_it(storage):
    storage.put(f"{storage.folder}/kept.bin", b"the old content")
    data = os.urandom(BIG)
    with Body(BreaksAfter(data, 1 << 20), BIG) as body, pytest.raises(InvalidInput):  # type: ignore[arg-type]
        storage.put(f"{storage.folder}/kept.bin", body)
    with Body(BreaksAfter(data, 1 << 20), BIG) as body, pytest.raises(InvalidInput):  # type: ignore[arg-type]
        storage.put(f"{storage.folder}/new.bin", body)
    assert storage.read(f"{storage.folder}/kept.bin") == b"the old content"
    assert [s.name for s in storage.list(storage.folder)] == ["kept.bin"]


def test_the_same_failures(storage, kind, request):
    with pytest.raises(NotFound, match="nothing/here"):
        storage.list(f"{storage.folder}/nothing/here")
    with pytest.raises(NotFound):
        storage.read(f"{storage.folder}/nothing")
    storage.mkdir(f"{storage.folder}/full")
    storage.put(f"{storage.folder}/full/a", b"a")
    with pytest.raises(PaiError):  # a folder with something in it is removed only when asked to (-r)
        storage.delete(f"{storage.folder}/full")
    assert storage.read(f"{storage.folder}/full/a") == b"a"


@pytest.mark.parametrize("hostile", ["../outside", "a/../../b", "a\\..\\b", "nul\0byte"])
def test_hostile_names_are_refused_before_any_file_work(storage, hostile):
    with pytest.raises(InvalidInput, match="not a path on"):
        storage.put(f"{storage.folder}/{hostile}", b"x")
    with pytest.raises(InvalidInput):
        storage.list(f"{storage.folder}/{hostile}")
    assert storage.list(storage.folder) == []


def test_a_read_only_storage_refuses_writes_and_reads(kind, request):
    writable = open_storage(kind, request)
    if kind == "samba":
        server = request.getfixturevalue("samba_server")
        (server.shares["readonly"] / "given.txt").write_bytes(b"data")
    elif kind == "nfs":
        (request.getfixturevalue("nfs_server").exports["readonly"] / "given.txt").write_bytes(b"data")
    elif kind == "local-folder":
        (request.getfixturevalue("local_folder") / "given.txt").write_bytes(b"data")
    else:
        writable.put("/given.txt", b"data")
    readonly = open_storage(kind, request, readonly=True)
    try:
        assert readonly.read("/given.txt") == b"data"
        with pytest.raises(PermissionDenied):
            readonly.put("/mine.txt", b"x")
        assert readonly.status("/mine.txt") is None
    finally:
        readonly.close()
        writable.close()


def test_a_share_false_storage_is_the_users_folder_only(kind, request):
    whole = open_storage(kind, request)
    mine = open_storage(kind, request, root="alice")
    try:
        whole.mkdir("/alice")
        whole.mkdir("/bob")
        whole.put("/bob/secret.txt", b"bob's")
        mine.put("/train.py", b"alice's")
        assert whole.read("/alice/train.py") == b"alice's"
        assert [s.name for s in mine.list("/")] == ["train.py"]
        with pytest.raises(InvalidInput):
            mine.read("/../bob/secret.txt")
    finally:
        whole.delete("/alice", recursive=True)
        whole.delete("/bob", recursive=True)
        whole.close()
        mine.close()


def test_credentials_are_never_said(kind, request):
    if kind in ("local-folder", "nfs"):
        pytest.skip("no credentials to say: a folder of this machine has none, and NFS's AUTH_SYS sends only numeric ids")
    wrong = open_storage(kind, request, wrong_secret=True)
    with pytest.raises(AuthFailed) as failed:
        wrong.list("/")
    said = str(failed.value)
    secret = request.getfixturevalue("samba_server").password if kind == "samba" else request.getfixturevalue("azurite_server").key
    assert "refused the user name and password" in said
    assert secret not in said and "wrong" not in said and secret not in repr(wrong.__dict__.get("what"))
    wrong.close()


def test_a_storage_opens_from_what_the_cluster_says_of_it(request):
    """`GET /api/v2/storages/:name` as the real server answers it (type, data with the credentials,
    share) opens the storage, the user's folder of it when `share` is false; a type this machine
    cannot open, or an answer without what the type needs, is said in one line."""
    from pai_lsp.errors import Unsupported
    from pai_lsp.storage.mounted import open_mounted

    server = request.getfixturevalue("samba_server")
    detail = {"name": "smb", "share": False, "type": "samba", "readOnly": False,
              "data": {"address": server.address("share"), "username": server.user, "password": server.password}}
    mine = open_mounted(detail, "alice", port=server.port)
    try:
        mine.put("/from-detail.txt", b"ok")
        assert (server.shares["share"] / "alice" / "from-detail.txt").read_bytes() == b"ok"
    finally:
        mine.delete("/from-detail.txt")
        mine.close()
    with pytest.raises(Unsupported, match="storage cache is of type dshuttle"):
        open_mounted({"name": "cache", "type": "dshuttle", "data": {"dshuttlePath": "/data"}}, "alice")
    with pytest.raises(InvalidInput, match="has no server"):
        open_mounted({"name": "confignfs", "type": "nfs", "data": {"path": "/data"}}, "alice")
    with pytest.raises(InvalidInput, match="has no containerName"):
        open_mounted({"name": "blob", "type": "azureBlob", "data": {"accountName": "a"}}, "alice")


def test_an_nfs_storage_opens_from_its_server_path_and_mount_options(request):
    """An `nfs` storage as the real server answers it (`data: {server, path}`, the volume's
    `mountOptions` with its port and version) opens through the NFS client, the user's folder when
    `share` is false; a server that does not answer, or a path it does not export, is one line."""
    from pai_lsp.errors import Unreachable
    from pai_lsp.storage.mounted import open_mounted

    from .helpers.servers import free_port

    server = request.getfixturevalue("nfs_server")
    detail = {"name": "confignfs", "share": False, "type": "nfs", "readOnly": False,
              "data": {"server": "127.0.0.1", "path": "/share"}, "mountOptions": server.options()}
    mine = open_mounted(detail, "alice")
    try:
        mine.put("/from-detail.txt", b"ok")
        assert (server.exports["share"] / "alice" / "from-detail.txt").read_bytes() == b"ok"
        assert [s.name for s in mine.list("/")] == ["from-detail.txt"]
    finally:
        mine.delete("/from-detail.txt")
        mine.close()
    gone = open_mounted({**detail, "mountOptions": [f"port={free_port()}"]}, "alice")
    with pytest.raises(Unreachable, match="NFS"):
        gone.status("/x")
    nowhere = open_mounted({**detail, "data": {"server": "127.0.0.1", "path": "/not-exported"}}, "alice")
    with pytest.raises(NotFound):
        nowhere.list("/")


def test_the_local_clusters_storage_opens_as_its_folder_only_when_it_is_one_here(tmp_path):
    """The local cluster's `unknown` storage with `data.path` is that folder of this machine (its
    `<user>/` when not shared, read-only as the cluster says); a path that is no folder here, or a
    real server's `unknown` storage (no path), is the one-line refusal."""
    from pai_lsp.errors import Unsupported
    from pai_lsp.storage.mounted import open_mounted

    detail = {"name": "homes", "share": False, "type": "unknown", "readOnly": False, "data": {"path": str(tmp_path)}}
    mine = open_mounted(detail, "alice")
    mine.put("/train.py", b"print(1)\n")
    assert (tmp_path / "alice" / "train.py").read_bytes() == b"print(1)\n"
    assert not list(tmp_path.glob("alice/*._COPYING_"))
    readonly = open_mounted({**detail, "share": True, "readOnly": True}, "alice")
    assert readonly.read("/alice/train.py") == b"print(1)\n"
    with pytest.raises(PermissionDenied, match="read-only"):
        readonly.put("/x", b"x")
    for data in ({"path": str(tmp_path / "nowhere")}, {"path": "relative/folder"}, {}):
        with pytest.raises(Unsupported, match="storage homes is of type unknown"):
            open_mounted({**detail, "data": data}, "alice")


def test_the_code_upload_keeps_its_promises_on_every_storage(storage, tmp_path):
    """The workspace upload a submit makes, into this storage: the tree arrives whole, and an edit of
    one file sends that file only, switched in without a mix of old and new."""
    from pai_lsp.storage.upload import select, upload

    ws = tmp_path / "ws"
    (ws / "pkg").mkdir(parents=True)
    (ws / "train.py").write_text("import pkg.model\n")
    (ws / "pkg" / "model.py").write_text("LAYERS = 2\n")
    (ws / "pkg" / "__init__.py").write_text("")
    remote = f"{storage.folder}/alice~mnist"
    first = upload(storage, select(ws, ["**/*.py"], None), remote, threads=4)
    assert (first.sent_files, first.unchanged_files) == (3, 0)
    assert storage.read(f"{remote}/pkg/model.py") == b"LAYERS = 2\n"
    (ws / "pkg" / "model.py").write_text("LAYERS = 3\n")
    again = upload(storage, select(ws, ["**/*.py"], None), remote, threads=4)
    assert (again.sent_files, again.unchanged_files) == (1, 2)
    assert storage.read(f"{remote}/pkg/model.py") == b"LAYERS = 3\n"
    assert storage.read(f"{remote}/train.py") == b"import pkg.model\n"
    names = {s.name for s in storage.list(storage.folder)}
    assert "alice~mnist" in names and not any(n.endswith("._COPYING_") for n in names)


def test_a_first_upload_that_fails_midway_leaves_no_folder_under_its_name(storage, tmp_path):
    """Written in place where a folder's rename is a copy per file (a blob container) or staged and
    switched in elsewhere: either way a first upload that stops leaves nothing where the job looks."""
    from pai_lsp.errors import PaiError
    from pai_lsp.storage.upload import select, upload

    ws = tmp_path / "ws"
    ws.mkdir()
    for i in range(6):
        (ws / f"m{i}.py").write_text(f"N = {i}\n")
    chosen = select(ws, ["**/*.py"], None)
    (ws / "m3.py").unlink()  # made a folder between the choice and the send: it cannot be read
    (ws / "m3.py").mkdir()
    remote = f"{storage.folder}/alice~broken"
    with pytest.raises(PaiError):
        upload(storage, chosen, remote, threads=2)
    assert storage.status(remote) is None
    assert "alice~broken" not in {s.name for s in storage.list(storage.folder)}


class AzureAnswers:
    """A stand-in for an Azure File endpoint on 127.0.0.1 that answers every call as Azure answers a
    wrong account key (no emulator of Azure File exists): what the client can be tested against here."""

    def __enter__(self):
        import http.server
        import threading

        class Refuse(http.server.BaseHTTPRequestHandler):
            def _refuse(self):
                body = (b'<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code>'
                        b"<Message>Server failed to authenticate the request.</Message></Error>")
                self.send_response(403, "Server failed to authenticate the request.")
                self.send_header("x-ms-error-code", "AuthenticationFailed")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_PUT = do_HEAD = do_DELETE = _refuse

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Refuse)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return f"http://127.0.0.1:{self.server.server_address[1]}/acct"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


def test_azure_file_says_a_refused_key_an_unreachable_share_and_hostile_names_in_one_line():
    from pai_lsp.errors import Unreachable
    from pai_lsp.storage.mounted import open_mounted

    from .helpers.servers import free_port

    key = "c2VjcmV0LWtleS1ub2JvZHktbXVzdC1zZWU="
    detail = {"name": "files", "type": "azureFile", "share": False,
              "data": {"shareName": "team", "accountName": "acct", "accountKey": key}}
    with AzureAnswers() as endpoint:
        refused = open_mounted(detail, "alice", endpoint=endpoint)
        with pytest.raises(AuthFailed) as failed:
            refused.list("/")
        assert "refused the user name and password" in str(failed.value) and key not in str(failed.value)
        with pytest.raises(InvalidInput, match="not a path on Azure File"):
            refused.put("/../bob/x", b"x")
        refused.close()
    gone = open_mounted(detail, "alice", endpoint=f"http://127.0.0.1:{free_port()}/acct")
    with pytest.raises(Unreachable) as unreachable:
        gone.status("/x")
    assert "Azure File" in str(unreachable.value) and key not in str(unreachable.value)
    gone.close()
