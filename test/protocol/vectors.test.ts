/**
 * Replays the committed vectors (test/vectors/*.json, made by test/oracle/make-vectors.ts
 * from the official libraries) without the libraries: Weft must read each signed request,
 * rebuild the library's body bytes, give WE's id and accept the library's signature.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Protocol } from '../../src/protocol/protocol.js';
import { parseJson, stringifyJson } from '../../src/protocol/json.js';
import { ByteReader } from '../../src/protocol/bytes.js';
import { loadVectors } from '../support/vectors.js';

const protocols = {
  waves: await Protocol.create({ crypto: 'waves', chainId: 'T' }),
  gost: await Protocol.create({ crypto: 'gost', chainId: 'T' }),
};

describe('fixed vectors from the official libraries', () => {
  for (const [family, vectors] of loadVectors()) {
    it(`${family}: ${vectors.length} vectors`, () => {
      assert.ok(vectors.length > 0);
      // Vectors whose body a sharing reader took from the bytes (proofs last, or none), not encoded again.
      let bodiesTaken = 0;
      for (const v of vectors) {
        const p = protocols[v.crypto];
        const label = `${family} type ${v.type} v${v.version} ${v.library}/${v.crypto} ${v.id}`;
        const tx = p.transactionFromJson(parseJson(JSON.stringify(v.request)));
        assert.equal(tx.type, v.type, label);
        assert.equal(tx.version, v.version, label);
        // The library's body is what is signed: the proof source (≠ body bytes only for Atomic).
        assert.equal(Buffer.from(tx.proofSourceBytes).toString('hex'), v.bodyHex, label);
        assert.equal(tx.idBase58, v.id, label);
        assert.ok(tx.hasValidSenderSignature(), `signature of ${label}`);
        assert.equal(stringifyJson(p.transactionFromBytes(tx.bytes).toJson()), stringifyJson(tx.toJson()), label);
        // Read as a stored block's transactions are (views into the bytes, body and id taken from them).
        const bytes = Uint8Array.from(tx.bytes);
        const shared = p.readTransaction(ByteReader.sharing(bytes), bytes.length);
        assert.equal(shared.bytes.buffer, bytes.buffer, `${label}: the wire bytes are the buffer's, not a copy`);
        assert.deepEqual(shared.bodyBytes, tx.bodyBytes, label);
        if (shared.bodyBytes.buffer === bytes.buffer) bodiesTaken++;
        assert.equal(shared.idBase58, v.id, label);
        assert.equal(stringifyJson(shared.toJson()), stringifyJson(tx.toJson()), label);
      }
      assert.ok(bodiesTaken > 0, `${family}: no vector's body was taken from its bytes`);
    });
  }
});
