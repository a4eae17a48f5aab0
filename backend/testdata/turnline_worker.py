"""A worker of the protocol (docs/worker-protocol.md) for the compaction
tests, standard library only: it answers each turn with what its turn line
carried of the session's history, as JSON text: the compaction item (or
null) and the history's message IDs and roles."""
import json
import sys

for raw in sys.stdin:
    line = json.loads(raw)
    if line.get("type") != "turn":
        continue
    seen = {
        "compaction": line.get("compaction"),
        "history": [[m["id"], m["role"]] for m in line["history"]],
    }
    sys.stdout.write(json.dumps({"type": "text", "id": line["id"], "delta": json.dumps(seen)}) + "\n")
    sys.stdout.write(json.dumps({"type": "done", "id": line["id"]}) + "\n")
    sys.stdout.flush()
