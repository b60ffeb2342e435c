"""WebHDFS over real HTTP, driven by the `hdfs` package unchanged and by raw requests."""

from __future__ import annotations

import getpass
import os
import socket
import time
from urllib.parse import urlsplit

import httpx
import pytest
from hdfs import HdfsError, InsecureClient

pytestmark = pytest.mark.subprocess  # the local cluster runs as a process


@pytest.fixture
def client(cluster):
    return InsecureClient(cluster.hdfs_url, user="alice")


def test_upload_and_download_a_folder_with_threads(client, tmp_path):
    src = tmp_path / "src"
    for i in range(30):
        (src / f"d{i % 3}").mkdir(parents=True, exist_ok=True)
        (src / f"d{i % 3}" / f"f{i}.txt").write_text(f"file {i}\n" * (i + 1))
    client.upload("/user/alice/up", str(src), n_threads=8)
    assert sorted(client.list("/user/alice/up")) == ["d0", "d1", "d2"]
    assert client.status("/user/alice/up/d1/f4.txt")["length"] == len("file 4\n") * 5
    dest = tmp_path / "dest"
    client.download("/user/alice/up", str(dest), n_threads=8)
    for path in src.rglob("*.txt"):
        assert (dest / path.relative_to(src)).read_text() == path.read_text()


def test_status_list_read_with_offset_rename_delete(client):
    client.write("/tmp/a/hello.txt", data=b"0123456789", overwrite=True)
    status = client.status("/tmp/a/hello.txt")
    assert status["type"] == "FILE" and status["length"] == 10 and status["permission"] == "644" and status["owner"] == "alice"
    listing = dict(client.list("/tmp/a", status=True))
    assert listing["hello.txt"] == dict(status, pathSuffix="hello.txt")
    with client.read("/tmp/a/hello.txt", offset=3, length=4) as reader:
        assert reader.read() == b"3456"
    client.rename("/tmp/a/hello.txt", "/tmp/a/renamed.txt")
    assert client.list("/tmp/a") == ["renamed.txt"]
    with pytest.raises(HdfsError, match="Unable to rename"):
        client.rename("/tmp/a/missing", "/tmp/a/x")
    assert client.delete("/tmp/a", recursive=True) is True
    assert client.delete("/tmp/a") is False
    assert client.status("/tmp/a", strict=False) is None


def test_append_checksum_summary_home_and_permissions(cluster, client):
    client.write("/tmp/b/log.txt", data=b"one\n", overwrite=True)
    client.write("/tmp/b/log.txt", data=b"two\n", append=True)
    with client.read("/tmp/b/log.txt") as reader:
        assert reader.read() == b"one\ntwo\n"
    checksum = client.checksum("/tmp/b/log.txt")
    assert checksum["algorithm"] == "MD5-of-0MD5-of-512CRC32C" and checksum["length"] == 28 and len(checksum["bytes"]) == 64
    summary = client.content("/tmp/b")
    assert (summary["directoryCount"], summary["fileCount"], summary["length"]) == (1, 1, 8)
    client.set_permission("/tmp/b/log.txt", "600")
    assert client.status("/tmp/b/log.txt")["permission"] == "600"
    client.set_times("/tmp/b/log.txt", modification_time=1_000_000_000_000)
    assert client.status("/tmp/b/log.txt")["modificationTime"] == 1_000_000_000_000
    with pytest.raises(HdfsError, match="User does not belong to research"):
        client.set_owner("/tmp/b/log.txt", group="research")  # alice is in no group: only the superuser may
    superuser = InsecureClient(cluster.hdfs_url, user=getpass.getuser())
    superuser.set_owner("/tmp/b/log.txt", group="research")
    assert client.status("/tmp/b/log.txt")["group"] == "research"
    assert client.resolve("x") == "/user/alice/x"


def test_errors_use_hadoop_shapes(cluster):
    base = f"{cluster.hdfs_url}/webhdfs/v1"
    missing = httpx.get(f"{base}/nope?op=GETFILESTATUS")
    assert missing.status_code == 404
    assert missing.json() == {"RemoteException": {"exception": "FileNotFoundException",
                                                  "javaClassName": "java.io.FileNotFoundException",
                                                  "message": "File does not exist: /nope"}}
    bad_op = httpx.get(f"{base}/?op=NOSUCHOP")
    assert bad_op.status_code == 400 and bad_op.json()["RemoteException"]["exception"] == "IllegalArgumentException"
    # Case-insensitive op, duplicate parameters tolerated.
    ok = httpx.get(f"{base}/?op=gethomedirectory&user.name=bob&user.name=bob")
    assert ok.json() == {"Path": "/user/bob"}
    httpx.put(f"{base}/tmp/full/x?op=MKDIRS&user.name=alice")
    httpx.put(f"{base}/tmp/full/x/f?op=CREATE&user.name=alice&datanode=true", content=b"1")
    not_empty = httpx.delete(f"{base}/tmp/full?op=DELETE&user.name=alice")
    assert not_empty.status_code == 403
    assert not_empty.json()["RemoteException"]["exception"] == "PathIsNotEmptyDirectoryException"
    exists = httpx.put(f"{base}/tmp/full/x/f?op=CREATE&user.name=alice&datanode=true", content=b"2")
    assert exists.status_code == 403 and exists.json()["RemoteException"]["exception"] == "FileAlreadyExistsException"


def test_two_step_create_with_redirect_noredirect_and_chunked_body(cluster):
    base = f"{cluster.hdfs_url}/webhdfs/v1"
    step1 = httpx.put(f"{base}/tmp/two/step.bin?op=CREATE&user.name=alice&overwrite=true")
    assert step1.status_code == 307
    location = step1.headers["location"]
    assert location.startswith(cluster.hdfs_url)

    def chunks():
        for i in range(5):
            yield bytes([65 + i]) * 1000

    step2 = httpx.put(location, content=chunks())  # a generator body is sent chunked
    assert step2.status_code == 201 and step2.headers["location"].startswith("hdfs://")
    assert httpx.get(f"{base}/tmp/two/step.bin?op=OPEN", follow_redirects=True).content == b"".join(chunks())
    plain = httpx.put(f"{base}/tmp/two/other?op=CREATE&user.name=alice&noredirect=true")
    assert plain.status_code == 200 and "datanode=true" in plain.json()["Location"]
    batch = httpx.get(f"{base}/tmp/two?op=LISTSTATUS_BATCH").json()["DirectoryListing"]
    assert [s["pathSuffix"] for s in batch["partialListing"]["FileStatuses"]["FileStatus"]] == ["step.bin"]
    assert batch["remainingEntries"] == 0


@pytest.mark.parametrize("chunked", [False, True])
def test_a_big_body_is_stored_byte_for_byte_however_its_pieces_arrive(cluster, chunked):
    """A body over 1 MiB whose pieces arrive alone or several to a read, with a length or chunked, is
    stored byte for byte (streamed to the file as it comes)."""
    base = f"{cluster.hdfs_url}/webhdfs/v1"
    location = urlsplit(httpx.put(f"{base}/tmp/pieces.bin?op=CREATE&user.name=alice&overwrite=true").headers["location"])
    pieces = [os.urandom(size) for size in [300_000, 7, 70_000, *[5_000] * 40, 1_000_000, 1]]
    body = b"".join(pieces)
    framing = b"Transfer-Encoding: chunked" if chunked else f"Content-Length: {len(body)}".encode()
    with socket.create_connection((location.hostname, location.port), timeout=30) as sock:
        sock.sendall(b"PUT " + f"{location.path}?{location.query}".encode() + b" HTTP/1.1\r\nHost: x\r\n" + framing + b"\r\n\r\n")
        for i, piece in enumerate(pieces):
            sock.sendall(b"%x\r\n%s\r\n" % (len(piece), piece) if chunked else piece)
            if i % 5 == 0:
                time.sleep(0.02)  # some alone, some together
        sock.sendall(b"0\r\n\r\n" if chunked else b"")
        assert sock.recv(4096).startswith(b"HTTP/1.1 201")
    assert httpx.get(f"{base}/tmp/pieces.bin?op=OPEN", follow_redirects=True).content == body


def test_a_streamed_append_extends_the_file_and_one_cut_off_leaves_it_as_it_was(cluster):
    """A body with no length (or over 1 MiB) is streamed into the file; an append's copy of the file
    it extends is made on a worker thread (webhdfs.in_thread)."""
    base = f"{cluster.hdfs_url}/webhdfs/v1"
    first = os.urandom(3_000_000)
    assert httpx.put(f"{base}/tmp/grow.bin?op=CREATE&user.name=alice", content=first, follow_redirects=True).status_code == 201
    sent = [os.urandom(100_000) for _ in range(5)]
    location = httpx.post(f"{base}/tmp/grow.bin?op=APPEND&user.name=alice").headers["location"]
    assert httpx.post(location, content=iter(sent)).status_code == 200  # an iterator is sent chunked
    assert httpx.get(f"{base}/tmp/grow.bin?op=OPEN", follow_redirects=True).content == first + b"".join(sent)
    location = urlsplit(httpx.post(f"{base}/tmp/grow.bin?op=APPEND&user.name=alice").headers["location"])
    with socket.create_connection((location.hostname, location.port), timeout=30) as sock:
        sock.sendall(b"POST " + f"{location.path}?{location.query}".encode() + b" HTTP/1.1\r\nHost: x\r\n"
                     b"Content-Length: 9000000\r\n\r\n" + b"x" * 2_000_000)  # and then the line is cut
    assert httpx.post(f"{base}/tmp/grow.bin?op=APPEND&user.name=alice", content=b"end", follow_redirects=True).status_code == 200
    assert httpx.get(f"{base}/tmp/grow.bin?op=OPEN", follow_redirects=True).content == first + b"".join(sent) + b"end"


@pytest.mark.parametrize("path", ["/../../etc/passwd", "/a/%2e%2e/%2e%2e/etc/passwd", "/a/..%2f..%2fetc"])
def test_paths_never_leave_the_data_dir(cluster, path):
    response = httpx.get(f"{cluster.hdfs_url}/webhdfs/v1{path}?op=GETFILESTATUS")
    assert response.status_code in (400, 404)
    assert "root:" not in response.text


def test_symlinks_inside_the_store_are_not_followed(cluster):
    link = cluster.data_dir / "hdfs" / "escape"
    link.symlink_to("/etc")
    response = httpx.get(f"{cluster.hdfs_url}/webhdfs/v1/escape/passwd?op=OPEN", follow_redirects=True)
    assert response.status_code == 403 and "root:" not in response.text


def test_rest_port_serves_webhdfs_too(cluster):
    assert httpx.get(f"{cluster.url}/webhdfs/v1/?op=GETHOMEDIRECTORY&user.name=alice").json() == {"Path": "/user/alice"}
