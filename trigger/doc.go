// Package trigger is the door of inbound triggers: named, signed webhooks
// (server.triggers in config.yaml) at POST /triggers/{name}. A delivery
//
//  1. is verified (verify.go): Standard Webhooks (webhook-id,
//     webhook-timestamp, webhook-signature "v1,<base64 HMAC-SHA256 of
//     id.timestamp.body>", several space-separated signatures allowed) or
//     GitHub's X-Hub-Signature-256 ("sha256=<hex HMAC-SHA256 of the
//     body>") with X-GitHub-Delivery; compared in constant time, with the
//     secret read from the environment at load;
//  2. is refused as a replay when its timestamp is outside the tolerance
//     (either direction; Standard Webhooks) or its delivery ID is
//     remembered in the store (store.TriggerDeliveries, SET NX with a TTL:
//     one replica of any number accepts it);
//  3. is mapped (plan.go) by templates over JSON pointers to an input and a
//     session key (one session per distinct key, else a new session), or to
//     the answer of a waiting turn: an approval's decision or a client
//     tool's output, named by the payload;
//  4. starts a background turn as the trigger's user, or answers the wait
//     through the runtime's answer path (act.go), and is answered 202 with
//     the response's and session's IDs.
//
// A refused delivery changes nothing (no session, no response, its
// delivery ID not remembered) and is logged with the trigger's name and
// the reason, never the payload: a bad signature, a missing or malformed
// header, a stale or future timestamp 401; a replay 409; a payload the
// templates cannot map 400; an unknown trigger 404. A delivery that was
// remembered but could not be acted on is forgotten again, so that the
// sender's retry is not refused as a replay.
package trigger
