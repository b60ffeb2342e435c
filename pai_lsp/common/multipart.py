"""multipart/form-data as PaddlePaddle Cloud's file server sends and takes it (one `chunk` part whose
file name carries the chunk's path, offset and size): written and read here once, for the PFS
client (storage/pfs.py) and the local cluster's PFS server alike."""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.message import Message

PFS_BOUNDARY = "8d7b0e5709d756e21e971ff4d9ac3b20"  # the one the Go server and client use


@dataclass
class Part:
    name: str | None
    filename: str | None
    data: bytes


def encode(name: str, filename: str, data: bytes, boundary: str = PFS_BOUNDARY) -> tuple[bytes, str]:
    """(body, Content-Type) of a form with one file part, as Go's multipart.Writer.CreateFormFile writes it."""
    quoted = filename.replace("\\", "\\\\").replace('"', '\\"')
    head = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"; filename=\"{quoted}\"\r\n"
            "Content-Type: application/octet-stream\r\n\r\n").encode()
    return head + data + f"\r\n--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def boundary_of(content_type: str) -> str | None:
    match = re.search(r'boundary="?([^";]+)"?', content_type or "")
    return match.group(1) if match else None


def decode(body: bytes, content_type: str) -> list[Part]:
    """The parts of a multipart body; ValueError when it is not one (what follows the closing
    delimiter, such as the JSON line the Go server appends, is ignored)."""
    boundary = boundary_of(content_type)
    if not boundary:
        raise ValueError("no multipart boundary")
    delimiter = b"--" + boundary.encode()
    start = body.find(delimiter)
    if start < 0:
        raise ValueError("no multipart part")
    parts = []
    position = start + len(delimiter)
    while True:
        if body.startswith(b"--", position):
            break  # the closing delimiter
        head_end = body.find(b"\r\n\r\n", position)
        if head_end < 0:
            raise ValueError("a multipart part has no end of headers")
        nxt = body.find(b"\r\n" + delimiter, head_end + 4)
        if nxt < 0:
            raise ValueError("a multipart part is not closed")
        message = Message()
        for line in body[position:head_end].decode("latin-1").split("\r\n"):
            if ":" in line:
                key, _, value = line.partition(":")
                message[key.strip()] = value.strip()
        parts.append(Part(message.get_param("name", header="content-disposition"),
                          message.get_param("filename", header="content-disposition"), body[head_end + 4 : nxt]))
        position = nxt + 2 + len(delimiter)
    return parts
