/** The default workspace every mock starts with: its id and the key that reaches it. */
export const DEFAULT_API_KEY = "mock-api-key";
export const DEFAULT_WORKSPACE_ID = "default";
