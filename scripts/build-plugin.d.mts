/** The repo's files the plugin tree holds as they are. */
export declare const COPIED: string[];
/** The plugin tree in memory: each file (relative, '/'-separated) and its text, sorted by file. */
export declare function buildPluginTree(): Promise<{ file: string; text: string }[]>;
/** Write the plugin tree into `outDir` (absolute, or relative to the repo root; default plugin/), replacing what was there. */
export declare function writePluginTree(outDir?: string): Promise<{ dir: string; files: { file: string; text: string }[] }>;
