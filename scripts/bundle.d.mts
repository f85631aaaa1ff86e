/** The bundles, relative to the repo root: bundle/hook.cjs, bundle/cli.cjs. */
export declare const BUNDLES: string[];
/** What the CLI bundle leaves to node_modules (loaded only when an escalation runs). */
export declare const CLI_EXTERNAL: string[];
/** Build both bundles in memory: each file (relative), its text and the inputs it holds (relative). */
export declare function buildBundles(): Promise<{ file: string; text: string; inputs: string[] }[]>;
/** Rebuild the committed bundles; returns the files that changed. */
export declare function writeBundles(): Promise<string[]>;
