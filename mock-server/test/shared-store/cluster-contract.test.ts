/**
 * The shared-store contract ("two processes on one store": read your writes across processes, one
 * journal, seeding and joining, resets, webhooks sent once) on a Redis Cluster of 3 masters: the cases
 * of shared-store.test.ts, run again here with every store a Cluster (support.ts), not copied.
 */
import { useStoreKind } from "./support.js";

useStoreKind("redis-cluster");
await import("./shared-store.test.js");
