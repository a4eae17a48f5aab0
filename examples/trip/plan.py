"""The trip agent's program: a typed input on stdin, a typed answer on stdout."""
import json
import sys

trip = json.load(sys.stdin)
per_day = 2 if trip.get("pace") == "relaxed" or "pace" not in trip else 4
plan = {
    "city": trip["city"],
    "days": [
        {"day": d, "plan": f"See {per_day} sights of {trip['city']}, then dinner."}
        for d in range(1, trip["days"] + 1)
    ],
}
print(json.dumps(plan))
