/** The release branch the marketplace entry's `ref` names. */
export declare const RELEASE_BRANCH: string;
/** The tag of a release: `claude-plugin-v<version>`. */
export declare function releaseTag(version: string): string;
/** What the plugin tree is built from: a release refuses uncommitted changes here. */
export declare const INPUTS: string[];
/** Write `files` into the object database as one tree; its hash. */
export declare function writeTree(files: { file: string; text: string }[]): string;
/** Build the tree from src/ and publish it on the release branch. */
export declare function release(opts?: {
  push?: string;
}): Promise<{ source: string; version: string; tree: string; commit: string; tag: string; changed: boolean }>;
/** Compare `ref`'s tree with a fresh build: the files that differ. */
export declare function check(ref: string): Promise<string[]>;
