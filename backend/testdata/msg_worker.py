"""A worker of the protocol (docs/worker-protocol.md) for the tests of rich
messages and answers, standard library only. Per turn, by the input text:

  "reject ..."  -> activity rejected, then the reason as text
  "auth ..."    -> activity auth_required, then what it needs as text
  "chunks ..."  -> one artifact streamed in three chunks (append, lastChunk)
  anything else -> an artifact "message" with the turn's message (as data),
                   and an artifact per data part and per file of the input
                   (a file with bytes back as bytes, a file by URL as its URL)
"""
import json
import sys


def send(**line):
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


def artifact(turn_id, artifact_id, parts, **more):
    send(type="artifact", id=turn_id, artifactId=artifact_id, parts=parts, **more)


def echo_parts(turn):
    tid = turn["id"]
    artifact(tid, "message", [{"type": "data", "data": turn.get("message")}], name="message", lastChunk=True)
    for i, part in enumerate(turn["content"]):
        kind = part["type"]
        if kind == "text":
            continue
        if kind == "data":
            back = {"type": "data", "data": part["data"]}
        elif "url" in part:
            back = {"type": "file", "url": part["url"], "mediaType": part.get("mediaType", ""), "name": part.get("name", "")}
        else:
            back = {"type": "file", "bytes": part.get("bytes", ""), "mediaType": part.get("mediaType", ""), "name": part.get("name", "")}
        artifact(tid, "part-%d" % i, [back], name="echo of " + kind, lastChunk=True)
    send(type="text", id=tid, delta="Got %d parts" % len(turn["content"]))


def answer(turn):
    tid, text = turn["id"], turn["input"]
    if text.startswith("reject"):
        send(type="activity", id=tid, activity="rejected")
        send(type="text", id=tid, delta="I will not do that.")
    elif text.startswith("auth"):
        send(type="activity", id=tid, activity="auth_required")
        send(type="text", id=tid, delta="Sign in to the calendar first.")
    elif text.startswith("chunks"):
        artifact(tid, "story", [{"type": "text", "text": "one "}], name="story", description="told in chunks")
        artifact(tid, "story", [{"type": "text", "text": "two "}], append=True)
        artifact(tid, "story", [{"type": "text", "text": "three"}], append=True, lastChunk=True)
        send(type="text", id=tid, delta="Told.")
    else:
        echo_parts(turn)
    send(type="done", id=tid)


for raw in sys.stdin:
    line = json.loads(raw)
    if line.get("type") == "turn":
        answer(line)
