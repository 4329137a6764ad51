"""Where requests go and how they authenticate: DUA_LLM_BASE_URL and DUA_LLM_API_KEY as
users write them, model names in Gemini URLs, 404s that mean "wrong URL" not "wrong model"."""
from __future__ import annotations

import unittest

from dua.config import Settings
from dua.errors import ModelNotFoundError, UsageError
from dua.llm import get_provider
from dua.llm.transport import RetryPolicy
from tests.llm_server import LLMServer, Turn

_HI = [{"role": "user", "content": "hi"}]


def _provider(name: str, base_url: str, model: str = "m", key: str | None = None):
    return get_provider(Settings(provider=name, model=model, base_url=base_url, api_key=key),
                        retry=RetryPolicy(max_retries=1, backoff_base=0.001))


class BaseURLTest(unittest.TestCase):
    def test_openai_base_url_with_or_without_v1_slash_or_endpoint_reaches_the_same_route(self):
        with LLMServer([Turn(text="hi")] * 5) as server:
            for base in ("", "/", "/v1", "/v1/", "/v1/chat/completions"):
                self.assertEqual(_provider("openai", server.url + base).complete(_HI).text, "hi")
        self.assertEqual([r.path for r in server.requests], ["/v1/chat/completions"] * 5)

    def test_gemini_base_url_with_or_without_v1beta_reaches_the_same_route(self):
        with LLMServer([Turn(text="hi")] * 3) as server:
            for base in ("", "/", "/v1beta/"):
                self.assertEqual(_provider("gemini", server.url + base).complete(_HI).text, "hi")
        self.assertEqual([r.path for r in server.requests], ["/v1beta/models/m:generateContent"] * 3)

    def test_base_url_that_is_not_http_with_a_host_is_a_usage_error_naming_the_variable(self):
        for base in ("localhost:11434/v1", "ftp://127.0.0.1/v1", "http://", "http://h:99999/v1",
                     "http://my host/v1"):
            with self.subTest(base=base), self.assertRaises(UsageError) as caught:
                _provider("openai", base)
            self.assertIn(repr(base), str(caught.exception))
            self.assertIn("DUA_LLM_BASE_URL", caught.exception.hint)

    def test_a_key_pasted_into_the_base_url_is_refused_without_being_echoed(self):
        for base in ("https://generativelanguage.googleapis.com/v1beta?key=AIzaSECRET",
                     "http://user:AIzaSECRET@localhost:8080/v1", "http://h/v1#AIzaSECRET"):
            with self.subTest(base=base), self.assertRaises(UsageError) as caught:
                _provider("gemini", base)
            self.assertNotIn("SECRET", str(caught.exception))
            self.assertIn("DUA_LLM_API_KEY", caught.exception.hint)

    def test_404_without_a_provider_error_blames_the_base_url_not_the_model(self):
        with LLMServer([]) as server:  # FastAPI's {"detail": "Not Found"} for an unknown path
            with self.assertRaises(ModelNotFoundError) as caught:
                _provider("openai", server.url + "/api").complete(_HI)
        self.assertEqual(server.count, 1)
        self.assertIn("no LLM API at " + server.url + "/api/chat/completions", str(caught.exception))
        self.assertNotIn("model 'm'", str(caught.exception))
        self.assertIn("DUA_LLM_BASE_URL", caught.exception.user_message)

    def test_gemini_model_name_with_a_space_is_quoted_and_sent_once(self):
        with LLMServer([Turn(text="hi")]) as server:
            _provider("gemini", server.url + "/v1beta", model="gemini 2.5").complete(_HI)
        self.assertEqual(server.count, 1)
        self.assertEqual(server.requests[0].path, "/v1beta/models/gemini%202.5:generateContent")


class APIKeyTest(unittest.TestCase):
    def test_a_key_read_from_a_file_with_its_newline_is_sent_without_it(self):
        with LLMServer([Turn(text="hi")] * 2) as server:
            _provider("openai", server.url, key="sk-abc123\r\n").complete(_HI)
            _provider("gemini", server.url, key=" AIza-abc123\n").complete(_HI)
        self.assertEqual(server.requests[0].headers["authorization"], "Bearer sk-abc123")
        self.assertEqual(server.requests[1].headers["x-goog-api-key"], "AIza-abc123")

    def test_a_key_no_header_can_carry_is_a_usage_error_that_does_not_quote_it(self):
        for key in ("sk-SEC RET1", "sk-SECRET1\x00", "sk-SECR\u00c9T1", "sk-SECRET1\nsk-x"):
            for name in ("openai", "gemini"):
                with self.subTest(key=key, provider=name), \
                        self.assertRaises(UsageError) as caught:
                    _provider(name, "http://127.0.0.1:9/v1", key=key)
                self.assertNotIn("SEC", str(caught.exception))
                self.assertIn("DUA_LLM_API_KEY", caught.exception.hint)


if __name__ == "__main__":
    unittest.main()
