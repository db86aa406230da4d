/**
 * The base of every error Weft raises that is not one of WE's API errors: malformed bytes,
 * encodings and certificates, RIDE compile and evaluation aborts, peers that misbehave or go
 * silent, contract runtimes that fail, a config or keystore the node cannot use. WE's errors
 * (catalogue.ts's WeError) are what a client is answered; an InternalError is caught by the
 * layer that knows what it means (and turned into a WE error there) or, reaching the REST
 * server, logged and answered as WE's unknown error. So one check tells the two apart:
 * `e instanceof InternalError`. Each subclass keeps its own name and message.
 */
export class InternalError extends Error {}
