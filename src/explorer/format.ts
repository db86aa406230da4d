/**
 * How values read: amounts in their asset's decimals with every digit kept (int64 values
 * arrive as strings, or as numbers from a node that sends them bare), times, byte sizes.
 */

/** An int64 field as it arrives. */
export type Int64 = string | number;

export const WEST_DECIMALS = 8;

export function toBigInt(value: Int64 | null | undefined): bigint | undefined {
  if (value === null || value === undefined) return undefined;
  try {
    return BigInt(value);
  } catch {
    return undefined;
  }
}

const groupThousands = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/** `123456789`, 8 decimals → `1.23456789`; trailing zeros of the fraction dropped. */
export function formatUnits(value: Int64 | null | undefined, decimals: number): string {
  const v = toBigInt(value);
  if (v === undefined) return '—';
  const negative = v < 0n;
  const abs = negative ? -v : v;
  const scale = 10n ** BigInt(decimals);
  const whole = groupThousands((abs / scale).toString());
  const fraction = decimals === 0 ? '' : (abs % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

export const formatWest = (value: Int64 | null | undefined): string => `${formatUnits(value, WEST_DECIMALS)} WEST`;

export function formatInteger(value: Int64 | null | undefined): string {
  const v = toBigInt(value);
  return v === undefined ? '—' : `${v < 0n ? '-' : ''}${groupThousands((v < 0n ? -v : v).toString())}`;
}

export function formatBytes(bytes: Int64 | null | undefined): string {
  const v = toBigInt(bytes);
  if (v === undefined) return '—';
  const n = Number(v);
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/** A timestamp (ms) in the reader's time zone: `2024-05-01 13:04:05.123`. */
export function formatTime(ms: Int64 | null | undefined): string {
  const v = toBigInt(ms);
  if (v === undefined) return '—';
  const d = new Date(Number(v));
  if (Number.isNaN(d.getTime())) return String(ms);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}.${pad(d.getMilliseconds(), 3)}`;
}

/** `12 s ago`, `3 min ago`, `in 2 s`. */
export function formatAge(ms: Int64 | null | undefined, now: number): string {
  const v = toBigInt(ms);
  if (v === undefined) return '—';
  const delta = now - Number(v);
  const abs = Math.abs(delta);
  const text =
    abs < 1000
      ? `${abs} ms`
      : abs < 60_000
        ? `${Math.round(abs / 1000)} s`
        : abs < 3_600_000
          ? `${Math.round(abs / 60_000)} min`
          : abs < 86_400_000
            ? `${(abs / 3_600_000).toFixed(1)} h`
            : `${(abs / 86_400_000).toFixed(1)} d`;
  return delta >= 0 ? `${text} ago` : `in ${text}`;
}

/** A long id shortened for lists: `4H9t9X…MSMygg`. */
export const shortId = (id: string, keep = 6): string => (id.length <= keep * 2 + 1 ? id : `${id.slice(0, keep)}…${id.slice(-keep)}`);

/** Any JSON value as text: strings as they are, numbers and booleans printed, the rest as JSON. */
export function jsonText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '';
}
