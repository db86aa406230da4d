/**
 * The node's licences: uploaded (checked: form, issuer listed in the config, signature,
 * this node's owner), kept in one JSON document (`{"licenses": [<licence JSON>, …]}`, written
 * whole through the given storage), listed, deleted, and the status of WE's status machine at
 * the chain's height and the node's time.
 *
 * What an unlicensed node does (`node.licenses.on-expiry`), checked after every block and on
 * every change of the licences:
 * - `report` (default): keeps running; the status says it and the log warns once per change;
 * - `stop-mining`: stops forging while unlicensed and forges again once licensed;
 * - `stop-node`: stops the node.
 * Licensed means ACTIVE or TRIAL.
 */
import type { CryptoSuite } from '../crypto/suite.js';
import { checkLicence, LicenceError, licenceJson, parseLicence, type SignedLicence } from './licence.js';
import { isLicensed, licenceStatus, type LicenceStatus } from './status.js';

export type LicenceExpiryAction = 'report' | 'stop-mining' | 'stop-node';

export interface LicenceSettings {
  /** Public keys whose licences this node accepts. */
  readonly issuers: readonly Uint8Array[];
  readonly onExpiry: LicenceExpiryAction;
}

/** Where the licence document lives (a file written atomically, in the node). */
export interface LicenceStorage {
  read(): string | undefined;
  write(text: string): void;
}

/** What the REST layer calls (`/licenses/*`). */
export interface LicenceApi {
  list(): ReadonlyArray<Record<string, unknown>>;
  status(): LicenceStatus;
  /** Checks and stores a licence document; answers its JSON. Throws LicenceError. */
  upload(doc: unknown): Record<string, unknown>;
  /** Removes a licence by id; answers its JSON, undefined when there is none. */
  delete(id: string): Record<string, unknown> | undefined;
}

export interface LicenceServiceOptions {
  readonly suite: CryptoSuite;
  readonly settings: LicenceSettings;
  readonly nodeOwnerAddress: string;
  readonly storage: LicenceStorage;
  readonly height: () => number;
  readonly now: () => bigint;
  /** Called when the node becomes unlicensed (true) or licensed again (false), and on start. */
  readonly onLicensedChange?: (licensed: boolean, status: LicenceStatus) => void;
}

export class LicenceService implements LicenceApi {
  #licences: SignedLicence[];
  #licensed: boolean | undefined;

  constructor(private readonly o: LicenceServiceOptions) {
    this.#licences = this.load();
  }

  private load(): SignedLicence[] {
    const text = this.o.storage.read();
    if (text === undefined) return [];
    const doc = JSON.parse(text) as { licenses?: unknown };
    if (!Array.isArray(doc.licenses)) throw new Error('the licence file holds no "licenses" list');
    // Stored licences were checked on upload; a file edited by hand is checked again.
    return doc.licenses.map((l) => {
      const parsed = parseLicence(l);
      checkLicence(this.o.suite, parsed, { issuers: this.o.settings.issuers, nodeOwnerAddress: this.o.nodeOwnerAddress });
      return parsed;
    });
  }

  private save(next: SignedLicence[]): void {
    this.o.storage.write(`${JSON.stringify({ licenses: next.map((l) => licenceJson(this.o.suite, l)) }, null, 2)}\n`);
    this.#licences = next;
    this.check();
  }

  list(): ReadonlyArray<Record<string, unknown>> {
    return this.#licences.map((l) => licenceJson(this.o.suite, l));
  }

  status(): LicenceStatus {
    return licenceStatus(this.#licences, this.o.height(), this.o.now());
  }

  upload(doc: unknown): Record<string, unknown> {
    const licence = parseLicence(doc);
    checkLicence(this.o.suite, licence, { issuers: this.o.settings.issuers, nodeOwnerAddress: this.o.nodeOwnerAddress });
    if (this.#licences.some((l) => l.terms.id === licence.terms.id)) throw new LicenceError(`license '${licence.terms.id}' is already uploaded`, 'license.id');
    this.save([...this.#licences, licence]);
    return licenceJson(this.o.suite, licence);
  }

  delete(id: string): Record<string, unknown> | undefined {
    const found = this.#licences.find((l) => l.terms.id === id);
    if (found === undefined) return undefined;
    this.save(this.#licences.filter((l) => l !== found));
    return licenceJson(this.o.suite, found);
  }

  /** Re-evaluates the status; tells `onLicensedChange` when licensed-or-not changed (and the first time). */
  check(): LicenceStatus {
    const status = this.status();
    const licensed = isLicensed(status);
    if (licensed !== this.#licensed) {
      this.#licensed = licensed;
      this.o.onLicensedChange?.(licensed, status);
    }
    return status;
  }
}
