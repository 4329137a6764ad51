import unittest

from dua.config import Secret, Settings
from dua.errors import UsageError


class SettingsTest(unittest.TestCase):
    def test_default_is_the_builtin_engine_with_no_network(self):
        s = Settings.from_env({})
        self.assertEqual(s.provider, "builtin")
        self.assertFalse(s.uses_llm)
        self.assertIsNone(s.api_key)

    def test_flags_win_over_environment_which_wins_over_defaults(self):
        env = {"DUA_LLM_PROVIDER": "openai", "DUA_LLM_MODEL": "env-model", "DUA_LLM_TIMEOUT": "12"}
        s = Settings.from_env(env, model="flag-model")
        self.assertEqual((s.provider, s.model, s.timeout), ("openai", "flag-model", 12.0))

    def test_empty_environment_values_count_as_unset(self):
        self.assertEqual(Settings.from_env({"DUA_LLM_PROVIDER": ""}).provider, "builtin")

    def test_api_key_never_shows_in_repr(self):
        s = Settings.from_env({"DUA_LLM_API_KEY": "sk-secret-123", "DUA_LLM_PROVIDER": "openai"})
        self.assertNotIn("sk-secret", repr(s))
        self.assertNotIn("sk-secret", repr(s.api_key))
        self.assertIsInstance(s.api_key, Secret)
        self.assertEqual(s.api_key.reveal(), "sk-secret-123")

    def test_unknown_provider_and_bad_timeout_name_their_variable(self):
        for env, var in (({"DUA_LLM_PROVIDER": "skynet"}, "DUA_LLM_PROVIDER"),
                         ({"DUA_LLM_TIMEOUT": "soon"}, "DUA_LLM_TIMEOUT")):
            with self.assertRaises(UsageError) as ctx:
                Settings.from_env(env)
            self.assertIn(var, ctx.exception.user_message)
        with self.assertRaises(UsageError):
            Settings(timeout=-1)

    def test_home_defaults_to_a_per_user_state_directory(self):
        self.assertEqual(Settings.from_env({"HOME": "/home/ann"}).home, "/home/ann/.local/state/dua")
        self.assertEqual(Settings.from_env({"DUA_HOME": "/srv/dua"}).home, "/srv/dua")

    def test_known_providers_get_a_default_base_url(self):
        self.assertIn("googleapis", Settings(provider="gemini").resolved_base_url)
        self.assertEqual(Settings(provider="openai", base_url="http://127.0.0.1:1/v1").resolved_base_url,
                         "http://127.0.0.1:1/v1")


if __name__ == "__main__":
    unittest.main()
