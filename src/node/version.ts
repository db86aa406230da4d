/**
 * The node's version, as `/node/version` and `/node/config` report it (WE writes
 * `WE v<version>` and `<version>`; Weft writes its own name and version in that form).
 * A test keeps WEFT_VERSION equal to package.json's version.
 */
export const WEFT_VERSION = '0.1.0';

/** WE's AgentName form: `<name> v<version>`. */
export const AGENT_NAME = `Weft v${WEFT_VERSION}`;

/**
 * The WE release whose P2P protocol Weft speaks: sent as the application version in the P2P
 * handshake (WE accepts peers from 1.8.4 on) and shown by peers in `/peers/connected`.
 */
export const WE_PROTOCOL_VERSION: readonly [major: number, minor: number, patch: number] = [1, 14, 0];
