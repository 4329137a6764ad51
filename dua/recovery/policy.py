"""The Error Handler's rules: the classifier table, the RCA heuristics and the recovery policy.

Pure functions over plain dicts: no store writes, no network. Rule-first and conservative:
an automatic fix is planned only above ``AUTO_FIX_CONFIDENCE``.
"""
from __future__ import annotations

import re

AUTO_FIX_CONFIDENCE = 0.85
MAX_RETRIES = 3
MAX_REFINES = 3

# error_code -> (canonical error_type, confidence, severity, probable cause)
CODE_RULES = {
    # seed 004's pipeline
    "AMBIGUOUS_INPUT": ("input_error", 0.95, "low", "ambiguous_input"),
    "AMBIGUOUS_QUERY": ("input_error", 0.93, "low", "ambiguous_input"),
    "UNCLEAR_INTENT": ("input_error", 0.9, "low", "ambiguous_input"),
    "FIELD_NOT_FOUND": ("schema_error", 0.96, "medium", "missing_field"),
    "MISSING_FIELD": ("schema_error", 0.96, "medium", "missing_field"),
    "UNKNOWN_COLUMN": ("schema_error", 0.95, "medium", "missing_field"),
    "COLUMN_NOT_FOUND": ("schema_error", 0.95, "medium", "missing_field"),
    "DB_TIMEOUT": ("query_error", 0.97, "medium", "db_timeout"),
    "QUERY_TIMEOUT": ("query_error", 0.95, "medium", "db_timeout"),
    "STATEMENT_TIMEOUT": ("query_error", 0.95, "medium", "db_timeout"),
    "QUERY_SYNTAX_ERROR": ("query_error", 0.9, "medium", "bad_request"),
    "INCOMPATIBLE_CHART_TYPE": ("chart_error", 0.96, "low", "incompatible_chart"),
    "UNSUPPORTED_CHART": ("chart_error", 0.9, "low", "incompatible_chart"),
    "SERVICE_UNAVAILABLE": ("system_error", 0.95, "high", "outage"),
    "DOWNSTREAM_OUTAGE": ("system_error", 0.97, "high", "outage"),
    "UPSTREAM_UNAVAILABLE": ("system_error", 0.93, "high", "outage"),
    "CONNECTION_REFUSED": ("system_error", 0.9, "high", "outage"),
    "VALIDATION_FAILED": ("validation_error", 0.9, "low", "bad_request"),
    # dua's own error codes (dua.errors)
    "INVALID_PAYLOAD": ("validation_error", 0.99, "low", "bad_request"),
    "INVALID_DATA": ("schema_error", 0.95, "low", "bad_request"),
    "USAGE_ERROR": ("input_error", 0.99, "low", "bad_request"),
    "MISSING_DEPENDENCY": ("input_error", 0.99, "high", "bad_request"),
    "FILE_NOT_FOUND": ("input_error", 0.99, "low", "document_unreadable"),
    "NOT_A_PDF": ("input_error", 0.99, "low", "document_unreadable"),
    "PDF_ENCRYPTED": ("input_error", 0.99, "low", "document_unreadable"),
    "PDF_CORRUPT": ("input_error", 0.97, "medium", "document_unreadable"),
    "NO_TEXT_LAYER": ("input_error", 0.98, "medium", "document_unreadable"),
    "PDF_NO_PAGES": ("input_error", 0.98, "medium", "document_unreadable"),
    "PDF_READ_TIMEOUT": ("input_error", 0.9, "medium", "document_unreadable"),
    "PDF_MEMORY_LIMIT": ("input_error", 0.9, "medium", "document_unreadable"),
    "DOCUMENT_ERROR": ("input_error", 0.9, "medium", "document_unreadable"),
    "PARSER_CRASHED": ("system_error", 0.95, "medium", "parser_failed"),
    "PARSER_TIMEOUT": ("system_error", 0.95, "medium", "parser_failed"),
    "PARSER_RESOURCE_LIMIT": ("system_error", 0.95, "medium", "parser_failed"),
    "PARSER_REJECTED": ("validation_error", 0.97, "medium", "parser_failed"),
    "PARSER_BAD_RETURN": ("validation_error", 0.97, "medium", "parser_failed"),
    "GENERATED_CODE_ERROR": ("system_error", 0.9, "medium", "parser_failed"),
    "NOT_VERIFIED": ("validation_error", 0.95, "medium", "parser_failed"),
    "UNEXPECTED_ERROR": ("system_error", 0.9, "high", "internal"),
    "STEP_LIMIT_EXCEEDED": ("system_error", 0.95, "high", "internal"),
    "INVALID_GRAPH": ("system_error", 0.95, "high", "internal"),
    "STORE_ERROR": ("system_error", 0.95, "high", "store_unusable"),
    "OUTPUT_FAILED": ("system_error", 0.95, "high", "output_unusable"),
    "OUTPUT_CLOSED": ("system_error", 0.95, "medium", "output_unusable"),
}
_LLM_TRANSIENT = ("LLM_TIMEOUT", "LLM_CONNECTION_FAILED", "LLM_RATE_LIMITED", "LLM_SERVER_ERROR",
                  "LLM_PROVIDER_ERROR", "LLM_STREAM_INTERRUPTED", "LLM_EMPTY_RESPONSE",
                  "LLM_NO_CANDIDATES", "LLM_NO_TEXT", "LLM_NO_TOOL_CALL", "LLM_INVALID_RESPONSE",
                  "LLM_MISSING_FIELD", "LLM_INVALID_STRUCTURE", "LLM_UNEXPECTED_TYPE",
                  "LLM_TOOL_ERROR", "LLM_TOOL_NOT_FOUND", "LLM_TOOL_FAILED", "LLM_RESPONSE_ERROR",
                  "LLM_TRANSPORT_ERROR")
_LLM_UNUSABLE = ("LLM_AUTH_FAILED", "LLM_QUOTA_EXCEEDED", "LLM_CONTENT_FILTERED", "LLM_TRUNCATED",
                 "LLM_UNUSABLE_PARSER",  # answers that never held a parser: asking again won't help
                 "LLM_REPEATED_REQUEST", "LLM_BUDGET_SPENT")  # the run's own limits: fall back
CODE_RULES.update({c: ("system_error", 0.95, "medium", "llm_transient") for c in _LLM_TRANSIENT})
CODE_RULES.update({c: ("system_error", 0.95, "medium", "llm_unusable") for c in _LLM_UNUSABLE})
# A structured answer reaches the handler only after the caller fed each validation error
# back to the model (seed 003) and ran out of attempts: an identical retry would only buy
# the same answer, so these fall back to the built-in result.
CODE_RULES.update({c: ("schema_error", 0.93, "medium", "llm_invalid_answer") for c in (
    "STRUCTURED_OUTPUT_ERROR", "STRUCTURED_OUTPUT_INVALID", "MULTIPLE_STRUCTURED_OUTPUTS")})
CODE_RULES.update({c: ("query_error", 0.95, "medium", "llm_unusable") for c in (
    "LLM_BAD_REQUEST", "LLM_CONTEXT_TOO_LONG", "LLM_MODEL_NOT_FOUND")})

# For codes the table does not know: message patterns, checked in order (lower confidence).
MESSAGE_RULES = (
    (re.compile(r"time[sd]?[ -]?out|deadline exceeded", re.I), "query_error", 0.7, "medium", "db_timeout"),
    (re.compile(r"unavailable|outage|connection refused|\b50[23]\b", re.I),
     "system_error", 0.75, "high", "outage"),
    (re.compile(r"not found|no such (column|field)|unknown (column|field)|missing field", re.I),
     "schema_error", 0.7, "medium", "missing_field"),
    (re.compile(r"\bchart\b|\bplot\b", re.I), "chart_error", 0.65, "low", "incompatible_chart"),
    (re.compile(r"ambiguous|unclear|did you mean", re.I), "input_error", 0.7, "low", "ambiguous_input"),
)
_FALLBACK_SEVERITY = {"system_error": "high", "query_error": "medium", "schema_error": "medium"}


def classify(error: dict) -> dict:
    """Canonical type, confidence, severity and probable cause of a normalised error."""
    code, declared, message = error["error_code"].upper(), error["error_type"], error["message"]
    if code in CODE_RULES:
        error_type, confidence, severity, cause = CODE_RULES[code]
        # A sender that disagrees with the table lowers our certainty, not the table's answer.
        if declared != error_type:
            confidence = round(confidence * 0.9, 2)
        return _verdict(error_type, confidence, severity, cause, f"code:{code}")
    for pattern, error_type, confidence, severity, cause in MESSAGE_RULES:
        if pattern.search(message) or pattern.search(code.replace("_", " ")):
            if declared == error_type:
                confidence = round(min(confidence + 0.1, 0.85), 2)
            return _verdict(error_type, confidence, severity, cause, f"pattern:{pattern.pattern}")
    return _verdict(declared, 0.4, _FALLBACK_SEVERITY.get(declared, "low"), "unknown", "declared")


def _verdict(error_type: str, confidence: float, severity: str, cause: str, rule: str) -> dict:
    return {"error_type": error_type, "confidence": confidence, "severity": severity,
            "cause": cause, "rule": rule}


# --- RCA heuristics ----------------------------------------------------------------------

TIME_WORDS = ("date", "day", "week", "month", "quarter", "year", "time", "timestamp", "period")
_HEAVY = re.compile(r"aggregat|group by|sum\(|count\(|avg\(|rollup|cube|join", re.I)
_QUOTED = re.compile(r"['\"`]([\w .-]+)['\"`]")
_FIELD_IN_MESSAGE = re.compile(r"(?:field|column)\s+['\"`]?([\w.-]+)|([\w.-]+)['\"`]?\s+not found", re.I)


def has_heuristics(cause: str) -> bool:
    return cause in HEURISTICS


def analyze(error: dict, cause: str, session: dict, synonyms: list) -> dict:
    """Probable root cause with confidence and evidence; ``synonyms`` come from the store."""
    return HEURISTICS[cause](error, {**session, **error["context"]}, synonyms)


def _db_timeout(error: dict, ctx: dict, synonyms: list) -> dict:
    evidence = []
    if _HEAVY.search(error["message"]) or _HEAVY.search(str(ctx.get("query", ""))):
        evidence.append("aggregation in the query")
    if ctx.get("aggregation") or ctx.get("group_by"):
        evidence.append("aggregation requested")
    days = ctx.get("date_range_days")
    if isinstance(days, (int, float)) and days > 90:
        evidence.append(f"date range of {int(days)} days")
    rows = ctx.get("rows_scanned") or ctx.get("rows")
    if isinstance(rows, (int, float)) and rows > 1_000_000:
        evidence.append(f"{int(rows):,} rows scanned")
    if evidence:
        return {"root_cause": "heavy_aggregation", "confidence": 0.85, "evidence": evidence,
                "scope": "last_30_days"}
    return {"root_cause": "transient_db_issue", "confidence": 0.6, "evidence": ["timeout"]}


def _missing_field(error: dict, ctx: dict, synonyms: list) -> dict:
    field = ctx.get("field") or ctx.get("missing_field") or field_from(error["message"])
    available = [str(f) for f in ctx.get("available_fields") or ctx.get("fields") or []]
    if not field:
        return {"root_cause": "field_unknown", "confidence": 0.5, "evidence": [], "available": available}
    lower = {f.lower(): f for f in available}
    for syn in synonyms:
        if syn in lower:
            return {"root_cause": "field_renamed", "confidence": 0.95, "field": field,
                    "mapped_to": lower[syn], "evidence": [f"synonym store: {field} ~ {syn}"],
                    "available": available}
    import difflib  # lazy: keeps import dua fast

    close = difflib.get_close_matches(field.lower(), list(lower), n=3, cutoff=0.6)
    if close:
        ratio = difflib.SequenceMatcher(None, field.lower(), close[0]).ratio()
        return {"root_cause": "field_renamed", "confidence": round(ratio, 2), "field": field,
                "mapped_to": lower[close[0]], "candidates": [lower[c] for c in close],
                "evidence": [f"close match {close[0]!r} ({ratio:.2f})"], "available": available}
    return {"root_cause": "field_absent", "confidence": 0.8, "field": field, "available": available,
            "evidence": ["no synonym or close match among the available fields"]}


def field_from(message: str) -> str:
    quoted = _QUOTED.search(message)
    if quoted:
        return quoted.group(1)
    match = _FIELD_IN_MESSAGE.search(message)
    return (match.group(1) or match.group(2)) if match else ""


# (chart, kind of dimension) -> alternative chart
CHART_ALTERNATIVES = {("pie", "time"): "line", ("donut", "time"): "line", ("bar", "time"): "line",
                      ("line", "category"): "bar", ("area", "category"): "bar",
                      ("scatter", "category"): "bar", ("map", "category"): "bar",
                      ("map", "time"): "line", ("pie", "category"): "bar"}


def _incompatible_chart(error: dict, ctx: dict, synonyms: list) -> dict:
    chart = str(ctx.get("chart") or ctx.get("chart_type") or "").lower()
    if not chart:
        found = re.search(r"\b(pie|donut|bar|line|area|scatter|map)\b", error["message"], re.I)
        chart = found.group(1).lower() if found else ""
    dimension = str(ctx.get("dimension") or ctx.get("x") or "")
    is_time = any(w in dimension.lower() for w in TIME_WORDS) or "time" in error["message"].lower()
    kind = "time" if is_time else "category"
    alternative = CHART_ALTERNATIVES.get((chart, kind), "line" if is_time else "bar")
    confidence = 0.9 if (chart, kind) in CHART_ALTERNATIVES else 0.6
    return {"root_cause": f"{chart or 'chart'}_unsuitable_for_{kind}_data", "confidence": confidence,
            "chart": chart, "dimension": dimension, "dimension_kind": kind,
            "alternative": alternative, "evidence": [f"dimension {dimension or '?'} is {kind}"]}


def _ambiguous_input(error: dict, ctx: dict, synonyms: list) -> dict:
    said = [ctx.get(k) for k in ("input", "utterance", "user_input", "question", "prompt")]
    text = str(next((v for v in said if isinstance(v, str) and v.strip()), ""))
    if not text:
        quoted = _QUOTED.search(error["message"])
        text = quoted.group(1) if quoted else ""
    candidates = [str(c) for c in ctx.get("candidates") or ctx.get("interpretations") or []]
    if not candidates and text:
        base = text.strip().rstrip("?.!")
        candidates = [f"{base} by month for the last 12 months", f"{base} by product",
                      f"{base} by region"]
    return {"root_cause": "underspecified_request", "confidence": 0.9, "input": text,
            "clarifications": candidates[:3], "evidence": ["no dimension or time range given"]}


HEURISTICS = {"db_timeout": _db_timeout, "missing_field": _missing_field,
              "incompatible_chart": _incompatible_chart, "ambiguous_input": _ambiguous_input}


# --- recovery policy ------------------------------------------------------------------------


def decide(verdict: dict, rca: dict, error: dict, attempt: int, limits: dict | None = None) -> dict:
    """The recovery plan: strategy, actions to run, suggestions, next_action.

    ``attempt`` counts occurrences of the same problem (1 for the first); ``limits`` may set
    max_retries, max_refines and auto_fix_confidence.
    """
    limits = {"max_retries": MAX_RETRIES, "max_refines": MAX_REFINES,
              "auto_fix_confidence": AUTO_FIX_CONFIDENCE, **(limits or {})}
    rule = POLICIES.get(verdict["cause"], _unknown)
    plan = rule(verdict, rca, error, attempt, limits)
    hint = error["context"].get("hint")
    if isinstance(hint, str) and hint and hint not in plan["suggestions"]:
        plan["suggestions"].append(hint)
    return plan


def _plan(strategy: str, actions: list, suggestions: list, next_action: str) -> dict:
    return {"strategy": strategy, "actions": actions, "suggestions": suggestions,
            "next_action": next_action}


def _retry_or(attempt: int, limit: int, then: list) -> list:
    return [f"retry:{attempt}"] if attempt <= limit else then


def _p_db_timeout(verdict, rca, error, attempt, limits):
    actions = _retry_or(attempt, limits["max_retries"], [])
    actions.append("use_cache:true")
    if rca.get("root_cause") == "heavy_aggregation":
        actions.append(f"reduce_scope:{rca['scope']}")
    suggestions = ["Retry now", "Use cached results", "Narrow the date range"]
    # With retries spent and no cheaper scope to try, a person has to look.
    if attempt > limits["max_retries"] and rca.get("root_cause") != "heavy_aggregation":
        return _plan("fallback", actions + ["notify_ops:database"], suggestions[1:], "escalate")
    return _plan("retry" if actions[0].startswith("retry") else "fallback", actions, suggestions,
                 "resume")


def _p_missing_field(verdict, rca, error, attempt, limits):
    available = rca.get("available") or []
    mapped = rca.get("mapped_to")
    if mapped and rca["confidence"] >= limits["auto_fix_confidence"]:
        return _plan("auto_fix", [f"map_field:{rca['field']}->{mapped}"],
                     [f"Use {mapped} instead of {rca['field']}"] +
                     [f"Use {f}" for f in available if f != mapped][:3], "resume")
    candidates = rca.get("candidates") or ([mapped] if mapped else []) or available
    return _plan("ask_user", ["list_fields:%d" % len(available)] if available else [],
                 [f"Use {f}" for f in candidates[:4]] or ["Name the field to use"], "await_user")


def _p_incompatible_chart(verdict, rca, error, attempt, limits):
    alternative = rca["alternative"]
    suggestions = [f"Convert to {alternative} chart"]
    suggestions.append("Choose a categorical dimension (product)" if rca["dimension_kind"] == "time"
                       else "Choose a time dimension (month)")
    return _plan("suggest_alternative", [f"suggest_conversion:{alternative}"], suggestions, "resume")


def _p_ambiguous_input(verdict, rca, error, attempt, limits):
    # The count in ask_clarification is the number of prompts offered, generic one included.
    prompts = rca.get("clarifications") or ["Say which measure, dimension and time range you mean"]
    return _plan("ask_user", [f"ask_clarification:{len(prompts)}"], prompts, "await_user")


def _p_outage(verdict, rca, error, attempt, limits):
    service = str(error["context"].get("service") or error["agent_id"])
    return _plan("escalate", [f"notify_ops:{service}"],
                 ["Try again in a few minutes", "Continue with cached results if available"],
                 "escalate")


def _p_llm_transient(verdict, rca, error, attempt, limits):
    actions = _retry_or(attempt, limits["max_retries"], ["fallback:builtin"])
    strategy = "retry" if actions[0].startswith("retry") else "fallback"
    return _plan(strategy, actions, ["Retry later", "Use --provider builtin (no LLM)"], "resume")


def _p_llm_unusable(verdict, rca, error, attempt, limits):
    return _plan("fallback", ["fallback:builtin"], ["Use --provider builtin (no LLM)"], "resume")


def _p_llm_invalid_answer(verdict, rca, error, attempt, limits):
    # Advice fits what was used: with JSON mode already on, "use JSON mode" would not help.
    stronger = ("Try a stronger model" if error["context"].get("json_mode")
                else "Use a model that supports tools or JSON mode")
    return _plan("fallback", ["fallback:builtin"], [stronger, "Use --provider builtin (no LLM)"],
                 "resume")


def _p_document_unreadable(verdict, rca, error, attempt, limits):
    return _plan("ask_user", [], [], "await_user")


def _p_parser_failed(verdict, rca, error, attempt, limits):
    # The agent may have a cap of its own (dua parse --max-retries): no refinement left there.
    if attempt <= limits["max_refines"] and error["context"].get("refinements_left") != 0:
        return _plan("refine", [f"refine:{attempt}"], ["Let the agent refine the parser"], "resume")
    if error["context"].get("agent") is False:  # dua run: no agent, no --expected to pass
        return _plan("ask_user", [], ["Check that the statement is from the parser's bank and "
                                      "layout"], "await_user")
    if error["context"].get("expected"):  # the answer key was given: check it, not ask for it
        return _plan("ask_user", [], ["Check that the expected CSV is this statement's "
                                      "transactions, in its column names", "Check that the "
                                      "statement layout is supported"], "await_user")
    return _plan("ask_user", [], ["Pass --expected with a known-good CSV",
                                  "Check that the statement layout is supported"], "await_user")


def _p_bad_request(verdict, rca, error, attempt, limits):
    problems = error["context"].get("problems")
    listed = [str(p) for p in problems][:5] if isinstance(problems, list) else []
    return _plan("ask_user", [], [f"Fix {p}" for p in listed], "await_user")


def _p_internal(verdict, rca, error, attempt, limits):
    return _plan("escalate", [f"notify_ops:{error['agent_id']}"],
                 ["Re-run with --debug and report the traceback"], "escalate")


def _p_store_unusable(verdict, rca, error, attempt, limits):
    # Usually a path or permission the person running dua can fix; no traceback to report.
    return _plan("escalate", [f"notify_ops:{error['agent_id']}"],
                 ["Check the store path (--db or DUA_HOME) and its permissions",
                  "Move aside a file that is not a dua store"], "escalate")


def _p_output_unusable(verdict, rca, error, attempt, limits):
    # A full disk, or a pipe whose reader left: the person running dua fixes it and runs
    # again; there is no bug to report and nobody else to tell.
    return _plan("ask_user", [], [], "await_user")


def _unknown(verdict, rca, error, attempt, limits):
    # A best guess is never acted on: ask, or hand over to a person for system failures.
    if verdict["error_type"] == "system_error":
        return _p_internal(verdict, rca, error, attempt, limits)
    return _plan("ask_user", [], ["Rephrase the request", "Try again"], "await_user")


POLICIES = {"db_timeout": _p_db_timeout, "missing_field": _p_missing_field,
            "incompatible_chart": _p_incompatible_chart, "ambiguous_input": _p_ambiguous_input,
            "outage": _p_outage, "llm_transient": _p_llm_transient, "llm_unusable": _p_llm_unusable,
            "llm_invalid_answer": _p_llm_invalid_answer,
            "document_unreadable": _p_document_unreadable, "parser_failed": _p_parser_failed,
            "bad_request": _p_bad_request, "internal": _p_internal,
            "store_unusable": _p_store_unusable, "output_unusable": _p_output_unusable}
