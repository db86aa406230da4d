/**
 * An independent GOST PKI for tests: OpenSSL with Debian's `libengine-gost-openssl` (the
 * `gost` engine) makes a test CA (GOST R 34.10-2012 256-bit, CryptoPro-A paramset),
 * intermediate CAs, user certificates — for OpenSSL's own keys or for a given Weft account
 * key (`-force_pubkey`) —, revokes them and issues CRLs; and it signs and verifies CMS
 * (`openssl cms`), the oracle Weft's CAdES signatures are checked against both ways.
 *
 * `.ci/run` installs the engine when it is missing.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeBase64 } from '../../src/crypto/encoding.js';
import { gostSubjectPublicKeyInfo } from '../../src/crypto/pki/x509.js';

export function openssl(args: readonly string[], cwd: string, input?: Uint8Array): Buffer {
  try {
    return execFileSync('openssl', args, { cwd, input, stdio: ['pipe', 'pipe', 'pipe'] });
  } catch (e) {
    const err = e as { stderr?: Buffer; stdout?: Buffer };
    throw new Error(`openssl ${args.join(' ')} failed: ${err.stderr?.toString() ?? ''}${err.stdout?.toString() ?? ''}`, { cause: e });
  }
}

export const pemToDer = (pem: string): Buffer => Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s/g, ''), 'base64');
export const derToPem = (der: Uint8Array, label: string): string =>
  `-----BEGIN ${label}-----\n${(encodeBase64(der).match(/.{1,64}/g) ?? []).join('\n')}\n-----END ${label}-----\n`;

export interface IssueOptions {
  /** OpenSSL's `-subj` form, e.g. `/C=RU/O=Weft Test/CN=User One`. */
  readonly subject: string;
  /** A Weft account key to certify; absent: OpenSSL makes a key (its PEM is kept with the certificate). */
  readonly publicKey?: Uint8Array;
  /** extendedKeyUsage names (`clientAuth, emailProtection`) or OIDs. */
  readonly eku?: readonly string[];
  readonly ca?: boolean;
  readonly days?: number;
}

export interface Issued {
  readonly der: Buffer;
  readonly pemFile: string;
  /** OpenSSL's private key file (absent for a Weft key). */
  readonly keyFile: string | undefined;
  readonly base64: string;
}

let counter = 0;

/** A GOST CA with its own directory, database and CRL distribution point URL. */
export class GostTestCa {
  readonly dir: string;
  readonly cert: Issued;
  private readonly signerKey: string;
  private readonly signerCert: string;

  private constructor(
    dir: string,
    cert: Issued,
    readonly name: string,
    /** The URL certificates of this CA name as their CRL distribution point. */
    readonly crlUrl: string,
  ) {
    this.dir = dir;
    this.cert = cert;
    this.signerKey = cert.keyFile!;
    this.signerCert = cert.pemFile;
  }

  /** A self-signed root CA. */
  static root(subject: string, crlUrl: string): GostTestCa {
    const dir = mkdtempSync(join(tmpdir(), 'weft-gost-ca-'));
    writeFileSync(join(dir, 'index.txt'), '');
    writeFileSync(join(dir, 'crlnumber'), '1000\n');
    openssl(['genpkey', '-engine', 'gost', '-algorithm', 'gost2012_256', '-pkeyopt', 'paramset:A', '-out', 'ca.key'], dir);
    openssl(
      [
        'req',
        '-engine',
        'gost',
        '-new',
        '-x509',
        '-key',
        'ca.key',
        '-subj',
        subject,
        '-days',
        '3650',
        '-out',
        'ca.pem',
        '-addext',
        'basicConstraints=critical,CA:TRUE',
        '-addext',
        'keyUsage=critical,keyCertSign,cRLSign',
      ],
      dir,
    );
    const pem = readFileSync(join(dir, 'ca.pem'), 'utf8');
    const der = pemToDer(pem);
    const ca = new GostTestCa(dir, { der, pemFile: join(dir, 'ca.pem'), keyFile: join(dir, 'ca.key'), base64: der.toString('base64') }, subject, crlUrl);
    ca.writeConfig();
    return ca;
  }

  private writeConfig(): void {
    writeFileSync(
      join(this.dir, 'ca.cnf'),
      [
        '[ ca ]',
        'default_ca = test_ca',
        '[ test_ca ]',
        `database = ${join(this.dir, 'index.txt')}`,
        `new_certs_dir = ${this.dir}`,
        `crlnumber = ${join(this.dir, 'crlnumber')}`,
        `certificate = ${this.signerCert}`,
        `private_key = ${this.signerKey}`,
        'default_md = md_gost12_256',
        'default_crl_days = 30',
        '',
      ].join('\n'),
    );
  }

  /** Issues a certificate (a user's, or an intermediate CA's with `ca: true`). */
  issue(o: IssueOptions): Issued {
    const id = `c${++counter}`;
    const ext = [
      `basicConstraints=critical,CA:${o.ca === true ? 'TRUE' : 'FALSE'}`,
      o.ca === true ? 'keyUsage=critical,keyCertSign,cRLSign' : 'keyUsage=critical,digitalSignature,nonRepudiation',
      ...(o.eku !== undefined && o.eku.length > 0 ? [`extendedKeyUsage=${o.eku.join(',')}`] : []),
      `crlDistributionPoints=URI:${this.crlUrl}`,
      'subjectKeyIdentifier=hash',
      'authorityKeyIdentifier=keyid',
    ];
    writeFileSync(join(this.dir, `${id}.ext`), `${ext.join('\n')}\n`);
    // The request is signed by a throwaway key; -force_pubkey puts the Weft key in when given.
    openssl(['genpkey', '-engine', 'gost', '-algorithm', 'gost2012_256', '-pkeyopt', 'paramset:A', '-out', `${id}.key`], this.dir);
    openssl(['req', '-engine', 'gost', '-new', '-key', `${id}.key`, '-subj', o.subject, '-out', `${id}.csr`], this.dir);
    const args = [
      'x509',
      '-engine',
      'gost',
      '-req',
      '-in',
      `${id}.csr`,
      '-CA',
      this.signerCert,
      '-CAkey',
      this.signerKey,
      '-set_serial',
      `0x${Date.now().toString(16)}${(counter * 7919).toString(16)}`,
      '-extfile',
      `${id}.ext`,
      '-out',
      `${id}.pem`,
    ];
    if (o.publicKey !== undefined) {
      writeFileSync(join(this.dir, `${id}.pub.pem`), derToPem(gostSubjectPublicKeyInfo(o.publicKey, '1.2.643.2.2.35.1'), 'PUBLIC KEY'));
      args.push('-force_pubkey', `${id}.pub.pem`);
    }
    args.push('-days', String(o.days ?? 365));
    openssl(args, this.dir);
    const pemFile = join(this.dir, `${id}.pem`);
    const der = pemToDer(readFileSync(pemFile, 'utf8'));
    const issued: Issued = { der, pemFile, keyFile: o.publicKey === undefined ? join(this.dir, `${id}.key`) : undefined, base64: der.toString('base64') };
    return issued;
  }

  /** An intermediate CA under this one. */
  intermediate(subject: string, crlUrl: string): GostTestCa {
    const issued = this.issue({ subject, ca: true });
    const dir = mkdtempSync(join(tmpdir(), 'weft-gost-ca-'));
    writeFileSync(join(dir, 'index.txt'), '');
    writeFileSync(join(dir, 'crlnumber'), '2000\n');
    const ca = new GostTestCa(dir, issued, subject, crlUrl);
    ca.writeConfig();
    return ca;
  }

  /** Marks a certificate revoked in the CA database. */
  revoke(cert: Issued): void {
    openssl(['ca', '-engine', 'gost', '-config', 'ca.cnf', '-revoke', cert.pemFile], this.dir);
  }

  /** A fresh CRL (DER) of everything revoked so far. */
  crl(): Buffer {
    openssl(['ca', '-engine', 'gost', '-config', 'ca.cnf', '-gencrl', '-out', 'crl.pem'], this.dir);
    return pemToDer(readFileSync(join(this.dir, 'crl.pem'), 'utf8'));
  }

  /** `openssl cms -sign`: a detached DER signature of `data` with an OpenSSL-held key. */
  cmsSign(data: Uint8Array, signer: Issued): Buffer {
    return opensslCmsSign(this.dir, data, signer.pemFile, signer.keyFile!, [this.cert.pemFile]);
  }

  /** `openssl cms -verify` of a detached DER signature against `roots` (PEM files); the error text when it fails. */
  cmsVerify(signature: Uint8Array, data: Uint8Array, roots: readonly string[]): { ok: true } | { ok: false; error: string } {
    return opensslCmsVerify(this.dir, signature, data, roots);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** `openssl cms -sign` in `dir`: a detached DER signature of `data` by the certificate and key in PEM files (with `chain` added). */
export function opensslCmsSign(dir: string, data: Uint8Array, certificatePem: string, keyPem: string, chain: readonly string[] = []): Buffer {
  writeFileSync(join(dir, 'content.bin'), data);
  const certfile = chain.flatMap((f) => ['-certfile', f]);
  openssl(
    [
      'cms',
      '-engine',
      'gost',
      '-sign',
      '-binary',
      '-in',
      'content.bin',
      '-signer',
      certificatePem,
      '-inkey',
      keyPem,
      ...certfile,
      '-md',
      'md_gost12_256',
      '-outform',
      'DER',
      '-out',
      'sig.der',
    ],
    dir,
  );
  return readFileSync(join(dir, 'sig.der'));
}

/** `openssl cms -verify` in `dir` of a detached DER signature against `roots` (PEM files); the error text when it fails. */
export function opensslCmsVerify(dir: string, signature: Uint8Array, data: Uint8Array, roots: readonly string[]): { ok: true } | { ok: false; error: string } {
  writeFileSync(join(dir, 'verify.sig'), signature);
  writeFileSync(join(dir, 'verify.bin'), data);
  writeFileSync(join(dir, 'roots.pem'), roots.map((f) => readFileSync(f, 'utf8')).join(''));
  try {
    openssl(
      [
        'cms',
        '-engine',
        'gost',
        '-verify',
        '-binary',
        '-inform',
        'DER',
        '-in',
        'verify.sig',
        '-content',
        'verify.bin',
        '-CAfile',
        'roots.pem',
        '-purpose',
        'any',
        '-out',
        '/dev/null',
      ],
      dir,
    );
    return { ok: true };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}
