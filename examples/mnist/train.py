"""A tiny stand-in for a training script: prints progress, then saves its result to outputDir on HDFS.

On the local cluster, $PAI_DEFAULT_FS_URI (hdfs://host:port) also serves WebHDFS on that port; on a
real cluster set WEBHDFS_URL to the namenode's HTTP address.
"""

import argparse
import os
import time
import urllib.parse
import urllib.request

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int, default=3)
parser.add_argument("--out", default="")
args = parser.parse_args()

loss = 2.3
for epoch in range(1, args.epochs + 1):
    loss *= 0.6
    print(f"epoch {epoch}/{args.epochs} loss={loss:.4f}", flush=True)
    time.sleep(0.2)
result = f"final loss {loss:.4f}\n".encode()


def hdfs_put(uri: str, data: bytes) -> None:
    """WebHDFS CREATE in its two steps, with the standard library only."""
    parts = urllib.parse.urlsplit(uri)
    base = os.environ.get("WEBHDFS_URL") or f"http://{parts.netloc}"
    user = os.environ.get("PAI_USER_NAME", "")
    url = f"{base}/webhdfs/v1{parts.path}?op=CREATE&overwrite=true&user.name={user}&noredirect=true"
    with urllib.request.urlopen(urllib.request.Request(url, method="PUT")) as answer:
        location = __import__("json").load(answer)["Location"]
    urllib.request.urlopen(urllib.request.Request(location, data=data, method="PUT")).close()


if args.out:
    hdfs_put(args.out.rstrip("/") + "/result.txt", result)
    print(f"saved {args.out}/result.txt", flush=True)
print("done", flush=True)
