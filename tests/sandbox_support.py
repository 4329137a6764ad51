"""Shared by the sandbox tests: a victim folder (tiny statement PDF, answer key, sentinel),
a TCP listener that counts connections, and a snapshot of files to prove nothing changed."""
from __future__ import annotations

import os
import re
import select
import socket
import tempfile

from fixtures.pdfwriter import PDF

from .support import FIXTURES

PARSERS = os.path.join(FIXTURES, "parsers")
TRAPS = ("/tmp/dua-sandbox-pickle-pwned", "/tmp/dua-sandbox-import-pwned")


def make_statement(path: str, password: str | None = None, text: bool = True) -> str:
    """A one-page statement PDF with a small transaction table (no text layer if not ``text``)."""
    pdf = PDF()
    page = pdf.add_page()
    if text:
        page.text(72, 72, "Date Description Balance", font="Helvetica-Bold")
        page.text(72, 90, "01-08-2024 Salary 100.00")
        page.text(72, 108, "02-08-2024 Rent 40.00")
    else:
        page.rect(72, 72, 300, 200, fill=0.5)
    pdf.save(path, password=password)
    return path


class Victim:
    """A folder an attack would like to change, plus a listener it would like to reach."""

    def __init__(self) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="dua-victim-")
        self.dir = self._tmp.name
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.listener.setblocking(False)
        self.port = self.listener.getsockname()[1]
        self.pdf = make_statement(os.path.join(self.dir, f"statement_{self.port}.pdf"))
        for name, text in (("result.csv", "Date,Description,Balance\n"), ("sentinel.txt", "x")):
            with open(os.path.join(self.dir, name), "w") as fh:
                fh.write(text)

    def snapshot(self) -> dict:
        found = {}
        for root, _, files in os.walk(self.dir):
            for f in files:
                st = os.stat(os.path.join(root, f))
                found[os.path.relpath(os.path.join(root, f), self.dir)] = (st.st_size, st.st_mtime_ns)
        for trap in TRAPS:
            found[trap] = os.path.exists(trap)
        return found

    def connections(self) -> int:
        """Connections accepted since the last call (the listener never answers them)."""
        count = 0
        while select.select([self.listener], [], [], 0)[0]:
            conn, _ = self.listener.accept()
            conn.close()
            count += 1
        return count

    def close(self) -> None:
        self.listener.close()
        self._tmp.cleanup()


def corpus(built: str) -> list:
    """(path, header dict) for every adversarial parser, read from its header comment; those
    that carry the word reader are built into the folder ``built``."""
    out = []
    for name in sorted(os.listdir(PARSERS)):
        if not name.endswith(".py") or name == "icici_parser.py":
            continue
        path = os.path.join(PARSERS, name)
        with open(path, encoding="utf-8") as fh:
            source = fh.read()
        fields = dict(re.findall(r"^# (attack|expect|expect-unchecked): (.+)$", source[:2000],
                                 re.M))
        if READER_MARK in source:
            path = _with_reader(built, name, source)
        out.append((path, fields))
    return out


READER_MARK = "#@ dua's word reader @#"


def _with_reader(built: str, name: str, source: str) -> str:
    """The attack with today's reader (as parsers carry it) where it marks, tampered as its
    header says; built from the reader, so the attack cannot go stale when the reader changes."""
    from dua.statements.agent.writer import reader_body

    reader = reader_body().splitlines()
    after = re.search(r"^# tamper-after: (.+)$", source, re.M)
    if after:
        at = next(i for i, line in enumerate(reader) if line.strip() == after.group(1).strip())
        indent = reader[at][:len(reader[at]) - len(reader[at].lstrip())]
        added = re.search(r"^# tamper-line: (.+)$", source, re.M).group(1)
        reader.insert(at + 1, indent + added)
    lines = [("\n".join(reader) if line.startswith(READER_MARK) else line)
             for line in source.splitlines()]
    path = os.path.join(built, name)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("\n".join(lines) + "\n")
    return path
