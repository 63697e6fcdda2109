"""Git objects computed in Python, shipped to git as one pack.

The demo world needs commits that ``git commit`` cannot make (a ``gpgsig``
header on an imported main commit) and fixed SHAs on every machine, so every
blob, tree and commit is serialised here, hashed here, and handed to
``git index-pack`` in a single packfile: one git process writes the whole
history, and git re-hashes every object on the way in, so a SHA computed here
that git disagrees with can never reach a ref (the builder checks every SHA
with ``cat-file --batch-check`` afterwards).

The object format is git's: ``"<type> <size>\\0" + body``, SHA-1 over that.
"""

from __future__ import annotations

import base64
import hashlib
import struct
import zlib
from collections.abc import Mapping
from dataclasses import dataclass

# Pack object type codes (Documentation/gitformat-pack.txt).
_PACK_TYPES = {"commit": 1, "tree": 2, "blob": 3}

FILE_MODE = "100644"
EXECUTABLE_MODE = "100755"
# Tree entries spell a directory's mode without the leading zero: "40000".
TREE_MODE = "40000"


@dataclass(frozen=True, slots=True)
class Signature:
    """An author or committer line: who, and when in which time zone."""

    name: str
    email: str
    time: int  # seconds since the epoch
    tz: str  # "+0530"

    def encode(self) -> str:
        """The ``Name <email> 1735732800 +0530`` form git stores."""
        return f"{self.name} <{self.email}> {self.time} {self.tz}"


def object_id(kind: str, body: bytes) -> str:
    """The SHA-1 git gives an object of type ``kind`` with this body."""
    header = f"{kind} {len(body)}\0".encode()
    return hashlib.sha1(header + body, usedforsecurity=False).hexdigest()


def _tree_sort_key(entry: tuple[str, str, str]) -> bytes:
    # git orders tree entries bytewise by name, but compares a directory as if
    # its name ended in "/": "lumen.py" < "lumen/" < "lumen0", unlike plain
    # sorting. A tree in the wrong order is rejected by fsck ("treeNotSorted").
    mode, name, _ = entry
    return (name + "/" if mode == TREE_MODE else name).encode()


class ObjectStore:
    """Objects by SHA, each stored once, ready to be packed."""

    def __init__(self) -> None:
        self.objects: dict[str, tuple[str, bytes]] = {}
        self._blobs: dict[str, str] = {}

    def add(self, kind: str, body: bytes) -> str:
        """Store an object (a no-op when it is already there) and return its SHA."""
        sha = object_id(kind, body)
        self.objects.setdefault(sha, (kind, body))
        return sha

    def blob(self, text: str) -> str:
        """The SHA of a UTF-8 text file, memoised (most files repeat across commits)."""
        sha = self._blobs.get(text)
        if sha is None:
            sha = self._blobs[text] = self.add("blob", text.encode())
        return sha

    def tree(self, files: Mapping[str, str], executable: frozenset[str] = frozenset()) -> str:
        """Write the nested trees for a flat ``{path: text}`` snapshot and return the root's SHA."""
        entries = {path: (self.blob(text), path in executable) for path, text in files.items()}
        return self._subtree(entries)

    def _subtree(self, entries: Mapping[str, tuple[str, bool]]) -> str:
        children: dict[str, dict[str, tuple[str, bool]]] = {}
        rows: list[tuple[str, str, str]] = []
        for path, (sha, is_exec) in entries.items():
            head, sep, rest = path.partition("/")
            if sep:
                children.setdefault(head, {})[rest] = (sha, is_exec)
            else:
                rows.append((EXECUTABLE_MODE if is_exec else FILE_MODE, head, sha))
        for name, sub in children.items():
            rows.append((TREE_MODE, name, self._subtree(sub)))
        body = b"".join(
            f"{mode} {name}".encode() + b"\0" + bytes.fromhex(sha)
            for mode, name, sha in sorted(rows, key=_tree_sort_key)
        )
        return self.add("tree", body)

    def commit(
        self,
        tree: str,
        parents: tuple[str, ...],
        author: Signature,
        committer: Signature,
        message: str,
        *,
        gpgsig: str | None = None,
    ) -> str:
        """Write a commit object; ``gpgsig`` adds a signature header after the committer."""
        lines = [f"tree {tree}", *(f"parent {parent}" for parent in parents)]
        lines += [f"author {author.encode()}", f"committer {committer.encode()}"]
        if gpgsig is not None:
            # A multi-line header continues on lines that start with one space
            # (an empty signature line becomes a lone space), exactly as git
            # writes the gpgsig header of a signed commit.
            first, *rest = gpgsig.rstrip("\n").split("\n")
            lines.append(f"gpgsig {first}")
            lines += [f" {line}" for line in rest]
        body = "\n".join(lines) + "\n\n" + message
        return self.add("commit", body.encode())

    def pack(self) -> bytes:
        """Every object as one version-2 packfile, undeltified (git accepts that as is)."""
        parts = [b"PACK", struct.pack(">II", 2, len(self.objects))]
        for kind, body in self.objects.values():
            parts.append(_pack_entry_header(_PACK_TYPES[kind], len(body)))
            parts.append(zlib.compress(body, 1))
        data = b"".join(parts)
        return data + hashlib.sha1(data, usedforsecurity=False).digest()


def _pack_entry_header(type_code: int, size: int) -> bytes:
    # The size is a little-endian varint: 4 bits beside the 3-bit type in the
    # first byte, then 7 bits per byte, the high bit meaning "more follows".
    out = bytearray()
    byte = (type_code << 4) | (size & 0x0F)
    size >>= 4
    while size:
        out.append(byte | 0x80)
        byte = size & 0x7F
        size >>= 7
    out.append(byte)
    return bytes(out)


def ssh_signature(payload: bytes, signer: str) -> str:
    """An armored block shaped like ``ssh-keygen -Y sign`` output; it verifies nothing.

    The fields follow PROTOCOL.sshsig (magic, version, public key, namespace
    "git", hash algorithm, signature), filled with bytes derived from the
    payload and the signer, so the block is deterministic and realistic.
    """

    def string(value: bytes) -> bytes:
        return struct.pack(">I", len(value)) + value

    key = hashlib.sha256(signer.encode()).digest()
    sig = hashlib.sha512(payload).digest()
    blob = b"SSHSIG" + struct.pack(">I", 1)
    blob += string(string(b"ssh-ed25519") + string(key))
    blob += string(b"git") + string(b"") + string(b"sha512")
    blob += string(string(b"ssh-ed25519") + string(sig))
    text = base64.b64encode(blob).decode()
    lines = [text[i : i + 70] for i in range(0, len(text), 70)]
    return "\n".join(["-----BEGIN SSH SIGNATURE-----", *lines, "-----END SSH SIGNATURE-----"])
