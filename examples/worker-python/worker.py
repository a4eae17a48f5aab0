"""An example harnest worker: the exec backend's worker mode, in Python.

It needs nothing but the standard library. harnest starts it once and
sends it turns as JSON lines on stdin; it answers with JSON lines on stdout
(docs/worker-protocol.md). Logs go to stderr, which harnest puts in its own
log and never shows to clients.

What it does is driven by words in the input:

  tool     calls a pretend "lookup" tool first (tool_call and tool_result)
  approve  asks a human to approve "send_reply"; answers only if approved
  ask      asks the client to run its "get_location" tool
  slow     answers in many small pieces, slowly (try cancelling)

Every turn also sends a thinking delta, counts turns in the session state
("turns") and reports its framework in a metadata event.
"""

import json
import queue
import sys
import threading

# Lines from harnest, parsed; None means stdin ended.
inbox = queue.Queue()


def read_stdin():
    for raw in sys.stdin.buffer:
        line = raw.decode("utf-8", "replace").strip()
        if not line:
            continue
        try:
            inbox.put(json.loads(line))
        except ValueError:
            log("ignoring a line that is not JSON")
    inbox.put(None)


def send(message):
    # json.dumps escapes newlines and non-ASCII, so this is exactly one line.
    sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
    sys.stdout.flush()


def log(text):
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


class Cancelled(Exception):
    """harnest cancelled the turn."""


class EndOfInput(Exception):
    """stdin ended: harnest is shutting the worker down."""


class Turn:
    def __init__(self, message):
        self.id = message["id"]
        self.input = message.get("input", "")
        self.state = message.get("state") or {}
        self.requests = 0
        self.saved = []  # lines that arrived before they were waited for

    def send(self, type_, **fields):
        send(dict(type=type_, id=self.id, **fields))

    def take(self, timeout=None):
        """The next line for this turn, or None after timeout seconds.
        Raises Cancelled on a cancel for this turn."""
        while True:
            if self.saved:
                return self.saved.pop(0)
            try:
                message = inbox.get(timeout=timeout)
            except queue.Empty:
                return None
            if message is None:
                raise EndOfInput()
            if message.get("id") != self.id:
                continue  # not ours (a late line for an earlier turn)
            if message.get("type") == "cancel":
                raise Cancelled()
            return message

    def check(self):
        """Raises Cancelled if a cancel arrived; does not wait. Other lines
        are kept for take."""
        while True:
            try:
                message = inbox.get_nowait()
            except queue.Empty:
                return
            if message is None:
                raise EndOfInput()
            if message.get("id") != self.id:
                continue
            if message.get("type") == "cancel":
                raise Cancelled()
            self.saved.append(message)

    def request(self, type_, answer_type, **fields):
        """Sends a request and waits for its answer, however long the
        human or the client takes."""
        self.requests += 1
        request_id = "req_%d" % self.requests
        self.send(type_, requestId=request_id, **fields)
        while True:
            message = self.take()
            if message.get("type") == answer_type and message.get("requestId") == request_id:
                return message

    def sleep(self, seconds):
        """Waits, but stops at once on a cancel."""
        message = self.take(timeout=seconds)
        if message is not None:
            self.saved.insert(0, message)


def pieces(text, n):
    """text cut into at most n pieces at spaces; they join back to text."""
    words = text.split(" ")
    n = max(1, min(n, len(words)))
    out = []
    for i in range(n):
        chunk = " ".join(words[i * len(words) // n:(i + 1) * len(words) // n])
        out.append(chunk if i == n - 1 else chunk + " ")
    return out


def run_turn(turn):
    words = turn.input.lower()
    turn.send("metadata", framework="example-worker-python")
    turn.send("thinking", delta="Reading the message.")

    count = turn.state.get("turns")
    count = count + 1 if isinstance(count, int) and not isinstance(count, bool) else 1
    turn.send("state", delta={"turns": count})

    answer = "You said: " + turn.input

    if "tool" in words:
        call_id = "call_lookup_%s" % turn.id
        turn.send("tool_call", callId=call_id, name="lookup", arguments={"query": turn.input})
        turn.check()
        turn.send("tool_result", callId=call_id, name="lookup", output={"entries": 3})
        answer += " The lookup found 3 entries."

    if "approve" in words:
        decision = turn.request(
            "approval_request", "approval",
            action="send_reply",
            message="Send the reply to the user?",
            arguments={"text": turn.input},
        ).get("decision")
        if decision != "approve":
            # Denied or expired: no answer at all; harnest records the
            # response as denied (or expired).
            log("reply not sent: approval %s" % decision)
            return

    if "ask" in words:
        result = turn.request("client_tool_request", "client_tool", name="get_location", arguments={})
        if "error" in result:
            answer += " I could not find out where you are."
        else:
            location = result.get("output")
            if not isinstance(location, str):
                location = json.dumps(location, separators=(",", ":"))
            answer += " You are in " + location + "."

    slow = "slow" in words
    for piece in pieces(answer, 40 if slow else 3):
        turn.check()
        turn.send("text", delta=piece)
        if slow:
            turn.sleep(0.1)


def main():
    threading.Thread(target=read_stdin, daemon=True).start()
    while True:
        message = inbox.get()
        if message is None:
            return  # stdin ended: exit cleanly
        if message.get("type") != "turn":
            continue  # an answer or cancel for a turn that is already over
        turn = Turn(message)
        try:
            run_turn(turn)
        except Cancelled:
            log("cancelled %s" % turn.id)
        except EndOfInput:
            return
        except Exception as e:  # a bug: fail this turn, keep serving
            log("turn failed: %r" % (e,))
            turn.send("error", message=str(e))
            continue
        turn.send("done")


if __name__ == "__main__":
    main()
