"""One client connection of ``dua serve``'s event loop: bytes in, whole requests out.

A request is handed over once its head and its body (``Content-Length`` bytes) are in, so
that a handler never waits on a socket. What the stdlib's parser would refuse line by line
is handed over as soon as it is refused (a line too long, too many header lines): the handler
answers it. A body larger than the service takes is not waited for: the head goes alone, and
after the 413 the rest is read and dropped, up to DRAIN_LIMIT, so that a client still sending
can read the answer instead of a reset.
"""
from __future__ import annotations

import re
import selectors
import socket
from typing import Any

from .head import MAX_HEADERS, MAX_LINE

DRAIN_LIMIT = 16 << 20  # a refused body larger than this is not read: the connection is closed
CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"
_HEAD_END = re.compile(rb"\n\r?\n")
_LENGTH = re.compile(rb"^content-length:[ \t]*([^\r\n]*)", re.I | re.M)
_EXPECT = re.compile(rb"^expect:[ \t]*100-continue[ \t]*\r?$", re.I | re.M)
_HTTP11 = re.compile(rb"^[^\r\n]* HTTP/1\.1\r?\n")


class Connection:
    """A client socket with what has arrived on it and what is still to be sent."""

    __slots__ = ("sock", "address", "inbuf", "outbuf", "last", "busy", "closing", "unread",
                 "continued", "events", "admitted")

    def __init__(self, sock: socket.socket, address: Any, now: float):
        self.sock, self.address, self.last = sock, address, now
        self.inbuf, self.outbuf = bytearray(), bytearray()
        self.busy = None  # the handler whose write is in the group commit: answers go in order
        self.closing = False  # close once outbuf is sent (after draining ``unread`` bytes)
        self.unread = 0  # body bytes of a refused request still to come
        self.continued = False  # "100 Continue" sent for the request being read
        self.events = selectors.EVENT_READ  # what the loop's selector watches for
        self.admitted = False  # its request began before the stop: answered, not refused

    def take_request(self, max_body: int) -> tuple | None:
        """(the next request's bytes, how much of its body is left on the wire), or None
        while it is incomplete."""
        buf = self.inbuf
        first = buf.find(b"\n")
        if first == 0 or (first == 1 and buf[0] == 13):  # an empty request line: refused
            return self._take(first + 1, 0)
        end = _HEAD_END.search(buf)
        if end is None:
            return self._take(len(buf), 0) if self._refusable() else None
        head = bytes(buf[:end.end()])
        length = _content_length(head)
        if length > max_body:  # refused by size: the body is not waited for, but dropped
            here = min(length, len(buf) - end.end())
            request = self._take(end.end(), length - here)
            del buf[:here]
            return request
        if len(buf) >= end.end() + length:
            return self._take(end.end() + length, 0)
        if not self.continued and _EXPECT.search(head) and _HTTP11.match(head):
            self.continued = True  # the client waits for it before sending the body
            self.outbuf += CONTINUE
        return None

    def _take(self, size: int, unread: int) -> tuple:
        request = bytes(self.inbuf[:size])
        del self.inbuf[:size]
        self.continued = False
        return request, unread

    def _refusable(self) -> bool:
        """Would the stdlib's parser already refuse this unfinished head? (So no more of it
        is worth waiting for.)"""
        buf = self.inbuf
        if len(buf) - (buf.rfind(b"\n") + 1) > MAX_LINE:
            return True
        return buf.count(b"\n") > MAX_HEADERS + 1

    def drop(self, data: bytes) -> bytes:
        """Count ``data`` against the refused body being drained; what follows it is kept."""
        n = min(self.unread, len(data))
        self.unread -= n
        return data[n:]

    def send(self) -> bool:
        """Send what the socket takes now; True once nothing is left to send."""
        if self.outbuf:
            try:
                sent = self.sock.send(self.outbuf)
            except (BlockingIOError, InterruptedError):
                return False
            del self.outbuf[:sent]
        return not self.outbuf


def _content_length(head: bytes) -> int:
    """The body length the framing waits for: the first Content-Length, when it is a number
    (otherwise none: the handler refuses the request and closes the connection)."""
    match = _LENGTH.search(head, head.find(b"\n"))
    if match is None:
        return 0
    value = match.group(1).strip()
    return int(value) if value.isdigit() else 0
