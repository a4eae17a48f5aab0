"""A worker of the protocol (docs/worker-protocol.md) for the tests of
steering, standard library only. Per turn: it says "Working.", waits (at
most 10 s) for a steer line, then answers "Steered: <its input>" and is
done. Without a steer it answers "No steer."
"""
import json
import queue
import sys
import threading
import time


def send(**line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


lines = queue.Queue()


def read_stdin():
    for line in sys.stdin:
        lines.put(json.loads(line))
    lines.put(None)


def read_line(timeout):
    try:
        msg = lines.get(timeout=max(timeout, 0))
    except queue.Empty:
        return None
    if msg is None:
        sys.exit(0)
    return msg


threading.Thread(target=read_stdin, daemon=True).start()
while True:
    turn = lines.get()
    if turn is None:
        break
    if turn.get("type") != "turn":
        continue
    tid = turn["id"]
    send(type="text", id=tid, delta="Working. ")
    deadline = time.time() + 10
    answer = "No steer."
    while time.time() < deadline:
        msg = read_line(deadline - time.time())
        if msg is None:
            break
        if msg.get("type") == "cancel" and msg.get("id") == tid:
            answer = None
            break
        if msg.get("type") == "steer" and msg.get("id") == tid:
            answer = "Steered: " + msg["input"] + " (" + msg["steerId"][:6] + ", " + msg["content"][0]["type"] + ")"
            break
    if answer is not None:
        send(type="text", id=tid, delta=answer)
    send(type="done", id=tid)
