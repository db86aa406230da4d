/**
 * How a RIDE evaluation fails. An ExecutionError is WE's `Left(ExecutionError)` — `throw`,
 * an overflow, a size limit — and reaches the client as 306 with the forced lets as
 * `vars`. An UncaughtError is what WE's JVM would throw past the evaluator (an ill-typed
 * decoded tree, a transaction type WE has no RIDE binding for, a field WE never fills
 * in); WE reports it as `Uncaught execution error: <exception>` with no `vars`.
 */
import { InternalError } from '../errors/internal.js';

export class ExecutionError extends InternalError {}

export class UncaughtError extends InternalError {}

/** Scala's `???`. */
export const notImplemented = (): UncaughtError => new UncaughtError('scala.NotImplementedError: an implementation is missing');
