/**
 * X.509 certificate revocation lists (RFC 5280 §5), read strictly from DER: issuer, update
 * times, the revoked serial numbers, and the signature to check against the issuer's key.
 */
import { DerError, readDer, readInteger, readOid, readTime, Tag } from './der.js';
import { CertificateFormatError, readName, type DistinguishedName } from './x509.js';
import { InternalError } from '../../errors/internal.js';

export interface RevocationList {
  readonly der: Uint8Array;
  readonly tbs: Uint8Array;
  readonly signatureAlgorithm: string;
  readonly signature: Uint8Array;
  readonly issuer: DistinguishedName;
  readonly thisUpdate: bigint;
  readonly nextUpdate: bigint | undefined;
  /** Revoked serial number → revocation time (ms). */
  readonly revoked: ReadonlyMap<bigint, bigint>;
}

export class CrlFormatError extends InternalError {
  override readonly name = 'CrlFormatError';
}

export function parseCrl(input: Uint8Array): RevocationList {
  try {
    const der = new Uint8Array(input);
    const [tbs, alg, sig, ...extra] = readDer(der).expect(Tag.SEQUENCE, 'CRL').children();
    if (tbs === undefined || alg === undefined || sig === undefined || extra.length > 0) throw new DerError('a CRL is a sequence of three elements');
    const fields = tbs.expect(Tag.SEQUENCE, 'tbsCertList').children();
    let i = 0;
    if (fields[0]?.tag === Tag.INTEGER) i++;
    const need = (what: string) => {
      const n = fields[i++];
      if (n === undefined) throw new DerError(`tbsCertList ends before its ${what}`);
      return n;
    };
    need('signature algorithm');
    const issuer = readName(need('issuer'));
    const thisUpdate = readTime(need('thisUpdate'));
    let nextUpdate: bigint | undefined;
    if (fields[i]?.tag === Tag.UTC_TIME || fields[i]?.tag === Tag.GENERALIZED_TIME) nextUpdate = readTime(fields[i++]!);
    const revoked = new Map<bigint, bigint>();
    if (fields[i]?.tag === Tag.SEQUENCE) {
      for (const entry of fields[i++]!.children()) {
        const [serial, date] = entry.expect(Tag.SEQUENCE, 'revoked certificate').children();
        if (serial === undefined || date === undefined) throw new DerError(`bad revoked certificate entry at byte ${entry.offset}`);
        revoked.set(readInteger(serial), readTime(date));
      }
    }
    if (fields[i]?.tag === 0xa0) i++;
    if (i !== fields.length) throw new DerError('unexpected elements at the end of tbsCertList');
    const [algId] = alg.expect(Tag.SEQUENCE, 'signature algorithm').children();
    if (algId === undefined) throw new DerError('empty signature algorithm');
    if (sig.tag !== Tag.BIT_STRING || sig.content[0] !== 0) throw new DerError('bad CRL signature');
    return {
      der,
      tbs: tbs.der,
      signatureAlgorithm: readOid(algId),
      signature: new Uint8Array(sig.content.subarray(1)),
      issuer,
      thisUpdate,
      nextUpdate,
      revoked,
    };
  } catch (e) {
    if (e instanceof DerError || e instanceof CertificateFormatError) throw new CrlFormatError(`not a DER X.509 CRL: ${e.message}`);
    throw e;
  }
}
