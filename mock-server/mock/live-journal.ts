/**
 * The journal as the event stream sees it: each entry added is also a `request` event (GET /__mock/events),
 * shaped as GET /__mock/requests shows it, with the id the journal gave it, so the dashboard can open it.
 * With nobody reading the stream this adds one property read per request and builds nothing.
 */
import type { MockEvents } from "../core/events.js";
import { format, withoutSecrets, type Recorded, type RequestJournal } from "../store/journal.js";

export function liveJournal(journal: RequestJournal, events: MockEvents): RequestJournal {
  const announce = (entry: Omit<Recorded, "seq">, seq: number) =>
    events.publish("request", entry.workspaceId, format({ ...entry, url: withoutSecrets(entry.url), seq }));
  return {
    get capacity() {
      return journal.capacity;
    },
    add(entry) {
      if (!events.active) return journal.add(entry);
      // The journal may keep the entry itself (and change it): what is announced is taken first.
      const shown = { ...entry, exchange: undefined, variants: undefined };
      const added = journal.add(entry);
      if (added instanceof Promise) return added.then((seq) => void (seq !== undefined && announce(shown, seq)));
      if (added !== undefined) announce(shown, added);
      return undefined;
    },
    list: (filter) => journal.list(filter),
    count: (filter) => journal.count(filter),
    exchanges: (filter) => journal.exchanges(filter),
    addVariants: (workspaceId, keys) => journal.addVariants(workspaceId, keys),
    variantsSeen: (workspaceId) => journal.variantsSeen(workspaceId),
    clear: (workspaceId) => journal.clear(workspaceId),
  };
}
