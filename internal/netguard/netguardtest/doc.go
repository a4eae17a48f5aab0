// Package netguardtest holds test doubles for code that fetches through
// internal/netguard (netguard itself, the a2a alive extension): a resolver
// that answers from a table and never touches DNS, and a dialer that
// records every address it is asked for and dials only loopback, so that no
// test reaches outside the machine.
//
// It imports only the standard library, so that netguard's own in-package
// tests can use it without an import cycle. Its types fit netguard.Policy's
// Resolver and Dial fields (and a2a.AliveOptions's) as they are.
package netguardtest
