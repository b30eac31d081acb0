# found through a SetEnv PYTHONPATH (t/58_engine_idioms.t)
WHO = "pplib's module"
