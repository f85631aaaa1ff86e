/** The bundles, relative to the repo root: bundle/hook.cjs, bundle/cli.cjs, bundle/log-scan.cjs. */
export declare const BUNDLES: string[];
/** What the CLI bundle leaves to node_modules (loaded only when an escalation runs). */
export declare const CLI_EXTERNAL: string[];
/** Build the bundles in memory: each file (relative), its text and the inputs it holds (relative). */
export declare function buildBundles(): Promise<{ file: string; text: string; inputs: string[] }[]>;
/** Write the bundles into each of `outDirs` (relative to the repo root; default bundle/); returns the files that changed. */
export declare function writeBundles(outDirs?: string[]): Promise<string[]>;
