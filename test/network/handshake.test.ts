import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { AddressScheme } from '../../src/crypto/address.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGostSuite } from '../../src/crypto/gost.js';
import { gostSubjectPublicKeyInfo } from '../../src/crypto/pki/x509.js';
import { createWavesSuite } from '../../src/crypto/waves.js';
import {
  decodeHandshake,
  decodePeerIdentityRequest,
  decodePeerIdentityResponse,
  encodeHandshake,
  encodeHandshakePayload,
  encodePeerIdentityMessage,
  encodePeerIdentityRequest,
  encodePeerIdentitySuccess,
  GOST_SESSION_KEY_LENGTH,
  HandshakeDecoder,
  HandshakeError,
  sessionKeyLength,
  validateHandshake,
  type HandshakeValidationDeps,
} from '../../src/network/handshake.js';
import type { HandshakeInfo } from '../../src/network/types.js';
import { openssl } from '../../devkit/pki/openssl-gost.js';

const suite = await createWavesSuite();
const T = 'T'.charCodeAt(0);
const scheme = new AddressScheme(T, suite);
const alice = suite.keyPairFromSeedPhrase('alice handshake seed');
const bob = suite.keyPairFromSeedPhrase('bob handshake seed');
const mallory = suite.keyPairFromSeedPhrase('mallory handshake seed');
const addr = (pk: Uint8Array): Uint8Array => scheme.fromPublicKey(pk).bytes;

function info(owner: Uint8Array, over: Partial<HandshakeInfo> = {}): HandshakeInfo {
  return {
    chainId: T,
    version: [1, 14, 0],
    consensusType: 'PoA',
    declaredAddress: { host: '10.0.0.2', port: 6864 },
    nonce: 123456789n,
    nodeName: 'node-1',
    ownerAddress: owner,
    sessionPublicKey: new Uint8Array(32).fill(7),
    ...over,
  };
}

const signBy = (kp: { privateKey: Uint8Array }) => (m: Uint8Array) => suite.sign(kp.privateKey, m);

const registry = new Map([
  [Buffer.from(addr(alice.publicKey)).toString('hex'), alice.publicKey],
  [Buffer.from(addr(bob.publicKey)).toString('hex'), bob.publicKey],
]);
const deps: HandshakeValidationDeps = {
  participantPublicKey: (a) => registry.get(Buffer.from(a).toString('hex')),
  verify: (pk, m, s) => suite.verify(pk, m, s),
};
const own = info(addr(bob.publicKey), { nodeName: 'bob' });

function rejected(f: () => unknown, kind: HandshakeError['kind'], message?: RegExp): void {
  assert.throws(f, (e: unknown) => {
    assert.ok(e instanceof HandshakeError, String(e));
    assert.equal(e.kind, kind, e.message);
    if (message) assert.match(e.message, message);
    return true;
  });
}

const infoArb = fc.record({
  chainId: fc.integer({ min: 0, max: 0xffff }),
  version: fc.tuple(fc.integer({ min: -5, max: 100 }), fc.integer({ min: 0, max: 100 }), fc.integer({ min: 0, max: 100 })),
  consensusType: fc.constantFrom('PoA', 'PoS', 'CFT', 'poa', ''),
  declaredAddress: fc.oneof(
    fc.constant(undefined),
    fc.record({ host: fc.ipV4(), port: fc.integer({ min: 0, max: 65535 }) }),
    fc.record({
      host: fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => {
        const g: string[] = [];
        for (let i = 0; i < 16; i += 2) g.push(((b[i]! << 8) | b[i + 1]!).toString(16));
        return g.join(':');
      }),
      port: fc.integer({ min: 0, max: 65535 }),
    }),
  ),
  nonce: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  nodeName: fc.string({ maxLength: 40 }),
  ownerAddress: fc.constant(addr(alice.publicKey)),
  sessionPublicKey: fc.uint8Array({ minLength: 32, maxLength: 32 }),
});

function normalizeV6(host: string): string {
  // Compare IPv6 hosts by bytes: the decoder writes the compressed form.
  return host.includes(':') ? new URL(`http://[${host}]/`).hostname : host;
}

describe('V3 handshake bytes', () => {
  it('has WE’s layout', () => {
    const i = info(addr(alice.publicKey));
    const payload = Buffer.from(encodeHandshakePayload(i));
    const expected = Buffer.concat([
      Buffer.from([0, T]),
      Buffer.from([0, 0, 0, 1, 0, 0, 0, 14, 0, 0, 0, 0]),
      Buffer.from([0, 3]),
      Buffer.from('PoA'),
      Buffer.from([1, 0, 8, 0, 0, 0x1a, 0xd0, 10, 0, 0, 2]),
      Buffer.from([0, 0, 0, 0, 0x07, 0x5b, 0xcd, 0x15]),
      Buffer.from([0, 6]),
      Buffer.from('node-1'),
      Buffer.alloc(32, 7),
    ]);
    assert.deepEqual(payload, expected);
    const bytes = Buffer.from(encodeHandshake(i, signBy(alice)));
    assert.equal(bytes[0], 3);
    assert.equal(bytes.readInt32BE(1), payload.length);
    assert.deepEqual(bytes.subarray(5, 5 + payload.length), payload);
    assert.deepEqual(bytes.subarray(5 + payload.length, 5 + payload.length + 26), Buffer.from(i.ownerAddress));
    const sig = bytes.subarray(5 + payload.length + 26);
    assert.equal(sig.length, 64);
    assert.ok(suite.verify(alice.publicKey, payload, sig));
  });

  it('round-trips and decodes incrementally, keeping the bytes that follow (property)', () => {
    fc.assert(
      fc.property(infoArb, fc.array(fc.nat(), { maxLength: 6 }), fc.uint8Array({ maxLength: 20 }), (i, cuts, trailer) => {
        const bytes = Buffer.concat([encodeHandshake(i, () => new Uint8Array(64).fill(1)), trailer]);
        const d = new HandshakeDecoder();
        const points = [...new Set(cuts.map((c) => c % bytes.length))].sort((a, b) => a - b);
        let at = 0;
        let got;
        for (const p of [...points, bytes.length]) {
          const r = d.feed(bytes.subarray(at, p));
          at = p;
          if (r) {
            got = r;
            break;
          }
        }
        assert.ok(got);
        const rest = Buffer.concat([d.rest(), bytes.subarray(at)]);
        assert.deepEqual(rest, Buffer.from(trailer));
        const { declaredAddress, ...others } = got.info;
        const { declaredAddress: expectedAddress, ...expectedOthers } = i;
        assert.deepEqual({ ...others, version: [...others.version] }, { ...expectedOthers, version: [...i.version], nonce: i.nonce });
        assert.equal(declaredAddress?.port, expectedAddress?.port);
        assert.equal(declaredAddress && normalizeV6(declaredAddress.host), expectedAddress && normalizeV6(expectedAddress.host));
      }),
      { numRuns: 200 },
    );
  });

  it('writes a host name as "no declared address" and refuses oversize names', () => {
    const i = info(addr(alice.publicKey), { declaredAddress: { host: 'node.example', port: 1 } });
    assert.equal(decodeHandshake(encodeHandshake(i, signBy(alice))).info.declaredAddress, undefined);
    assert.throws(() => encodeHandshakePayload(info(addr(alice.publicKey), { nodeName: 'x'.repeat(128) })), RangeError);
  });

  it('reads a payload with bytes after the session key (as WE does: unread, signed with the rest) and accepts its signature', () => {
    const own = info(addr(alice.publicKey));
    const payload = Buffer.concat([encodeHandshakePayload(own), Buffer.from('a later field')]);
    const signature = suite.sign(alice.privateKey, payload);
    const head = Buffer.alloc(5);
    head.writeUInt8(3, 0);
    head.writeInt32BE(payload.length, 1);
    const remote = decodeHandshake(Buffer.concat([head, payload, own.ownerAddress, signature]));
    assert.deepEqual(Buffer.from(remote.info.sessionPublicKey), Buffer.from(own.sessionPublicKey));
    assert.equal(remote.info.nodeName, 'node-1');
    assert.deepEqual(validateHandshake(remote, info(addr(bob.publicKey)), deps), alice.publicKey);
  });

  it('refuses a wrong type byte, a V2 handshake, an oversize or truncated payload', () => {
    rejected(() => new HandshakeDecoder().feed(Uint8Array.of(0x47, 0x45, 0x54)), 'unsupported-type');
    rejected(() => new HandshakeDecoder().feed(Uint8Array.of(2, 0, 0)), 'unsupported-type', /V2/);
    rejected(() => new HandshakeDecoder().feed(Uint8Array.of(3, 0x7f, 0, 0, 0)), 'malformed');
    rejected(() => new HandshakeDecoder().feed(Uint8Array.of(3, 0xff, 0xff, 0xff, 0xff)), 'malformed');
    const good = Buffer.from(encodeHandshake(info(addr(alice.publicKey)), signBy(alice)));
    // payload declared 10 bytes shorter: its fields run past its end
    const short = Buffer.from(good);
    short.writeInt32BE(short.readInt32BE(1) - 10, 1);
    rejected(() => new HandshakeDecoder().feed(short), 'malformed');
    assert.equal(new HandshakeDecoder().feed(good.subarray(0, good.length - 1)), undefined);
  });
});

describe('handshake acceptance', () => {
  const fromAlice = (over: Partial<HandshakeInfo> = {}, signer = alice) => decodeHandshake(encodeHandshake(info(addr(alice.publicKey), over), signBy(signer)));

  it('accepts a registered peer and returns its registered key', () => {
    assert.deepEqual(validateHandshake(fromAlice(), own, deps), alice.publicKey);
    assert.deepEqual(validateHandshake(fromAlice({ consensusType: 'poa', version: [1, 8, 4] }), own, deps), alice.publicKey);
  });

  it('refuses by WE’s rules, naming the reason', () => {
    rejected(() => validateHandshake(fromAlice(), info(addr(alice.publicKey)), deps), 'own-address');
    rejected(() => validateHandshake(fromAlice({ chainId: 'V'.charCodeAt(0) }), own, deps), 'chain-id', /chain 'V'/);
    rejected(() => validateHandshake(fromAlice({ version: [1, 8, 3] }), own, deps), 'version', /1\.8\.3/);
    rejected(() => validateHandshake(fromAlice({ version: [0, 99, 99] }), own, deps), 'version');
    rejected(() => validateHandshake(fromAlice({ consensusType: 'PoS' }), own, deps), 'consensus', /PoS/);
    const unregistered = decodeHandshake(encodeHandshake(info(addr(mallory.publicKey)), signBy(mallory)));
    rejected(
      () => validateHandshake(unregistered, own, deps),
      'not-participant',
      new RegExp(`peer ${scheme.fromPublicKey(mallory.publicKey).toString()} is not a registered network participant`),
    );
    // Alice's address, signed with Mallory's key
    rejected(() => validateHandshake(fromAlice({}, mallory), own, deps), 'signature');
  });

  it('refuses any handshake altered in transit (property)', () => {
    const bytes = Buffer.from(encodeHandshake(info(addr(alice.publicKey)), signBy(alice)));
    fc.assert(
      fc.property(fc.integer({ min: 5, max: bytes.length - 1 }), fc.integer({ min: 1, max: 255 }), (at, flip) => {
        const t = Buffer.from(bytes);
        t[at] = t[at]! ^ flip;
        assert.throws(() => validateHandshake(decodeHandshake(t), own, deps), HandshakeError);
      }),
      { numRuns: 150 },
    );
  });
});

describe('peer identity messages', () => {
  it('encode and decode as WE', () => {
    const a = addr(alice.publicKey);
    const req = encodePeerIdentityRequest(a, signBy(alice));
    assert.equal(req.length, 91);
    assert.equal(req[0], 0x66);
    const parsed = decodePeerIdentityRequest(req);
    assert.deepEqual(parsed.address, a);
    assert.ok(suite.verify(alice.publicKey, a, parsed.signature));

    const ok = encodePeerIdentitySuccess(bob.publicKey);
    assert.deepEqual(Buffer.from(ok), Buffer.concat([Buffer.from([1, 0, 0, 0, 32]), bob.publicKey, Buffer.from([0, 0])]));
    assert.deepEqual(decodePeerIdentityResponse(ok), { kind: 'success', publicKey: bob.publicKey });
    assert.equal(decodePeerIdentityResponse(ok.subarray(0, 20)), undefined);
    const msg = encodePeerIdentityMessage('nope');
    assert.deepEqual(Buffer.from(msg), Buffer.from([2, 0, 0, 0, 4, 110, 111, 112, 101]));
    assert.deepEqual(decodePeerIdentityResponse(msg), { kind: 'message', message: 'nope' });
    rejected(() => decodePeerIdentityResponse(Uint8Array.of(9, 0, 0, 0, 0)), 'malformed');
  });
});

describe('GOST handshake', () => {
  it("carries a 104-byte session key: an ephemeral GOST key's SubjectPublicKeyInfo (read by OpenSSL's GOST engine); each network reads its own length", async () => {
    const gost = await createGostSuite();
    const gostScheme = new AddressScheme(T, gost);
    const owner = gost.keyPairFromSeedPhrase('gost handshake owner');
    const ephemeral = gost.generateKeyPair().publicKey;
    const session = gostSubjectPublicKeyInfo(ephemeral);
    assert.equal(session.length, GOST_SESSION_KEY_LENGTH);
    assert.equal(sessionKeyLength('gost'), 104);
    assert.equal(sessionKeyLength('waves'), 32);
    // WE's fixed 40-byte prefix: SEQUENCE { SEQUENCE { 1.2.643.7.1.1.1.1, SEQUENCE { 1.2.643.2.2.36.0, 1.2.643.7.1.1.2.2 } }, BIT STRING { OCTET STRING (64) } }.
    assert.equal(Buffer.from(session.subarray(0, 40)).toString('hex'), '3066301f06082a85030701010101301306072a85030202240006082a850307010102020343000440');
    const dir = mkdtempSync(join(tmpdir(), 'weft-gost-spki-'));
    try {
      const text = openssl(['pkey', '-engine', 'gost', '-pubin', '-inform', 'DER', '-noout', '-text_pub'], dir, session).toString();
      assert.match(text, /Parameter set: id-GostR3410-2001-CryptoPro-XchA-ParamSet/);
      // OpenSSL prints the point big-endian; the key is x ‖ y little-endian.
      const x = Buffer.from(ephemeral.subarray(0, 32)).reverse().toString('hex').toUpperCase().replace(/^0+/, '');
      assert.match(text, new RegExp(`X:0*${x}`));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const i = info(gostScheme.fromPublicKey(owner.publicKey).bytes, { sessionPublicKey: session });
    const bytes = encodeHandshake(i, (m) => gost.sign(owner.privateKey, m));
    const decoded = decodeHandshake(bytes, GOST_SESSION_KEY_LENGTH);
    assert.deepEqual(Buffer.from(decoded.info.sessionPublicKey), Buffer.from(session));
    assert.ok(gost.verify(owner.publicKey, decoded.payload, decoded.signature));
    // A WAVES node reads 32 bytes of session key and leaves the rest unread (as WE reads a payload); a GOST node finds a WAVES handshake short.
    assert.deepEqual(Buffer.from(decodeHandshake(bytes).info.sessionPublicKey), Buffer.from(session.subarray(0, 32)));
    rejected(
      () => decodeHandshake(encodeHandshake(info(addr(alice.publicKey)), signBy(alice)), GOST_SESSION_KEY_LENGTH),
      'malformed',
      /truncated at session public key/,
    );
    assert.throws(() => encodeHandshakePayload(info(addr(alice.publicKey), { sessionPublicKey: new Uint8Array(64) })), RangeError);
  });
});
