"""Reading a request's head for ``service.py``: BaseHTTPRequestHandler.parse_request (Python
3.11's rules, limits and answers) with the header fields read into a small mapping instead of
through the email package, which cost about 30 us a request, a sixth of a health check's CPU.
A head with anything unusual in it (a folded line, a field name with odd characters) still
goes through the email package, as before.
"""
from __future__ import annotations

import email.parser
import http.client
import re
from http import HTTPStatus
from typing import Any

MAX_LINE = 65536  # http.client's limits
MAX_HEADERS = 100
_NAME = re.compile(rb"[\x21-\x39\x3b-\x7e]+")  # the email parser's: printable, no colon


class Headers:
    """A request's header fields: ``get`` and ``[]`` by name in any case give the first field
    of that name (as email.message.Message does), ``get_all`` every one."""

    __slots__ = ("_fields", "_first")

    def __init__(self, fields: list):
        self._fields = fields
        self._first: dict = {}
        for name, value in fields:
            self._first.setdefault(name.lower(), value)

    def get(self, name: str, default: Any = None) -> Any:
        return self._first.get(name.lower(), default)

    def __getitem__(self, name: str) -> str | None:
        return self._first.get(name.lower())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._first

    def get_all(self, name: str, default: Any = None) -> Any:
        key = name.lower()
        return [v for n, v in self._fields if n.lower() == key] or default

    def items(self) -> list:
        return list(self._fields)

    def keys(self) -> list:
        return [n for n, _ in self._fields]

    def __iter__(self):
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self._fields)


def parse_request(handler: Any) -> bool:
    """What BaseHTTPRequestHandler.parse_request does; False when it has answered an error."""
    if not _request_line(handler):
        return False
    try:
        handler.headers = read_headers(handler.rfile)
    except http.client.LineTooLong as err:
        handler.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Line too long", str(err))
        return False
    except http.client.HTTPException as err:
        handler.send_error(HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "Too many headers",
                           str(err))
        return False
    conntype = handler.headers.get("Connection", "").lower()
    if conntype == "close":
        handler.close_connection = True
    elif conntype == "keep-alive" and handler.protocol_version >= "HTTP/1.1":
        handler.close_connection = False
    expect = handler.headers.get("Expect", "")
    if (expect.lower() == "100-continue" and handler.protocol_version >= "HTTP/1.1"
            and handler.request_version >= "HTTP/1.1"):
        return handler.handle_expect_100()
    return True


def _request_line(handler: Any) -> bool:
    handler.command = None  # set in case of error on the first line
    handler.request_version = version = handler.default_request_version
    handler.close_connection = True
    requestline = str(handler.raw_requestline, "iso-8859-1").rstrip("\r\n")
    handler.requestline = requestline
    words = requestline.split()
    if not words:
        return False
    if len(words) >= 3:  # enough to tell the protocol version
        version = words[-1]
        try:
            if not version.startswith("HTTP/"):
                raise ValueError
            number = version.split("/", 1)[1].split(".")
            if len(number) != 2:
                raise ValueError
            parsed = int(number[0]), int(number[1])
        except (ValueError, IndexError):
            handler.send_error(HTTPStatus.BAD_REQUEST, "Bad request version (%r)" % version)
            return False
        if parsed >= (1, 1) and handler.protocol_version >= "HTTP/1.1":
            handler.close_connection = False
        if parsed >= (2, 0):
            handler.send_error(HTTPStatus.HTTP_VERSION_NOT_SUPPORTED,
                               "Invalid HTTP version (%s)" % version.split("/", 1)[1])
            return False
        handler.request_version = version
    if not 2 <= len(words) <= 3:
        handler.send_error(HTTPStatus.BAD_REQUEST, "Bad request syntax (%r)" % requestline)
        return False
    command, path = words[:2]
    if len(words) == 2:
        handler.close_connection = True
        if command != "GET":
            handler.send_error(HTTPStatus.BAD_REQUEST, "Bad HTTP/0.9 request type (%r)" % command)
            return False
    handler.command, handler.path = command, path
    if handler.path.startswith("//"):  # gh-87389: not an open redirect to another host
        handler.path = "/" + handler.path.lstrip("/")
    return True


def read_headers(fp: Any) -> Any:
    """The header fields up to the blank line (http.client's limits and errors)."""
    lines = []
    while True:
        line = fp.readline(MAX_LINE + 1)
        if len(line) > MAX_LINE:
            raise http.client.LineTooLong("header line")
        lines.append(line)
        if len(lines) > MAX_HEADERS:
            raise http.client.HTTPException(f"got more than {MAX_HEADERS} headers")
        if line in (b"\r\n", b"\n", b""):
            break
    fields = []
    for line in lines[:-1]:
        name, colon, value = line.partition(b":")
        if not colon or not _NAME.fullmatch(name):
            # Folded, or not a field at all: the email package's rules, whatever they make of it.
            text = b"".join(lines).decode("iso-8859-1")
            return email.parser.Parser(_class=http.client.HTTPMessage).parsestr(text)
        fields.append((name.decode("ascii"),
                       value.decode("iso-8859-1").lstrip(" \t").rstrip("\r\n")))
    return Headers(fields)
