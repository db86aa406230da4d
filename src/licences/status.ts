/**
 * The node licence status of WE's `GET /licenses/status`, from the uploaded licences, the
 * chain height and the time:
 *
 * - ACTIVE: a licence is valid now (valid_after ≤ today < valid_before);
 * - TRIAL: none is, and the chain is at most 30 000 blocks high (the trial period);
 * - after the trial, with no licence valid now:
 *   - PENDING: a licence becomes valid later;
 *   - EXPIRED: none will, and one has expired;
 *   - TRIAL_EXPIRED: no licence was ever valid or will be.
 */
import { dayStart, type SignedLicence } from './licence.js';

export const TRIAL_BLOCKS = 30_000;

export type LicenceStatusName = 'TRIAL' | 'TRIAL_EXPIRED' | 'ACTIVE' | 'PENDING' | 'EXPIRED';

export interface LicenceStatus {
  readonly status: LicenceStatusName;
  readonly description: string;
}

/** Whether the node may go on as licensed: ACTIVE or TRIAL. */
export const isLicensed = (s: LicenceStatus): boolean => s.status === 'ACTIVE' || s.status === 'TRIAL';

export function licenceStatus(licences: readonly SignedLicence[], height: number, now: bigint): LicenceStatus {
  const span = (l: SignedLicence): { from: bigint; until: bigint | undefined } => ({
    from: dayStart(l.terms.validAfter)!,
    until: l.terms.validBefore === null ? undefined : dayStart(l.terms.validBefore)!,
  });
  const active = licences
    .filter((l) => {
      const s = span(l);
      return s.from <= now && (s.until === undefined || now < s.until);
    })
    // The one valid longest.
    .sort((a, b) => {
      const ua = span(a).until;
      const ub = span(b).until;
      return ua === undefined ? -1 : ub === undefined ? 1 : ua > ub ? -1 : ua < ub ? 1 : 0;
    });
  if (active.length > 0) {
    const l = active[0]!;
    return {
      status: 'ACTIVE',
      description:
        l.terms.validBefore === null ? `License '${l.terms.id}' is active, with no end date` : `License '${l.terms.id}' is active until ${l.terms.validBefore}`,
    };
  }
  if (height <= TRIAL_BLOCKS) return { status: 'TRIAL', description: `Trial period is active. Blocks before expiration: '${TRIAL_BLOCKS - height}'` };
  const pending = licences.filter((l) => span(l).from > now).sort((a, b) => (span(a).from < span(b).from ? -1 : 1));
  if (pending.length > 0) {
    const l = pending[0]!;
    return { status: 'PENDING', description: `Trial period is over and no license is active; license '${l.terms.id}' becomes active on ${l.terms.validAfter}` };
  }
  const expired = licences.filter((l) => span(l).until !== undefined).sort((a, b) => (span(a).until! > span(b).until! ? -1 : 1));
  if (expired.length > 0) {
    const l = expired[0]!;
    return { status: 'EXPIRED', description: `License '${l.terms.id}' expired on ${l.terms.validBefore!} and no other license is valid` };
  }
  return { status: 'TRIAL_EXPIRED', description: `Trial period of ${TRIAL_BLOCKS} blocks is over and no license is uploaded` };
}
