import type { PassProblem } from '../api/index.js';
import type { FederationPassResult } from './pass.js';
import type { FederationPlan } from './relationship-plan.js';

export function describeTrustDomainConflict(c: FederationPlan['conflicts'][number]): string {
  return `trust domain ${c.trustDomain} is already declared by ClusterFederatedTrustDomain/${c.heldBy.name} (older)`;
}

export function describeInvalidTrustDomain(i: FederationPlan['invalid'][number]): string {
  return i.problems.map((p) => `${p.field}: ${p.message}`).join('; ');
}

/** What a federation pass has to report, worded as entryPassProblems words an entry pass. */
export function federationPassProblems(r: Pick<FederationPassResult, 'plan' | 'applied'>): PassProblem[] {
  const ownerOf = (td: string) => r.plan.winners.find((w) => w.trustDomain === td)?.owner;
  return [
    ...r.plan.conflicts.map((c): PassProblem => ({ owner: c.owner, level: 'warn', event: 'TrustDomainConflict', message: describeTrustDomainConflict(c) })),
    ...r.plan.invalid.map((i): PassProblem => ({ owner: i.owner, level: 'warn', event: 'Invalid', message: describeInvalidTrustDomain(i) })),
    ...[...(r.applied?.failed ?? [])].map(([td, error]): PassProblem => {
      const owner = ownerOf(td);
      return { owner, level: 'error', message: `federation relationship ${td}: ${error}` };
    }),
  ];
}
