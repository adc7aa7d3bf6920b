/**
 * The longer texts of `ipsets --help`: the desired-file format, the exit codes, the
 * agent's probes. Kept apart from the option wiring so that each reads on its own.
 */
import { DEFAULT_OWNER } from '@ipsets/core';

/** After `plan --help` and `apply --help`: what a desired-state file looks like. */
export const FILE_HELP = `
The desired-state FILE (JSON or YAML) lists sets by NPM type and unprefixed name:

  owner: ${DEFAULT_OWNER}            # optional: kernel-name prefix
  scheme: sha256-base36        # optional: or fnv32
  sets:
    - { type: namespace, name: shop, members: [10.244.1.10, 10.244.1.11] }
    - { type: namedPorts, name: http, members: ["10.244.1.10,tcp:8080"] }
    - { type: cidrBlocks, name: egress-0, members: [10.0.0.0/8, "10.96.0.0/12 nomatch"] }
    - type: keyLabelOfNamespace
      name: team
      members: [{ type: namespace, name: shop }]
    - { type: keyLabelOfPod, name: app, members: [10.244.1.10, "fd00::a"], maxelem: 131072 }
    - { type: namespace, name: v6, family: inet6, members: ["fd00::b"] }

Hash sets may hold IPv4 and IPv6 members (one kernel set per family), or name one
family (inet, inet6); maxelem and hashsize set the kernel set's capacity.

Types: namespace, keyLabelOfNamespace, keyValueLabelOfNamespace, keyLabelOfPod,
keyValueLabelOfPod, namedPorts, nestedLabelOfPod, cidrBlocks, emptyHashSet.
A file with any bad value is refused as a whole (exit 2); nothing is applied.`;

/** After `ipsets --help`: which kernel a command uses, and the exit codes. */
export const EXIT_HELP = `
Commands that read or change a kernel (diff, apply, save, reset, agent) use the real
kernel unless --kernel fake is given; demo runs on its own embedded fake; plan touches
no kernel.

Exit codes:
  0  done (apply: converged; agent: clean stop after SIGTERM/SIGINT)
  1  not converged, or the kernel failed (incl. a timeout; a report is printed)
  2  bad input: nothing was changed (also a refused empty desired state)
  3  converged except owned sets the kernel still references (in use)
  4  another writer holds the kernel lock and --wait ran out
  5  agent: --max-failures failing applies in a row (let the supervisor restart it)
  130/143  a second SIGINT/SIGTERM forced the exit
Start with:  ipsets demo`;

/** After `agent --help`: what the probes answer and how FILE is watched. */
export const AGENT_HELP = `
Probes: /livez answers 200 while the loop runs and no apply is stuck; /readyz answers 200
once the first apply finished, the last one converged (or only in-use sets remain) and
FILE is valid, else 503 with the reason. /healthz is an alias of /readyz.
FILE may be a Kubernetes ConfigMap volume: its ..data symlink swaps are followed.`;
