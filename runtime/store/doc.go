// Package store defines what harnest keeps and how it is kept: the Store
// interface, with one typed operation for each thing the runtime and the
// transports store (sessions and their state, transcripts, responses and
// their receipts, event logs, leases and runs, waits, assets, shared
// secrets and the pub/sub hub), and the types those operations take.
//
// Two implementations sit behind it: redisstore (go-redis: a single node,
// Sentinel or Cluster; miniredis in tests) and memstore (in-process, the
// zero-setup default). Only the composition root picks one; everything
// else sees this interface. The contract suite in storetest runs every
// operation on both.
package store
