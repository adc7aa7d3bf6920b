/**
 * The desired-state gauges (`<prefix>sets`, `<prefix>entries`) are computed when
 * scraped, so applies never pay for them.
 */
import { desiredMemberCount } from '@ipsets/core';
import type { AgentManager } from './api.js';
import type { AgentMetrics } from './metrics.js';

/** Makes `metrics.sets` and `metrics.entries` read `manager`'s desired state on each scrape. */
export function installStateCollectors(metrics: AgentMetrics, manager: AgentManager): void {
  let cached: { sets: number; entries: number } | undefined;
  const read = (): { sets: number; entries: number } => {
    if (cached === undefined) {
      const desired = manager.desiredState();
      let entries = 0;
      // Counted without making a manager's member strings (a set of hosts keeps numbers).
      for (const set of desired.sets) entries += desiredMemberCount(set);
      cached = { sets: desired.sets.length, entries };
      // One scrape reads the state once for both gauges.
      queueMicrotask(() => {
        cached = undefined;
      });
    }
    return cached;
  };
  const setsGauge = metrics.sets as unknown as { collect?: () => void };
  const entriesGauge = metrics.entries as unknown as { collect?: () => void };
  setsGauge.collect = function collect(this: { set(v: number): void }) {
    this.set(read().sets);
  };
  entriesGauge.collect = function collect(this: { set(v: number): void }) {
    this.set(read().entries);
  };
}
