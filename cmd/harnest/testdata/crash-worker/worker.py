"""A tiny harnest worker for the end-to-end tests: it answers every turn with
its process id, and exits mid-turn (after one text delta, with a line on
stderr) when the input contains "crash"."""

import json
import os
import sys

# What the worker writes to stderr before it dies: harnest logs it, but it
# must never reach a client.
MARKER = "CRASH-WORKER-STDERR-7f3a"


def send(**message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    if message.get("type") != "turn":
        continue
    turn = message["id"]
    send(type="text", id=turn, delta="pid %d: " % os.getpid())
    if "crash" in message.get("input", ""):
        sys.stderr.write(MARKER + " about to exit mid-turn\n")
        sys.stderr.flush()
        os._exit(3)
    send(type="text", id=turn, delta="You said: " + message["input"])
    send(type="done", id=turn)
