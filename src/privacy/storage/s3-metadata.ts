/**
 * S3 user metadata travels in HTTP headers (`x-amz-meta-*`), which carry printable ASCII
 * only and lose leading and trailing spaces. Values that would not survive — non-ASCII
 * text (a Cyrillic file name), control characters, surrounding whitespace — are written as
 * RFC 2047 encoded words, `=?UTF-8?B?<Base64 of the UTF-8 bytes>?=`, several separated by
 * a space when long (each at most 75 characters, split between characters), and decoded
 * on read. A plain value that itself looks like an encoded word is encoded too, so the
 * mapping is reversible for every string. Other S3 clients (the AWS CLI, MinIO's console)
 * show such values as encoded words; the AWS SDKs' own decoders read them back.
 */

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const ENCODED_WORD = /=\?UTF-8\?B\?([A-Za-z0-9+/]*={0,2})\?=/gi;
const ENCODED_VALUE = /^=\?UTF-8\?B\?[A-Za-z0-9+/]*={0,2}\?=(?:[ \t]+=\?UTF-8\?B\?[A-Za-z0-9+/]*={0,2}\?=)*$/i;
/** 45 bytes of text → 60 Base64 characters → a 72-character word. */
const BYTES_PER_WORD = 45;

function needsEncoding(value: string): boolean {
  return !PRINTABLE_ASCII.test(value) || value !== value.trim() || /=\?/.test(value);
}

/** A metadata value as it can travel in a header. */
export function encodeMetadataValue(value: string): string {
  if (!needsEncoding(value)) return value;
  const words: string[] = [];
  let chunk: Buffer[] = [];
  let size = 0;
  const flush = (): void => {
    words.push(`=?UTF-8?B?${Buffer.concat(chunk).toString('base64')}?=`);
    chunk = [];
    size = 0;
  };
  for (const ch of value) {
    const bytes = Buffer.from(ch, 'utf8');
    if (size + bytes.length > BYTES_PER_WORD) flush();
    chunk.push(bytes);
    size += bytes.length;
  }
  if (size > 0 || words.length === 0) flush();
  return words.join(' ');
}

/** The original value of a header written by `encodeMetadataValue` (other values as they are). */
export function decodeMetadataValue(value: string): string {
  if (!ENCODED_VALUE.test(value)) return value;
  const bytes = [...value.matchAll(ENCODED_WORD)].map((m) => Buffer.from(m[1]!, 'base64'));
  return Buffer.concat(bytes).toString('utf8');
}
