/**
 * The longer texts of `ipsets --help`: the desired-file format, the exit codes, the
 * agent's probes. Kept apart from the option wiring so that each reads on its own.
 */
import { DEFAULT_OWNER } from '@ipsets/core';
import { DEFAULT_CLI_OWNER } from '../defaults.js';

/** After `plan --help` and `apply --help`: what a desired-state file looks like. */
export const FILE_HELP = `
The desired-state FILE (JSON or YAML) lists sets by NPM type and unprefixed name:

  owner: ${DEFAULT_CLI_OWNER}               # optional: kernel-name prefix (default --owner, else ${DEFAULT_CLI_OWNER})
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
A file with any bad value is refused as a whole (exit 2); nothing is applied. Only a
regular UTF-8 file of at most 256 MiB, nested at most 64 levels deep, is read.
apply and agent refuse a FILE that would destroy more than half of the owned sets the
kernel holds and more than 10 of them, or that has no sets and would destroy any (a cut
or badly rendered file looks like this): --allow-destroy (or --allow-empty, for a FILE
with no sets) destroys them on purpose.`;

/** Which kernel a command uses, and which sets it owns. */
export const KERNEL_HELP = `
Commands that read or change a kernel (diff, apply, save, reset, agent) use the real
kernel unless --kernel fake is given; demo runs on its own embedded fake; plan touches
no kernel. They touch only sets whose kernel names start with the owner prefix: the
file's owner, else --owner, else ${DEFAULT_CLI_OWNER} (--owner ${DEFAULT_OWNER} manages sets named like
Azure NPM's).`;

/** The exit codes of every command. */
export const EXIT_CODES_HELP = `
Exit codes:
  0  done (apply: converged; agent: clean stop after SIGTERM/SIGINT)
  1  not converged, or the kernel failed (incl. a timeout; a report is printed)
  2  bad input: nothing was changed (a bad file or flag, a duration out of its
     range, no command, a desired state refused by the destroy budget)
  3  converged except owned sets the kernel still references (in use)
  4  another writer holds the kernel lock and --wait ran out
  5  agent: --max-failures failing applies in a row (let the supervisor restart it)
  6  diff --exit-code: the kernel could not be read (diff --exit-code: 0 no
     differences, 1 differences)
  130/143  a second SIGINT/SIGTERM forced the exit`;

/** After `ipsets --help`: which kernel a command uses, and the exit codes. */
export const EXIT_HELP = `${KERNEL_HELP}
${EXIT_CODES_HELP}
Start with:  ipsets demo`;

/** After `agent --help`: what the probes answer and how FILE is watched. */
export const AGENT_HELP = `
Probes: /livez answers 200 while the loop runs and no apply is stuck; /readyz answers 200
once the first apply finished, the last one converged (or only in-use sets remain) and
FILE is valid, else 503 with the reason. /healthz is an alias of /readyz.
FILE may be a Kubernetes ConfigMap volume: its ..data symlink swaps are followed.`;
