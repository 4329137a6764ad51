"""The Error Handler store's schema: forward-only migrations and the seeded synonyms.

Never edit a released step: append a new one (``PRAGMA user_version`` counts them).
"""
from __future__ import annotations

DB_NAME = "recovery.sqlite3"

MIGRATIONS = (
    # 1: the seed's stores.
    """
    CREATE TABLE errors (
        error_id TEXT PRIMARY KEY, event_key TEXT NOT NULL UNIQUE, fingerprint TEXT NOT NULL,
        query_id TEXT NOT NULL, agent_id TEXT NOT NULL, error_type TEXT NOT NULL,
        error_code TEXT NOT NULL, payload TEXT NOT NULL, feedback TEXT,
        state TEXT NOT NULL DEFAULT 'pending', created REAL NOT NULL);
    CREATE INDEX errors_fingerprint ON errors (fingerprint);
    CREATE INDEX errors_query ON errors (query_id);
    CREATE TABLE sessions (
        query_id TEXT PRIMARY KEY, agent_id TEXT, context TEXT NOT NULL DEFAULT '{}',
        registered INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL, updated REAL NOT NULL);
    CREATE TABLE synonyms (
        field TEXT NOT NULL, synonym TEXT NOT NULL, PRIMARY KEY (field, synonym));
    CREATE TABLE cache (
        key TEXT PRIMARY KEY, value TEXT NOT NULL, stored REAL NOT NULL);
    CREATE TABLE retry_queue (
        id INTEGER PRIMARY KEY AUTOINCREMENT, error_id TEXT NOT NULL, query_id TEXT NOT NULL,
        attempt INTEGER NOT NULL, due REAL NOT NULL, state TEXT NOT NULL DEFAULT 'pending');
    CREATE TABLE telemetry (
        id INTEGER PRIMARY KEY AUTOINCREMENT, at REAL NOT NULL, event TEXT NOT NULL);
    """,
    # 2: Idempotency-Key replay (request identity, kept apart from error grouping).
    """
    CREATE TABLE idempotency (
        key TEXT PRIMARY KEY, request_hash TEXT NOT NULL, state TEXT NOT NULL,
        status INTEGER, body TEXT, created REAL NOT NULL);
    CREATE INDEX retry_due ON retry_queue (state, due);
    """,
    # 3: retry budgets count errors per (query, code).
    """
    CREATE INDEX errors_query_code ON errors (query_id, error_code);
    """,
    # 4: "is any query registered?" is asked on every request; without this it scans sessions.
    # errors_query is a prefix of errors_query_code: one page less to write per error.
    """
    CREATE INDEX sessions_registered ON sessions (registered) WHERE registered = 1;
    DROP INDEX errors_query;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)

DEFAULT_SYNONYMS = {
    "product_id": ("product_code", "sku", "item_id", "product"),
    "customer_id": ("client_id", "account_id", "customer"),
    "revenue": ("sales", "turnover", "income", "amount"),
    "date": ("day", "order_date", "created_at", "timestamp"),
    "balance": ("closing_balance", "running_balance"),
    "debit": ("withdrawal", "withdrawals", "dr"),
    "credit": ("deposit", "deposits", "cr"),
}
