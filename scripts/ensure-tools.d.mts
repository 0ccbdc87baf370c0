/** Types of ensure-tools.mjs's exports, for the TypeScript that imports them (mock-server/test/chromium.ts). */

/** Where findChromium looks, in order, as words for a message. */
export declare const CHROMIUM_SEARCH: string;
/** The path of `command` in the first of PATH's directories that has it executable. */
export declare function findOnPath(command: string): string | undefined;
/** The Chromium the browser tests launch: the first executable of CHROMIUM_SEARCH, or undefined. */
export declare function findChromium(): string | undefined;
