"""The real-model bench's counting proxy, against the test server: what it counts is what
the server answered, so the bench's dua-vs-server check means something."""
from __future__ import annotations

import json
import unittest
import urllib.error
import urllib.request

from tests.bench.bench_llm_real import CountingProxy, _flags, _usage_tokens
from tests.llm_server import Fail, LLMServer, Turn
from tests.test_classify import llm_provider


class CountingProxyTest(unittest.TestCase):
    def test_requests_usage_and_repeats_are_counted_as_the_server_answered(self):
        script = [Turn(text="a", usage=(120, 7)), Fail("server"), Turn(text="b", usage=(30, 4))]
        with LLMServer(script) as server:
            proxy = CountingProxy(server.url + "/v1")
            self.addCleanup(proxy.close)
            provider = llm_provider(proxy.url[:-len("/v1")])
            first = provider.complete([{"role": "user", "content": "hi"}], max_tokens=9)
            with self.assertRaises(Exception):  # the 500 goes through the proxy unchanged
                provider.complete([{"role": "user", "content": "hi"}], max_tokens=9)
            provider.complete([{"role": "user", "content": "again"}], max_tokens=9)
        self.assertEqual(first.text, "a")
        self.assertEqual(server.count, 3)
        # Three requests reached the server; the second repeated the first's body exactly.
        self.assertEqual(proxy.snapshot(), (3, 120 + 7 + 30 + 4, 1))
        self.assertEqual((provider.usage.calls,
                          provider.usage.input_tokens + provider.usage.output_tokens),
                         (3, 161))

    def test_a_retry_after_a_failure_is_no_repeat_and_a_dead_server_answers_nothing(self):
        script = [Fail("server"), Turn(text="a", usage=(10, 2))]
        with LLMServer(script) as server:
            proxy = CountingProxy(server.url + "/v1")
            self.addCleanup(proxy.close)
            provider = llm_provider(proxy.url[:-len("/v1")])
            with self.assertRaises(Exception):
                provider.complete([{"role": "user", "content": "hi"}], max_tokens=9)
            provider.complete([{"role": "user", "content": "hi"}], max_tokens=9)
        self.assertEqual(proxy.snapshot(), (2, 12, 0))  # the first was never answered
        request = urllib.request.Request(proxy.url + "/chat/completions", method="POST",
                                         data=b"{}", headers={"Content-Type": "application/json"})
        with self.assertRaises(urllib.error.HTTPError) as caught:  # the server is gone now
            urllib.request.urlopen(request, timeout=30)
        self.assertEqual(caught.exception.code, 502)
        self.assertEqual(proxy.snapshot(), (2, 12, 0))

    def test_a_post_from_any_client_is_forwarded_and_counted(self):
        with LLMServer([Turn(text="a")]) as server:
            proxy = CountingProxy(server.url + "/v1")
            self.addCleanup(proxy.close)
            request = urllib.request.Request(proxy.url + "/chat/completions", method="POST",
                                             data=json.dumps({"messages": []}).encode(),
                                             headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=5) as resp:
                self.assertEqual(resp.status, 200)
        self.assertEqual(proxy.snapshot()[0], 1)

    def test_usage_is_read_from_an_answer_or_a_stream(self):
        whole = json.dumps({"usage": {"prompt_tokens": 5, "completion_tokens": 2}}).encode()
        stream = (b'data: {"choices": []}\n\ndata: {"usage": {"prompt_tokens": 5, '
                  b'"completion_tokens": 3}}\n\ndata: [DONE]\n\n')
        self.assertEqual((_usage_tokens(whole), _usage_tokens(stream), _usage_tokens(b"<html>")),
                         (7, 8, 0))

    def test_the_flags_name_a_worse_result_a_count_mismatch_and_a_repeat(self):
        rules = ["doc", "rules", "macro-F1 1.000 lv 1.00", 0, 0, 0, 0, 0, 1.0]
        worse = ["doc", "llm", "macro-F1 0.950 lv 1.00", 2, 500, 3, 520, 1, 9.0]
        same = ["doc", "llm", "macro-F1 1.000 lv 1.00", 1, 300, 1, 300, 0, 9.0]
        self.assertEqual(_flags(rules, worse), ["WORSE", "COUNT", "REPEAT"])
        self.assertEqual(_flags(rules, same), [])
        failed = ["s (b)", "builtin", "passed, exact", 0, 0, 0, 0, 0, 1.0]
        inexact = ["s (b)", "llm", "passed, not exact", 0, 0, 0, 0, 0, 1.0]
        self.assertEqual(_flags(failed, inexact), ["WORSE"])


class LocalServerTest(unittest.TestCase):
    """The bench's server starter, against stand-in scripts that speak llm-server.sh's
    output: it skips with the script's own reason, and stops only what it started."""

    def script(self, body: str) -> dict:
        import os
        import tempfile

        folder = tempfile.mkdtemp()
        self.addCleanup(__import__("shutil").rmtree, folder)
        path = os.path.join(folder, "llm-server.sh")
        with open(path, "w") as fh:
            fh.write(f"#!/usr/bin/env bash\necho \"$@\" >> {folder}/calls\n{body}\n")
        return {"DUA_LLM_SERVER_SCRIPT": path, "LLM_HOME": folder, "calls": f"{folder}/calls"}

    def calls(self, env: dict) -> list:
        with open(env["calls"]) as fh:
            return fh.read().splitlines()

    def test_no_script_is_a_reason_to_skip(self):
        import tempfile

        from tests.bench.local_llm import LocalServer

        with tempfile.TemporaryDirectory() as empty:  # no shared/tools there, no variable
            why = LocalServer("qwen15", 8081, environ={}, beside=empty).start()
        self.assertIn("no llm-server.sh", why)

    def test_a_failed_start_is_the_reason_to_skip_with_the_scripts_words(self):
        from tests.bench.local_llm import LocalServer

        env = self.script('echo "[llm-server] build failed; tail of build.log" >&2; exit 1')
        why = LocalServer("qwen15", 8099, environ=env).start()
        self.assertIn("failed: [llm-server] build failed", why)

    def test_a_server_it_started_is_stopped_and_one_already_running_is_left(self):
        from tests.bench.local_llm import LocalServer

        for said, stopped in (("started pid 42 (qwen15)", True),
                              ("a server started by this script is already running", False)):
            with self.subTest(said):
                env = self.script(f'[ "$1" = start ] && {{ echo "[llm-server] {said}" >&2; '
                                  'echo BASE_URL=http://127.0.0.1:8099/v1; echo MODEL=qwen15; }')
                server = LocalServer("qwen15", 8099, environ=env)
                self.assertEqual(server.start(), "")
                self.assertEqual((server.base_url, server.model),
                                 ("http://127.0.0.1:8099/v1", "qwen15"))
                self.assertTrue(server.log.endswith("run/server-8099.log"))
                server.stop()
                want = ["start qwen15 8099"] + (["stop 8099"] if stopped else [])
                self.assertEqual(self.calls(env), want)


if __name__ == "__main__":
    unittest.main()
