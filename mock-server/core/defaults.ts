/** The default workspace every mock starts with: its id and the key that reaches it. */
export const DEFAULT_API_KEY = "mock-api-key";
export const DEFAULT_WORKSPACE_ID = "default";

/**
 * The kit's identity, answered by GET /__mock/health: the conformance suite treats a target as the
 * kit's mock only when it proves it this way (a foreign server may well answer /__mock/health too).
 * The version is written here, not read from package.json, so the browser door needs no file access;
 * control-plane.test.ts checks that it follows package.json.
 */
export const KIT_NAME = "agent-platform-mock-kit";
export const KIT_VERSION = "0.1.0";
