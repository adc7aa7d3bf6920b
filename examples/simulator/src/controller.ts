/**
 * What a node's policy agent does with each cluster event: the manager calls NPM's
 * controllers make (pod IPs into namespace and label sets with the pod as owner key,
 * named ports, namespace label lists, and the references and lists a policy needs).
 * Only the manager's public API is used, exactly as an embedding simulator would.
 */
import type { IPSetManager, SetMetadata } from '@ipsets/core';
import { prefixedName } from '@ipsets/core';
import type { ClusterEvent, Label, Pod, Policy } from './trace.js';

const namespaceSet = (namespace: string): SetMetadata => ({ type: 'namespace', name: namespace });

function podLabelSets(labels: readonly Label[]): SetMetadata[] {
  const sets: SetMetadata[] = [];
  for (const [key, value] of labels) {
    sets.push({ type: 'keyLabelOfPod', name: key }, { type: 'keyValueLabelOfPod', name: `${key}:${value}` });
  }
  return sets;
}

function portMember(pod: Pod, index: number): { set: SetMetadata; member: string } {
  const port = pod.ports[index]!;
  return { set: { type: 'namedPorts', name: port.name }, member: `${pod.ip},${port.protocol}:${port.port}` };
}

function addPod(manager: IPSetManager, pod: Pod): void {
  manager.addToSets([namespaceSet(pod.namespace), ...podLabelSets(pod.labels)], pod.ip, pod.key);
  for (let i = 0; i < pod.ports.length; i++) {
    const { set, member } = portMember(pod, i);
    manager.addToSets([set], member, pod.key);
  }
}

function removePod(manager: IPSetManager, pod: Pod): void {
  manager.removeFromSets([namespaceSet(pod.namespace), ...podLabelSets(pod.labels)], pod.ip, pod.key);
  for (let i = 0; i < pod.ports.length; i++) {
    const { set, member } = portMember(pod, i);
    manager.removeFromSets([set], member, pod.key);
  }
}

type PolicySets = ReturnType<typeof buildPolicySets>;

// Every node translates the same policy objects: build their set lists once.
const policySetCache = new WeakMap<Policy, PolicySets>();

function policySets(policy: Policy): PolicySets {
  let sets = policySetCache.get(policy);
  if (sets === undefined) {
    sets = buildPolicySets(policy);
    policySetCache.set(policy, sets);
  }
  return sets;
}

/** The sets a policy makes the node keep, and how each is referenced. */
function buildPolicySets(policy: Policy): {
  selectors: SetMetadata[];
  nested: SetMetadata;
  nestedMembers: SetMetadata[];
  team: SetMetadata;
  cidr: SetMetadata;
  port: SetMetadata;
} {
  const [key, value] = policy.podSelector;
  return {
    selectors: [namespaceSet(policy.namespace), { type: 'keyValueLabelOfPod', name: `${key}:${value}` }],
    nested: { type: 'nestedLabelOfPod', name: `app:${policy.fromApps.join(':')}` },
    nestedMembers: policy.fromApps.map((app) => ({ type: 'keyValueLabelOfPod', name: `app:${app}` })),
    team: { type: 'keyValueLabelOfNamespace', name: `team:${policy.fromTeam}` },
    // NPM names a policy's CIDR set after the policy and its direction.
    cidr: { type: 'cidrBlocks', name: `${policy.key.replace('/', '-')}-in-ns-${policy.namespace}-0in` },
    port: { type: 'namedPorts', name: policy.port },
  };
}

/** Applies one cluster event to a node's manager. */
export function applyEvent(manager: IPSetManager, event: ClusterEvent): void {
  switch (event.kind) {
    case 'namespace-create': {
      const ns = namespaceSet(event.namespace);
      manager.createIPSets([ns]);
      for (const [key, value] of event.labels) {
        manager.addToLists(
          [
            { type: 'keyLabelOfNamespace', name: key },
            { type: 'keyValueLabelOfNamespace', name: `${key}:${value}` },
          ],
          [ns],
        );
      }
      return;
    }
    case 'namespace-relabel': {
      const ns = namespaceSet(event.namespace);
      manager.removeFromList({ type: 'keyValueLabelOfNamespace', name: event.before.join(':') }, [ns]);
      manager.addToLists([{ type: 'keyValueLabelOfNamespace', name: event.after.join(':') }], [ns]);
      return;
    }
    case 'pod-create':
      addPod(manager, event.pod);
      return;
    case 'pod-delete':
      removePod(manager, event.pod);
      return;
    case 'pod-relabel': {
      const after = new Set(event.after.labels.map((l) => l.join('=')));
      const before = new Set(event.before.labels.map((l) => l.join('=')));
      const gone = event.before.labels.filter((l) => !after.has(l.join('=')));
      const added = event.after.labels.filter((l) => !before.has(l.join('=')));
      // A label whose value changed keeps the key set: remove only the key:value sets.
      const keysKept = new Set(event.after.labels.map((l) => l[0]));
      const goneSets = podLabelSets(gone).filter((s) => s.type === 'keyValueLabelOfPod' || !keysKept.has(s.name));
      manager.removeFromSets(goneSets, event.before.ip, event.before.key);
      manager.addToSets(podLabelSets(added), event.after.ip, event.after.key);
      return;
    }
    case 'policy-create': {
      const sets = policySets(event.policy);
      const ref = event.policy.key;
      for (const s of sets.selectors) manager.addReference(s, ref, 'selector');
      manager.addToLists([sets.nested], sets.nestedMembers);
      manager.addReference(sets.nested, ref, 'netpol');
      manager.addReference(sets.team, ref, 'netpol');
      manager.addToSets([sets.cidr], event.policy.cidr, ref);
      manager.addToSets([sets.cidr], `${event.policy.except} nomatch`, ref);
      manager.addReference(sets.cidr, ref, 'netpol');
      manager.addReference(sets.port, ref, 'netpol');
      return;
    }
    case 'policy-delete': {
      const sets = policySets(event.policy);
      const ref = event.policy.key;
      for (const s of sets.selectors) manager.deleteReference(prefixedName(s), ref, 'selector');
      manager.deleteReference(prefixedName(sets.nested), ref, 'netpol');
      manager.deleteReference(prefixedName(sets.team), ref, 'netpol');
      manager.deleteReference(prefixedName(sets.cidr), ref, 'netpol');
      manager.deleteReference(prefixedName(sets.port), ref, 'netpol');
      manager.removeFromSets([sets.cidr], event.policy.cidr, ref);
      manager.removeFromSets([sets.cidr], `${event.policy.except} nomatch`, ref);
      manager.deleteIPSet(prefixedName(sets.cidr), 'force');
      // Another policy may still use the same nested list: only the last one empties it.
      const nested = manager.getIPSet(prefixedName(sets.nested));
      if (nested !== undefined && nested.netPolReferences.length === 0 && nested.selectorReferences.length === 0) {
        manager.removeFromList(sets.nested, sets.nestedMembers);
        manager.deleteIPSet(prefixedName(sets.nested), 'soft');
      }
      return;
    }
  }
}
