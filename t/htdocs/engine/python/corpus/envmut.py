#!/usr/bin/python3
import os, subprocess
seen = "CORPUS_MARK" in os.environ, "CORPUS_PUT" in os.environ, "SERVER_NAME" in os.environ
os.environ["CORPUS_MARK"] = "1"
os.putenv("CORPUS_PUT", "1")
del os.environ["SERVER_NAME"]
child = subprocess.run(["sh", "-c", "echo ${CORPUS_MARK:-unset} ${CORPUS_PUT:-unset} ${SERVER_NAME:-unset}"], capture_output=True, text=True).stdout
print("Content-Type: text/plain\n\nseen=%r child=%s" % (seen, child), end="")
