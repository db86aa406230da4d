/**
 * The node's version, as `/node/version` and `/node/config` report it (WE writes
 * `WE v<version>` and `<version>`; Weft writes its own name and version in that form).
 * A test keeps WEFT_VERSION equal to package.json's version.
 */
export const WEFT_VERSION = '0.1.0';

/** WE's AgentName form: `<name> v<version>`. */
export const AGENT_NAME = `Weft v${WEFT_VERSION}`;
