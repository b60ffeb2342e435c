"""Uploads into the storages a Kubernetes-era cluster mounts, against each protocol's own reference
client, in the same run: pai's code upload (`storage.upload` over `storage.samba.Samba` /
`storage.nfs.Nfs` / `storage.azure_blob.AzureBlob`, 8 threads, as a submit runs it) and

- Samba: `smbclient`'s `mput` (Samba's own command-line client, Debian's smbclient), recursive;
- NFS: nfs-rs's own writes (the client pai's NFS storage uses), one `open` and 8 MiB `write`s per
  file in 8 threads, with no temporary name, rename or hash: the protocol's floor through the same
  client. (libnfs's `nfs-cp`, Debian's libnfs-utils 4.0, was tried: over NFSv4, which is all a
  ganesha without rpcbind answers, it fails every write past about 32 KB against ganesha 4.3, and
  it copies one file per process, so 5,000 of them would time process starts, not NFS.)
- Azure Blob: `azure-storage-blob`'s own upload, one `upload_blob` per file in 8 threads (as its
  samples do; Azure's azcopy is not in the registries this machine reaches), `max_concurrency=8`.

Against the real servers on 127.0.0.1 (smbd, NFS-Ganesha over NFSv4.1, Azurite), each side a whole process, the order
alternated, a fresh remote folder every run, medians (bench/fair.py's rules: the disk synced before
each run, the local files read once first, the load noted).

    .venv/bin/python bench/storage_uploads.py [--rounds 5] [--big-mib 1024] [--files 5000] [--only samba,nfs,azure]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.fair import Run, alternate, measured, warm  # noqa: E402
from bench.report import print_markdown  # noqa: E402
from tests.helpers.servers import azurite, nfs, samba  # noqa: E402

OURS = """
import sys
from pathlib import Path
from pai_lsp.storage.upload import select, upload
kind, folder, remote, *where = sys.argv[1:]
if kind == "samba":
    from pai_lsp.storage.samba import Samba
    storage = Samba(where[0], where[1], where[2], port=int(where[3]))
elif kind == "nfs":
    from pai_lsp.storage.nfs import Nfs
    storage = Nfs("127.0.0.1", "/share", port=int(where[0]), version="4.1")
else:
    from pai_lsp.storage.azure_blob import AzureBlob
    storage = AzureBlob("bench", where[0], key=where[1], endpoint=where[2])
result = upload(storage, select(Path(folder), ["**/*"], []), remote, threads=8)
storage.close()
print(result.sent_files, f"{result.seconds:.4f}")
"""

AZURE_REFERENCE = """
import os, sys
from concurrent.futures import ThreadPoolExecutor
from azure.storage.blob import ContainerClient
folder, remote, account, key, endpoint = sys.argv[1:]
client = ContainerClient(endpoint, "bench", credential={"account_name": account, "account_key": key})
files = [os.path.join(d, f) for d, _, names in os.walk(folder) for f in names]
def send(path):
    with open(path, "rb") as data:
        client.upload_blob(remote + "/" + os.path.relpath(path, folder), data, overwrite=True, max_concurrency=8)
with ThreadPoolExecutor(8) as pool:
    list(pool.map(send, files))
print(len(files))
"""


NFS_REFERENCE = """
import os, sys
from concurrent.futures import ThreadPoolExecutor
from nfs_rs import Client
folder, remote, port = sys.argv[1:]
client = Client.connect("nfs://127.0.0.1/share", versions=["4.1"], nfs_port=int(port), noresvport=True)
files = [os.path.join(d, f) for d, _, names in os.walk(folder) for f in names]
for d in sorted({os.path.dirname(os.path.relpath(p, folder)) for p in files}):
    client.mkdir(os.path.join(remote, d).rstrip("/"), parents=True, exist_ok=True)
def send(path):
    with open(path, "rb") as data, client.open(os.path.join(remote, os.path.relpath(path, folder)), "wb") as out:
        while piece := data.read(8 << 20):
            out.write(piece)
with ThreadPoolExecutor(8) as pool:
    list(pool.map(send, files))
client.close()
print(len(files))
"""


def make_files(folder: Path, big_mib: int, files: int) -> dict[str, Path]:
    sets = {}
    if big_mib:
        one = folder / "one-big"
        one.mkdir()
        with open(one / "big.bin", "wb") as f:
            for _ in range(big_mib):
                f.write(os.urandom(1 << 20))
        sets[f"{big_mib} MiB file"] = one
    if files:
        many = folder / "many-small"
        for i in range(files):
            sub = many / f"d{i // 100:03d}"
            sub.mkdir(parents=True, exist_ok=True)
            (sub / f"f{i:05d}.bin").write_bytes(os.urandom(10_000))
        sets[f"{files:,} × 10 KB"] = many
    return sets


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--big-mib", type=int, default=1024)
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--only", default="samba,nfs,azure", help="the storages to measure, comma-separated")
    args = parser.parse_args()
    only = set(args.only.split(","))
    work = Path(tempfile.mkdtemp(prefix="pai-bench-storage-"))
    rows = []
    try:
        (work / "local").mkdir()
        sets = make_files(work / "local", args.big_mib, args.files)
        for folder in sets.values():
            warm(folder)
        with contextlib.ExitStack() as servers:
            # only the servers measured are started (each is a process of its own, and one may not be installed)
            smb = servers.enter_context(samba(work / "samba")) if "samba" in only else None
            nfs_server = servers.enter_context(nfs(work / "nfs")) if "nfs" in only else None
            blob = servers.enter_context(azurite(work / "azurite")) if "azure" in only else None
            if blob is not None:
                from azure.storage.blob import BlobServiceClient

                BlobServiceClient(blob.endpoint, credential={"account_name": blob.account, "account_key": blob.key}).create_container("bench")
            smb_server = SimpleNamespace(process=_process_of(smb.port)) if smb else None
            blob_server = SimpleNamespace(process=_process_of(blob.port)) if blob else None
            ganesha = SimpleNamespace(process=_process_of(nfs_server.port)) if nfs_server else None
            smbclient = shutil.which("smbclient")
            for set_no, (label, folder) in enumerate(sets.items()):
                def ours_smb(r: int, folder=folder) -> Run:
                    return measured([sys.executable, "-c", OURS, "samba", str(folder), f"/ours-{r}", smb.address("share"), smb.user,
                                     smb.password, str(smb.port)], dict(os.environ), smb_server)

                def ref_smb(r: int, folder=folder) -> Run:
                    script = f"prompt OFF; recurse ON; lcd {folder}; mkdir ref-{r}; cd ref-{r}; mput *"
                    return measured([smbclient, smb.address("share"), "-p", str(smb.port), "-U", f"{smb.user}%{smb.password}",
                                     "-c", script], dict(os.environ), smb_server)

                # a container is not cleaned between sets: each set's runs get names of their own, so that
                # each run is a first upload (not the replacement of the last set's folder)
                def ours_blob(r: int, folder=folder, set_no=set_no) -> Run:
                    return measured([sys.executable, "-c", OURS, "azure", str(folder), f"/ours-{set_no}-{r}", blob.account, blob.key,
                                     blob.endpoint], dict(os.environ), blob_server)

                def ref_blob(r: int, folder=folder, set_no=set_no) -> Run:
                    return measured([sys.executable, "-c", AZURE_REFERENCE, str(folder), f"ref-{set_no}-{r}", blob.account, blob.key,
                                     blob.endpoint], dict(os.environ), blob_server)

                def ours_nfs(r: int, folder=folder) -> Run:
                    return measured([sys.executable, "-c", OURS, "nfs", str(folder), f"/ours-{r}", str(nfs_server.port)],
                                    dict(os.environ), ganesha)

                def ref_nfs(r: int, folder=folder) -> Run:
                    return measured([sys.executable, "-c", NFS_REFERENCE, str(folder), f"share/ref-{r}", str(nfs_server.port)],
                                    dict(os.environ), ganesha)

                if smbclient and "samba" in only:
                    compared = alternate(args.rounds, ours_smb, ref_smb)
                    rows.append(_row("Samba", label, "smbclient mput", compared))
                    _clean(smb.shares["share"])
                if "nfs" in only:
                    compared = alternate(args.rounds, ours_nfs, ref_nfs)
                    rows.append(_row("NFS", label, "nfs-rs writes, 8 threads", compared))
                    _clean(nfs_server.exports["share"])
                if "azure" in only:
                    compared = alternate(args.rounds, ours_blob, ref_blob)
                    rows.append(_row("Azure Blob", label, "azure-storage-blob, 8 threads", compared))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print_markdown(["storage", "what", "reference", "pai (s)", "reference (s)", "pai ÷ reference speed", "server CPU pai / ref (s)",
                    "load"], rows)


def _row(storage: str, label: str, reference: str, compared) -> list[str]:
    return [storage, label, reference, f"{compared.median('ours'):.2f}", f"{compared.median('reference'):.2f}",
            f"{compared.speedup:.2f}×", f"{compared.median('ours', 'cluster_cpu'):.2f} / {compared.median('reference', 'cluster_cpu'):.2f}",
            compared.loads()]


def _process_of(port: int):
    """The server process listening on `port` (for its CPU time)."""
    import psutil

    for conn in psutil.net_connections("tcp"):
        if conn.laddr and conn.laddr.port == port and conn.status == psutil.CONN_LISTEN and conn.pid:
            return SimpleNamespace(pid=conn.pid)
    raise RuntimeError(f"nothing listens on {port}")


def _clean(folder: Path) -> None:
    for entry in folder.iterdir():
        shutil.rmtree(entry) if entry.is_dir() else entry.unlink()


if __name__ == "__main__":
    main()
