/**
 * `/pki/*` (WE's closed GOST build; docs "REST API: retrieving certificates" and "generation
 * and checking of data digital signatures"): certificates from the network's store by DN,
 * DN hash, public key or fingerprint; keystore aliases; CAdES-BES detached signing with a
 * keystore key and verification.
 *
 * Rule PKI-2: GOST networks only — on a WAVES network every `/pki` route answers 199 saying
 * so. Rule PKI-1: `POST /pki/sign` is unavailable while `node.crypto.pki.mode = ON`.
 *
 * A found certificate is answered as `text/plain`: the Base64 of its DER, or with
 * `plainText=true` a readable rendering (openssl's `x509 -text` layout). Missing: 119 (404).
 */
import { Type } from '@sinclair/typebox';
import { certificateText } from '../../crypto/pki/certificate-text.js';
import { encodeBase64 } from '../../crypto/encoding.js';
import type { Certificate } from '../../crypto/pki/x509.js';
import { sigTypeNumber, type CertificateKey, type PkiApi } from '../../pki/pki-service.js';
import { booleanQuery, text } from '../params.js';
import { defineRoutes, Reply, route, type ApiContext } from '../routing.js';
import * as S from '../schemas.js';
import { customValidationError } from '../../errors/catalogue.js';

const err = (description: string) => ({ description, schema: S.ErrorBody });

function pkiOf(ctx: ApiContext): PkiApi {
  const pki = ctx.services.pki;
  if (pki === undefined) throw customValidationError('The PKI methods are available only on GOST networks (node.crypto.type = GOST)', 'node.crypto.type');
  return pki;
}

const certificateAnswer = (cert: Certificate, plainText: boolean | undefined): Reply =>
  new Reply(200, plainText === true ? certificateText(cert) : encodeBase64(cert.der), 'text');

const certificateRoute = <const P extends string>(path: P, key: CertificateKey, summary: string, param: string) =>
  route({
    method: 'GET',
    path: `/pki/certificate/${path}/{value}`,
    auth: 'user',
    summary,
    params: { value: text(param) },
    query: { plainText: booleanQuery('`true`: the certificate as readable text instead of Base64 DER') },
    responses: {
      200: { description: 'Base64 of the DER certificate (or, with `plainText=true`, its text)', contentType: 'text/plain', schema: Type.String() },
      400: err('199 not a GOST network'),
      404: err('119 no such certificate'),
    },
    handler: ({ params, query }, ctx) => certificateAnswer(pkiOf(ctx).certificate(key, params.value), query.plainText),
  });

/** WE's number, or its name as the specification's samples send it (pki-service.ts, sigTypeNumber). */
const SigType = (description: string) => Type.Union([Type.Integer(), Type.String()], { description });

const SignRequest = Type.Object(
  {
    inputData: Type.String({ description: 'The data, Base64' }),
    keystoreAlias: Type.String({ description: 'Address of a keystore key (`GET /pki/keystoreAliases`)' }),
    password: Type.Optional(Type.String({ description: "The key's keystore password" })),
    sigType: SigType('1 or CAdES_BES = CAdES-BES (2 = CAdES-X Long Type 1 and 3 = CAdES-T are refused: Weft has no time-stamp client)'),
  },
  { $id: 'PkiSignRequest' },
);

const VerifyRequest = Type.Object(
  {
    inputData: Type.String({ description: 'The signed data, Base64' }),
    signature: Type.String({ description: 'Detached CMS signature (DER), Base64' }),
    sigType: SigType('1 or CAdES_BES = CAdES-BES'),
    extendedKeyUsageList: Type.Optional(
      Type.Array(Type.String(), { description: "OIDs (or names such as clientAuth) the signer's certificate must have as extended key usages" }),
    ),
    extended_key_usage_list: Type.Optional(Type.Array(Type.String(), { description: 'The same, as WE documents its name' })),
  },
  { $id: 'PkiVerifyRequest' },
);

export const pkiRoutes = defineRoutes({ name: 'pki', description: 'GOST PKI: certificates of the network, CAdES-BES signing and verification' }, [
  certificateRoute('by-dn', 'dn', 'A certificate by its subject DN', 'Subject DN in RFC 2253 form (as Java prints it), percent-encoded'),
  certificateRoute('by-dn-hash', 'dnHash', 'A certificate by the SHA-1 of its subject DN', 'SHA-1 of the UTF-8 RFC 2253 DN, hex'),
  certificateRoute('by-public-key', 'publicKey', 'A certificate by its public key', 'Account public key (64 bytes), Base58'),
  certificateRoute('by-fingerprint', 'fingerprint', 'A certificate by its fingerprint', 'SHA-1 of the DER certificate, Base64 (percent-encoded)'),
  route({
    method: 'GET',
    path: '/pki/keystoreAliases',
    auth: 'user',
    summary: 'Aliases of the keystore keys (their addresses)',
    responses: { 200: Type.Array(Type.String()), 400: err('199 not a GOST network') },
    handler: (_req, ctx) => [...pkiOf(ctx).keystoreAliases()],
  }),
  route({
    method: 'POST',
    path: '/pki/sign',
    auth: 'user',
    summary: 'A detached CAdES-BES signature of data with a keystore key',
    description:
      "GOST R 34.10-2012 256-bit over Streebog-256; the signer's certificate (and its issuers) come from the network's certificate store. Unavailable while `node.crypto.pki.mode = ON`.",
    body: { schema: SignRequest, read: 'schema' },
    unavailableInPkiMode: true,
    responses: {
      200: Type.Object({ signature: Type.String({ description: 'Detached CMS SignedData (DER), Base64' }) }),
      400: err('1 malformed body; 115 unknown alias or wrong password; 199 bad Base64, unsupported sigType, not a GOST network, unavailable in PKI mode ON'),
      404: err("119 the key has no certificate in the network's store"),
    },
    handler: async ({ body }, ctx) => ({
      signature: await pkiOf(ctx).sign({
        inputData: body.inputData,
        keystoreAlias: body.keystoreAlias,
        password: body.password,
        sigType: sigTypeNumber(body.sigType),
      }),
    }),
  }),
  route({
    method: 'POST',
    path: '/pki/verify',
    auth: 'user',
    summary: 'Checks a detached CAdES-BES signature',
    description:
      "True when the signature verifies over the data, its signer's certificate has every extended key usage asked for, and — in PKI mode TEST or ON — that certificate validates against the network's trusted roots (and CRLs when CRL checks are on).",
    body: { schema: VerifyRequest, read: 'schema' },
    responses: {
      200: Type.Object({ sigStatus: Type.Boolean() }),
      400: err('1 malformed body; 199 bad Base64, not a CMS signature, unknown OID, unsupported sigType, not a GOST network'),
    },
    handler: async ({ body }, ctx) => ({
      sigStatus: await pkiOf(ctx).verify({
        inputData: body.inputData,
        signature: body.signature,
        sigType: sigTypeNumber(body.sigType),
        extendedKeyUsageList: [...(body.extendedKeyUsageList ?? []), ...(body.extended_key_usage_list ?? [])],
      }),
    }),
  }),
]);
