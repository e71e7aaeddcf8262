import { describe, expect, it } from 'vitest';
import { rpcOutcome } from '../../src/spire/index.js';

describe('one rule for gRPC outcomes', () => {
  it('a delete answered NOT_FOUND is done: already gone is what we wanted', () => {
    expect(rpcOutcome('NOT_FOUND', 'delete')).toBe('done');
    expect(rpcOutcome('NOT_FOUND', 'update')).toBe('refused');
    expect(rpcOutcome('NOT_FOUND')).toBe('refused');
  });

  it('refusals leave our copy of SPIRE right; transient codes are retried; anything else makes it uncertain', () => {
    for (const c of ['INVALID_ARGUMENT', 'INTERNAL', 'FAILED_PRECONDITION']) expect(rpcOutcome(c, 'create')).toBe('refused');
    for (const c of ['UNAVAILABLE', 'DEADLINE_EXCEEDED', 'CANCELLED', 'RESOURCE_EXHAUSTED']) expect(rpcOutcome(c, 'delete')).toBe('transient');
    for (const c of ['ALREADY_EXISTS', 'UNKNOWN', 'PERMISSION_DENIED', 'ABORTED']) expect(rpcOutcome(c)).toBe('unknown');
  });
});
