/**
 * Atomic (120, V1), built by the libraries from inner transactions the same library built
 * and signed: every other family's oracle case whose (type, version) carries an atomic badge
 * supplies the inner transactions, with the badge set so that the node's rules hold (inner
 * sender = atomic sender with `{}` or a trusted sender, or any sender trusting the atomic
 * sender).
 *
 * The inner JSON carries `id`, as a client sends it: the library builds the atomic's signed
 * bytes from these ids (the node ignores them and recomputes every id). Library quirk: for a
 * CreateAlias the libraries' id is the hash of the body, not WE's fastHash(0x0A ‖ alias
 * bytes); an atomic built with that id signs bytes the node never computes, so the node
 * rejects its signature (test/protocol/atomic.test.ts shows it). A client must put WE's id
 * into the inner CreateAlias JSON, which is what this case does.
 */
import fc from 'fast-check';
import { parseJson } from '../../../src/protocol/json.js';
import { supportsAtomicBadge } from '../../../src/protocol/transactions/atomic.js';
import { buildWithLibrary, timestampArb, type Account, type Library, type OracleCase, type OracleEnv } from '../harness.js';
import { cases as alias } from './alias.js';
import { cases as assets } from './assets.js';
import { cases as contracts } from './contracts.js';
import { cases as data } from './data.js';
import { cases as leasing } from './leasing.js';
import { cases as nodes } from './nodes.js';
import { cases as permissions } from './permissions.js';
import { cases as privacy } from './privacy.js';
import { cases as transfer } from './transfer.js';

/** Every case that can be an inner transaction. */
export const INNER_CASES: readonly OracleCase[] = [
  ...transfer,
  ...assets,
  ...leasing,
  ...alias,
  ...data,
  ...permissions,
  ...contracts,
  ...nodes,
  ...privacy,
].filter((c) => supportsAtomicBadge(c.type, c.version));

const innerCasesFor = (library: Library): OracleCase[] => INNER_CASES.filter((c) => (c.libraries ?? ['tf2', 'tf1']).includes(library));

/** One inner transaction: which case, its fields, who signs it and how its badge reads. */
interface InnerSpec {
  readonly caseIndex: number;
  readonly fields: Record<string, unknown>;
  /** 'self': signed by the atomic sender, badge `{}`; 'selfTrusted': same, badge trusts it; 'other': signed by another account that trusts the atomic sender. */
  readonly badge: 'self' | 'selfTrusted' | 'other';
  readonly otherSigner: number;
}

const innerSpecArb = (env: OracleEnv): fc.Arbitrary<InnerSpec> => {
  const candidates = innerCasesFor(env.mode.library);
  return fc.nat(candidates.length - 1).chain((caseIndex) =>
    fc.record({
      caseIndex: fc.constant(caseIndex),
      fields: candidates[caseIndex]!.fields(env),
      badge: fc.constantFrom<InnerSpec['badge']>('self', 'selfTrusted', 'other'),
      otherSigner: fc.nat(env.accounts.length - 1),
    }),
  );
};

/** Two inner transactions with the same id make the atomic invalid: keep them apart. */
const specKey = (env: OracleEnv) => (s: InnerSpec) => {
  const c = innerCasesFor(env.mode.library)[s.caseIndex]!;
  return c.type === 10 ? `alias:${String(s.fields['alias'])}` : `${c.type}:${String(s.fields['timestamp'])}`;
};

async function buildInner(env: OracleEnv, spec: InnerSpec, atomicSigner: Account): Promise<Record<string, unknown>> {
  const c = innerCasesFor(env.mode.library)[spec.caseIndex]!;
  const accounts = env.accounts;
  let signer = atomicSigner;
  if (spec.badge === 'other') {
    signer = accounts[spec.otherSigner]!;
    if (signer.address === atomicSigner.address) signer = accounts[(spec.otherSigner + 1) % accounts.length]!;
  }
  const atomicBadge = spec.badge === 'self' ? {} : { trustedSender: atomicSigner.address };
  const built = await buildWithLibrary(env.mode, c, { ...spec.fields, atomicBadge }, signer);
  const json = c.adjustJson ? c.adjustJson(built.json, env) : built.json;
  // The client's `id`: the library's, except where WE's id rule differs (CreateAlias).
  const id = c.expectedId ? c.expectedId(env.protocol.transactionFromJson(parseJson(JSON.stringify(json))), json) : built.id;
  return { ...json, id };
}

export const atomicCase: OracleCase = {
  name: 'Atomic',
  type: 120,
  version: 1,
  fields: (env) =>
    fc.record({
      timestamp: timestampArb,
      inner: fc.uniqueArray(innerSpecArb(env), { minLength: 2, maxLength: 4, selector: specKey(env) }),
    }),
  prepare: async (fields, env, signer) => {
    const transactions: Record<string, unknown>[] = [];
    for (const spec of fields['inner'] as InnerSpec[]) transactions.push(await buildInner(env, spec, signer));
    return { timestamp: fields['timestamp'], transactions };
  },
};

/** Always one CreateAlias V4 (WE's own id rule) among the inner transactions (transactions-factory 2.1.4 only has V4). */
const aliasSpecArb = (env: OracleEnv): fc.Arbitrary<InnerSpec> => {
  const caseIndex = innerCasesFor(env.mode.library).findIndex((c) => c.type === 10);
  return fc.record({
    caseIndex: fc.constant(caseIndex),
    fields: innerCasesFor(env.mode.library)[caseIndex]!.fields(env),
    badge: fc.constantFrom<InnerSpec['badge']>('self', 'selfTrusted', 'other'),
    otherSigner: fc.nat(env.accounts.length - 1),
  });
};

export const atomicWithAliasCase: OracleCase = {
  ...atomicCase,
  libraries: ['tf2'],
  fields: (env) =>
    fc.record({
      timestamp: timestampArb,
      inner: fc
        .tuple(aliasSpecArb(env), innerSpecArb(env), fc.boolean())
        .filter(([a, b]) => specKey(env)(a) !== specKey(env)(b))
        .map(([a, b, aliasFirst]) => (aliasFirst ? [a, b] : [b, a])),
    }),
};

export const cases: OracleCase[] = [atomicCase, atomicWithAliasCase];
