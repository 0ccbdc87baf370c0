/**
 * The journal as the event stream sees it: each entry added is also a `request` event (GET /__mock/events),
 * shaped as GET /__mock/requests shows it, with the id the journal gave it, so the dashboard can open it.
 * With nobody reading the stream this adds one property read per request and builds nothing.
 */
import type { MockEvents } from "../core/events.js";
import { entryJson, withoutSecrets, type RequestJournal } from "../store/journal.js";

export function liveJournal(journal: RequestJournal, events: MockEvents): RequestJournal {
  return {
    get capacity() {
      return journal.capacity;
    },
    add(entry) {
      if (!events.active) return journal.add(entry);
      // The journal may keep the entry itself and change it: the fields shown are taken first, one by one
      // (a copy by spread costs several times what the rest of this does, on every request).
      const { atMs, method, url, operationId, workspaceId, status, durationMs, faultId, source } = entry;
      const announce = (seq: number | undefined) => {
        if (seq === undefined) return;
        const shown = {
          seq,
          atMs,
          method,
          url: withoutSecrets(url),
          operationId,
          workspaceId,
          status,
          durationMs,
          faultId,
          source,
        };
        events.publishJson("request", workspaceId, entryJson(shown));
      };
      const added = journal.add(entry);
      if (added instanceof Promise)
        return added.then((seq) => {
          announce(seq);
          return seq;
        });
      announce(added);
      return added;
    },
    list: (filter) => journal.list(filter),
    count: (filter) => journal.count(filter),
    exchanges: (filter) => journal.exchanges(filter),
    addVariants: (workspaceId, keys) => journal.addVariants(workspaceId, keys),
    variantsSeen: (workspaceId) => journal.variantsSeen(workspaceId),
    clear: (workspaceId) => journal.clear(workspaceId),
    sending: () => journal.sending?.(),
    flush: () => journal.flush?.() ?? Promise.resolve(),
  };
}
