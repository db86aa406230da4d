/**
 * Confidential data in S3-compatible object storage (AWS S3, MinIO, s3rver), laid out as
 * WE lays it out (reference §3.3), so WE and Weft nodes read each other's buckets:
 *
 *   object key       policyId ‖ hash (the two Base58 strings, no separator)
 *   user metadata    policyid, hash, sender, filename, size, timestamp, author, comment,
 *                    isLarge ("true"/"false"); values that HTTP headers cannot carry as
 *                    they are (non-ASCII, surrounding spaces) as RFC 2047 encoded words
 *                    (s3-metadata.ts)
 *
 * The bucket is created at start when missing. A small item is checked in memory and put
 * in one request. A large one goes up as a multipart upload in `upload-chunk-size` parts
 * (≥ 5 MiB, one part held in memory at a time) while its SHA-256 is taken; the upload is
 * completed — and the object appears — only when the hash matched, and aborted otherwise
 * (an AbortMultipartUpload the server refuses, as s3rver does with 405, is tolerated: the
 * parts of an uncompleted upload never become an object). A large item shorter than one
 * part is put in one request. At start, uploads left incomplete for more than a day (a
 * crash mid-upload) are aborted when the server can list them.
 *
 * To use MinIO: `vendor = s3`, `url = "http://minio-host:9000/"`, `bucket`, `region =
 * "us-east-1"` (any), `access-key-id`/`secret-access-key` of a MinIO user allowed to create
 * the bucket (or an existing bucket), `path-style-access-enabled = true`.
 */
import type { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { entityAlreadyExists, StorageFailure } from '../../errors/catalogue.js';
import type { PolicyItemKey, PolicyItemMeta, PrivacyDataType } from '../item.js';
import type { S3StorageSettings } from '../settings.js';
import { decodeMetadataValue, encodeMetadataValue } from './s3-metadata.js';
import { chunksOf, ItemDigest, piecesOf, type IncomingData, type PolicyStorage, type StoredData } from './storage.js';

/** S3's smallest part (all but the last). */
export const MIN_PART_SIZE = 5 * 1024 * 1024;
/** Incomplete uploads older than this are left over from a crash. */
const STALE_UPLOAD_MS = 24 * 60 * 60 * 1000;
/** How many HEAD requests `metas` runs at once. */
const HEAD_PARALLELISM = 16;

const objectKey = (k: PolicyItemKey): string => k.policyId + k.hash;

function isNotFound(e: unknown): boolean {
  if (!(e instanceof S3ServiceException)) return false;
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.name === 'NoSuchBucket' || e.$metadata.httpStatusCode === 404;
}

function failure(what: string, e: unknown): StorageFailure {
  return new StorageFailure(`${what}: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`, { cause: e });
}

/** WE's PolicyMetaData.toMap, encoded for headers. */
function metadataOf(meta: PolicyItemMeta, type: PrivacyDataType): Record<string, string> {
  const plain: Record<string, string> = {
    policyid: meta.policyId,
    hash: meta.hash,
    sender: meta.sender,
    filename: meta.filename,
    size: String(meta.size),
    timestamp: meta.timestamp.toString(),
    author: meta.author,
    comment: meta.comment,
    isLarge: String(type === 'large'),
  };
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(plain)) out[k] = encodeMetadataValue(v);
  return out;
}

/** Metadata as a server returns it (keys in any case), or a StorageFailure naming what is wrong. */
function metaOf(key: PolicyItemKey, raw: Record<string, string> | undefined): { meta: PolicyItemMeta; type: PrivacyDataType } {
  const m: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw ?? {})) m[k.toLowerCase()] = decodeMetadataValue(v);
  const size = Number(m['size']);
  const timestamp = m['timestamp'] ?? '';
  if (!Number.isInteger(size) || !/^-?\d+$/.test(timestamp)) throw new StorageFailure(`object ${objectKey(key)} has no readable size/timestamp metadata`);
  return {
    meta: {
      policyId: m['policyid'] ?? key.policyId,
      hash: m['hash'] ?? key.hash,
      sender: m['sender'] ?? '',
      filename: m['filename'] ?? '',
      size,
      timestamp: BigInt(timestamp),
      author: m['author'] ?? '',
      comment: m['comment'] ?? '',
    },
    type: m['islarge'] === 'true' ? 'large' : 'default',
  };
}

export class S3Storage implements PolicyStorage {
  readonly vendor = 's3';

  private constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
    private readonly partSize: number,
  ) {}

  /** Connects, creates the bucket when missing, and aborts uploads a crash left incomplete. */
  static async open(settings: S3StorageSettings): Promise<S3Storage> {
    if (settings.uploadChunkSize < MIN_PART_SIZE)
      throw new Error(`node.privacy.storage.upload-chunk-size must be at least 5MiB for s3, got ${settings.uploadChunkSize} bytes`);
    const client = new S3Client({
      endpoint: settings.url,
      region: settings.region,
      forcePathStyle: settings.pathStyleAccessEnabled,
      credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
      maxAttempts: 3,
      requestHandler: {
        connectionTimeout: settings.connectionTimeoutMs,
        requestTimeout: settings.readTimeoutMs === 0 ? undefined : settings.readTimeoutMs,
        httpAgent: { maxSockets: settings.maxConcurrency, keepAlive: true },
        httpsAgent: { maxSockets: settings.maxConcurrency, keepAlive: true },
      },
    });
    const storage = new S3Storage(client, settings.bucket, settings.uploadChunkSize);
    try {
      await storage.ensureBucket();
      await storage.abortStaleUploads();
    } catch (e) {
      client.destroy();
      throw e;
    }
    return storage;
  }

  private async ensureBucket(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
      return;
    } catch (e) {
      if (!isNotFound(e)) throw failure(`checking bucket '${this.bucket}'`, e);
    }
    try {
      await this.client.send(new CreateBucketCommand({ Bucket: this.bucket }));
    } catch (e) {
      if (!(e instanceof S3ServiceException && (e.name === 'BucketAlreadyOwnedByYou' || e.name === 'BucketAlreadyExists')))
        throw failure(`creating bucket '${this.bucket}'`, e);
    }
  }

  private async abortStaleUploads(): Promise<void> {
    let listed;
    try {
      listed = await this.client.send(new ListMultipartUploadsCommand({ Bucket: this.bucket }));
    } catch {
      // Servers without the listing (s3rver) leave this to the bucket's lifecycle rules.
      return;
    }
    const before = Date.now() - STALE_UPLOAD_MS;
    for (const u of listed.Uploads ?? []) {
      if (u.Key !== undefined && u.UploadId !== undefined && u.Initiated !== undefined && u.Initiated.getTime() < before) await this.abort(u.Key, u.UploadId);
    }
  }

  private async head(key: PolicyItemKey): Promise<{ meta: PolicyItemMeta; type: PrivacyDataType } | undefined> {
    try {
      const r = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey(key) }));
      return metaOf(key, r.Metadata);
    } catch (e) {
      if (isNotFound(e)) return undefined;
      if (e instanceof StorageFailure) throw e;
      throw failure(`reading ${objectKey(key)}`, e);
    }
  }

  async exists(key: PolicyItemKey): Promise<boolean> {
    return (await this.head(key)) !== undefined;
  }

  async itemType(key: PolicyItemKey): Promise<PrivacyDataType | undefined> {
    return (await this.head(key))?.type;
  }

  async meta(key: PolicyItemKey): Promise<PolicyItemMeta | undefined> {
    return (await this.head(key))?.meta;
  }

  async metas(request: ReadonlyMap<string, ReadonlySet<string>>): Promise<PolicyItemMeta[]> {
    const keys: PolicyItemKey[] = [];
    for (const [policyId, hashes] of request) for (const hash of hashes) keys.push({ policyId, hash });
    const out: PolicyItemMeta[] = [];
    for (let i = 0; i < keys.length; i += HEAD_PARALLELISM) {
      const found = await Promise.all(keys.slice(i, i + HEAD_PARALLELISM).map((k) => this.head(k)));
      for (const f of found) if (f !== undefined) out.push(f.meta);
    }
    return out;
  }

  async openData(key: PolicyItemKey): Promise<StoredData | undefined> {
    try {
      const r = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: objectKey(key) }));
      if (r.Body === undefined || r.ContentLength === undefined) throw new StorageFailure(`reading ${objectKey(key)}: the server sent no body or no length`);
      return { length: r.ContentLength, stream: r.Body as Readable };
    } catch (e) {
      if (isNotFound(e)) return undefined;
      if (e instanceof StorageFailure) throw e;
      throw failure(`reading ${objectKey(key)}`, e);
    }
  }

  async readData(key: PolicyItemKey): Promise<Uint8Array | undefined> {
    const opened = await this.openData(key);
    if (opened === undefined) return undefined;
    const parts: Buffer[] = [];
    try {
      for await (const chunk of opened.stream) parts.push(chunk as Buffer);
    } catch (e) {
      throw failure(`reading ${objectKey(key)}`, e);
    }
    return new Uint8Array(Buffer.concat(parts));
  }

  async save(meta: PolicyItemMeta, type: PrivacyDataType, data: IncomingData): Promise<void> {
    if (await this.exists(meta)) throw entityAlreadyExists();
    const Key = objectKey(meta);
    const Metadata = metadataOf(meta, type);
    const digest = new ItemDigest();
    const pieces = piecesOf(chunksOf(data), this.partSize);
    const first = await pieces.next();
    const firstPiece = first.done === true ? new Uint8Array(0) : first.value;
    const second = first.done === true ? first : await pieces.next();
    digest.update(firstPiece);
    if (second.done === true) {
      digest.check(meta.hash);
      try {
        await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key, Metadata, Body: firstPiece, ContentLength: firstPiece.length }));
      } catch (e) {
        throw failure(`storing ${Key}`, e);
      }
      return;
    }
    let uploadId: string | undefined;
    try {
      uploadId = (await this.client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key, Metadata }))).UploadId;
    } catch (e) {
      throw failure(`starting the upload of ${Key}`, e);
    }
    if (uploadId === undefined) throw new StorageFailure(`starting the upload of ${Key}: the server gave no upload id`);
    try {
      const parts: CompletedPart[] = [];
      const upload = async (body: Uint8Array): Promise<void> => {
        const PartNumber = parts.length + 1;
        try {
          const r = await this.client.send(
            new UploadPartCommand({ Bucket: this.bucket, Key, UploadId: uploadId, PartNumber, Body: body, ContentLength: body.length }),
          );
          parts.push({ ETag: r.ETag, PartNumber });
        } catch (e) {
          throw failure(`uploading part ${PartNumber} of ${Key}`, e);
        }
      };
      await upload(firstPiece);
      digest.update(second.value);
      await upload(second.value);
      for await (const piece of pieces) {
        digest.update(piece);
        await upload(piece);
      }
      digest.check(meta.hash);
      try {
        await this.client.send(new CompleteMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
      } catch (e) {
        throw failure(`completing the upload of ${Key}`, e);
      }
    } catch (e) {
      await this.abort(Key, uploadId);
      throw e;
    }
  }

  /** Aborts an upload; a server that refuses (s3rver answers 405) leaves it uncompleted, which is never visible. */
  private async abort(Key: string, UploadId: string): Promise<void> {
    try {
      await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key, UploadId }));
    } catch {
      // Tolerated: an uncompleted upload is no object.
    }
  }

  async healthCheck(): Promise<void> {
    try {
      await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    } catch (e) {
      throw failure(`checking bucket '${this.bucket}'`, e);
    }
  }

  close(): Promise<void> {
    this.client.destroy();
    return Promise.resolve();
  }
}
