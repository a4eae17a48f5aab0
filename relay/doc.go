// Package relay lets agents that run on someone's own computer answer this
// agent's turns without opening a port (relay-poll-v1). The outside agent
// pairs once with a single-use code its owner created, long-polls an inbox
// under /api/outside-agents/v1/ with its session token and posts replies;
// it may also send its owner notices and stage items. The owner manages
// participants under /owner/outside-agents/ and follows notices live (SSE).
//
// Everything lives in Redis under the store's key prefix with the hash tag
// {relay}: pairing codes, participants, hashed session tokens, inboxes,
// items, replies, the owner's feed and the rate buckets. A turn may start on
// one replica while the outside agent polls another; replicas wake each
// other through one pub/sub channel.
//
// Use New, mount the endpoints with Register, let the auth middleware pass
// the relay endpoints with IsPublic (they check the session token
// themselves), and serve turns with Agent.
package relay
