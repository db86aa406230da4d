/**
 * `/addresses/*`, `/alias/*` and `/leasing/*` on a real node with a forged chain
 * (accounts-chain.ts): every route's answer against values this test computes from the
 * transactions it made (its Ledger), every error code WE gives, paging edges, int64 past
 * 2^53 exact in the JSON text.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { decodeBase58, encodeBase58 } from '../../src/crypto/encoding.js';
import { assertError, inject, type Answer } from './inject.js';
import { accountsChain, BIG_INT_VALUE, effective, regular, SCRIPT_TRUE, type AccountsChain, type Party } from './accounts-chain.js';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const cryptoUtils: any = require('@wavesenterprise/crypto-utils');

let c: AccountsChain;

const call = (method: 'GET' | 'POST', url: string, body?: unknown, contentType?: string): Promise<Answer> =>
  inject(c.app, method, url, { body, ...(contentType !== undefined ? { contentType } : {}) });
const get = (url: string) => call('GET', url);
const post = (url: string, body: unknown) => call('POST', url, body);

const big = (v: unknown): bigint => BigInt(v as number | bigint);
const enc = encodeURIComponent;

describe('addresses, alias and leasing routes on a forged chain', { timeout: 60_000 }, () => {
  let O: Party, A: Party, B: Party, C: Party, D: Party, E: Party;
  const all = (): Party[] => [O, A, B, C, D, E];

  before(async () => {
    c = await accountsChain();
    ({ O, A, B, C, D, E } = c.parties);
  });
  after(async () => {
    await c?.close();
  });

  describe('keystore addresses', () => {
    it('lists the keystore in its order, and slices it with seq', async () => {
      assert.deepEqual((await get('/addresses')).json, c.keystoreAddresses);
      assert.deepEqual((await get('/addresses/seq/0/2')).json, c.keystoreAddresses.slice(0, 3));
      assert.deepEqual((await get('/addresses/seq/1/1')).json, [A.b58]);
      assert.deepEqual((await get('/addresses/seq/3/1000')).json, c.keystoreAddresses.slice(3));
      assert.deepEqual((await get('/addresses/seq/0/1000')).json, c.keystoreAddresses, 'to − from = 1000 is allowed');
      assert.deepEqual((await get('/addresses/seq/7/9')).json, []);
    });

    it('answers seq errors as WE does', async () => {
      assertError(await get('/addresses/seq/-1/0'), 400, 199, "Invalid parameters: ['-1' must be non-negative, '0' must be positive]");
      assertError(await get('/addresses/seq/x/1'), 400, 199, "Invalid parameters: [Unable to parse Integer from 'x']");
      assertError(await get('/addresses/seq/0/2147483648'), 400, 199, "Invalid parameters: [Unable to parse Integer from '2147483648']");
      assertError(await get('/addresses/seq/5/2'), 400, 199, 'Invalid interval');
      assertError(await get('/addresses/seq/0/1001'), 400, 10, 'Too big sequences requested');
      assertError(await get('/addresses/seq/3/2'), 400, 199, 'Invalid interval');
    });

    it('gives the public key of a keystore address, 115 for another, 102 for a bad one', async () => {
      const r = await get(`/addresses/info/${A.b58}`);
      assert.deepEqual(r.json, { address: A.b58, publicKey: encodeBase58(A.keyPair.publicKey) });
      assert.deepEqual((await get(`/addresses/info/address:${A.b58}`)).json.address, A.b58, 'the address: prefix is accepted');
      assertError(await get(`/addresses/info/${E.b58}`), 400, 115, 'no private key for sender address in wallet or provided password is incorrect');
      assertError(await get('/addresses/info/3Mx'), 400, 102, /^invalid address: /);
    });

    it('derives the address of a public key; 108 for a bad key', async () => {
      const pk = encodeBase58(E.keyPair.publicKey);
      assert.deepEqual((await get(`/addresses/publicKey/${pk}`)).json, { address: E.b58 });
      assertError(
        await get('/addresses/publicKey/0bad'),
        400,
        108,
        "invalid public key: Can't create public key from string '0bad': Unable to decode base58: assertion failed: Wrong char '0' in Base58 string '0bad'",
      );
      assertError(
        await get('/addresses/publicKey/3yZe7d'),
        400,
        108,
        /^invalid public key: Can't create public key from string '3yZe7d': Bad public key bytes length/,
      );
      assertError(await get(`/addresses/publicKey/${'2'.repeat(60)}`), 400, 108, /Bad public key string length: expected: '44', found: '60'/);
    });
  });

  describe('balances', () => {
    it('gives the regular balance, past 2^53 exactly', async () => {
      for (const p of all()) {
        const r = await get(`/addresses/balance/${p.b58}`);
        assert.equal(r.status, 200, r.text);
        const expected = c.ledger.westAt(p.b58, c.top).regular;
        assert.deepEqual({ ...r.json, balance: big(r.json.balance) }, { address: p.b58, confirmations: 0, balance: expected }, p.name);
      }
      const owner = await get(`/addresses/balance/${O.b58}`);
      assert.ok(c.ledger.westAt(O.b58, c.top).regular > 2n ** 53n);
      assert.ok(owner.text.includes(`"balance":${c.ledger.westAt(O.b58, c.top).regular}`), owner.text);
      assertError(await get('/addresses/balance/nope'), 400, 102, /^invalid address: /);
    });

    it('gives the regular balance held over the last blocks (js-sdk balance with confirmations)', async () => {
      for (const p of all()) {
        for (let conf = 1; conf <= c.top + 2; conf++) {
          const r = await get(`/addresses/balance/${p.b58}/${conf}`);
          const from = Math.max(1, c.top - conf + 1);
          assert.equal(big(r.json.balance), c.ledger.minOver(p.b58, from, c.top, regular), `${p.name} over ${conf} blocks`);
          assert.equal(r.json.confirmations, conf);
          assert.equal(r.json.address, p.b58);
        }
      }
      // A sent half its WEST away at height 3 and got it back at 5: a window over 3..4 sees the dip.
      const dip = c.ledger.minOver(A.b58, c.top - 7, c.top, regular);
      assert.ok(dip < c.ledger.westAt(A.b58, c.top).regular - 40_000n * 100_000_000n, 'the window sees the dip');
      assertError(await get(`/addresses/balance/${A.b58}/0`), 400, 199, "Invalid parameter: '0' must be positive");
      assertError(await get(`/addresses/balance/${A.b58}/x`), 400, 199, "Invalid parameter: Unable to parse Integer from 'x'");
      assertError(await get('/addresses/balance/bad/1'), 400, 102);
    });

    it('gives balance details: regular, available = regular − leased out, effective = regular + in − out, generating', async () => {
      for (const p of all()) {
        const w = c.ledger.westAt(p.b58, c.top);
        const r = await get(`/addresses/balance/details/${p.b58}`);
        assert.equal(r.status, 200, r.text);
        assert.deepEqual(
          Object.fromEntries(Object.entries(r.json as Record<string, unknown>).map(([k, v]) => [k, k === 'address' ? v : big(v)])),
          {
            address: p.b58,
            regular: w.regular,
            generating: c.ledger.minOver(p.b58, 1, c.top, effective),
            available: w.regular - w.leaseOut,
            effective: w.regular + w.leaseIn - w.leaseOut,
          },
          p.name,
        );
      }
      // A's effective balance holds O's lease of 2·10^16: past 2^53.
      const a = await get(`/addresses/balance/details/${A.b58}`);
      assert.ok(a.text.includes(`"effective":${effective(c.ledger.westAt(A.b58, c.top))}`));
      assert.ok(effective(c.ledger.westAt(A.b58, c.top)) > 2n ** 53n);
      assertError(await get('/addresses/balance/details/bad'), 400, 102);
    });

    it('answers details of many addresses, the invalid ones after the valid ones', async () => {
      const r = await post('/addresses/balance/details', { addresses: ['bad-one', A.b58, 'address:' + B.b58, '3MzZ', C.b58] });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        r.json.map((x: { address: string }) => x.address),
        [A.b58, B.b58, C.b58, 'bad-one', '3MzZ'],
      );
      assert.equal(big(r.json[0].effective), effective(c.ledger.westAt(A.b58, c.top)));
      assert.equal(r.json[3].error, 102);
      assert.match(r.json[3].message, /^invalid address: /);
      assert.deepEqual(Object.keys(r.json[3]).sort(), ['address', 'error', 'message']);
      const tooMany = await post('/addresses/balance/details', { addresses: Array.from({ length: 1001 }, () => A.b58) });
      assertError(tooMany, 400, 10);
      const many = await post('/addresses/balance/details', { addresses: Array.from({ length: 1000 }, () => A.b58) });
      assert.equal(many.json.length, 1000);
      const malformed = await post('/addresses/balance/details', { addresses: 'x' });
      assertError(malformed, 400, 1);
      assert.deepEqual(malformed.json.validationErrors, { 'obj.addresses': [{ msg: ['error.expected.jsarray'], args: [] }] });
    });

    it('gives the effective balance now and over the last blocks', async () => {
      for (const p of all()) {
        const now = await get(`/addresses/effectiveBalance/${p.b58}`);
        assert.deepEqual(
          { ...now.json, balance: big(now.json.balance) },
          { address: p.b58, confirmations: 0, balance: effective(c.ledger.westAt(p.b58, c.top)) },
        );
        for (let conf = 1; conf <= c.top + 1; conf++) {
          const r = await get(`/addresses/effectiveBalance/${p.b58}/${conf}`);
          assert.equal(big(r.json.balance), c.ledger.minOver(p.b58, Math.max(1, c.top - conf + 1), c.top, effective), `${p.name} over ${conf}`);
          assert.equal(r.json.confirmations, conf);
        }
      }
      assertError(await get(`/addresses/effectiveBalance/${A.b58}/-3`), 400, 199, "Invalid parameter: '-3' must be positive");
      assertError(await get('/addresses/effectiveBalance/nope/2'), 400, 102);
      assertError(await get('/addresses/effectiveBalance/nope/0'), 400, 199, "Invalid parameter: '0' must be positive");
    });

    it('gives the generating balance at every height; 310 above the current one', async () => {
      for (const p of all()) {
        for (let h = 1; h <= c.top; h++) {
          const r = await get(`/addresses/generatingBalance/${p.b58}/at/${h}`);
          assert.equal(r.status, 200, r.text);
          assert.deepEqual(
            { ...r.json, balance: big(r.json.balance) },
            { address: p.b58, balance: c.ledger.minOver(p.b58, 1, h, effective) },
            `${p.name} at ${h}`,
          );
        }
      }
      const prefixed = await get(`/addresses/generatingBalance/address:${A.b58}/at/2`);
      assert.equal(prefixed.json.address, `address:${A.b58}`, 'the address is echoed as given');
      assertError(
        await get(`/addresses/generatingBalance/${A.b58}/at/${c.top + 1}`),
        400,
        310,
        `Requested height '${c.top + 1}' is greater than current state height '${c.top}'`,
      );
      assertError(await get(`/addresses/generatingBalance/${A.b58}/at/0`), 400, 199, "Invalid parameter: '0' must be positive");
      assertError(await get(`/addresses/generatingBalance/bad/at/${c.top + 1}`), 400, 310, undefined);
      assertError(await get('/addresses/generatingBalance/bad/at/1'), 400, 102);
    });
  });

  describe('scripts and data', () => {
    it('gives the account script, its text, complexity and extra fee (0 in WE 1.14); only the address, 0 and 0 without one', async () => {
      const r = await get(`/addresses/scriptInfo/${D.b58}`);
      assert.deepEqual(r.json, { address: D.b58, script: SCRIPT_TRUE, scriptText: 'TRUE', complexity: 1, extraFee: 0 });
      assert.deepEqual((await get(`/addresses/scriptInfo/${A.b58}`)).json, { address: A.b58, complexity: 0, extraFee: 0 });
      assertError(await get('/addresses/scriptInfo/x'), 400, 102);
    });

    const SORTED = ['Zeta', 'bin', 'bool', 'int', 'key-1', 'key-2', 'key-3', 'str', 'ключ'];

    it('lists data entries sorted by key, with exact int64 values', async () => {
      const r = await get(`/addresses/data/${A.b58}`);
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(
        r.json.map((e: { key: string }) => e.key),
        SORTED,
      );
      assert.ok(r.text.includes(`{"key":"int","type":"integer","value":${BIG_INT_VALUE}}`), r.text);
      assert.deepEqual(r.json[1], { key: 'bin', type: 'binary', value: 'base64:AQID' });
      assert.deepEqual(r.json[2], { key: 'bool', type: 'boolean', value: true });
      assert.deepEqual(r.json[8], { key: 'ключ', type: 'string', value: 'значение' });
      assert.deepEqual((await get(`/addresses/data/${B.b58}`)).json, []);
    });

    it('pages data with offset and limit', async () => {
      const keys = async (q: string) => ((await get(`/addresses/data/${A.b58}?${q}`)).json as Array<{ key: string }>).map((e) => e.key);
      assert.deepEqual(await keys('offset=2&limit=3'), SORTED.slice(2, 5));
      assert.deepEqual(await keys('offset=0&limit=1'), SORTED.slice(0, 1));
      assert.deepEqual(await keys('limit=2'), SORTED.slice(0, 2));
      assert.deepEqual(await keys('offset=7'), SORTED.slice(7));
      assert.deepEqual(await keys('offset=9'), []);
      assert.deepEqual(await keys('offset=100&limit=5'), []);
      assert.deepEqual(await keys('offset=8&limit=2147483639'), SORTED.slice(8), 'offset + limit = Int.MaxValue is fine');
      assert.deepEqual(await keys('offset=0&limit=50'), SORTED, "js-sdk's default page");
    });

    it('refuses bad paging as WE does', async () => {
      assertError(await get(`/addresses/data/${A.b58}?offset=-1&limit=0`), 400, 199, "Invalid parameters: ['-1' must be non-negative, '0' must be positive]");
      assertError(await get(`/addresses/data/${A.b58}?limit=0`), 400, 199, "Invalid parameters: ['0' must be positive]");
      assertError(await get(`/addresses/data/${A.b58}?offset=x`), 400, 199, "Invalid parameters: [Unable to parse Integer from 'x']");
      assertError(await get(`/addresses/data/${A.b58}?limit=`), 400, 199, "Invalid parameters: [Unable to parse Integer from '']");
      const overflow = await get(`/addresses/data/${A.b58}?offset=9&limit=2147483639`);
      assertError(overflow, 400, 113, 'overflow error');
      assert.equal(overflow.json.field, 'limit');
      assertError(await get('/addresses/data/bad?offset=1'), 400, 102);
      assertError(await get('/addresses/data/bad?offset=-1'), 400, 199);
    });

    it('filters keys with matches (whole-key regular expressions) before paging; 629 for a bad pattern', async () => {
      const keys = async (q: string) => ((await get(`/addresses/data/${A.b58}?${q}`)).json as Array<{ key: string }>).map((e) => e.key);
      assert.deepEqual(await keys(`matches=${enc('key-.*')}`), ['key-1', 'key-2', 'key-3']);
      assert.deepEqual(await keys(`matches=${enc('key-[23]')}&offset=1&limit=5`), ['key-3']);
      assert.deepEqual(await keys(`matches=${enc('b')}`), [], 'the whole key must match');
      assert.deepEqual(await keys(`matches=${enc('(?i)zeta')}`), ['Zeta']);
      assert.deepEqual(await keys(`matches=${enc('[^a-z-0-9]+')}`), ['ключ']);
      assertError(await get(`/addresses/data/${A.b58}?matches=${enc('key-[')}`), 400, 629, "Keys filter parameter has invalid regex pattern 'key-['");
      assertError(await get(`/addresses/data/${A.b58}?matches=${enc('a)(b')}`), 400, 629);
    });

    it('gives one entry by key (URL-encoded); 304 for a missing key', async () => {
      assert.deepEqual((await get(`/addresses/data/${A.b58}/${enc('ключ')}`)).json, { key: 'ключ', type: 'string', value: 'значение' });
      const int = await get(`/addresses/data/${A.b58}/int`);
      assert.equal(int.text, `{"key":"int","type":"integer","value":${BIG_INT_VALUE}}`);
      assertError(await get(`/addresses/data/${A.b58}/nope`), 404, 304, 'no data for this key: nope');
      assertError(await get(`/addresses/data/${A.b58}/`), 404, 304, 'no data for this key: ');
      assertError(await get('/addresses/data/bad/int'), 400, 102);
    });
  });

  describe('address and alias checks', () => {
    /** A's address bytes with the checksum broken. */
    const corrupted = (): string => {
      const bytes = decodeBase58(A.b58);
      bytes[25] = bytes[25]! ^ 0xff;
      return encodeBase58(bytes);
    };

    it('validates addresses, full aliases and bare alias names', async () => {
      for (const ok of [A.b58, `alias:T:${c.alias}`, c.alias]) {
        assert.deepEqual((await get(`/addresses/validate/${enc(ok)}`)).json, { addressOrAlias: ok, valid: true });
      }
      assertError(await get('/addresses/validate/no'), 400, 199, "Invalid address or alias: GenericError(Alias 'no' length should be between 4 and 30)");
      assertError(await get('/addresses/validate/unknown-alias'), 400, 199, 'Invalid address or alias: AliasDoesNotExist(alias:T:unknown-alias)');
      assertError(
        await get(`/addresses/validate/${enc('alias:W:some-alias')}`),
        400,
        199,
        "Invalid address or alias: GenericError(Alias network char doesn't match current scheme)",
      );
      assertError(
        await get(`/addresses/validate/${enc('aliasname')}`),
        400,
        199,
        "Invalid address or alias: GenericError(Alias string pattern is 'alias:<chain-id>:<address-alias>)",
      );
      assertError(
        await get(`/addresses/validate/${corrupted()}`),
        400,
        199,
        "Invalid address or alias: InvalidAddress(Bad address checksum. Address is corrupted or generated using a different crypto (check 'node.crypto.type' config parameter).)",
      );
    });

    it('validates many, giving the reasons of the invalid ones', async () => {
      const r = await post('/addresses/validateMany', { addressesOrAliases: [A.b58, 'no', c.alias, corrupted()] });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json.validations, [
        { addressOrAlias: A.b58, valid: true },
        { addressOrAlias: 'no', valid: false, reason: "GenericError(Alias 'no' length should be between 4 and 30)" },
        { addressOrAlias: c.alias, valid: true },
        {
          addressOrAlias: corrupted(),
          valid: false,
          reason:
            "InvalidAddress(Bad address checksum. Address is corrupted or generated using a different crypto (check 'node.crypto.type' config parameter).)",
        },
      ]);
      const bad = await post('/addresses/validateMany', { addressesOrAliases: [1] });
      assertError(bad, 400, 1);
      assert.deepEqual(bad.json.validationErrors, { 'obj.addressesOrAliases[0]': [{ msg: ['error.expected.jsstring'], args: [] }] });
    });
  });

  describe('signing with keystore keys', () => {
    const text = 'hello, Weft ✓';

    it('signs the UTF-8 bytes; the official crypto-utils accepts the signature', async () => {
      const r = await post(`/addresses/sign/${A.b58}`, { message: text, password: A.password });
      assert.equal(r.status, 200, r.text);
      const bytes = new Uint8Array(Buffer.from(text, 'utf8'));
      assert.equal(r.json.message, encodeBase58(bytes));
      assert.equal(r.json.publicKey, encodeBase58(A.keyPair.publicKey));
      assert.equal(cryptoUtils.isValidSignature(r.json.publicKey, r.json.signature, bytes), true);
      const t = await post(`/addresses/signText/${A.b58}`, { message: text, password: A.password });
      assert.equal(t.json.message, text);
      assert.equal(cryptoUtils.isValidSignature(t.json.publicKey, t.json.signature, bytes), true);
    });

    it('refuses a wrong password, an address outside the keystore (115), a bad address (102), a bad body (1)', async () => {
      const wrong = await post(`/addresses/sign/${A.b58}`, { message: text, password: 'wrong' });
      assertError(wrong, 400, 115);
      assert.equal(wrong.json.field, 'address', 'the error names the field it concerns');
      assertError(await post(`/addresses/sign/${A.b58}`, { message: text }), 400, 115);
      assertError(await post(`/addresses/signText/${E.b58}`, { message: text }), 400, 115);
      assertError(await post('/addresses/sign/bad', { message: text }), 400, 102);
      const noMessage = await post(`/addresses/sign/${A.b58}`, { password: 'x' });
      assertError(noMessage, 400, 1);
      assert.deepEqual(noMessage.json.validationErrors, { 'obj.message': [{ msg: ['error.path.missing'], args: [] }] });
      const noBody = await call('POST', `/addresses/sign/${A.b58}`, 'message', 'text/plain');
      assert.equal(noBody.status, 404, 'no JSON entity: the route rejects');
    });

    it('verifies signatures by the key of the address', async () => {
      const bytes = new Uint8Array(Buffer.from(text, 'utf8'));
      const signature: string = cryptoUtils.createTransactionSignature(bytes, encodeBase58(B.keyPair.privateKey));
      const pk = encodeBase58(B.keyPair.publicKey);
      assert.deepEqual((await post(`/addresses/verify/${B.b58}`, { message: encodeBase58(bytes), signature, publickey: pk })).json, { valid: true });
      assert.deepEqual(
        (await post(`/addresses/verify/${B.b58}`, { message: encodeBase58(bytes), signature, publicKey: pk })).json,
        { valid: true },
        'publicKey works too',
      );
      assert.deepEqual((await post(`/addresses/verifyText/${B.b58}`, { message: text, signature, publicKey: pk })).json, { valid: true });
      assert.deepEqual(
        (await post(`/addresses/verifyText/${A.b58}`, { message: text, signature, publicKey: pk })).json,
        { valid: false },
        'the key is not the address',
      );
      assert.deepEqual((await post(`/addresses/verifyText/${B.b58}`, { message: `${text}!`, signature, publicKey: pk })).json, { valid: false });
    });

    it('answers verify errors in WE order: 1, 102, 110, 101, 108', async () => {
      const sig = encodeBase58(new Uint8Array(64).fill(1));
      const pk = encodeBase58(B.keyPair.publicKey);
      const missing = await post(`/addresses/verify/${B.b58}`, { message: 'abc' });
      assertError(missing, 400, 1);
      assert.deepEqual(Object.keys(missing.json.validationErrors).sort(), ['obj.publicKey', 'obj.signature']);
      assertError(await post('/addresses/verify/bad', { message: '0', signature: '', publicKey: '' }), 400, 102);
      assertError(await post(`/addresses/verify/${B.b58}`, { message: '0OIl', signature: sig, publicKey: pk }), 400, 110, 'invalid message');
      assertError(await post(`/addresses/verify/${B.b58}`, { message: '', signature: '', publicKey: pk }), 400, 101, 'invalid signature');
      assertError(await post(`/addresses/verify/${B.b58}`, { message: '', signature: '0x', publicKey: pk }), 400, 101);
      assertError(await post(`/addresses/verify/${B.b58}`, { message: '', signature: sig, publicKey: '' }), 400, 108, 'invalid public key: ');
      assertError(
        await post(`/addresses/verifyText/${B.b58}`, { message: '0OIl', signature: sig, publicKey: '3yZe7d' }),
        400,
        108,
        /^invalid public key: Bad public key bytes length: expected: '32', found: '\d'$/,
      );
    });
  });

  describe('aliases', () => {
    it('resolves an alias name and lists the aliases of an address', async () => {
      assert.deepEqual((await get(`/alias/by-alias/${c.alias}`)).json, { address: A.b58 });
      assert.deepEqual((await get(`/alias/by-address/${A.b58}`)).json, [`alias:T:${c.alias}`]);
      assert.deepEqual((await get(`/alias/by-address/${B.b58}`)).json, []);
    });

    it('answers 302 for an unknown alias, 199 for an invalid name, 102 for a bad address', async () => {
      assertError(await get('/alias/by-alias/unknown-alias'), 404, 302, "alias 'alias:T:unknown-alias' doesn't exist");
      assertError(await get('/alias/by-alias/abc'), 400, 199, "Alias 'abc' length should be between 4 and 30");
      assertError(await get('/alias/by-alias/UPPER'), 400, 199, 'Alias should contain only following characters: -.0123456789@_abcdefghijklmnopqrstuvwxyz');
      assertError(await get('/alias/by-address/bad'), 400, 102);
    });
  });

  describe('leasing', () => {
    it('lists the active leases an address takes part in, newest first, with heights', async () => {
      const ids = async (p: Party, suffix = '') =>
        ((await get(`/leasing/active/${p.b58}${suffix}`)).json as Array<{ id: string; height: number; type: number }>).map((t) => [t.id, t.height, t.type]);
      const h = (tx: { idBase58: string }) => c.heightOf.get(tx.idBase58)!;
      const { leaseAB, leaseOA, leaseBC } = c.ids;
      // A: O's lease to it and its lease to B (both at height 3, O's later); its lease to C was cancelled.
      assert.deepEqual(await ids(A), [
        [leaseOA.idBase58, h(leaseOA), 8],
        [leaseAB.idBase58, h(leaseAB), 8],
      ]);
      assert.deepEqual(await ids(B), [
        [leaseBC.idBase58, h(leaseBC), 8],
        [leaseAB.idBase58, h(leaseAB), 8],
      ]);
      assert.deepEqual(await ids(C), [[leaseBC.idBase58, h(leaseBC), 8]]);
      assert.deepEqual(await ids(D), []);
      assert.deepEqual(await ids(A, '/anything/else'), await ids(A), 'trailing segments are ignored');
      assert.deepEqual(await ids(A, '/'), await ids(A));
      const one = (await get(`/leasing/active/${C.b58}`)).json[0];
      assert.equal(one.sender, B.b58);
      assert.equal(one.recipient, C.b58);
      assert.equal(one.amount, 1_000_000_000);
      assert.equal(one.status, undefined, 'plain transaction JSON');
    });

    it('answers 102 for a bad address and 404 without one', async () => {
      assertError(await get('/leasing/active/bad'), 400, 102);
      assert.equal((await get('/leasing/active')).status, 404);
      assert.equal((await get('/leasing/active/')).status, 404);
    });
  });
});
