/**
 * The fleet flags' usage text, apart from the simulation itself so that the command
 * line can print its help without loading the agent's code.
 */
import { DELIVERY_MODE_NAMES } from './cost-model.js';

/** The fleet sizes the chart sweeps. */
export const CHART_NODES: readonly number[] = [100, 1000, 5000];

/** Usage text of the fleet flags. */
export const FLEET_USAGE = `fleet simulation of the ipsets agent's own deployment:
  ipsets-simulate --scenario policy-change|steady-churn|rollout [options]
  ipsets-simulate --chart FILE [options]      # every mode at ${CHART_NODES.join(', ')} nodes, an SVG of convergence time
  ipsets-simulate --calibrate                 # measure the cost model on this machine (root and ipset for the kernel rows)
  ipsets-simulate --measure-delivery          # one file, parts, gzip parts end to end with the built ipsets on the real kernel (root)

  --nodes N              nodes (default 1000)
  --delivery MODE        ${DELIVERY_MODE_NAMES.join(', ')} or all (default all)
  --seed N               seed of the cluster, the churn and every delay (default 1)
  --pods N               pods in the cluster (default 4000: ~21,000 members, 0.5 MiB of JSON)
  --namespaces N         namespaces (default 42)
  --parts N              ConfigMaps of the parts modes (default 8)
  --sync-period DUR      the kubelet's sync period (default 60s)
  --sync-jitter F        the kubelet's jitter factor (default 0.5: the next sync 60–90 s later)
  --api-bandwidth MBPS   the API servers' watch fan-out, MB/s (default 125: 1 Gbit/s)
  --interval DUR         the agent's --interval (default 60s)
  --debounce DUR         the agent's --debounce (default 200ms)
  --duration DUR         simulated time after the start (default 5m for policy-change, 10m otherwise)
  --churn N              pod changes per second (steady-churn, rollout; default 2)
  --publish-every DUR    how often the producer publishes (default 10s)
  --max-unavailable F    rollout: share of nodes restarting at once (default 0.05)
  --min-ready DUR        rollout: minReadySeconds (default 30s)
  --restart DUR          rollout: container restart time (default 5s)
  --exact                every node its own fake kernel (slow; checks the per-class cache)
  --json                 print the reports as JSON
`;
