/**
 * `/crypto/*` (WE's CryptoApiRoute and CryptoApiService): text encrypted with a keystore
 * key for any public keys, and decrypted as a keystore account, with the network's
 * algorithm (crypto/text-encryption.ts): `aes` on a WAVES network (X25519 + MD5-keyed
 * AES-128-GCM, 48-byte wrapped keys), `gost-3412-2015-k` on a GOST network (VKO GOST
 * R 34.10-2012 + KExp15 + Kuznyechik CFB, 96-byte wrapped structures; an empty recipient
 * list is refused by encryptCommon, as WE's GOST node does).
 *
 * - `encryptSeparate`: a content key and ciphertext per recipient, in request order; each
 *   entry repeats the public key as sent. No recipients → `[]`, whatever the sender.
 * - `encryptCommon`: one ciphertext, and per recipient (canonical Base58 key; a key listed
 *   twice appears once) its wrapped key.
 * - `decrypt`: the plaintext as UTF-8.
 *
 * `cryptoAlgo` is read with the body: the network's algorithm is its only value; an empty,
 * other or non-string value is error 1 with WE's texts. Then, in WE's order: encrypt —
 * sender address (102), keystore key (115), each recipient key (108); decrypt — Base64 of
 * the text (199), sender public key (108), recipient address (102), keystore key (115),
 * Base58 of the wrapped key (199), decryption (199 `Decryption failed: …`). The encrypt
 * routes take at most 165 KiB (611). Open in api-key mode (WE's `withAuth()`), any role
 * with OAuth2.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { decodeBase58, decodeBase64, encodeBase58, encodeBase64, EncodingError } from '../../crypto/encoding.js';
import { DecryptionFailure, EncryptionFailure } from '../../crypto/encryption.js';
import type { CryptoType } from '../../crypto/suite.js';
import { CRYPTO_ALGORITHM, textEncryptionFor } from '../../crypto/text-encryption.js';
import type { KeyPair } from '../../crypto/suite.js';
import type { JsonObject } from '../../protocol/json.js';
import { readBody } from '../body.js';
import { defineRoutes, route, type ApiContext } from '../routing.js';
import * as S from '../schemas.js';
import { customValidationError, type JsonPathError, WeError, withFieldAsync, wrongJson } from '../../errors/catalogue.js';

/** WE's size limit of the encrypt routes: 165 KiB. */
export const ENCRYPT_BODY_LIMIT = 165 * 1024;

/** Every `cryptoAlgo` value of the document; a node takes only its network's (WE's BaseJsonCryptoAlgo). */
const CRYPTO_ALGOS: readonly string[] = Object.values(CRYPTO_ALGORITHM);

const err = (description: string) => ({ description, schema: S.ErrorBody });

const CryptoAlgo = Type.Unsafe<string>({
  enum: CRYPTO_ALGOS,
  description: 'Encryption algorithm: `aes` on WAVES networks, `gost-3412-2015-k` on GOST networks',
});
const optionalPassword = Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'Keystore password of the account' }));

const EncryptDataRequest = Type.Object(
  {
    sender: Type.String({ description: 'Address whose key is in the node keystore (the encrypting party)' }),
    password: optionalPassword,
    encryptionText: Type.String({ description: 'Text to encrypt (encrypted as UTF-8)' }),
    recipientsPublicKeys: Type.Array(Type.String({ description: 'Base58 public key' })),
    cryptoAlgo: CryptoAlgo,
  },
  { $id: 'EncryptDataRequest' },
);

const DecryptDataRequest = Type.Object(
  {
    recipient: Type.String({ description: 'Address whose key is in the node keystore (the decrypting party)' }),
    password: optionalPassword,
    encryptedText: Type.String({ description: 'Base64 of IV ‖ ciphertext ‖ tag (aes), or of the ciphertext (GOST)' }),
    wrappedKey: Type.String({ description: 'Base58 of the wrapped content key (48 bytes, aes) or structure (96 bytes, GOST)' }),
    senderPublicKey: Type.String({ description: 'Base58 public key of the encrypting party' }),
    cryptoAlgo: CryptoAlgo,
  },
  { $id: 'DecryptDataRequest' },
);

const EncryptedSingle = Type.Object(
  {
    encryptedText: Type.String({ description: 'Base64 of IV ‖ ciphertext ‖ tag (aes), or of the ciphertext (GOST)' }),
    publicKey: Type.String({ description: 'The recipient key as sent' }),
    wrappedKey: Type.String({ description: 'Base58 of the content key wrapped for this recipient (48 bytes aes, 96 GOST)' }),
  },
  { $id: 'EncryptedSingleResponse' },
);

const EncryptedForMany = Type.Object(
  {
    encryptedText: Type.String({ description: 'Base64 of IV ‖ ciphertext ‖ tag (aes), or of the ciphertext (GOST); the same for every recipient' }),
    recipientToWrappedStructure: Type.Record(Type.String(), Type.String(), { description: 'Recipient public key (Base58) → its wrapped content key (Base58)' }),
  },
  { $id: 'EncryptedForManyResponse' },
);

const DecryptDataResponse = Type.Object({ decryptedText: Type.String({ description: 'The plaintext as UTF-8' }) }, { $id: 'DecryptDataResponse' });

/** Play's reading of `cryptoAlgo` (WE's JsonCryptoAlgo) on a network of `crypto`: the message of a value it refuses. */
function cryptoAlgoProblem(value: unknown, crypto: CryptoType): string | undefined {
  const possible = CRYPTO_ALGORITHM[crypto];
  if (typeof value !== 'string') return "Invalid 'cryptoAlgo' parameter. Expected string value.";
  if (value === '') return `'cryptoAlgo' parameter is required. Possible values: ${possible}`;
  return value === possible ? undefined : `Unknown crypto algorithm '${value}'. Possible values: ${possible}`;
}

/** The request read as Play reads it: every problem, `cryptoAlgo`'s included, in one error 1. */
function readCryptoRequest<T>(schema: TSchema, body: JsonObject, crypto: CryptoType): T {
  const problems: JsonPathError[] = [];
  let value: unknown;
  try {
    value = readBody(schema, body);
  } catch (e) {
    if (!(e instanceof WeError) || e.code !== 1) throw e;
    problems.push(...(e.jsonPathErrors ?? []));
  }
  const algo = body['cryptoAlgo'];
  const problem = algo === undefined ? undefined : cryptoAlgoProblem(algo, crypto);
  if (problem !== undefined) problems.push({ path: 'obj.cryptoAlgo', messages: [problem] });
  if (problems.length > 0) throw wrongJson(problems);
  return value as T;
}

/** The key pair of a keystore address, unlocked off the event loop: 102 for a bad address, 115 for a missing key or wrong password. */
function keystoreKey(ctx: ApiContext, field: string, addressText: string, password: string | null | undefined): Promise<KeyPair> {
  const address = ctx.services.protocol.addresses.parseAddress(addressText, field);
  return withFieldAsync(field, () => ctx.services.wallet.unlock(address.toString(), password ?? undefined));
}

const parsePublicKey = (ctx: ApiContext, text: string, field: string): Uint8Array => ctx.services.protocol.addresses.parsePublicKey(text, field);

interface EncryptRequest {
  sender: string;
  password?: string | null;
  encryptionText: string;
  recipientsPublicKeys: string[];
  cryptoAlgo: string;
}

interface DecryptRequest {
  recipient: string;
  password?: string | null;
  encryptedText: string;
  wrappedKey: string;
  senderPublicKey: string;
  cryptoAlgo: string;
}

const utf8 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));

const encryptBody = { schema: EncryptDataRequest, read: 'object', description: 'What to encrypt, with whose key, for whom' } as const;

const encryptErrors = {
  400: err(
    '1 a field missing, of the wrong type or an unknown `cryptoAlgo`; 102 bad sender address; 108 bad recipient key; 115 no such key or wrong password; 611 over 165 KiB',
  ),
};

export const cryptoRoutes = defineRoutes(
  {
    name: 'crypto',
    description:
      'Encryption of text between accounts (`aes`: X25519 + AES-128-GCM on WAVES networks; `gost-3412-2015-k`: VKO + KExp15 + Kuznyechik on GOST networks)',
  },
  [
    route({
      method: 'POST',
      path: '/crypto/encryptSeparate',
      auth: 'user',
      summary: 'Encrypts a text for each recipient separately',
      description: 'Each recipient gets its own content key and ciphertext; answers one entry per recipient, in request order.',
      body: encryptBody,
      bodyLimit: ENCRYPT_BODY_LIMIT,
      responses: { 200: Type.Array(EncryptedSingle, { description: 'One entry per recipient' }), ...encryptErrors },
      handler: async ({ body }, ctx) => {
        const crypto = ctx.services.protocol.crypto.type;
        const request = readCryptoRequest<EncryptRequest>(EncryptDataRequest, body, crypto);
        if (request.recipientsPublicKeys.length === 0) return [];
        const sender = await keystoreKey(ctx, 'sender', request.sender, request.password);
        const text = utf8(request.encryptionText);
        const encryption = textEncryptionFor(crypto);
        return request.recipientsPublicKeys.map((keyText, i) => {
          const field = `recipientsPublicKeys[${i}]`;
          const recipient = parsePublicKey(ctx, keyText, field);
          const [encrypted] = encryptingOr('EncryptionSeparate failed', field, () => encryption.encryptSeparate(sender.privateKey, text, [recipient]));
          return { encryptedText: encodeBase64(encrypted!.encrypted), publicKey: keyText, wrappedKey: encodeBase58(encrypted!.wrappedKey) };
        });
      },
    }),
    route({
      method: 'POST',
      path: '/crypto/encryptCommon',
      auth: 'user',
      summary: 'Encrypts a text once for all recipients',
      description: 'One content key and ciphertext; each recipient gets the content key wrapped for it.',
      body: encryptBody,
      bodyLimit: ENCRYPT_BODY_LIMIT,
      responses: { 200: EncryptedForMany, ...encryptErrors },
      handler: async ({ body }, ctx) => {
        const crypto = ctx.services.protocol.crypto.type;
        const request = readCryptoRequest<EncryptRequest>(EncryptDataRequest, body, crypto);
        const sender = await keystoreKey(ctx, 'sender', request.sender, request.password);
        const keys = request.recipientsPublicKeys.map((keyText, i) => parsePublicKey(ctx, keyText, `recipientsPublicKeys[${i}]`));
        const encrypted = encryptingOr('EncryptForMany failed', 'recipientsPublicKeys', () =>
          textEncryptionFor(crypto).encryptCommon(sender.privateKey, utf8(request.encryptionText), keys),
        );
        const recipientToWrappedStructure: Record<string, string> = {};
        keys.forEach((key, i) => (recipientToWrappedStructure[encodeBase58(key)] = encodeBase58(encrypted.wrappedKeys[i]!)));
        return { encryptedText: encodeBase64(encrypted.encrypted), recipientToWrappedStructure };
      },
    }),
    route({
      method: 'POST',
      path: '/crypto/decrypt',
      auth: 'user',
      summary: 'Decrypts a text as a keystore account',
      body: { schema: DecryptDataRequest, read: 'object', description: 'What to decrypt, as whom, from whom' },
      responses: {
        200: DecryptDataResponse,
        400: err(
          '1 a field missing, of the wrong type or an unknown `cryptoAlgo`; 102 bad recipient address; 108 bad sender key; 115 no such key or wrong password; 199 bad Base64/Base58 or `Decryption failed: …`',
        ),
      },
      handler: async ({ body }, ctx) => {
        const crypto = ctx.services.protocol.crypto.type;
        const request = readCryptoRequest<DecryptRequest>(DecryptDataRequest, body, crypto);
        const encrypted = decodeOr(() => decodeBase64(request.encryptedText), 'encryptedText');
        const senderPublicKey = parsePublicKey(ctx, request.senderPublicKey, 'senderPublicKey');
        const recipient = await keystoreKey(ctx, 'recipient', request.recipient, request.password);
        const wrappedKey = decodeOr(() => decodeBase58(request.wrappedKey), 'wrappedKey');
        try {
          return {
            decryptedText: Buffer.from(textEncryptionFor(crypto).decrypt(recipient.privateKey, senderPublicKey, encrypted, wrappedKey)).toString('utf8'),
          };
        } catch (e) {
          if (e instanceof DecryptionFailure) throw customValidationError(`Decryption failed: ${e.reason}`, 'encryptedText');
          throw e;
        }
      },
    }),
  ],
);

/** Encryption whose failure (a key no secret can be agreed with) is WE's 199 `<what>: Error in encrypt`. */
function encryptingOr<T>(what: string, field: string, encrypt: () => T): T {
  try {
    return encrypt();
  } catch (e) {
    if (e instanceof EncryptionFailure) throw customValidationError(`${what}: ${e.message}`, field);
    throw e;
  }
}

/** A Base64/Base58 field: the decoder's message as WE's 199. */
function decodeOr(decode: () => Uint8Array, field: string): Uint8Array {
  try {
    return decode();
  } catch (e) {
    if (e instanceof EncodingError) throw customValidationError(e.message, field);
    throw e;
  }
}
