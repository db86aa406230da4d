import { genericError } from '../errors/catalogue.js';
/**
 * Block scores (we-node consensus/PoALikeConsensus.calculateBlockScore, PoS block score).
 *
 * PoA / CFT: ceil( 2^64 / (99 + overallSkippedRounds) + ((ts / 1e3) mod 1e4) · (ts / 1e10) )
 * evaluated as WE evaluates it:
 *   - the quotient is a java.math.BigDecimal division rounded to 34 significant digits,
 *     HALF_EVEN (Scala's default MathContext, DECIMAL128);
 *   - the second term is IEEE-754 double arithmetic (JS numbers are the same doubles,
 *     and `%` on doubles is fmod in both), turned into a BigDecimal through its decimal
 *     string (Scala's BigDecimal(Double) goes through Double.toString);
 *   - the sum is again rounded to 34 significant digits, HALF_EVEN, then rounded up.
 * JS writes the shortest decimal string that reads back as the same double; JDKs before 19
 * sometimes write a longer one. Both denote a value within half an ulp of the double, so
 * the score can differ only when that sub-ulp difference crosses an integer in the sum —
 * the fraction of the sum would have to lie within ~1e-10 of an integer.
 *
 * PoS: ⌊2^64 / baseTarget⌋.
 *
 * Scores are not part of any signed bytes; the chain score is the sum of block scores.
 */

const TWO_POW_64 = 1n << 64n;
/** Significant digits of java.math.MathContext.DECIMAL128. */
const DECIMAL128_DIGITS = 34;

/** A decimal number unscaled · 10^(−scale), as java.math.BigDecimal holds it. */
interface Decimal {
  readonly unscaled: bigint;
  readonly scale: number;
}

const pow10 = (n: number): bigint => 10n ** BigInt(n);

const abs = (v: bigint): bigint => (v < 0n ? -v : v);

function digitCount(v: bigint): number {
  return v === 0n ? 1 : abs(v).toString().length;
}

/**
 * Divides `value` by 10^drop rounding HALF_EVEN; `sticky` says a non-zero remainder lies
 * beyond `value` (so an exact half is in fact more than a half).
 */
function shiftRoundHalfEven(value: bigint, drop: number, sticky: boolean): bigint {
  if (drop <= 0) return value;
  const negative = value < 0n;
  const m = abs(value);
  const divisor = pow10(drop);
  let q = m / divisor;
  const rem = m % divisor;
  const half = divisor / 2n;
  if (rem > half || (rem === half && (sticky || (q & 1n) === 1n))) q += 1n;
  return negative ? -q : q;
}

/** Rounds to `precision` significant digits, HALF_EVEN (MathContext rounding). */
function roundToPrecision(d: Decimal, precision: number, sticky = false): Decimal {
  let { unscaled, scale } = d;
  let digits = digitCount(unscaled);
  if (digits > precision) {
    const drop = digits - precision;
    unscaled = shiftRoundHalfEven(unscaled, drop, sticky);
    scale -= drop;
    digits = digitCount(unscaled);
    // A carry to 10^precision leaves one digit too many (a trailing zero): drop it.
    if (digits > precision) {
      unscaled /= 10n;
      scale -= 1;
    }
  }
  return { unscaled, scale };
}

/** `numerator / divisor` rounded to `precision` significant digits, HALF_EVEN (BigDecimal.divide(d, mc)). */
function divide(numerator: bigint, divisor: bigint, precision: number): Decimal {
  const negative = numerator < 0n !== divisor < 0n;
  const n = abs(numerator);
  const d = abs(divisor);
  // Scale up so the integer quotient carries at least precision + 2 digits, then round once.
  const extra = Math.max(0, precision + 2 - (digitCount(n) - digitCount(d)));
  const scaled = n * pow10(extra);
  const q = scaled / d;
  const r = scaled % d;
  const rounded = roundToPrecision({ unscaled: q, scale: extra }, precision, r !== 0n);
  return negative ? { unscaled: -rounded.unscaled, scale: rounded.scale } : rounded;
}

function add(a: Decimal, b: Decimal, precision: number): Decimal {
  const scale = Math.max(a.scale, b.scale);
  const sum = a.unscaled * pow10(scale - a.scale) + b.unscaled * pow10(scale - b.scale);
  return roundToPrecision({ unscaled: sum, scale }, precision);
}

/** setScale(0, CEILING). */
function ceiling(d: Decimal): bigint {
  if (d.scale <= 0) return d.unscaled * pow10(-d.scale);
  const divisor = pow10(d.scale);
  const q = d.unscaled / divisor; // truncates toward zero
  return d.unscaled > 0n && d.unscaled % divisor !== 0n ? q + 1n : q;
}

/**
 * The exact decimal a double's string form denotes, rounded to 34 digits as
 * `BigDecimal(Double)` (Scala: `new java.math.BigDecimal(Double.toString(d), DECIMAL128)`) does.
 */
function decimalOfDouble(x: number): Decimal {
  if (!Number.isFinite(x)) throw new RangeError(`Not a finite number: ${x}`);
  const text = x.toString(); // shortest round-trip form, e.g. "2098.6500123", "1.5e-7", "1e+21"
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (match === null) throw new RangeError(`Unexpected number form: ${text}`);
  const [, sign, intPart, fracPart = '', exp = '0'] = match;
  const unscaled = BigInt(`${sign}${intPart}${fracPart}`);
  return roundToPrecision({ unscaled, scale: fracPart.length - Number(exp) }, DECIMAL128_DIGITS);
}

/** The double-arithmetic term of the PoA score: ((ts / 1e3) % 1e4) · (ts / 1e10). */
export function poaTimestampTerm(timestamp: bigint): number {
  const ts = Number(timestamp); // Java's long → double: round to nearest
  return ((ts / 1e3) % 1.0e4) * (ts / 1e10);
}

/** PoA / CFT block score (WE's PoALikeConsensus.calculateBlockScore). */
export function poaBlockScore(overallSkippedRounds: bigint, timestamp: bigint): bigint {
  if (overallSkippedRounds < 0n) throw genericError(`Negative overall-skipped-rounds ${overallSkippedRounds}`, 'consensusData');
  const quotient = divide(TWO_POW_64, 99n + overallSkippedRounds, DECIMAL128_DIGITS);
  const term = decimalOfDouble(poaTimestampTerm(timestamp));
  return ceiling(add(quotient, term, DECIMAL128_DIGITS));
}

/** PoS block score: ⌊2^64 / baseTarget⌋. */
export function posBlockScore(baseTarget: bigint): bigint {
  if (baseTarget <= 0n) throw genericError(`Base target must be positive, got ${baseTarget}`, 'consensusData');
  return TWO_POW_64 / baseTarget;
}

/**
 * Scala's `(BigDecimal(numerator) / BigDecimal(divisor)).toDouble`: the quotient rounded to
 * 34 significant digits (HALF_EVEN, DECIMAL128), then the nearest double (Java's
 * BigDecimal.doubleValue and JS's number parsing both round correctly).
 */
export function decimalQuotientToDouble(numerator: bigint, divisor: bigint): number {
  if (divisor === 0n) throw new RangeError('Division by zero');
  const q = divide(numerator, divisor, DECIMAL128_DIGITS);
  return Number(`${q.unscaled}e${-q.scale}`);
}
