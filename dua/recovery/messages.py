"""The message generator: one short, actionable user message per probable cause.

Messages say what happened in plain words and what happens next; they never show stack traces.
"""
from __future__ import annotations


def user_message(verdict: dict, rca: dict, error: dict, plan: dict, done: list) -> str:
    """The sentence(s) shown to the user, given the plan and the actions actually run."""
    writer = TEMPLATES.get(verdict["cause"], _generic)
    return writer(rca, error, plan, done)


def _has(done: list, prefix: str) -> bool:
    return any(a.startswith(prefix) for a in done)


def _hint(error: dict) -> str:
    hint = error["context"].get("hint")
    return f" {hint}" if isinstance(hint, str) and hint else ""


def _db_timeout(rca, error, plan, done):
    base = "I couldn't retrieve the full data right now (database timeout)."
    if plan["next_action"] == "escalate":
        return base + " Retries did not help, so I've alerted the operators."
    # Say what was done, not what may happen: a queued retry runs only when the caller's
    # pipeline drains the queue (nothing in the handler runs it by itself).
    steps = []
    attempt = next((a.partition(":")[2] for a in done if a.startswith("retry:")), None)
    if attempt:
        steps.append(f"I've queued retry {attempt} of this query; it runs when your pipeline "
                     "drains the retry queue (dua.recovery.actions.drain_retries)")
    if "use_cache:true" in done:
        steps.append("cached results are available meanwhile")
    if _has(done, "reduce_scope:"):
        steps.append("run the query again narrowed to the last 30 days")
    tail = ("; ".join(steps) + ".") if steps else "Try a shorter date range."
    return f"{base} {tail[0].upper()}{tail[1:]}"


def _missing_field(rca, error, plan, done):
    field = rca.get("field") or "the requested field"
    if plan["strategy"] == "auto_fix":
        return f"'{field}' isn't in this data; I used '{rca['mapped_to']}', which means the same."
    available = rca.get("available") or []
    listed = f" Available fields: {', '.join(available[:8])}." if available else ""
    return f"I couldn't find the field '{field}'.{listed} Which one should I use?"


def _incompatible_chart(rca, error, plan, done):
    chart = (rca.get("chart") or "this").capitalize()
    alt = rca["alternative"]
    if rca["dimension_kind"] == "time":
        return (f"{chart} charts work best for categorical data. For data over time, a {alt} "
                f"chart fits better; I can convert it to a {alt} chart.")
    return f"{chart} charts don't suit this data; a {alt} chart fits better. I can convert it."


def _ambiguous_input(rca, error, plan, done):
    said = rca.get("input")
    quoted = f" '{said}'" if said else ""
    return f"Your request{quoted} can mean several things. Which one did you mean?"


def _outage(rca, error, plan, done):
    return "This service is temporarily unavailable; please try again in a few minutes."


def _llm_transient(rca, error, plan, done):
    if _has(done, "retry:"):
        return f"The language model did not answer properly ({error['message']}); retrying."
    return ("The language model keeps failing; continuing with the built-in engine "
            "(no LLM).")


def _llm_unusable(rca, error, plan, done):
    return (f"The language model cannot be used: {error['message'].rstrip('.')}. "
            f"Continuing with the built-in engine.{_hint(error)}")


def _llm_invalid_answer(rca, error, plan, done):
    # The generic class hint ("Retry, or use … JSON mode") is left out: the answer was already
    # retried with the validation error, and the suggestions say what fits what was used.
    tries = error["context"].get("attempt_errors")
    told = (" after it was told what was wrong" if isinstance(tries, list) and len(tries) > 1
            else "")
    return (f"The language model's answer did not fit the expected structure{told} "
            f"({error['message'].rstrip('.')}). Continuing with the built-in result.")


def _document(rca, error, plan, done):
    return f"{error['message'].rstrip('.')}.{_hint(error)}"


def _parser_failed(rca, error, plan, done):
    if error["context"].get("agent") is False:  # dua run: a saved parser, nothing refines it
        return f"The parser failed on this file: {error['message'].rstrip('.')}.{_hint(error)}"
    if plan["next_action"] == "resume":
        return f"The generated parser failed ({error['message'].rstrip('.')}); refining it."
    return f"The parser is not verified: {error['message'].rstrip('.')}.{_hint(error)}"


def _bad_request(rca, error, plan, done):
    return f"The request could not be used: {error['message'].rstrip('.')}.{_hint(error)}"


def _internal(rca, error, plan, done):
    # Nothing is reported anywhere by itself: say so, and what a useful report holds.
    return (f"This is a bug in dua: {error['message'].rstrip('.')}. Nothing has been reported; "
            "please report it with the command, `python -m dua --version`, the output of the "
            "same command with --debug, and the input file if you can share it.")


def _store_unusable(rca, error, plan, done):
    # The store's own message names the file and the problem; no "operators notified" here,
    # since whoever runs dua is the one who can fix a path or a permission.
    return f"{error['message'].rstrip('.')}.{_hint(error)}"


def _output_unusable(rca, error, plan, done):
    # The output's own message names the path and what happened (a full disk, a pipe's
    # reader gone); its hint says what to do.
    return f"{error['message'].rstrip('.')}.{_hint(error)}"


def _generic(rca, error, plan, done):
    if plan["next_action"] == "escalate":
        return _internal(rca, error, plan, done)
    return f"Something went wrong: {error['message'].rstrip('.')}. Please rephrase or try again."


TEMPLATES = {"db_timeout": _db_timeout, "missing_field": _missing_field,
             "incompatible_chart": _incompatible_chart, "ambiguous_input": _ambiguous_input,
             "outage": _outage, "llm_transient": _llm_transient, "llm_unusable": _llm_unusable,
             "llm_invalid_answer": _llm_invalid_answer,
             "document_unreadable": _document, "parser_failed": _parser_failed,
             "bad_request": _bad_request, "internal": _internal, "store_unusable": _store_unusable,
             "output_unusable": _output_unusable}
