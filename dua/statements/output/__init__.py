"""The rows as they leave: in the common schema (``normalize``), judged by a ledger key in that
schema (``ledgerkey``), and written as CSV, JSON Lines, OFX or QIF (``formats``).

The last stage: it may use any before it, and no stage imports it.
"""
