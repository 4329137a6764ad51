"""Every exception dua raises, in one flat module that imports nothing from dua.

    DuaError                                  root; knows error_type, error_code, retryable, hint
    ├── UnexpectedError                       a bug: any foreign exception, wrapped
    ├── UsageError (ValueError)               bad flags or arguments            exit 2
    │   └── MissingDependencyError (ImportError)
    ├── ResponseError                         seed 002: the LLM answered, but not usefully
    │   ├── EmptyResponseError
    │   │   ├── NoCandidatesError             no choices / candidates
    │   │   │   └── PromptBlockedError        the provider refused the prompt (blockReason)
    │   │   ├── NoTextError                   a candidate with neither text nor tool calls
    │   │   │   └── ContentFilteredError      content_filter, SAFETY, RECITATION, refusal
    │   │   └── NoToolActivityError           a tool was required and none was called
    │   ├── ResponseValidationError (ValueError)
    │   │   ├── MissingAttributeError
    │   │   ├── InvalidStructureError         not JSON, bad SSE framing, HTML
    │   │   └── UnexpectedTypeError
    │   ├── ToolExecutionError
    │   │   ├── ToolNotFoundError
    │   │   ├── ToolFailedError
    │   │   └── ToolArgumentsError (ValueError)  arguments that are not a JSON object
    │   ├── TruncatedResponseError            finish_reason length / MAX_TOKENS
    │   ├── StreamInterruptedError            a stream that stopped without finishing
    │   └── UnusableAnswerError               answers that never held a usable parser
    │       ├── RepeatedRequestError          the same request twice in one run: not sent
    │       └── LLMBudgetSpentError           the run's total LLM deadline is spent
    ├── StructuredOutputError                 seed 003
    │   ├── MultipleStructuredOutputsError
    │   └── StructuredOutputValidationError (ValueError)
    ├── TransportError                        talking to the LLM server failed
    │   ├── LLMConnectionError (ConnectionError)
    │   ├── LLMTimeoutError (TimeoutError)
    │   ├── AuthenticationError (PermissionError)
    │   ├── RateLimitError                    carries retry_after
    │   ├── QuotaExceededError                a 429 that waiting will not fix
    │   ├── ServerError
    │   ├── BadRequestError (ValueError)
    │   │   └── ContextLengthError
    │   ├── ModelNotFoundError (LookupError)
    │   └── ProviderError                     an error event inside a 200 stream
    ├── DocumentError                         the input PDF                     exit 3
    │   ├── DocumentNotFoundError (FileNotFoundError)
    │   ├── NotAPDFError (ValueError)
    │   ├── EncryptedPDFError (PermissionError)
    │   ├── CorruptPDFError (ValueError)
    │   ├── NoTextLayerError (ValueError)
    │   ├── OCRFailedError                    tesseract failed on a scanned page
    │   ├── NoPagesError (ValueError)         a valid PDF whose page tree is empty
    │   ├── PDFReadTimeoutError (TimeoutError)  not read within --read-timeout
    │   └── PDFMemoryLimitError (MemoryError)   reading it needed more memory than allowed
    ├── GeneratedCodeError                    an untrusted parser misbehaved
    │   ├── PolicyViolationError              rejected by the static check
    │   ├── ParserCrashedError
    │   ├── ParserTimeoutError (TimeoutError)
    │   ├── ResourceLimitError (MemoryError)
    │   └── BadReturnValueError (TypeError)
    ├── VerificationError                     ran, but the result is not proven  exit 1
    ├── SchemaError (ValueError)              data that does not fit a dua schema
    │   └── PayloadValidationError            a malformed seed-004 error payload
    ├── GraphError
    │   ├── InvalidGraphError (ValueError)
    │   └── StepLimitError (RecursionError)
    ├── StoreError                            the Error Handler's sqlite store is unusable
    ├── OutputError (OSError)                 an output could not be written whole (a full disk)
    │   └── OutputClosedError (ConnectionError)  a pipe's reader left before the output was whole
    └── CoverageError (AssertionError)        a bug: extract lost or doubled a word

Every class sets its canonical seed-004 ``error_type``, a stable UPPER_SNAKE
``error_code``, whether retrying can help, and a ``hint`` naming what fixes it.
"""
from __future__ import annotations

import time

ERROR_TYPES = (
    "input_error",
    "schema_error",
    "query_error",
    "chart_error",
    "system_error",
    "validation_error",
)

# One exit-code table (pip's status_codes); cli.py reads it, --help prints it.
EXIT_OK = 0
EXIT_NOT_VERIFIED = 1
EXIT_USAGE = 2
EXIT_BAD_INPUT = 3
EXIT_FAILURE = 4
EXIT_INTERRUPTED = 130

_EXCERPT = 500


def excerpt(text: object, limit: int = _EXCERPT) -> str:
    """Shorten ``text`` for messages and payloads, marking the cut."""
    s = text if isinstance(text, str) else repr(text)
    return s if len(s) <= limit else s[:limit] + f"… [{len(s) - limit} more chars]"


class DuaError(Exception):
    """Root of every dua error.

    ``details`` are keyword arguments kept as attributes and in ``context``;
    they carry what a caller needs to act (path, status, retry_after, …).
    """

    error_type = "system_error"
    error_code = "DUA_ERROR"
    retryable = False
    exit_code = EXIT_FAILURE
    hint = ""

    def __init__(self, message: str = "", *, hint: str | None = None, **details: object):
        self.message = message or self.__class__.__doc__.strip().splitlines()[0]
        if hint is not None:
            self.hint = hint
        self.details = details
        for key, value in details.items():
            setattr(self, key, value)
        super().__init__(self.message)

    @property
    def user_message(self) -> str:
        """What happened and what to do, in one or two sentences."""
        return f"{self.message.rstrip('.')}. {self.hint}" if self.hint else self.message

    def to_payload(
        self,
        agent_id: str,
        query_id: str | None = None,
        context: dict | None = None,
        timestamp: str | None = None,
    ) -> dict:
        """Seed 004's standard error payload for this error."""
        ctx = {k: _jsonable(v) for k, v in self.details.items()}
        ctx.update(context or {})
        ctx.setdefault("exception", type(self).__name__)
        if self.hint:
            ctx.setdefault("hint", self.hint)
        return {
            "agent_id": agent_id,
            "timestamp": timestamp or utc_now(),
            "status": "error",
            "data": {
                "error_type": self.error_type,
                "error_code": self.error_code,
                "message": self.message,
                "context": ctx,
                "query_id": query_id or "q_unknown",
            },
        }


def utc_now() -> str:
    """ISO 8601 UTC timestamp with a Z suffix, to the second."""
    global _NOW
    now = int(time.time())
    if _NOW[0] != now:  # formatted once a second: the Error Handler stamps every answer
        _NOW = (now, time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now)))
    return _NOW[1]


_NOW = (0, "")


def _jsonable(value: object) -> object:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, BaseException):
        return f"{type(value).__name__}: {value}"
    return repr(value)


def payload_from_exception(
    exc: BaseException,
    agent_id: str,
    query_id: str | None = None,
    context: dict | None = None,
) -> dict:
    """Seed 004's payload for any exception; foreign ones become UNEXPECTED_ERROR."""
    if isinstance(exc, DuaError):
        return exc.to_payload(agent_id, query_id, context)
    wrapped = UnexpectedError(
        f"{type(exc).__name__}: {excerpt(str(exc), 300)}", exception=type(exc).__name__
    )
    return wrapped.to_payload(agent_id, query_id, context)


class UnexpectedError(DuaError):
    """An unexpected internal error."""

    error_code = "UNEXPECTED_ERROR"
    hint = "Re-run with --debug and report the traceback."


# --- usage ------------------------------------------------------------------


class UsageError(DuaError, ValueError):
    """The command line or the call was not usable."""

    error_type = "input_error"
    error_code = "USAGE_ERROR"
    exit_code = EXIT_USAGE
    hint = "See --help."


class MissingDependencyError(UsageError, ImportError):
    """A required package is not installed."""

    error_code = "MISSING_DEPENDENCY"
    exit_code = EXIT_FAILURE
    hint = "Install it with: python -m pip install pdfplumber pandas"


# --- seed 002: LLM responses ------------------------------------------------


class ResponseError(DuaError):
    """The LLM answered, but the answer cannot be used."""

    error_code = "LLM_RESPONSE_ERROR"
    hint = "This may be a temporary model issue; try again or use --provider builtin."


class EmptyResponseError(ResponseError):
    """Empty response from the LLM."""

    error_code = "LLM_EMPTY_RESPONSE"
    retryable = True

    def __init__(self, reason: str = "", **details: object):
        details.setdefault("reason", reason)
        super().__init__(f"Empty response: {reason}" if reason else "", **details)


class NoCandidatesError(EmptyResponseError):
    """The LLM returned no candidates."""

    error_code = "LLM_NO_CANDIDATES"


class PromptBlockedError(NoCandidatesError):
    """The provider blocked the prompt and returned no candidates."""

    error_code = "LLM_PROMPT_BLOCKED"
    retryable = False
    hint = "Rephrase the request or use --provider builtin; retrying the same prompt will not help."


class NoTextError(EmptyResponseError):
    """The LLM returned neither text nor tool calls."""

    error_code = "LLM_NO_TEXT"


class ContentFilteredError(NoTextError):
    """The provider's safety filter blocked the answer."""

    error_code = "LLM_CONTENT_FILTERED"
    retryable = False
    hint = "Rephrase the request or use --provider builtin; retrying the same prompt will not help."


class NoToolActivityError(EmptyResponseError):
    """A tool call was required but the LLM answered without one."""

    error_code = "LLM_NO_TOOL_CALL"


class ResponseValidationError(ResponseError, ValueError):
    """Invalid response structure."""

    error_code = "LLM_INVALID_RESPONSE"
    retryable = True

    def __init__(self, expected: str = "", got: str = "", **details: object):
        msg = f"Invalid response structure: expected {expected}, got {got}" if expected else ""
        if msg and details.get("path"):
            msg += f" at {details['path']}"  # which field, so the user can look at the raw answer
        super().__init__(msg, expected=expected, got=got, **details)


class MissingAttributeError(ResponseValidationError):
    """A required field is missing from the response."""

    error_code = "LLM_MISSING_FIELD"


class InvalidStructureError(ResponseValidationError):
    """The response is not in the expected wire format."""

    error_code = "LLM_INVALID_STRUCTURE"


class UnexpectedTypeError(ResponseValidationError):
    """A response field has the wrong type."""

    error_code = "LLM_UNEXPECTED_TYPE"


class ToolExecutionError(ResponseError):
    """A tool call failed."""

    error_code = "LLM_TOOL_ERROR"

    def __init__(self, tool_name: str = "", error: str = "", **details: object):
        msg = f"Tool '{tool_name}' failed: {error}" if tool_name else ""
        super().__init__(msg, tool_name=tool_name, error=error, **details)


class ToolNotFoundError(ToolExecutionError):
    """The LLM called a tool that does not exist."""

    error_code = "LLM_TOOL_NOT_FOUND"


class ToolFailedError(ToolExecutionError):
    """A tool raised while running."""

    error_code = "LLM_TOOL_FAILED"


class TruncatedResponseError(ResponseError):
    """The answer was cut off by the token limit."""

    error_code = "LLM_TRUNCATED"
    hint = "Raise max_tokens or ask for a shorter answer; a cut-off answer is never repaired."


class StreamInterruptedError(ResponseError):
    """The stream stopped before the model finished."""

    error_code = "LLM_STREAM_INTERRUPTED"
    retryable = True


class UnusableAnswerError(ResponseError):
    """The model's answers could not be turned into a parser."""

    error_code = "LLM_UNUSABLE_PARSER"
    hint = "Try a stronger model, --llm-mode settings, or --provider builtin."


class RepeatedRequestError(UnusableAnswerError):
    """The run was about to send a request it had already sent (the answer would repeat)."""

    error_code = "LLM_REPEATED_REQUEST"
    hint = "Nothing new to ask the model; the built-in writer's result stands."


class LLMBudgetSpentError(UnusableAnswerError):
    """The run's total LLM deadline is spent; no further request is sent."""

    error_code = "LLM_BUDGET_SPENT"
    hint = "Raise --llm-budget (DUA_LLM_BUDGET), or use --provider builtin."


class ToolArgumentsError(ToolExecutionError, ValueError):
    """The LLM called a tool with arguments that are not a JSON object."""

    error_code = "LLM_TOOL_BAD_ARGUMENTS"
    retryable = True


# --- seed 003: structured output -------------------------------------------


class StructuredOutputError(DuaError):
    """The model's structured output could not be used."""

    error_type = "schema_error"
    error_code = "STRUCTURED_OUTPUT_ERROR"
    # Neutral on purpose: whether JSON mode or tools were on is the caller's to say.
    hint = "Retry; if it persists, try a stronger model, or --provider builtin."


class MultipleStructuredOutputsError(StructuredOutputError):
    """The model returned several structured outputs where one was expected."""

    error_code = "MULTIPLE_STRUCTURED_OUTPUTS"

    def __init__(self, tool_names: list | tuple = (), **details: object):
        names = ", ".join(map(str, tool_names))
        super().__init__(
            f"Model returned multiple structured outputs ({names}) when one was expected",
            tool_names=list(tool_names),
            **details,
        )


class StructuredOutputValidationError(StructuredOutputError, ValueError):
    """The structured output did not match the schema."""

    error_code = "STRUCTURED_OUTPUT_INVALID"

    def __init__(self, tool_name: str = "", source: object = None, **details: object):
        super().__init__(
            f"Failed to parse structured output for '{tool_name}': {source}",
            tool_name=tool_name,
            source=source,
            **details,
        )
        if isinstance(source, BaseException):
            self.__cause__ = source


# --- transport ----------------------------------------------------------------


class TransportError(DuaError):
    """Talking to the LLM server failed."""

    error_code = "LLM_TRANSPORT_ERROR"
    hint = "Check DUA_LLM_BASE_URL and that the server is up, or use --provider builtin."


class LLMConnectionError(TransportError, ConnectionError):
    """Could not connect to the LLM server."""

    error_code = "LLM_CONNECTION_FAILED"
    retryable = True


class LLMTimeoutError(TransportError, TimeoutError):
    """The LLM server did not answer in time."""

    error_code = "LLM_TIMEOUT"
    retryable = True
    hint = "Raise DUA_LLM_TIMEOUT or use a smaller model."


class AuthenticationError(TransportError, PermissionError):
    """The LLM server refused the API key."""

    error_code = "LLM_AUTH_FAILED"
    hint = "Set a valid key in DUA_LLM_API_KEY."


class RateLimitError(TransportError):
    """The LLM server is rate limiting requests."""

    error_code = "LLM_RATE_LIMITED"
    retryable = True
    hint = "Wait and retry, or lower the request rate."


class QuotaExceededError(TransportError):
    """The LLM account's quota is exhausted."""

    error_code = "LLM_QUOTA_EXCEEDED"
    hint = "Retrying will not help: check the plan and billing of the account behind DUA_LLM_API_KEY."


class ServerError(TransportError):
    """The LLM server failed."""

    error_code = "LLM_SERVER_ERROR"
    retryable = True


class BadRequestError(TransportError, ValueError):
    """The LLM server rejected the request."""

    error_type = "query_error"
    error_code = "LLM_BAD_REQUEST"
    hint = "Check DUA_LLM_MODEL and the provider's documentation."


class ContextLengthError(BadRequestError):
    """The prompt is longer than the model's context window."""

    error_code = "LLM_CONTEXT_TOO_LONG"
    hint = "Use a model with a larger context window or fewer pages."


class ModelNotFoundError(TransportError, LookupError):
    """The LLM server does not know the model."""

    error_type = "query_error"
    error_code = "LLM_MODEL_NOT_FOUND"
    hint = "Set DUA_LLM_MODEL to a model the server serves."


class ProviderError(TransportError):
    """The LLM server reported an error inside its answer."""

    error_code = "LLM_PROVIDER_ERROR"
    retryable = True


# --- documents ----------------------------------------------------------------


class DocumentError(DuaError):
    """The input document cannot be read."""

    error_type = "input_error"
    error_code = "DOCUMENT_ERROR"
    exit_code = EXIT_BAD_INPUT


class DocumentNotFoundError(DocumentError, FileNotFoundError):
    """The file does not exist."""

    error_code = "FILE_NOT_FOUND"
    hint = "Check the path."


class NotAPDFError(DocumentError, ValueError):
    """The file is not a PDF."""

    error_code = "NOT_A_PDF"
    hint = "Pass a PDF file."


class EncryptedPDFError(DocumentError, PermissionError):
    """The PDF is encrypted and the password is missing or wrong."""

    error_code = "PDF_ENCRYPTED"
    hint = "Pass the right password with --password."


class CorruptPDFError(DocumentError, ValueError):
    """The PDF is damaged or truncated."""

    error_code = "PDF_CORRUPT"
    hint = "Re-download or re-export the file."


class NoTextLayerError(DocumentError, ValueError):
    """The PDF has no text layer (it is a scanned image)."""

    error_code = "NO_TEXT_LAYER"
    hint = ("Run OCR first: dua does it with tesseract once it is on PATH (and --ocr is not "
            "never): Debian/Ubuntu: sudo apt-get install tesseract-ocr; Fedora: sudo dnf install "
            "tesseract; macOS: brew install tesseract; Windows: winget install "
            "UB-Mannheim.TesseractOCR; or OCR it elsewhere (ocrmypdf in.pdf out.pdf) and pass "
            "that file.")


class OCRFailedError(DocumentError):
    """Tesseract could not read a scanned page (it failed, or took longer than allowed)."""

    error_code = "OCR_FAILED"
    hint = ("Try --ocr-dpi 200 (faster) or a longer --read-timeout; run `dua ocr SCAN.pdf "
            "--out COPY.pdf --debug` to see tesseract's own message.")


class NoPagesError(DocumentError, ValueError):
    """The PDF has no pages: its page tree is empty."""

    error_code = "PDF_NO_PAGES"
    hint = "Check that the file is the whole statement; a PDF with no pages holds nothing to read."


class PDFReadTimeoutError(DocumentError, TimeoutError):
    """The PDF could not be read within its time budget."""

    error_code = "PDF_READ_TIMEOUT"
    hint = ("A damaged or hostile file never finishes: re-download or re-export it; a very "
            "large one may need more time: pass --read-timeout S.")


class PDFMemoryLimitError(DocumentError, MemoryError):
    """Reading the PDF needed more memory than a PDF reader is allowed."""

    error_code = "PDF_MEMORY_LIMIT"
    hint = "The file is damaged or a decompression bomb: re-download or re-export it."


# --- generated code -------------------------------------------------------------


class GeneratedCodeError(DuaError):
    """A generated parser failed."""

    error_code = "GENERATED_CODE_ERROR"
    hint = "The agent refines the parser; for a saved parser, re-run dua parse to regenerate it."


class PolicyViolationError(GeneratedCodeError):
    """The generated parser was rejected by the safety policy."""

    error_type = "validation_error"
    error_code = "PARSER_REJECTED"
    hint = "Use only pdfplumber, pandas and pure standard-library modules; no files, network or processes."


class ParserCrashedError(GeneratedCodeError):
    """The generated parser raised an exception."""

    error_code = "PARSER_CRASHED"


class ParserTimeoutError(GeneratedCodeError, TimeoutError):
    """The generated parser ran past its time limit."""

    error_code = "PARSER_TIMEOUT"
    hint = "Raise --timeout if the statement is very long."


class ResourceLimitError(GeneratedCodeError, MemoryError):
    """The generated parser exceeded a resource limit."""

    error_code = "PARSER_RESOURCE_LIMIT"


class BadReturnValueError(GeneratedCodeError, TypeError):
    """The generated parser did not return a pandas DataFrame."""

    error_type = "validation_error"
    error_code = "PARSER_BAD_RETURN"


# --- verification, payloads, graph -------------------------------------------


class VerificationError(DuaError):
    """The result could not be verified."""

    error_type = "validation_error"
    error_code = "NOT_VERIFIED"
    exit_code = EXIT_NOT_VERIFIED
    hint = "Pass --expected with a known-good CSV, or check the statement layout."


class SchemaError(DuaError, ValueError):
    """The data does not fit the schema."""

    error_type = "schema_error"
    error_code = "INVALID_DATA"
    exit_code = EXIT_BAD_INPUT

    def __init__(self, problems: list | tuple = (), **details: object):
        problems = list(problems)
        super().__init__("; ".join(problems), problems=problems, **details)


class PayloadValidationError(SchemaError):
    """The error payload is malformed."""

    error_type = "validation_error"
    error_code = "INVALID_PAYLOAD"
    hint = "Send seed 004's standard error payload."


class GraphError(DuaError):
    """A workflow graph failed."""

    error_code = "GRAPH_ERROR"


class InvalidGraphError(GraphError, ValueError):
    """The workflow graph is malformed."""

    error_code = "INVALID_GRAPH"


class StepLimitError(GraphError, RecursionError):
    """The workflow ran past its step limit."""

    error_code = "STEP_LIMIT_EXCEEDED"
    hint = "Raise the step limit or check the routes for a loop."


class StoreError(DuaError):
    """The Error Handler's store cannot be used."""

    error_code = "STORE_ERROR"
    hint = "Check that DUA_HOME (or serve --db) points to a writable directory."


class OutputError(DuaError, OSError):
    """An output could not be written whole (the destination itself was usable)."""

    error_code = "OUTPUT_FAILED"
    hint = "Check the free space where the output goes, or write it elsewhere with --out."


class OutputClosedError(OutputError, ConnectionError):
    """The reader of an output pipe went away before the output was whole."""

    error_code = "OUTPUT_CLOSED"
    hint = "Keep the program that reads the pipe running until dua ends, or write to a file."


class CoverageError(DuaError, AssertionError):
    """Extraction lost or duplicated words of the text layer (a bug in dua, never bad input)."""

    error_code = "COVERAGE_VIOLATED"
    hint = "This is a bug in dua: please report it with the PDF (or its page) and --debug output."
