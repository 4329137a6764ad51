"""The Error Handler's sqlite3 store: errors, feedback, sessions, synonyms, cache, retry queue,
idempotency keys and telemetry events, in one file (WAL) or in memory.

Schema is versioned with ``PRAGMA user_version`` and forward-only migrations (``schema.py``).
How it talks to sqlite (connections, transactions, hooks after a commit) is ``database.py``.
"""
from __future__ import annotations

import json
import os
import time
from typing import Any, NamedTuple

from ..errors import StoreError
from .database import Database
from .schema import DB_NAME, DEFAULT_SYNONYMS, MIGRATIONS, SCHEMA_VERSION

# Everything handling an error builds on, in one statement: each statement gives up the GIL,
# and under load every one of them costs a thread switch. Attempts count errors of this code
# for this query (the retry budget), or of this exact problem when the query is unknown
# ("q_unknown" is shared by unrelated callers).
_PRIOR = ("SELECT (SELECT data_version FROM pragma_data_version), "
          "EXISTS (SELECT 1 FROM sessions WHERE registered = 1), "
          "(SELECT context FROM sessions WHERE query_id = :query_id), "
          "e.error_id, e.state, e.feedback, "
          "CASE WHEN :query_id = 'q_unknown' "
          "THEN (SELECT COUNT(*) FROM errors WHERE fingerprint = :fingerprint) "
          "ELSE (SELECT COUNT(*) FROM errors WHERE query_id = :query_id "
          "AND error_code = :error_code) END "
          "FROM (SELECT 1) LEFT JOIN errors e ON e.event_key = :event_key")

_INSERT_ERROR = ("INSERT INTO errors (error_id, event_key, fingerprint, query_id, agent_id, "
                 "error_type, error_code, payload, feedback, state, created) "
                 "VALUES (?,?,?,?,?,?,?,?,?,'done',?)")
_MERGE_SESSION = ("INSERT INTO sessions VALUES (?, ?, ?, 0, ?, ?) ON CONFLICT (query_id) DO "
                  "UPDATE SET context = excluded.context, updated = ?")


class Prior(NamedTuple):
    """The store's side of one incoming error."""

    registered: bool         # some query was registered: unknown ones are refused
    known: bool              # this query has a session
    found: tuple | None      # (error_id, state, feedback JSON) already recorded for the event
    attempts: int            # errors already counted against its retry budget
    session: dict            # the session context so far
    version: tuple | None = None  # when read by the writer: see Store.unchanged_since


class Store(Database):
    """The Error Handler's tables; ``Store()`` is in memory, ``Store(path)`` a WAL file shared
    by threads (connections and transactions: ``database.py``).

    ``checkpoint_every`` (seconds, file stores): a background thread checkpoints the WAL that
    often, so that no request pays for a checkpoint (see ``checkpoint.py``).
    """

    @classmethod
    def for_home(cls, home: str, **options: Any) -> Store:
        return cls(os.path.join(home, DB_NAME), **options)

    def _migrate(self) -> None:
        with self.transaction() as db:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"Store schema v{version} is newer than this dua (v{SCHEMA_VERSION})",
                                 hint="Upgrade dua or point --db at another file.")
            for step in range(version, SCHEMA_VERSION):
                for statement in MIGRATIONS[step].split(";"):
                    if statement.strip():
                        db.execute(statement)
                if step == 0:
                    db.executemany("INSERT OR IGNORE INTO synonyms VALUES (?, ?)",
                                   [(f, s) for f, syns in DEFAULT_SYNONYMS.items() for s in syns])
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    # --- errors -------------------------------------------------------------------

    def prior(self, event_key: str, query_id: str, error_code: str, fingerprint: str) -> Prior:
        """What handling one error builds on (read it inside the transaction that records it)."""
        rows, commits = self._read(_PRIOR, {"event_key": event_key, "query_id": query_id,
                                            "error_code": error_code, "fingerprint": fingerprint})
        data_version, registered, context, error_id, state, feedback, attempts = rows[0]
        begun = self._begun if getattr(self._local, "open", False) else None  # unchanged_since
        return Prior(bool(registered), context is not None,
                     (error_id, state, feedback) if error_id is not None else None,
                     attempts, json.loads(context) if context else {},
                     None if commits is None else (data_version, commits, begun))

    def unchanged_since(self, version: tuple | None) -> bool:
        """Inside a transaction: has nothing been committed since ``version`` (a Prior's)?

        False when unsure (read through another connection): the caller reads again.
        """
        if version is None:
            return False
        if version[2] == self._begun and getattr(self._local, "open", False):
            return True  # read in this very transaction, which holds the write lock
        db = self._shared or self._writer
        now = self._run(db, "PRAGMA data_version", ()).fetchone()[0]
        return (now, self._commits) == version[:2]

    def record_error(self, error_id: str, event_key: str, fingerprint: str, payload: dict,
                     feedback_json: str, replace_pending: bool = False) -> None:
        """Insert a handled error with its feedback (call inside the request's transaction).

        ``replace_pending``: a row left 'pending' by an older dua that died mid-request is
        replaced (this version only ever commits an error together with its feedback).
        """
        data = payload["data"]
        with self.transaction():
            if replace_pending:
                self._write("DELETE FROM errors WHERE event_key = ? AND state = 'pending'",
                            (event_key,))
            self._write(_INSERT_ERROR, (error_id, event_key, fingerprint, data["query_id"],
                                        payload["agent_id"], data["error_type"],
                                        data["error_code"], json.dumps(payload), feedback_json,
                                        time.time()))

    def error(self, error_id: str) -> dict | None:
        rows = self.query("SELECT error_id, fingerprint, state, payload, feedback, created "
                          "FROM errors WHERE error_id = ?", (error_id,))
        if not rows:
            return None
        eid, fingerprint, state, payload, feedback, created = rows[0]
        return {"error_id": eid, "fingerprint": fingerprint, "state": state,
                "payload": json.loads(payload), "feedback": json.loads(feedback) if feedback else None,
                "created": created}

    def attempts(self, query_id: str, error_code: str, fingerprint: str) -> int:
        """Errors counted against this one's retry budget (see ``prior``)."""
        return self.prior("", query_id, error_code, fingerprint).attempts

    def count_errors(self) -> int:
        return self.query("SELECT COUNT(*) FROM errors")[0][0]

    # --- sessions -----------------------------------------------------------------

    def register_query(self, query_id: str, context: dict | None = None, agent_id: str = "") -> None:
        now = time.time()
        with self.transaction() as db:
            db.execute("INSERT INTO sessions VALUES (?, ?, ?, 1, ?, ?) ON CONFLICT (query_id) DO "
                       "UPDATE SET context = excluded.context, registered = 1, updated = ?",
                       (query_id, agent_id, json.dumps(context or {}), now, now, now))

    def merge_session(self, query_id: str, agent_id: str, context: dict) -> dict:
        """Merge ``context`` into the session (new keys win) and return the whole context."""
        now = time.time()
        with self.transaction() as db:
            row = db.execute("SELECT context FROM sessions WHERE query_id = ?", (query_id,)).fetchone()
            merged = json.loads(row[0]) if row else {}
            merged.update(context)
            db.execute(_MERGE_SESSION, (query_id, agent_id, json.dumps(merged), now, now, now))
        return merged

    def save_session(self, query_id: str, agent_id: str, context: dict) -> None:
        """Write the whole context (read it and write it back in one transaction)."""
        now = time.time()
        self._write(_MERGE_SESSION, (query_id, agent_id, json.dumps(context), now, now, now))

    def session(self, query_id: str) -> dict | None:
        rows = self.query("SELECT agent_id, context, created, updated FROM sessions "
                          "WHERE query_id = ?", (query_id,))
        if not rows:
            return None
        agent_id, context, created, updated = rows[0]
        errors = [r[0] for r in self.query(
            "SELECT error_id FROM errors WHERE query_id = ? ORDER BY created", (query_id,))]
        return {"query_id": query_id, "agent_id": agent_id, "context": json.loads(context),
                "error_ids": errors, "retry_queue": self.retries(query_id),
                "created": created, "updated": updated}

    # --- synonyms and cache -------------------------------------------------------------

    def add_synonym(self, field: str, synonym: str) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR IGNORE INTO synonyms VALUES (?, ?)", (field.lower(), synonym.lower()))

    def synonyms(self, field: str) -> list:
        key = field.lower()
        rows = self.query("SELECT synonym FROM synonyms WHERE field = ? UNION "
                          "SELECT field FROM synonyms WHERE synonym = ?", (key, key))
        return sorted(r[0] for r in rows)

    def cache_put(self, key: str, value: object) -> None:
        with self.transaction() as db:
            db.execute("INSERT OR REPLACE INTO cache VALUES (?, ?, ?)", (key, json.dumps(value), time.time()))

    def cache_get(self, key: str) -> tuple | None:
        """(value, stored_at) or None."""
        rows = self.query("SELECT value, stored FROM cache WHERE key = ?", (key,))
        return (json.loads(rows[0][0]), rows[0][1]) if rows else None

    # --- retry queue ----------------------------------------------------------------------

    def enqueue_retry(self, error_id: str, query_id: str, attempt: int, due: float) -> int:
        return self._write("INSERT INTO retry_queue (error_id, query_id, attempt, due) "
                           "VALUES (?, ?, ?, ?)", (error_id, query_id, attempt, due)).lastrowid

    def due_retries(self, now: float) -> list:
        """Claim the pending retries whose time has come (each is handed out once)."""
        with self.transaction() as db:
            rows = db.execute("SELECT id, error_id, query_id, attempt, due FROM retry_queue "
                              "WHERE state = 'pending' AND due <= ? ORDER BY due", (now,)).fetchall()
            db.executemany("UPDATE retry_queue SET state = 'running' WHERE id = ?", [(r[0],) for r in rows])
        return [dict(zip(("id", "error_id", "query_id", "attempt", "due"), r)) for r in rows]

    def finish_retry(self, retry_id: int, state: str) -> None:
        with self.transaction() as db:
            db.execute("UPDATE retry_queue SET state = ? WHERE id = ?", (state, retry_id))

    def retries(self, query_id: str | None = None) -> list:
        sql = "SELECT id, error_id, query_id, attempt, due, state FROM retry_queue"
        rows = self.query(sql + " WHERE query_id = ? ORDER BY id", (query_id,)) if query_id else \
            self.query(sql + " ORDER BY id")
        return [dict(zip(("id", "error_id", "query_id", "attempt", "due", "state"), r)) for r in rows]

    # --- idempotency keys and telemetry -------------------------------------------------------

    def find_key(self, key: str) -> tuple | None:
        """(request_hash, status, body) of the answer recorded under an Idempotency-Key, or None.

        Only answered requests are recorded; an 'in_flight' row left by an older dua that
        died is no answer, and is overwritten by ``save_key``.
        """
        rows = self.query("SELECT request_hash, status, body FROM idempotency "
                          "WHERE key = ? AND state = 'done'", (key,))
        return rows[0] if rows else None

    def save_key(self, key: str, request_hash: str, status: int, body: str) -> None:
        """Record the answer to a keyed request (inside that request's transaction)."""
        self._write("INSERT OR REPLACE INTO idempotency VALUES (?, ?, 'done', ?, ?, ?)",
                    (key, request_hash, status, body, time.time()))

    def record_event(self, event_json: str) -> None:
        self._write("INSERT INTO telemetry (at, event) VALUES (?, ?)", (time.time(), event_json))

    def events(self, limit: int = 100) -> list:
        rows = self.query("SELECT event FROM telemetry ORDER BY id DESC LIMIT ?", (limit,))
        return [json.loads(r[0]) for r in rows]
