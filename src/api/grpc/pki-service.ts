/**
 * PkiPublicService (the official stub's `wavesenterprise.grpc.PkiPublicService`; WE 1.14's
 * open-source node does not register it, its GOST build does): a certificate of the
 * network's store (or genesis) by subject DN, DN hash (hex SHA-1), account public key
 * (Base58) or fingerprint (Base64 SHA-1 of the DER), over the same lookup as
 * `/pki/certificate/{by-dn,by-dn-hash,by-public-key,by-fingerprint}`. The answer is the DER
 * certificate itself (REST answers its Base64); none — a malformed key included, as REST
 * answers it — is NOT_FOUND 119. Served on GOST networks only, where `services.pki` exists.
 */
import {
  PkiPublicServiceService,
  type CertByDNHashRequest,
  type CertByDNRequest,
  type CertByFingerprintRequest,
  type CertByPublicKeyRequest,
  type CertificateResponse,
} from '@wavesenterprise/js-contract-grpc-client/pki/pki_public_service.js';
import type { CertificateKey, PkiApi } from '../../pki/pki-service.js';
import { unary, type PublicGrpcDeps, type PublicGrpcService } from './public-service.js';

export function pkiPublicService(deps: PublicGrpcDeps, pki: PkiApi): PublicGrpcService {
  const certificate = <Req>(key: CertificateKey, valueOf: (request: Req) => string | undefined) =>
    unary(deps, 'user', (request: Req): CertificateResponse => ({ certificate: pki.certificate(key, valueOf(request) ?? '').der }));
  return {
    definition: PkiPublicServiceService,
    implementation: {
      getCertificateByDn: certificate('dn', (r: CertByDNRequest) => r.dn),
      getCertificateByDnHash: certificate('dnHash', (r: CertByDNHashRequest) => r.dnHash),
      getCertificateByPublicKey: certificate('publicKey', (r: CertByPublicKeyRequest) => r.publicKeyBase58),
      getCertificateByFingerprint: certificate('fingerprint', (r: CertByFingerprintRequest) => r.fingerprintBase64),
    },
  };
}
