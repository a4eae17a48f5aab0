#!/bin/sh
# A server tool: the model's arguments arrive as JSON on stdin
# ({"note": "..."}); each call appends them as one line to notes.jsonl in
# the agent folder, and stdout is the result the model reads.
set -eu
tr -d '\n' >> notes.jsonl
echo >> notes.jsonl
echo '{"saved": true}'
