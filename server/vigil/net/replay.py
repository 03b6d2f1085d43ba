"""The patches a table keeps for clients that resume, bounded twice.

A client that reconnects with ``{epoch, rev}`` is sent the patches it
missed when they are all still here, else a snapshot. How many are kept is
bounded in entries (``VIGIL_REPLAY_BUFFER``) and in bytes
(``VIGIL_REPLAY_BUFFER_BYTES``): entries alone would let a table whose
patches are large (a roll with many helpers, a table of many characters)
hold far more memory than its neighbours, and memory must be bounded by
configuration. A rev's size is the bytes of its distinct messages: equal
audiences share one encoded message, which is kept once.
"""

from __future__ import annotations

from collections import deque

# A rev and its encoded patch per audience key.
Rendered = tuple[int, dict[str, bytes]]


def size_of(messages: dict[str, bytes]) -> int:
    """Bytes held by one rev's messages (each distinct object once)."""
    return sum({id(m): len(m) for m in messages.values()}.values())


class Replay:
    def __init__(self, max_entries: int, max_bytes: int) -> None:
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self._revs: deque[tuple[int, dict[str, bytes], int]] = deque()
        self.bytes = 0

    def __len__(self) -> int:
        return len(self._revs)

    def append(self, rev: int, messages: dict[str, bytes]) -> None:
        """Keep ``rev``; the oldest go while either bound is passed (the
        newest rev is kept whatever its size, so a resume just behind the
        head can be served)."""
        size = size_of(messages)
        self._revs.append((rev, messages, size))
        self.bytes += size
        while len(self._revs) > 1 and (len(self._revs) > self.max_entries or self.bytes > self.max_bytes):
            self.bytes -= self._revs.popleft()[2]

    def clear(self) -> None:
        self._revs.clear()
        self.bytes = 0

    @property
    def head(self) -> int | None:
        """The newest rev kept: the last one published (the table's own rev
        may be ahead of it while that rev's commit is awaited)."""
        return self._revs[-1][0] if self._revs else None

    def missed(self, key: str, after: int, head: int) -> list[bytes] | None:
        """The messages of audience ``key`` for every rev after ``after`` up
        to ``head``, in order; None when one of them is no longer kept (or
        was never rendered for that audience): the client needs a snapshot."""
        first = self._revs[0][0] if self._revs else head + 1
        if after + 1 < first:
            return None
        out: list[bytes] = []
        for rev, messages, _size in self._revs:
            if rev > after:
                message = messages.get(key)
                if message is None:
                    return None
                out.append(message)
        return out
