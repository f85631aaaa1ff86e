/** Write dist/hook (the hook entry's CommonJS build); returns the source files it holds. */
export declare function buildHook(outDir?: string): Promise<string[]>;
/** True when dist/hook/hook-entry.js is missing or older than a source file of the hook. */
export declare function isHookBuildStale(outDir?: string): boolean;
