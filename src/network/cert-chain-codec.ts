/**
 * How a certificate chain travels with a transaction between WE nodes (≥ 1.11.1):
 *
 *   cert-chain store     = count (int32 BE) ‖ count × ( length (uint16 BE) ‖ DER certificate )
 *   BroadcastedTransaction (message 46) = int32 length ‖ transaction bytes ‖ int32 length ‖ cert-chain store
 *   HistoryBlock (45)    = int32 length ‖ block bytes ‖ int32 length ‖ cert-chain store
 *   MicroBlockResponse V2 (47) = int32 length ‖ micro-block bytes ‖ int32 length ‖ cert-chain store ‖ CRL hashes
 *
 * (WE's CertChainStore.bytes with BinarySerializer.writeBigIterable / writeShortByteArray.)
 * An empty store is a count of 0. Decoding refuses truncated or trailing bytes. The CRL
 * hashes of 47 are `short n ‖ n × (short length ‖ hash)`; Weft sends none and reads past them.
 */
import { X509Certificate } from 'node:crypto';
import { CertificateFormatError, parseCertificate, type Certificate } from '../crypto/pki/x509.js';
import { InternalError } from '../errors/internal.js';

export class CertChainCodecError extends InternalError {
  override readonly name = 'CertChainCodecError';
}

/** What a cert-chain store writes of a certificate: its DER. */
export type CertificateBytes = Pick<Certificate, 'der'>;

export function encodeCertChainStore(certificates: readonly CertificateBytes[]): Uint8Array {
  const parts: Uint8Array[] = [];
  const count = Buffer.alloc(4);
  count.writeInt32BE(certificates.length, 0);
  parts.push(count);
  for (const c of certificates) {
    if (c.der.length > 0xffff) throw new RangeError(`a certificate of ${c.der.length} bytes does not fit a cert-chain store`);
    const length = Buffer.alloc(2);
    length.writeUInt16BE(c.der.length, 0);
    parts.push(length, c.der);
  }
  return Buffer.concat(parts);
}

/** Whether bytes are a DER X.509 certificate of any algorithm (OpenSSL's reading). */
function isX509(der: Uint8Array): boolean {
  try {
    new X509Certificate(der);
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads a cert-chain store at `offset`; returns the GOST certificates and the offset after
 * it. A well-formed X.509 certificate of another key algorithm (a chain on a WAVES network,
 * which WE carries without reading) is left out and counted in `skipped`; bytes that are no
 * certificate make the store malformed.
 */
export function decodeCertChainStore(bytes: Uint8Array, offset = 0): { certificates: Certificate[]; skipped: number; end: number } {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (offset + 4 > b.length) throw new CertChainCodecError('cert-chain store: truncated count');
  const count = b.readInt32BE(offset);
  if (count < 0 || count > 1000) throw new CertChainCodecError(`cert-chain store: bad count ${count}`);
  let pos = offset + 4;
  const certificates: Certificate[] = [];
  let skipped = 0;
  for (let i = 0; i < count; i++) {
    if (pos + 2 > b.length) throw new CertChainCodecError(`cert-chain store: truncated length of certificate ${i}`);
    const length = b.readUInt16BE(pos);
    pos += 2;
    if (pos + length > b.length) throw new CertChainCodecError(`cert-chain store: certificate ${i} is truncated`);
    const der = b.subarray(pos, pos + length);
    try {
      certificates.push(parseCertificate(der));
    } catch (e) {
      if (!(e instanceof CertificateFormatError) || !isX509(der)) throw new CertChainCodecError(`cert-chain store: certificate ${i}: ${(e as Error).message}`);
      skipped++;
    }
    pos += length;
  }
  return { certificates, skipped, end: pos };
}

/** `int32 length ‖ payload ‖ int32 length ‖ cert-chain store` (messages 45, 46; 47 adds CRL hashes after it). */
export function encodeWithCertificates(payload: Uint8Array, certificates: readonly CertificateBytes[]): Uint8Array {
  const store = encodeCertChainStore(certificates);
  const head = Buffer.alloc(4);
  head.writeInt32BE(payload.length, 0);
  const storeLength = Buffer.alloc(4);
  storeLength.writeInt32BE(store.length, 0);
  return Buffer.concat([head, payload, storeLength, store]);
}

/** Reads what encodeWithCertificates wrote; `end` is where anything that follows (CRL hashes of 47) starts. */
export function decodeWithCertificates(bytes: Uint8Array): { payload: Uint8Array; certificates: Certificate[]; end: number } {
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (b.length < 4) throw new CertChainCodecError('truncated payload length');
  const length = b.readInt32BE(0);
  if (length < 0 || 4 + length + 4 > b.length) throw new CertChainCodecError(`payload length ${length} does not fit ${b.length} bytes`);
  const payload = new Uint8Array(b.subarray(4, 4 + length));
  const storeLength = b.readInt32BE(4 + length);
  const storeStart = 8 + length;
  if (storeLength < 4 || storeStart + storeLength > b.length) throw new CertChainCodecError(`cert-chain store length ${storeLength} does not fit`);
  const { certificates, end } = decodeCertChainStore(b.subarray(0, storeStart + storeLength), storeStart);
  if (end !== storeStart + storeLength) throw new CertChainCodecError('bytes left inside the cert-chain store');
  return { payload, certificates, end };
}

/** MicroBlockResponse V2 (47): the micro-block and its certificates, then the CRL hashes (none). */
export function encodeMicroBlockWithCertificates(micro: Uint8Array, certificates: readonly CertificateBytes[]): Uint8Array {
  return Buffer.concat([encodeWithCertificates(micro, certificates), Buffer.from([0, 0])]);
}

/** Reads a MicroBlockResponse V2 (47); the CRL hashes after the certificates are checked for shape and left aside. */
export function decodeMicroBlockWithCertificates(bytes: Uint8Array): { payload: Uint8Array; certificates: Certificate[] } {
  const { payload, certificates, end } = decodeWithCertificates(bytes);
  const b = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (end + 2 > b.length) throw new CertChainCodecError('truncated CRL hash count');
  const count = b.readUInt16BE(end);
  let pos = end + 2;
  for (let i = 0; i < count; i++) {
    if (pos + 2 > b.length) throw new CertChainCodecError(`truncated length of CRL hash ${i}`);
    pos += 2 + b.readUInt16BE(pos);
    if (pos > b.length) throw new CertChainCodecError(`CRL hash ${i} is truncated`);
  }
  if (pos !== b.length) throw new CertChainCodecError(`${b.length - pos} bytes after the CRL hashes`);
  return { payload, certificates };
}
