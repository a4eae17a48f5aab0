// Package alive validates the NetShow "alive" agent card extension
// (ExtensionURI): the look an agent shows when agents meet — one of the
// house looks, two colors and a display name, and optionally an
// .alive.json file fetched once through the outbound guard
// (internal/netguard: https only, public addresses only, no redirects,
// at most 64 KB).
//
// Check is the one validator: the A2A card (a2a) and the cards outside
// agents send when they pair (relay) both use it. An extension that breaks
// any rule is invalid as a whole; Check says why, and the caller drops it.
package alive
